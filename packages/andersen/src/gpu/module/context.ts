// The helpers the solver module's WGSL is built with: the settings derived from the kernel params,
// the addressing of the status words, per-node arrays, active lists and set slots, the shapes of
// the entry points (team, thread and single kernels with their gates), and the walks, scans, pulls
// and update steps that several kernels share. Each group is a small function of the groups before
// it; `solverWgslContext` chains them, and every phase's module (`*.wgsl.ts`) takes the result.
// The walks number their loop variables from one counter (`suffixes`), so the phases are built in
// the module's order (see `solverKernelsWgsl`).
import { BASE_WORD, BITS_WORDS, MEMBERS_PER_ELEMENT, NEXT_WORD } from '@gpumorph/sparse-bitvector';
import {
  ACTIVE_LIST,
  CONTROL_ARRAYS,
  CONTROL_HEAD_WORDS,
  LIST_WORD,
  SET_SLOT,
  STATUS,
  STATUS_WORDS,
  THREAD_WORKGROUP,
  WORDS_PER_LIST,
} from '../layout';
import type { SolverKernelParams } from './solver.wgsl';

/**
 * The kernels of a round's folds and rules (through `sort_gate`), which return at once when
 * `rules_gate` found that those submitted ahead must wait for the host (see `STATUS.rulesSkipped`).
 */
export const RULES_GATED: ReadonlySet<string> = new Set([
  'begin_iteration',
  'begin_attempt',
  'delta_clear',
  'delta_bits',
  'delta_leaders',
  'pull_count',
  'pull_items',
  'pull_sources',
  'member_rules',
  'sort_gate',
  'merge_prepare',
  'merge_level',
  'merge_data',
  'merge_done',
]);

/**
 * The update's kernels, gated as the rules' are with `gateUpdate` (`sort_small` gates itself; the
 * radix sort sorts the 0 pairs `rules_gate` leaves it).
 */
export const UPDATE_GATED: ReadonlySet<string> = new Set([
  'merge_partials',
  'mark_segments',
  'apply_pairs',
  'hop_bits',
  'hop_pull',
  'guard_update',
  'pending_list',
  'guard_pending',
  'update_sets',
  'hcd_hook',
  'compress',
  'merge_rank',
  'merge_count',
  'guard_merge',
]);

/** Thread kernels with workgroup barriers (list_append), whose gate must return in uniform control flow. */
export const BARRIER_KERNELS: ReadonlySet<string> = new Set([
  'mark_segments',
  'pending_list',
  'guard_pending',
  'hop_bits',
]);

/** The kernels' settings from the params, and the status, array, list and set-slot addressing. */
function wgslSettings(params: SolverKernelParams) {
  const { team, teamWorkgroupSize: wg, laneWords: lw } = params;
  const sortItems = params.smallSortItems ?? 8;
  const deltaBitmap = params.deltaBitmap !== false;
  const shareEqualSets = params.shareEqualSets !== false;
  const skipJoined = params.hcdSkipJoined !== false;
  const ruleSplit = params.ruleSplit ?? 1;
  const mergeBits = params.partialMergeBits ?? 1;
  const hookSplit = params.hookSplit ?? 1;
  const shareRules = params.shareRules !== false;
  // Lane-parallel pull counts: each lane counts its own sources and the team adds the counts once
  // (subgroup teams; workgroup teams visit the sources one at a time, skipping a ΔP counted before).
  const laneCount = team === 'subgroup';
  const activeLists = params.activeLists !== false;
  const gateUpdate = params.gateUpdate === true;
  const gated = (name: string) => RULES_GATED.has(name) || (gateUpdate && UPDATE_GATED.has(name));
  const deltaList = activeLists && deltaBitmap;
  // The rule list: the rules whose read class has a ΔP, from the delta_bits bitmap (member_rules
  // runs over it instead of over every rule).
  const ruleList = deltaList && params.ruleList !== false;
  // The second copy hop, over the delta_bits bitmap's words (rebuilt for it by hop_bits).
  const hop = deltaBitmap ? params.hop : undefined;
  // The hop's kernels are built either way (every entry point gets a pipeline); only dispatched with it.
  const hopLimits: NonNullable<SolverKernelParams['hop']> = hop ?? { pulls: 2, slots: 60 };
  const subgroups = team === 'subgroup';
  const NONE = '0xffffffffu';
  const S = (name: keyof typeof STATUS) => `${STATUS[name]}u`;
  const A = (name: keyof typeof CONTROL_ARRAYS) =>
    `(${CONTROL_HEAD_WORDS}u + ${CONTROL_ARRAYS[name]}u * params.n)`;
  // The control words of the active lists (LIST_WORD): list l's first word, and its length: the
  // counter its builder appended to (read after the builder's dispatch, before the list's close).
  const L = (name: keyof typeof ACTIVE_LIST) => `${STATUS_WORDS + WORDS_PER_LIST * ACTIVE_LIST[name]}u`;
  const listLength = (name: keyof typeof ACTIVE_LIST) =>
    `atomicLoad(&control[${L(name)} + ${LIST_WORD.counter}u])`;
  // Closes a list at the end of the submission that built it, in a single-invocation kernel that
  // runs anyway (see LIST_WORD).
  const closeList = (name: keyof typeof ACTIVE_LIST, extraItems = '0u') => `
  close_list(${L(name)}, ${extraItems});`;
  const closeDeltaAndPull = activeLists
    ? `${deltaList ? closeList('delta') : ''}${closeList('pull', `min(atomicLoad(&control[${S('pullChunkCount')}]), params.chunk_capacity)`)}${ruleList ? closeList('rules') : ''}`
    : '';
  const closeSegmentsAndPending = activeLists ? `${closeList('segments')}${closeList('pending')}` : '';
  const slot = (name: keyof typeof SET_SLOT, v: string) =>
    SET_SLOT[name] === 0 ? `(${v})` : `(${SET_SLOT[name]}u * params.n + (${v}))`;
  return {
    params,
    team,
    wg,
    lw,
    sortItems,
    deltaBitmap,
    shareEqualSets,
    skipJoined,
    ruleSplit,
    mergeBits,
    hookSplit,
    shareRules,
    laneCount,
    activeLists,
    gateUpdate,
    gated,
    deltaList,
    ruleList,
    hop,
    hopLimits,
    subgroups,
    NONE,
    S,
    A,
    L,
    listLength,
    closeList,
    closeDeltaAndPull,
    closeSegmentsAndPending,
    slot,
  };
}
type WgslSettings = ReturnType<typeof wgslSettings>;

/** Entry-point shapes: team, thread and single kernels, their gates and the fused team kernel. */
function kernelShapes(w: WgslSettings) {
  const { team, wg, S, gated } = w;

  const teamArgs =
    team === 'subgroup'
      ? `@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sg_lane: u32,
  @builtin(subgroup_size) sg_size: u32`
      : `@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32`;
  const teamPrelude =
    team === 'subgroup'
      ? /* wgsl */ `
  // One team per subgroup (subgroups are contiguous ranges of local_invocation_index).
  let teams_per_workgroup = ${wg}u / sg_size;
  let first_team = gm_workgroup_index(wid, nwg) * teams_per_workgroup + lid / sg_size;
  let team_stride = nwg.x * nwg.y * teams_per_workgroup;
  pts_team_begin(sg_lane, sg_size);
  edg_team_begin(sg_lane, sg_size);`
      : /* wgsl */ `
  // One 32-lane team per workgroup.
  let first_team = gm_workgroup_index(wid, nwg);
  let team_stride = nwg.x * nwg.y;
  pts_team_begin(lid, 32u);
  edg_team_begin(lid, 32u);`;
  // The rules' kernels return at once when rules_gate skipped the rules submitted ahead of the
  // host's reading of the update (see GpuSolverOptions.rulesAhead).
  const rulesSkipped = `atomicLoad(&control[${S('rulesSkipped')}]) != 0u`;
  // The same for a kernel with workgroup barriers: the whole workgroup returns.
  const groupRulesGate = /* wgsl */ `
  if (lid == 0u) { rules_gate_word = atomicLoad(&control[${S('rulesSkipped')}]); }
  if (workgroupUniformLoad(&rules_gate_word) != 0u) { return; }`;
  const teamGate = (name: string) =>
    gated(name)
      ? `
  if (pts_team_u(select(0u, 1u, ${rulesSkipped})) != 0u) { return; }`
      : '';
  // The bodies of the team kernels, for the fused entry points below.
  const teamBodies = new Map<string, string>();
  const teamKernel = (name: string, body: string) => {
    teamBodies.set(name, body);
    return /* wgsl */ `
@compute @workgroup_size(${wg})
fn ${name}(${teamArgs}) {${teamPrelude}${teamGate(name)}
${body}
}`;
  };
  const teamArgNames = team === 'subgroup' ? 'lid, sg_lane, sg_size' : 'lid';
  const teamParams = team === 'subgroup' ? 'lid: u32, sg_lane: u32, sg_size: u32' : 'lid: u32';
  // Team kernels that do not depend on one another, run by one dispatch: part i takes the
  // workgroups whose z is i, as if it had been dispatched alone on their x × y grid (its early
  // returns end only its own function).
  const fusedTeamKernel = (name: string, parts: readonly string[]) => /* wgsl */ `${parts
    .map(
      (part) => /* wgsl */ `
fn ${part}_part(wid: vec3u, nwg: vec3u, ${teamParams}) {${teamPrelude}${teamGate(part)}
${teamBodies.get(part) ?? ''}
}`,
    )
    .join('')}
@compute @workgroup_size(${wg})
fn ${name}(${teamArgs}) {
  let part_wid = vec3u(wid.xy, 0u);
  let part_nwg = vec3u(nwg.xy, 1u);
  ${parts.map((part, i) => `if (wid.z == ${i}u) { ${part}_part(part_wid, part_nwg, ${teamArgNames}); }`).join(' else ')}
}`;
  const threadKernel = (name: string, body: string) => /* wgsl */ `
@compute @workgroup_size(${THREAD_WORKGROUP})
fn ${name}(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {${
    !gated(name) ? '' : BARRIER_KERNELS.has(name) ? groupRulesGate : `\n  if (${rulesSkipped}) { return; }`
  }
  let first_item = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u + lid;
  let item_stride = nwg.x * nwg.y * ${THREAD_WORKGROUP}u;
${body}
}`;
  const singleKernel = (name: string, body: string) => /* wgsl */ `
@compute @workgroup_size(1)
fn ${name}() {${gated(name) ? `\n  if (${rulesSkipped}) { return; }` : ''}
${body}
}`;
  return {
    ...w,
    teamArgs,
    teamPrelude,
    rulesSkipped,
    groupRulesGate,
    teamGate,
    teamBodies,
    teamKernel,
    teamArgNames,
    teamParams,
    fusedTeamKernel,
    threadKernel,
    singleKernel,
  };
}
type KernelShapes = ReturnType<typeof kernelShapes>;

/** Steps of several kernels: folding a merged class's sets, the merge plan's begin, the pools' report, an attempt's begin. */
function setSteps(w: KernelShapes) {
  const { slot, S } = w;
  // One child's sets folded into another's (merge_level, merge_data), one pool per team so that a
  // fold's two teams walk the points-to and the edge lists side by side: U ∪= U', K ∩= K' in the
  // points-to pool, E ∪= E', F ∪= F' in the edge pool (the children's copy⁻¹ sources have given
  // them P − ΔP of theirs already, so they join E and F as they are). The child's lists are left
  // empty.
  const foldPointsTo = (into: string, from: string) => /* wgsl */ `
      status |= pts_union(${slot('pending', into)}, ${slot('pending', from)});
      status |= pts_intersection(${slot('points', into)}, ${slot('points', from)});
      if (pts_lane == 0u) {
        pts_heads[${slot('points', from)}] = NONE;
        pts_heads[${slot('pending', from)}] = NONE;
      }`;
  const foldEdges = (into: string, from: string) => /* wgsl */ `
      status |= edg_union(${slot('points', into)}, ${slot('points', from)});
      status |= edg_union(${slot('delta', into)}, ${slot('delta', from)});
      if (pts_lane == 0u) {
        edg_heads[${slot('points', from)}] = NONE;
        edg_heads[${slot('delta', from)}] = NONE;
      }`;
  const foldFailed = /* wgsl */ `
    if (pts_lane == 0u && (status & (pts_INCOMPLETE | pts_CORRUPT)) != 0u) {
      atomicOr(&control[${S('fatal')}], select(FATAL_EXHAUSTED, FATAL_CORRUPT, (status & pts_CORRUPT) != 0u));
    }`;
  // The end of a level kernel (merge_partials, merge_level): each team counts itself done, and the
  // last of the dispatch's teams (every team has read the level by then) sets the count back to 0
  // and moves the level on for the next dispatch. Team-uniform control flow; every team of the
  // dispatch must reach it (the loops above only \`continue\`), except where all return alike.
  const nextLevel = (done: keyof typeof STATUS, advance: string) => /* wgsl */ `
  if (pts_lane == 0u && atomicAdd(&control[${S(done)}], 1u) + 1u == team_stride) {
    atomicStore(&control[${S(done)}], 0u);
    ${advance}
  }`;
  // The merge plan's counts at 0 (guard_update, when it commits).
  const mergeBegin = /* wgsl */ `
  atomicStore(&control[${S('mergeNeedPts')}], 0u);
  atomicStore(&control[${S('mergeNeedEdges')}], 0u);
  atomicStore(&control[${S('skipMerge')}], 0u);
  atomicStore(&control[${S('mergeCursor')}], 0u);
  atomicStore(&control[${S('mergeMaxChildren')}], 0u);
  atomicStore(&control[${S('mergeStride')}], 1u);`;
  // The pools' state in the status words, for the host: after the rules (sort_gate) and after the
  // update (guard_merge).
  const reportPools = /* wgsl */ `
  atomicStore(&control[${S('ptsNext')}], atomicLoad(&pts_header.next));
  atomicStore(&control[${S('ptsCapacity')}], pts_header.capacity);
  atomicStore(&control[${S('ptsExhausted')}], atomicLoad(&pts_header.exhausted));
  atomicStore(&control[${S('edgesNext')}], atomicLoad(&edg_header.next));
  atomicStore(&control[${S('edgesCapacity')}], edg_header.capacity);
  atomicStore(&control[${S('edgesExhausted')}], atomicLoad(&edg_header.exhausted));`;
  // Every attempt at an iteration (the first, and each after a pool grew) starts its counts at 0.
  const beginAttempt = /* wgsl */ `
  atomicStore(&control[${S('active')}], 0u);
  atomicStore(&control[${S('freshNodes')}], 0u);
  atomicStore(&control[${S('edgesAdded')}], 0u);
  atomicStore(&control[${S('skipUpdate')}], 0u);
  atomicStore(&control[${S('pairCount')}], 0u);
  atomicStore(&control[${S('merged')}], 0u);
  atomicStore(&control[${S('pullChunkCount')}], 0u);
  atomicStore(&control[${S('pullMaxChunks')}], 1u);
  atomicStore(&control[${S('pullLevel')}], 0u);
  atomicStore(&control[${S('pullRefused')}], 0u);
  atomicStore(&control[${S('pullsSkipped')}], 0u);
  atomicStore(&control[${S('rulesShared')}], 0u);
  atomicStore(&control[${S('guessMissed')}], 0u);`;
  return { ...w, foldPointsTo, foldEdges, foldFailed, nextLevel, mergeBegin, reportPools, beginAttempt };
}
type SetSteps = ReturnType<typeof setSteps>;

/** Walks over a set's members and over every node, key or rule (sweeps). */
function walks(w: SetSteps) {
  const { lw, NONE } = w;

  // Suffixes that keep the variables of each expanded loop apart.
  const suffixes = { next: 0 };
  // This lane's data words of pool element `e` into `into` (an array<u32, lw>), issued before the
  // team waits for the element's header, so that a walk's step costs one memory round trip.
  const laneWords = (into: string, e: string, pool: 'pts' | 'edg' = 'pts') => /* wgsl */ `
    for (var k = 0u; k < ${lw}u; k++) {
      let w = ${pool}_lane + k * ${pool}_lanes;
      if (w < ${BITS_WORDS}u) { ${into}[k] = ${pool}_load(${e}, w); }
    }`;
  // Visits every member `m` of vector `vector` of the points-to pool, each lane the members of its
  // own words (no team function may be called inside). With `split`, only the members of every
  // split.parts-th element from element split.part on (the split's other teams take the rest).
  const forEachMemberByLane = (vector: string, body: string, split?: { part: string; parts: number }) => {
    const s = `_${suffixes.next++}`;
    // Whether this team takes the element at hand.
    const takes =
      split === undefined || split.parts === 1 ? 'true' : `steps${s} % ${split.parts}u == ${split.part}`;
    return /* wgsl */ `
    {
      var e${s} = pts_team_u(pts_heads[${vector}]);
      var steps${s} = 0u;
      loop {
        if (e${s} == ${NONE} || steps${s} > list_limit) { break; }
        var words${s}: array<u32, ${lw}>;
        if (${takes}) {${laneWords(`words${s}`, `e${s}`)}
        }
        let h${s} = pts_team_u2(vec2u(pts_load(e${s}, ${BASE_WORD}u), pts_load(e${s}, ${NEXT_WORD}u)));
        for (var k${s} = 0u; k${s} < ${lw}u; k${s}++) {
          let w${s} = pts_lane + k${s} * pts_lanes;
          if (w${s} >= ${BITS_WORDS}u || !(${takes})) { break; }
          var word${s} = words${s}[k${s}];
          loop {
            if (word${s} == 0u) { break; }
            let m = h${s}.x * ${MEMBERS_PER_ELEMENT}u + w${s} * 32u + firstTrailingBit(word${s});
            word${s} &= word${s} - 1u;
            ${body}
          }
        }
        e${s} = h${s}.y;
        steps${s}++;
      }
    }`;
  };

  // Runs `body` as a team for every item `item` < `count` of the team whose `test` holds (an
  // expression of `item` that a lane evaluates alone: no team function), one item after another
  // (team t of T takes items t, t + T, …), in increasing order;
  // lanes run `otherwise` (statements, no team function) for the items whose test fails. A
  // `continue` in the body goes on to the next item.
  const sweep = (args: { item: string; count: string; test: string; otherwise?: string; body: string }) => {
    const { item, count, test, body } = args;
    const otherwise = args.otherwise ?? '';
    return /* wgsl */ `
  for (var ${item} = first_team; ${item} < ${count}; ${item} += team_stride) {
    if (pts_team_u(select(0u, 1u, ${test})) == 0u) {
      if (pts_lane == 0u) { ${otherwise} }
      continue;
    }
    ${body}
  }`;
  };
  return { ...w, suffixes, laneWords, forEachMemberByLane, sweep };
}
type Walks = ReturnType<typeof walks>;

/** The scan of a representative's copy⁻¹ sources in a range of its edge lists' word slots. */
function sourceScans(w: Walks) {
  const { suffixes, deltaBitmap, subgroups, slot, lw } = w;

  // Scans the sources of a representative r in the word slots [lo, hi) of list `list` of its edge
  // sets (slot = element ordinal · 30 + word, counted on in `ordinal`, so that E then F form one
  // range), for each source other than r whose `source` set is not empty runs `action(src)` as a team
  // (src team-uniform). Elements wholly below `lo` are skipped without reading their words.
  const scanSources = (
    list: 'points' | 'delta',
    source: 'delta' | 'points' | 'pending',
    action: (src: string) => string,
    // Subgroup teams: statements each lane runs alone for each of its own sources (no team
    // function), instead of the team running `action` on one source at a time.
    laneAction?: (src: string) => string,
  ) => {
    const s = `_${suffixes.next++}`;
    // ΔP sources: only the members whose class has a ΔP (the delta_bits bitmap) are decoded.
    // The hop's N sources likewise, by the bitmap that hop_bits rebuilt from the pending sets.
    const screen = (base: string, word: string) =>
      (source === 'delta' || source === 'pending') && deltaBitmap
        ? ` & pts_heads[delta_bit_word(${base} * ${BITS_WORDS}u + ${word})]`
        : '';
    // Subgroup teams: each lane's words of the element load before its header.
    const preload = subgroups;
    const header = /* wgsl */ `
      var e${s} = pts_team_u(edg_heads[${slot(list, 'r')}]);
      var steps${s} = 0u;
      loop {
        if (e${s} == NONE || steps${s} > list_limit || ordinal * ${BITS_WORDS}u >= hi) { break; }${
          preload
            ? `
        var words${s}: array<u32, ${lw}>;
        for (var k = 0u; k < ${lw}u; k++) {
          let w = pts_lane + k * pts_lanes;
          let g = ordinal * ${BITS_WORDS}u + w;
          if (w < ${BITS_WORDS}u && g >= lo && g < hi) { words${s}[k] = edg_load(e${s}, w); }
        }`
            : ''
        }
        let h${s} = pts_team_u2(vec2u(edg_load(e${s}, ${BASE_WORD}u), edg_load(e${s}, ${NEXT_WORD}u)));
        if (ordinal * ${BITS_WORDS}u + ${BITS_WORDS}u > lo) {`;
    const footer = /* wgsl */ `
        }
        ordinal++;
        e${s} = h${s}.y;
        steps${s}++;
      }`;
    if (subgroups) {
      // Lanes scan their own words for sources that have something to give; the team then acts on
      // one such source at a time, smallest first (so duplicates in the same step merge).
      return /* wgsl */ `
    {${header}
          for (var k = 0u; k < ${lw}u; k++) {
            let w = pts_lane + k * pts_lanes;
            let g = ordinal * ${BITS_WORDS}u + w;
            var word = 0u;
            if (w < ${BITS_WORDS}u && g >= lo && g < hi) { word = ${preload ? `words${s}[k]` : `edg_load(e${s}, w)`}${screen(`h${s}.x`, 'w')}; }${
              laneAction
                ? `
            loop {
              if (word == 0u) { break; }
              let m = h${s}.x * ${MEMBERS_PER_ELEMENT}u + w * 32u + firstTrailingBit(word);
              word &= word - 1u;
              let src = find(m);
              if (src != r && pts_heads[${slot(source, 'src')}] != NONE) { ${laneAction('src')} }
            }`
                : `
            var mine = NONE;
            loop {
              loop {
                if (mine != NONE || word == 0u) { break; }
                let m = h${s}.x * ${MEMBERS_PER_ELEMENT}u + w * 32u + firstTrailingBit(word);
                word &= word - 1u;
                let src = find(m);
                if (src != r && pts_heads[${slot(source, 'src')}] != NONE) { mine = src; }
              }
              let pick = subgroupMin(mine);
              if (pick == NONE) { break; }
              ${action('pick')}
              if (mine == pick) { mine = NONE; }
            }`
            }
          }${footer}
    }`;
    }
    // Workgroup teams: every lane decodes every word (all values broadcast, so the library's
    // team functions, which have barriers, run in uniform control flow).
    return /* wgsl */ `
    {${header}
          for (var w = 0u; w < ${BITS_WORDS}u; w++) {
            let g = ordinal * ${BITS_WORDS}u + w;
            if (g < lo || g >= hi) { continue; }
            var word = pts_team_u(edg_load(e${s}, w)${screen(`h${s}.x`, 'w')});
            loop {
              if (word == 0u) { break; }
              let m = h${s}.x * ${MEMBERS_PER_ELEMENT}u + w * 32u + firstTrailingBit(word);
              word &= word - 1u;
              let src = pts_team_u(find(m));
              if (src != r && pts_team_u(pts_heads[${slot(source, 'src')}]) != NONE) {
                ${action('src')}
              }
            }
          }${footer}
    }`;
  };
  return { ...w, scanSources };
}
type SourceScans = ReturnType<typeof sourceScans>;

/** The pulls and their counts, the leader tables of equal sets, and the sweep of the pulls. */
function pullSteps(w: SourceScans) {
  const { A, slot, hopLimits, sweep, listLength, params } = w;
  // An E source's pull of ΔP: skipped when the team already pulled an equal ΔP in this unit.
  const pullDelta = (src: string) => /* wgsl */ `
              if (pull_seen(pts_team_u(atomicLoad(&control[${A('deltaLeader')} + ${src}])))) {
                skipped++;
              } else {
                status |= pts_union_minus(dst, ${slot('delta', src)}, ${slot('points', 'r')});
              }`;
  const pullPoints = (src: string) => /* wgsl */ `
              status |= pts_union_minus(dst, ${slot('points', src)}, ${slot('points', 'r')});`;
  // A hop pull of N(src) − P(r) into H(r), while the budget lasts (then the scan stops at its next
  // element). With hop.setElements, only of an N of at most that many elements (a pull's walk of N
  // is then a few loads; P(r) is walked either way).
  const hopPull = (src: string) => {
    const pull = /* wgsl */ `
                status |= pts_union_minus(${slot('hop', 'r')}, ${slot('pending', src)}, ${slot('points', 'r')});
                budget--;
                if (budget == 0u) { hi = 0u; }`;
    return /* wgsl */ `
              if (budget > 0u) {${
                hopLimits.setElements === undefined
                  ? pull
                  : `
                if (pts_team_u(select(0u, 1u, pts_elements_at_most(${slot('pending', src)}, ${hopLimits.setElements}u))) != 0u) {${pull}
                }`
              }
              }`;
  };
  const countDelta = (src: string) => /* wgsl */ `
              if (!pull_seen(pts_team_u(atomicLoad(&control[${A('deltaLeader')} + ${src}])))) { pulls++; }`;
  const countPoints = (_src: string) => /* wgsl */ `
              pulls++;`;

  // Gives every root with a non-empty set in slot \`set\` a leader: a root whose set is equal (the
  // first of them to claim a slot of the hash's probe sequence in the table delta_clear emptied),
  // or itself. Equal hashes are checked with pts_equals, so only equal sets share a leader; a
  // missed match (the probe limit) only leaves a set its own leader.
  // With `fromList`, only the roots of the delta list (those with a ΔP, as delta_bits found them);
  // the others' leaders are left as they were (read only for roots with a ΔP).
  const equalSetLeaders = (set: 'delta' | 'points', fromList = false) =>
    sweep({
      item: fromList ? 'i' : 's',
      // Through the team's broadcast: a workgroup team's barriers need a uniform loop bound.
      count: fromList ? `pts_team_u(${listLength('delta')})` : 'params.n',
      test: fromList ? 'true' : `find(s) == s && pts_heads[${slot(set, 's')}] != NONE`,
      otherwise: fromList ? '' : `atomicStore(&control[${A('deltaLeader')} + s], s);`,
      body: /* wgsl */ `${
        fromList
          ? `
    let s = pts_team_u(atomicLoad(&control[${A('deltaList')} + i]));`
          : ''
      }
    var lead = s;
    {
      let h = ${params.collideHashes ? '0u' : `pts_team_hash(${slot(set, 's')})`};
      if (pts_lane == 0u) { atomicStore(&control[${A('deltaHash')} + s], h); }
      var at = h & params.table_mask;
      for (var probe = 0u; probe < 64u; probe++) {
        let occupant = claim_table_slot(delta_table_word(at), s);
        if (occupant == NONE || occupant == s) { break; }
        if (pts_team_u(atomicLoad(&control[${A('deltaHash')} + occupant])) == h) {
          if (pts_equals(${slot(set, 'occupant')}, ${slot(set, 's')})) {
            lead = occupant;
            break;
          }
        }
        at = (at + 1u) & params.table_mask;
      }
    }
    if (pts_lane == 0u) { atomicStore(&control[${A('deltaLeader')} + s], lead); }`,
    });

  // The bound on a list walk that scanSources reads (a corrupt list stops there).
  const listLimit = 'let list_limit = pts_team_u(max(pts_header.capacity, edg_header.capacity)) + 1u;';
  // pull_count's and hop_pull's sweep: every representative r with copy⁻¹ sources (E or F).
  const sourcesSweep = (args: { otherwise?: string; body: string }) => /* wgsl */ `
  ${listLimit}
  ${sweep({
    item: 'r',
    count: 'params.n',
    test: `find(r) == r && (edg_heads[${slot('points', 'r')}] != NONE || edg_heads[${slot('delta', 'r')}] != NONE)`,
    ...args,
  })}`;
  return {
    ...w,
    pullDelta,
    pullPoints,
    hopPull,
    countDelta,
    countPoints,
    equalSetLeaders,
    listLimit,
    sourcesSweep,
  };
}
type PullSteps = ReturnType<typeof pullSteps>;

/** The update's tests and sweeps, the tables' clearing, the guard's and the pending list's bodies. */
function updateSteps(w: PullSteps) {
  const { slot, hop, activeLists, sweep, listLength, A, shareRules, S, mergeBegin, L } = w;
  // Node v has a pending points-to or copy⁻¹ set (the update's kernels work on those).
  const pendingTest = `pts_heads[${slot('pending', 'v')}] != NONE || edg_heads[${slot('pending', 'v')}] != NONE${
    hop ? ` || pts_heads[${slot('hop', 'v')}] != NONE` : ''
  }`;
  // The delta_bits words rebuilt as one bit per node m: whether find(m) (`root`) has a non-empty
  // points-to set in slot `set`. One invocation per node, a workgroup's words gathered in
  // workgroup memory; `perNode` runs in every invocation (barriers allowed) with `m`, `root`
  // (NONE past the nodes) and `set_bit` in scope. Needs `words` and `stride`.
  const classBitmap = (set: 'delta' | 'pending', perNode = '') => /* wgsl */ `
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < 32u * words; start += stride) {
    if (lid < ${THREAD_WORKGROUP / 32}u) { atomicStore(&delta_bits_words[lid], 0u); }
    workgroupBarrier();
    let m = start + lid;
    var root = NONE;
    var set_bit = false;
    if (m < params.n) {
      root = find(m);
      set_bit = pts_heads[${slot(set, 'root')}] != NONE;
      if (set_bit) { atomicOr(&delta_bits_words[lid / 32u], 1u << (lid % 32u)); }
    }${perNode}
    workgroupBarrier();
    let word = start / 32u + lid;
    if (lid < ${THREAD_WORKGROUP / 32}u && word < words) {
      pts_heads[delta_bit_word(word)] = atomicLoad(&delta_bits_words[lid]);
    }
  }`;
  // The nodes the update visits (every node's test, or the pending list built with it): those with
  // a pending set (N, G or H), or a ΔP or F to drop.
  const updateTest = `${pendingTest} || pts_heads[${slot('delta', 'v')}] != NONE || edg_heads[${slot('delta', 'v')}] != NONE`;
  const updateSweep = (body: string) =>
    activeLists
      ? sweep({
          item: 'i',
          count: `pts_team_u(${listLength('pending')})`,
          test: 'true',
          body: `
    let v = pts_team_u(atomicLoad(&control[${A('pendingList')} + i]));${body}`,
        })
      : sweep({ item: 'v', count: 'params.n', test: updateTest, body });

  // Before each attempt's rules: the ΔP leader table, the rules' signature table and the worklist's
  // pair table (both words of every slot; none without dedupePairs, whose mask is then 0), in one
  // dispatch.
  const clearTables = /* wgsl */ `
  for (var i = first_item; i <= params.table_mask; i += item_stride) {
    atomicStore(&control[delta_table_word(i)], NONE);${
      shareRules
        ? `
    atomicStore(&control[rule_table_word(i)], NONE);`
        : ''
    }
  }
  if (params.pair_table_mask != 0u) {
    for (var i = first_item; i < 2u * (params.pair_table_mask + 1u); i += item_stride) {
      atomicStore(&control[pair_table_word(0u) + i], NONE);
    }
  }`;

  const guardUpdateBody = /* wgsl */ `
  // The update may copy every element gathered since the iteration began (and what the last
  // merges left pending) once more; commit nothing unless that fits.
  let pts_next = atomicLoad(&pts_header.next);
  let edg_next = atomicLoad(&edg_header.next);
  let pts_cap = pts_header.capacity;
  let edg_cap = edg_header.capacity;
  let pts_need = (min(pts_next, pts_cap) - atomicLoad(&control[${S('markPts')}])) + atomicLoad(&control[${S('mergeNeedPts')}]);
  let edg_need = (min(edg_next, edg_cap) - atomicLoad(&control[${S('markEdges')}])) + atomicLoad(&control[${S('mergeNeedEdges')}]);
  var skip = atomicLoad(&pts_header.exhausted) != 0u || atomicLoad(&edg_header.exhausted) != 0u;
  skip = skip || atomicLoad(&control[${S('pairCount')}]) > params.pair_capacity;
  skip = skip || atomicLoad(&control[${S('guessMissed')}]) != 0u;
  skip = skip || pts_next >= pts_cap || pts_cap - pts_next < pts_need;
  skip = skip || edg_next >= edg_cap || edg_cap - edg_next < edg_need;
  atomicStore(&control[${S('skipUpdate')}], select(0u, 1u, skip));
  // The merge plan's counts start again once the last merges' needs above are read: no kernel
  // between here and merge_rank reads them.
  if (!skip) {${mergeBegin}
  }`;
  // The pending list: the nodes with a pending or ΔP set (the update's kernels run over it; a node
  // with neither is left alone by all of them).
  const pendingListBody = /* wgsl */ `
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < params.n; start += item_stride) {
    let v = start + lid;
    var keep = false;
    if (v < params.n) { keep = ${updateTest}; }
    list_append(${L('pending')}, ${A('pendingList')}, keep, v, lid);
  }`;
  return {
    ...w,
    pendingTest,
    classBitmap,
    updateTest,
    updateSweep,
    clearTables,
    guardUpdateBody,
    pendingListBody,
  };
}
type UpdateSteps = ReturnType<typeof updateSteps>;

/** What the phases' WGSL is built from (see {@link solverWgslContext}). */
export type SolverWgsl = UpdateSteps;

/** The helpers every phase's WGSL is built with, for `params`. */
export function solverWgslContext(params: SolverKernelParams): SolverWgsl {
  return updateSteps(pullSteps(sourceScans(walks(setSteps(kernelShapes(wgslSettings(params)))))));
}
