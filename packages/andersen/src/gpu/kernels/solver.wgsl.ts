import { MAX_BASE, type TeamKind } from '@gpumorph/sparse-bitvector';
import {
  ACTIVE_LIST,
  CONTROL_ARRAY_COUNT,
  CONTROL_ARRAYS,
  CONTROL_HEAD_WORDS,
  LIST_WORD,
  NODE_SET_SLOTS,
  PAIR_POOL,
  RULE_KIND,
  SET_SLOT,
  STATUS,
  STATUS_WORDS,
  THREAD_WORKGROUP,
  WORDS_PER_LIST,
} from '../layout';

/**
 * Inputs of {@link solverKernelsWgsl}.
 *
 * @example
 * ```ts
 * const params: SolverKernelParams = { team: 'subgroup', teamWorkgroupSize: 32, layoutWgsl, laneWords: 1 };
 * ```
 */
export interface SolverKernelParams {
  readonly team: TeamKind;
  /** Invocations per workgroup of the team kernels (32 for `workgroup` teams). */
  readonly teamWorkgroupSize: number;
  /** The bind-group declarations (`solverLayout(…).wgsl()`). */
  readonly layoutWgsl: string;
  /** Words one lane owns at most (`ceil(31 / smallest subgroup size)`; 1 for `workgroup` teams). */
  readonly laneWords: number;
  /**
   * Pairs each of the 256 invocations of `sort_small` holds (default 8): the worklists it sorts
   * in one workgroup have up to 256 × this many pairs, which take 8 bytes each of workgroup memory
   * (plus 1 KiB).
   */
  readonly smallSortItems?: number;
  /**
   * Screen the sources of the ΔP pulls through the `delta_bits` bitmap (default true): lanes AND
   * each word of E with the bitmap's word and decode only the sources whose class has a ΔP, where
   * without it every member of E is looked up (a find and a head load) every round.
   */
  readonly deltaBitmap?: boolean | undefined;
  /**
   * `member_rules` runs over the rule list, which `pull_items` builds from the `delta_bits` bitmap
   * (default true; only with `activeLists` and `deltaBitmap`), instead of over every rule.
   */
  readonly ruleList?: boolean | undefined;
  /**
   * Representatives with equal P sets share one copy in the readback (default true): the host
   * runs `delta_clear` and `live_leaders` before `live_count`, and reads the leaders back.
   */
  readonly shareEqualSets?: boolean | undefined;
  /** Give every set the hash 0, so that only `pts_equals` tells sets apart (tests). */
  readonly collideHashes?: boolean | undefined;
  /**
   * hcd_hook skips a pointee whose parent is already the pointer's target class (one load instead
   * of the two finds of a hook; default true). False for A/B runs.
   */
  readonly hcdSkipJoined?: boolean | undefined;
  /**
   * Teams per rule in member_rules (`ruleSplit`) and per online pair in hcd_hook (`hookSplit`),
   * default 1: each decodes every n-th element of the ΔP, so that a large ΔP's members, a few
   * dependent loads each, spread over several teams.
   */
  readonly ruleSplit?: number | undefined;
  readonly hookSplit?: number | undefined;
  /**
   * log2 of the partial-merge tree's fan-in (`merge_partials`): at each level a representative's
   * chunks fold in groups of 2^bits, so ⌈log2 chunks / bits⌉ levels (dispatches) take them all
   * (default 1: pairs).
   */
  readonly partialMergeBits?: number | undefined;
  /**
   * member_rules runs one rule of each signature (kind, class written, ΔP leader of the class
   * read, offset) and skips the others, which would push the same pairs (default true; `delta_clear`
   * empties the table of signatures first). False for A/B runs.
   */
  readonly shareRules?: boolean | undefined;
  /**
   * The kernels that sweep every node for the few with work (`delta_leaders`, `pull_sources`,
   * `apply_pairs`, `update_sets`) run instead over compact
   * lists built on the GPU (`ACTIVE_LIST` in `layout.ts`), striding over whatever the list holds for the
   * teams the host launched (default true; `delta_leaders` only with `deltaBitmap`, whose kernel
   * builds its list). False for A/B runs.
   */
  readonly activeLists?: boolean | undefined;
  /**
   * The update's kernels (the partial-merge levels, `sort_small`, `mark_segments` to `guard_merge`)
   * return at once while `rulesSkipped` is set, as the rules' do, and `rules_gate` keeps the flag
   * once set and sets the sort's count to 0: a whole round (rules, guessed sort and update) queued
   * behind the one before it does nothing when its gate holds it back, nor does one queued behind
   * it (see `GpuSolverOptions.pipelineRounds`). Default false.
   */
  readonly gateUpdate?: boolean | undefined;
  /**
   * The second copy hop (`hop_bits`, `hop_pull`, after `apply_pairs`): each representative pulls,
   * from the first `slots` word slots of its F then E lists, the pending sets N of up to `pulls`
   * sources (with `setElements`, only those whose N has at most that many elements; with
   * `pointsElements`, only representatives whose P has at most that many) into its set H, which
   * `update_sets` adds to N. Needs `deltaBitmap` (its words are reused). Undefined: off.
   */
  readonly hop?:
    | {
        readonly pulls: number;
        readonly slots: number;
        readonly setElements?: number | undefined;
        readonly pointsElements?: number | undefined;
      }
    | undefined;
}

/** Words of the `delta_bits` bitmap for `nodeCount` nodes: whole elements' worth (30 words per 960 members). */
export function deltaBitmapWords(nodeCount: number): number {
  return 30 * Math.ceil(Math.max(1, nodeCount) / 960);
}

/** Invocations of `sort_small`, the one-workgroup sort of a short worklist. */
export const SMALL_SORT_THREADS = 256;

/** The most pairs `sort_small` sorts with `items` pairs per invocation. */
export function smallSortCapacity(items: number): number {
  return SMALL_SORT_THREADS * items;
}

/** Workgroup memory `sort_small` declares with `items` pairs per invocation: 8 bytes a pair, 4 per invocation. */
export function smallSortWorkgroupBytes(items: number): number {
  return 8 * smallSortCapacity(items) + 4 * SMALL_SORT_THREADS;
}

/**
 * The entry points of one solver iteration, in the order the host encodes them. First submission:
 * the folds of the last round's merges (`merge_prepare`, `merge_level` once per level of the
 * children's tree, its last team doubling the stride, `merge_data`, `merge_done`; only after a
 * round that merged), `init_state` then the initial sets' sort, `mark_segments` and `apply_pairs`
 * (first submission only), `begin_iteration` (which also begins the first attempt) or
 * `begin_attempt` (an attempt after a pool grew), `delta_bits` (which also empties the ΔP leader,
 * rule signature and pair tables; `delta_clear` does that without the bitmap), `delta_leaders`,
 * `pull_count`, `pull_items` (which also builds the rule list), `pull_sources`, `member_rules`,
 * `sort_gate`. Second (after a `sort_gate` again when the first ran on a guess that fell short):
 * the worklist's sort (the merge sort, or the radix sort, or `sort_small`), `merge_partials` once
 * per level of the partial-merge tree (the last team of each moves the level on),
 * `mark_segments`, `apply_pairs`, `guard_update`,
 * `pending_list`, `update_sets`, `hcd_hook`,
 * `compress` (which also links the merged nodes to their roots), then the merge plan
 * (`merge_rank`, `merge_count`, `guard_merge`, which also copies the pools' state out; the plan's
 * counts start at 0 in `guard_update`; a pool short of room for the folds grows and the plan
 * stands). Each of those doubles saves a dispatch a round. After the last iteration one
 * submission runs `delta_clear`, `live_leaders`, `live_count` and `live_copy`, which lay the
 * distinct representatives' P sets out for the readback, count them and flatten the union–find.
 * With `rulesAhead` the first submission of a round (from `begin_iteration` on, no folds) may go up
 * right behind the update before it, with `rules_gate` first: every kernel of it returns at once
 * when the gate sets `rulesSkipped`.
 * `pending_list` runs only with `activeLists` (see `ACTIVE_LIST` in `layout.ts`); `sort_gate` closes the
 * rules' lists and `guard_merge` the update's.
 * Team kernels run one team (subgroup, or emulated 32-lane workgroup) per node, calling the sparse
 * bit vector library of the `pts` and `edg` pools; the rest run one invocation per node or item.
 *
 * @example
 * ```ts
 * const code = linkWgsl(solverKernelsWgsl({ team: 'subgroup', teamWorkgroupSize: 128, layoutWgsl, laneWords: 4 }), [gridWgsl, ptsLib, edgLib]);
 * ```
 */
export function solverKernelsWgsl(params: SolverKernelParams): string {
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

  // Suffixes that keep the variables of each expanded loop apart.
  let decodeCount = 0;
  // This lane's data words of pool element `e` into `into` (an array<u32, lw>), issued before the
  // team waits for the element's header, so that a walk's step costs one memory round trip.
  const laneWords = (into: string, e: string, pool: 'pts' | 'edg' = 'pts') => /* wgsl */ `
    for (var k = 0u; k < ${lw}u; k++) {
      let w = ${pool}_lane + k * ${pool}_lanes;
      if (w < 30u) { ${into}[k] = ${pool}_load(${e}, w); }
    }`;
  // Visits every member `m` of vector `vector` of the points-to pool, each lane the members of its
  // own words (no team function may be called inside). With `split`, only the members of every
  // split.parts-th element from element split.part on (the split's other teams take the rest).
  const forEachMemberByLane = (vector: string, body: string, split?: { part: string; parts: number }) => {
    const s = `_${decodeCount++}`;
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
        let h${s} = pts_team_u2(vec2u(pts_load(e${s}, 30u), pts_load(e${s}, 31u)));
        for (var k${s} = 0u; k${s} < ${lw}u; k${s}++) {
          let w${s} = pts_lane + k${s} * pts_lanes;
          if (w${s} >= 30u || !(${takes})) { break; }
          var word${s} = words${s}[k${s}];
          loop {
            if (word${s} == 0u) { break; }
            let m = h${s}.x * 960u + w${s} * 32u + firstTrailingBit(word${s});
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
    const s = `_${decodeCount++}`;
    // ΔP sources: only the members whose class has a ΔP (the delta_bits bitmap) are decoded.
    // The hop's N sources likewise, by the bitmap that hop_bits rebuilt from the pending sets.
    const screen = (base: string, word: string) =>
      (source === 'delta' || source === 'pending') && deltaBitmap
        ? ` & pts_heads[delta_bit_word(${base} * 30u + ${word})]`
        : '';
    // Subgroup teams: each lane's words of the element load before its header.
    const preload = subgroups;
    const header = /* wgsl */ `
      var e${s} = pts_team_u(edg_heads[${slot(list, 'r')}]);
      var steps${s} = 0u;
      loop {
        if (e${s} == NONE || steps${s} > list_limit || ordinal * 30u >= hi) { break; }${
          preload
            ? `
        var words${s}: array<u32, ${lw}>;
        for (var k = 0u; k < ${lw}u; k++) {
          let w = pts_lane + k * pts_lanes;
          let g = ordinal * 30u + w;
          if (w < 30u && g >= lo && g < hi) { words${s}[k] = edg_load(e${s}, w); }
        }`
            : ''
        }
        let h${s} = pts_team_u2(vec2u(edg_load(e${s}, 30u), edg_load(e${s}, 31u)));
        if (ordinal * 30u + 30u > lo) {`;
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
            let g = ordinal * 30u + w;
            var word = 0u;
            if (w < 30u && g >= lo && g < hi) { word = ${preload ? `words${s}[k]` : `edg_load(e${s}, w)`}${screen(`h${s}.x`, 'w')}; }${
              laneAction
                ? `
            loop {
              if (word == 0u) { break; }
              let m = h${s}.x * 960u + w * 32u + firstTrailingBit(word);
              word &= word - 1u;
              let src = find(m);
              if (src != r && pts_heads[${slot(source, 'src')}] != NONE) { ${laneAction('src')} }
            }`
                : `
            var mine = NONE;
            loop {
              loop {
                if (mine != NONE || word == 0u) { break; }
                let m = h${s}.x * 960u + w * 32u + firstTrailingBit(word);
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
          for (var w = 0u; w < 30u; w++) {
            let g = ordinal * 30u + w;
            if (g < lo || g >= hi) { continue; }
            var word = pts_team_u(edg_load(e${s}, w)${screen(`h${s}.x`, 'w')});
            loop {
              if (word == 0u) { break; }
              let m = h${s}.x * 960u + w * 32u + firstTrailingBit(word);
              word &= word - 1u;
              let src = pts_team_u(find(m));
              if (src != r && pts_team_u(pts_heads[${slot(source, 'src')}]) != NONE) {
                ${action('src')}
              }
            }
          }${footer}
    }`;
  };
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
  const code = /* wgsl */ `
struct AndersenParams { n: u32, hcd_start: u32, hcd_count: u32, pair_capacity: u32, base_bits: u32, pull_chunk: u32, max_chunks: u32, chunk_capacity: u32, table_mask: u32, sort_key_bits: u32, sort_value_bits: u32, pair_table_mask: u32, guess_sort_capacity: u32, guess_levels: u32, grow_below: u32, fold_levels: u32 }
${params.layoutWgsl}

const NONE: u32 = ${NONE};

// The control word holding extra pull chunk i's representative (after the per-node arrays).
fn pull_owner_word(i: u32) -> u32 { return ${CONTROL_HEAD_WORDS}u + ${CONTROL_ARRAY_COUNT}u * params.n + i; }
// The points-to head slot of extra pull chunk i's partial set (after the per-node slots).
fn partial_slot(i: u32) -> u32 { return ${NODE_SET_SLOTS}u * params.n + i; }
// Word i of the delta_bits bitmap (bit m: m's class has a ΔP), after the partial sets' slots.
fn delta_bit_word(i: u32) -> u32 { return ${NODE_SET_SLOTS}u * params.n + params.chunk_capacity + i; }
// The control word of slot i of the ΔP leader table (after the extra chunks' owners).
fn delta_table_word(i: u32) -> u32 { return ${CONTROL_HEAD_WORDS}u + ${CONTROL_ARRAY_COUNT}u * params.n + params.chunk_capacity + i; }
// The control word of slot i of the rules' signature table (after the ΔP leader table, as large).
fn rule_table_word(i: u32) -> u32 { return delta_table_word(params.table_mask + 1u + i); }
// The key word of slot i of the worklist's table of pairs pushed this attempt (its source word
// follows), after the signature table.
fn pair_table_word(i: u32) -> u32 { return delta_table_word(2u * (params.table_mask + 1u)) + 2u * i; }
// The control word of entry i of the rule list (see ruleList), after the pair table.
fn rule_list_word(i: u32) -> u32 {
  return pair_table_word(select(0u, params.pair_table_mask + 1u, params.pair_table_mask != 0u)) + i;
}
// Whether node m's class has a ΔP: bit m of the delta_bits bitmap.
fn delta_bit(m: u32) -> bool { return (pts_heads[delta_bit_word(m / 32u)] & (1u << (m % 32u))) != 0u; }

// A team's record of the ΔP leaders it has pulled in this unit: lane (leader mod lanes) keeps the
// leaders that map to it, 16 per lane, direct-mapped (a leader evicted by another is pulled again,
// which is only wasted work).
var<private> pull_cache: array<u32, 16>;
fn pull_cache_reset() { for (var i = 0u; i < 16u; i++) { pull_cache[i] = NONE; } }
// True when the team already pulled ΔP leader \`lead\` in this unit; otherwise records it. A team
// function: call it with a team-uniform \`lead\` in team-uniform control flow.
fn pull_seen(lead: u32) -> bool {
  var hit = 0u;
  if (pts_lane == lead % pts_lanes) {
    let at = (lead / pts_lanes) % 16u;
    if (pull_cache[at] == lead) { hit = 1u; } else { pull_cache[at] = lead; }
  }
  return pts_team_or(hit) != 0u;
}

// The table slot at control word \`word\` for \`claimant\`: NONE when the team's lane 0 claimed it,
// otherwise who holds it (the claimant itself when another team of it came first). A team function.
fn claim_table_slot(word: u32, claimant: u32) -> u32 {
  var occupant = NONE;
  if (pts_lane == 0u) {
    loop {
      let claimed = atomicCompareExchangeWeak(&control[word], NONE, claimant);
      if (claimed.exchanged) { break; }
      // A weak exchange may fail spuriously: retry until the slot holds someone.
      if (claimed.old_value != NONE) { occupant = claimed.old_value; break; }
    }
  }
  return pts_team_u(occupant);
}

// The class whose ΔP rule c reads: y's for loads and offsets, the owner's for stores.
fn rule_read_class(c: u32) -> u32 {
  let rule = rule_table[c];
  return find(select(rule.y, rule.w, rule.x == ${RULE_KIND.store}u));
}

// Whether rule c reads a non-empty ΔP (member_rules' sweep runs only those).
fn rule_reads_delta(c: u32) -> bool { return pts_heads[${slot('delta', 'rule_read_class(c)')}] != NONE; }

// What a rule of member_rules pushes depends only on its signature: its kind, the class it writes
// (the owner's for loads and offsets, y's for stores), the ΔP leader of the class it reads (equal
// ΔPs, one leader) and its offset. Rules of one signature push the same pairs.
fn rule_signature(c: u32) -> vec4u {
  let rule = rule_table[c];
  let reads = rule_read_class(c);
  let written = find(select(rule.w, rule.y, rule.x == ${RULE_KIND.store}u));
  return vec4u(rule.x, written, atomicLoad(&control[${A('deltaLeader')} + reads]), rule.z);
}

fn rule_hash(signature: vec4u) -> u32 {
  var h = (signature.x * 0x9e3779b9u) ^ signature.y;
  h = ((h ^ (h >> 16u)) * 0x85ebca6bu) ^ signature.z;
  h = ((h ^ (h >> 13u)) * 0xc2b2ae35u) ^ signature.w;
  h = (h ^ (h >> 16u)) * 0x27d4eb2du;
  return h ^ (h >> 15u);
}

// True when another rule of rule c's signature holds its slot of the table (that rule pushes the
// pairs): the first rule of a signature to claim a slot of the hash's probe sequence runs, the
// others skip. Each slot is claimed once, so every team of rule c finds the same answer. A probe
// sequence that runs out (a full table) answers false: the rule runs, which only repeats pairs. A
// team function: team-uniform arguments, team-uniform control flow.
fn rule_shared(c: u32, signature: vec4u) -> bool {
  var at = ${params.collideHashes ? '0u' : 'rule_hash(signature)'} & params.table_mask;
  for (var probe = 0u; probe < 32u; probe++) {
    let occupant = claim_table_slot(rule_table_word(at), c);
    if (occupant == NONE || occupant == c) { return false; }
    if (pts_team_u(select(0u, 1u, all(rule_signature(occupant) == signature))) != 0u) { return true; }
    at = (at + 1u) & params.table_mask;
  }
  return false;
}
// A hash of set v that the whole team computes: each lane mixes its own words with the element's
// base, the team sums them per element, and the elements' sums are chained. Equal sets (the lists
// are canonical: bases increasing, no empty element) hash equal, which is all the leader tables
// need; the library's pts_hash, which equals the CPU's SparseBitVector.hash, mixes all 31 words of
// every element on one lane.
fn pts_team_hash(v: u32) -> u32 {
  let limit = pts_team_u(pts_header.capacity) + 1u;
  var h = 0x2545f491u;
  var steps = 0u;
  var e = pts_team_u(pts_heads[v]);
  loop {
    if (e == NONE || steps > limit) { break; }
    var words: array<u32, ${lw}>;${laneWords('words', 'e')}
    let header = pts_team_u2(vec2u(pts_load(e, 30u), pts_load(e, 31u)));
    var mine = 0u;
    for (var k = 0u; k < ${lw}u; k++) {
      let w = pts_lane + k * pts_lanes;
      if (w >= 30u) { break; }
      let word = words[k];
      if (word != 0u) { mine += gm_hash_mix(gm_hash_mix(header.x, w), word); }
    }
    h = gm_hash_mix(h, pts_team_add(mine));
    e = header.y;
    steps++;
  }
  return gm_hash_finish(h, steps);
}

// The root whose P stands for v's in the readback (set by live_leaders when equal sets share one copy).
fn live_leader(v: u32) -> u32 {
  return ${shareEqualSets ? `atomicLoad(&control[${A('deltaLeader')} + v])` : 'v'};
}
const FATAL_CORRUPT: u32 = 1u;
const FATAL_EXHAUSTED: u32 = 2u;

fn find(v0: u32) -> u32 {
  var v = v0;
  loop {
    let p = atomicLoad(&control[${A('parent')} + v]);
    if (p == v) { return v; }
    v = p;
  }
}

// Lock-free union–find link: the larger root is hooked under the smaller with a compare-exchange
// on a root, so parents only decrease and no invocation waits for another.
fn hook(a0: u32, b0: u32) {
  var a = a0;
  var b = b0;
  loop {
    a = find(a);
    b = find(b);
    if (a == b) { return; }
    let hi = max(a, b);
    let lo = min(a, b);
    let swapped = atomicCompareExchangeWeak(&control[${A('parent')} + hi], hi, lo);
    if (swapped.exchanged) {
      let at = atomicAdd(&control[${S('merged')}], 1u);
      atomicStore(&control[${A('mergedList')} + at], hi);
      return;
    }
  }
}

fn object_size(v: u32) -> u32 { return nodes[v]; }

// Adds the sources pair_values[start, end), sorted by element base, to vector v in one walk of its
// list (adjacent duplicates are skipped): 1 when something was added, 2 when the pool ran out.
fn pts_insert_sorted(v: u32, start: u32, end: u32) -> u32 {
  var status = 0u;
  var prev = NONE;
  var e = pts_heads[v];
  var last = NONE;
  for (var i = start; i < end; i++) {
    let m = pair_values[i];
    if (m == last) { continue; }
    last = m;
    let base = m / 960u;
    let word = (m % 960u) / 32u;
    let mask = 1u << (m % 32u);
    loop {
      if (e == NONE) { break; }
      if (pts_load(e, 30u) >= base) { break; }
      prev = e;
      e = pts_load(e, 31u);
    }
    if (e != NONE && pts_load(e, 30u) == base) {
      let old = pts_load(e, word);
      if ((old & mask) == 0u) { pts_store(e, word, old | mask); status |= 1u; }
      continue;
    }
    let fresh = pts_alloc_single(true);
    if (fresh == GM_INVALID_ELEMENT) { return status | 2u; }
    for (var w = 0u; w < 30u; w++) { pts_store(fresh, w, select(0u, mask, w == word)); }
    pts_store(fresh, 30u, base);
    pts_store(fresh, 31u, e);
    if (prev == NONE) { pts_heads[v] = fresh; } else { pts_store(prev, 31u, fresh); }
    e = fresh;
    status |= 1u;
  }
  return status;
}

// Adds the sources pair_values[start, end), sorted by element base, to vector v in one walk of its
// list (adjacent duplicates are skipped): 1 when something was added, 2 when the pool ran out.
fn edg_insert_sorted(v: u32, start: u32, end: u32) -> u32 {
  var status = 0u;
  var prev = NONE;
  var e = edg_heads[v];
  var last = NONE;
  for (var i = start; i < end; i++) {
    let m = pair_values[i];
    if (m == last) { continue; }
    last = m;
    let base = m / 960u;
    let word = (m % 960u) / 32u;
    let mask = 1u << (m % 32u);
    loop {
      if (e == NONE) { break; }
      if (edg_load(e, 30u) >= base) { break; }
      prev = e;
      e = edg_load(e, 31u);
    }
    if (e != NONE && edg_load(e, 30u) == base) {
      let old = edg_load(e, word);
      if ((old & mask) == 0u) { edg_store(e, word, old | mask); status |= 1u; }
      continue;
    }
    let fresh = edg_alloc_single(true);
    if (fresh == GM_INVALID_ELEMENT) { return status | 2u; }
    for (var w = 0u; w < 30u; w++) { edg_store(fresh, w, select(0u, mask, w == word)); }
    edg_store(fresh, 30u, base);
    edg_store(fresh, 31u, e);
    if (prev == NONE) { edg_heads[v] = fresh; } else { edg_store(prev, 31u, fresh); }
    e = fresh;
    status |= 1u;
  }
  return status;
}

${
  subgroups
    ? `
// Where the next window of a sorted run starts: past every copy of the source just before \`next\`
// (the worklist repeats sources many times, 34× on perl), found by a search that narrows the span
// by the team's width each step, instead of one window per 32 copies (subgroup teams only).
fn skip_copies(next: u32, end: u32) -> u32 {
  if (next >= end) { return next; }
  let last = pair_values[next - 1u];
  if (pair_values[next] != last) { return next; }
  // Invariant: pair_values[lo] == last, and hi == end or pair_values[hi] != last.
  var lo = next;
  var hi = end;
  loop {
    if (hi - lo <= 1u) { break; }
    let step = (hi - lo + pts_lanes - 1u) / pts_lanes;
    let probe = min(lo + step * (pts_lane + 1u), hi);
    let differs = probe >= end || pair_values[probe] != last;
    let first = subgroupMin(select(NONE, pts_lane, differs));
    let new_hi = min(lo + step * (first + 1u), hi);
    if (first > 0u) { lo = min(lo + step * first, hi); }
    hi = new_hi;
  }
  return hi;
}

${mergeSortedWgsl('pts', lw)}
${mergeSortedWgsl('edg', lw)}
`
    : ''
}

// dst ∪= src − excl in one walk of the three sorted lists: an element of src whose members excl
// already has allocates nothing (most pulls in late iterations bring nothing new; the plain union
// would copy them into N only for the update to subtract them again).
fn pts_union_minus(dst: u32, src: u32, excl: u32) -> u32 {
  let limit = pts_team_u(pts_header.capacity) * 4u + 64u;
  var status = 0u;
  var steps = 0u;
  var prev = NONE;
  var d = pts_team_u(pts_heads[dst]);
  var x = pts_team_u(pts_heads[excl]);
  var s = pts_team_u(pts_heads[src]);
  var mine: array<u32, ${lw}>;
  // Each walk step loads an element's words with its header (the source's, the excluded set's
  // and the destination's, the last two in case the bases match), so a step costs one round trip.
  var excluded: array<u32, ${lw}>;
  var passed: array<u32, ${lw}>;
  loop {
    if (s == NONE || (status & (pts_INCOMPLETE | pts_CORRUPT)) != 0u) { break; }${laneWords('mine', 's')}
    let sh = pts_team_u2(vec2u(pts_load(s, 30u), pts_load(s, 31u)));
    let tb = sh.x;
    var xb = NONE;
    loop {
      if (x == NONE) { break; }${laneWords('excluded', 'x')}
      let xh = pts_team_u2(vec2u(pts_load(x, 30u), pts_load(x, 31u)));
      xb = xh.x;
      if (xb >= tb) { break; }
      x = xh.y;
      steps++;
      if (steps > limit) { status |= pts_CORRUPT; break; }
    }
    let has_x = x != NONE && xb == tb;
    var bits = 0u;
    for (var k = 0u; k < ${lw}u; k++) {
      let w = pts_lane + k * pts_lanes;
      var v = 0u;
      if (w < 30u) {
        v = mine[k];
        if (has_x) { v &= ~excluded[k]; }
      }
      mine[k] = v;
      bits |= v;
    }
    if (pts_team_or(bits) != 0u && (status & pts_CORRUPT) == 0u) {
      var dh = vec2u(NONE, NONE);
      loop {
        if (d == NONE) { break; }${laneWords('passed', 'd')}
        dh = pts_team_u2(vec2u(pts_load(d, 30u), pts_load(d, 31u)));
        if (dh.x >= tb) { break; }
        prev = d;
        d = dh.y;
        steps++;
        if (steps > limit) { status |= pts_CORRUPT; break; }
      }
      if ((status & pts_CORRUPT) == 0u) {
        if (d != NONE && dh.x == tb) {
          var changed = 0u;
          for (var k = 0u; k < ${lw}u; k++) {
            let w = pts_lane + k * pts_lanes;
            if (w < 30u) {
              let a = passed[k];
              let n = a | mine[k];
              if (n != a) { pts_store(d, w, n); changed = 1u; }
            }
          }
          if (pts_team_or(changed) != 0u) { status |= pts_CHANGED; }
        } else {
          let fresh = pts_team_u(pts_alloc(pts_lane == 0u, pts_lane));
          if (fresh == GM_INVALID_ELEMENT) {
            status |= pts_INCOMPLETE;
          } else {
            for (var k = 0u; k < ${lw}u; k++) {
              let w = pts_lane + k * pts_lanes;
              if (w < 30u) { pts_store(fresh, w, mine[k]); }
            }
            // Linked only once complete: an exhausted re-run never sees half an element.
            if (pts_lane == 0u) {
              pts_store(fresh, 30u, tb);
              pts_store(fresh, 31u, d);
              if (prev == NONE) { pts_heads[dst] = fresh; } else { pts_store(prev, 31u, fresh); }
            }
            d = fresh;
            status |= pts_CHANGED;
          }
        }
      }
    }
    s = sh.y;
    steps++;
    if (steps > limit) { status |= pts_CORRUPT; }
  }
  return status;
}

fn pts_elements(v: u32) -> u32 {
  var count = 0u;
  for (var e = pts_heads[v]; e != NONE && count <= pts_header.capacity; e = pts_load(e, 31u)) { count++; }
  return count;
}

// Whether set v has at most \`limit\` elements, walking no more than limit + 1 of them.
fn pts_elements_at_most(v: u32, limit: u32) -> bool {
  var count = 0u;
  for (var e = pts_heads[v]; e != NONE; e = pts_load(e, 31u)) {
    count++;
    if (count > limit) { return false; }
  }
  return true;
}

fn edg_elements(v: u32) -> u32 {
  var count = 0u;
  for (var e = edg_heads[v]; e != NONE && count <= edg_header.capacity; e = edg_load(e, 31u)) { count++; }
  return count;
}

// One entry of the worklist: \`source\` goes into the pending set named by \`key\` (2·node + pool).
// The host sorts the worklist by key and source >> 5 (the source's element base and word);
// apply_pairs then merges each run in one walk.
fn push_pair(key: u32, source: u32) {
  if (params.pair_table_mask != 0u) {
    // A pair already in the table is not pushed again. Loads and stores whose pointees fall into
    // one class push one pair many times (on php's large rounds a key gets over a million pairs
    // from under two thousand sources), each a slot of the sort and a step of the key's merge. The
    // table only ever skips an exact repeat: a slot's key word is claimed once per attempt, its
    // source word (cleared with it by delta_clear) holds NONE or the claimer's source, so a match of
    // both words is the same pair; a claimed slot whose source is not written yet, a spurious
    // compare-exchange failure or a full probe sequence only push a duplicate, which the merge skips.
    var at = gm_hash_mix(gm_hash_mix(0x9e3779b9u, key), source) & params.pair_table_mask;
    for (var probe = 0u; probe < 8u; probe++) {
      let word = pair_table_word(at);
      let slot = atomicCompareExchangeWeak(&control[word], NONE, key);
      if (slot.exchanged) {
        atomicStore(&control[word + 1u], source);
        break;
      }
      if (slot.old_value == key && atomicLoad(&control[word + 1u]) == source) { return; }
      at = (at + 1u) & params.pair_table_mask;
    }
  }
  let at = atomicAdd(&control[${S('pairCount')}], 1u);
  if (at >= params.pair_capacity) { return; }
  // With base_bits > 0 the sort key is (key, source's word group) in one word (source >> 5 is the
  // element base · 30 + the word its bit is in); otherwise the host sorts by that group, then
  // stably by key. Either way a key's run is ordered by group, each group's sources adjacent.
  if (params.base_bits == 0u) { pair_keys[at] = key; } else { pair_keys[at] = (key << params.base_bits) | (source >> 5u); }
  pair_values[at] = source;
}

fn skip_update() -> bool { return atomicLoad(&control[${S('skipUpdate')}]) != 0u; }

// The active lists (see ACTIVE_LIST): a workgroup's items are appended with one global atomic.
var<workgroup> list_group_total: atomic<u32>;
var<workgroup> list_group_base: u32;
var<workgroup> list_group_count: u32;
// Appends \`value\` to the list whose counter is control word \`counter\` (its array starting at word
// \`array\`) when \`keep\` holds. Every invocation of the workgroup calls it, in uniform control flow.
fn list_append(counter: u32, array: u32, keep: bool, value: u32, lid: u32) {
  if (lid == 0u) { atomicStore(&list_group_total, 0u); }
  workgroupBarrier();
  var at = 0u;
  if (keep) { at = atomicAdd(&list_group_total, 1u); }
  workgroupBarrier();
  if (lid == 0u) {
    let total = atomicLoad(&list_group_total);
    var base = 0u;
    if (total > 0u) { base = atomicAdd(&control[counter], total); }
    list_group_base = base;
  }
  let base = workgroupUniformLoad(&list_group_base);
  if (keep) { atomicStore(&control[array + base + at], value); }
}
// Closes the list whose words start at \`list\` (LIST_WORD), once its readers have run: the items
// they had work for (read back by the host, which launches about twice as many next round), and
// its counter back at 0 for the next build (the host uploads the counters as 0).
fn close_list(list: u32, extra_items: u32) {
  let length = atomicLoad(&control[list + ${LIST_WORD.counter}u]);
  // A list closed already (sort_gate run again before a missed guess's update) or left empty
  // keeps its items: the next launch is larger than it needs, never short.
  if (length == 0u) { return; }
  atomicStore(&control[list + ${LIST_WORD.counter}u], 0u);
  atomicStore(&control[list + ${LIST_WORD.items}u], length + extra_items);
}

var<workgroup> small_keys: array<u32, ${smallSortCapacity(sortItems)}>;
var<workgroup> small_values: array<u32, ${smallSortCapacity(sortItems)}>;
var<workgroup> small_zeros: array<u32, ${SMALL_SORT_THREADS}>;

// A worklist of at most ${smallSortCapacity(sortItems)} pairs sorted by (key, source's word group) in one workgroup,
// in place of the radix sort's dozen dispatches: a stable split by one bit per pass, least
// significant first (params.sort_value_bits bits of the sources from bit 5, their word group, then
// the keys' params.sort_key_bits bits).
// Invocation t holds pairs [${sortItems}t, ${sortItems}t + ${sortItems}); the slots past the pairs hold the largest
// key and source, so they stay after every pair and are not written back.
@compute @workgroup_size(${SMALL_SORT_THREADS})
fn sort_small(@builtin(local_invocation_index) lid: u32) {${gateUpdate ? groupRulesGate : ''}
  let count = atomicLoad(&control[${S('sortedCount')}]);
  var keys: array<u32, ${sortItems}>;
  var values: array<u32, ${sortItems}>;
  for (var i = 0u; i < ${sortItems}u; i++) {
    let at = lid * ${sortItems}u + i;
    keys[i] = 0xffffffffu;
    values[i] = 0xffffffffu;
    if (at < count) {
      keys[i] = pair_keys[at];
      values[i] = pair_values[at];
    }
  }
  let passes = params.sort_value_bits + params.sort_key_bits;
  for (var round = 0u; round < passes; round++) {
    let on_value = round < params.sort_value_bits;
    let bit = select(round - params.sort_value_bits, round + 5u, on_value);
    var zeros = 0u;
    for (var i = 0u; i < ${sortItems}u; i++) {
      zeros += 1u - ((select(keys[i], values[i], on_value) >> bit) & 1u);
    }
    // Inclusive scan of the invocations' zero counts.
    small_zeros[lid] = zeros;
    workgroupBarrier();
    for (var offset = 1u; offset < ${SMALL_SORT_THREADS}u; offset <<= 1u) {
      var add = 0u;
      if (lid >= offset) { add = small_zeros[lid - offset]; }
      workgroupBarrier();
      small_zeros[lid] += add;
      workgroupBarrier();
    }
    let total_zeros = small_zeros[${SMALL_SORT_THREADS - 1}u];
    var zero_at = small_zeros[lid] - zeros;
    var one_at = total_zeros + lid * ${sortItems}u - zero_at;
    for (var i = 0u; i < ${sortItems}u; i++) {
      var to = one_at;
      if (((select(keys[i], values[i], on_value) >> bit) & 1u) == 0u) {
        to = zero_at;
        zero_at++;
      } else {
        one_at++;
      }
      small_keys[to] = keys[i];
      small_values[to] = values[i];
    }
    workgroupBarrier();
    for (var i = 0u; i < ${sortItems}u; i++) {
      keys[i] = small_keys[lid * ${sortItems}u + i];
      values[i] = small_values[lid * ${sortItems}u + i];
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < ${sortItems}u; i++) {
    let at = lid * ${sortItems}u + i;
    if (at < count) {
      pair_keys[at] = keys[i];
      pair_values[at] = values[i];
    }
  }
}
${threadKernel(
  'init_state',
  /* wgsl */ `
  // Once, before the first iteration: the slots and per-node arrays that start empty. The host
  // uploads only what is not NONE or 0 (the union–find, the initial sets' pairs); the rest of
  // every buffer is zero when created. The pairs are merged into the pending slots after this.
  for (var i = first_item; i < params.n; i += item_stride) {
    pts_heads[${slot('points', 'i')}] = NONE;
    pts_heads[${slot('delta', 'i')}] = NONE;
    pts_heads[${slot('pending', 'i')}] = NONE;
    pts_heads[${slot('hop', 'i')}] = NONE;
    edg_heads[${slot('points', 'i')}] = NONE;
    edg_heads[${slot('delta', 'i')}] = NONE;
    edg_heads[${slot('pending', 'i')}] = NONE;
    atomicStore(&control[${A('segmentStart')} + i], NONE);
    atomicStore(&control[${A('segmentStart')} + params.n + i], NONE);
    atomicStore(&control[${A('mergeSize')} + i], 0u);
    atomicStore(&control[${A('hcdSlot')} + i], NONE);
  }
  for (var i = first_item; i < params.chunk_capacity; i += item_stride) {
    pts_heads[${NODE_SET_SLOTS}u * params.n + i] = NONE;
  }`,
)}
${singleKernel(
  'begin_iteration',
  /* wgsl */ `
  atomicStore(&control[${S('markPts')}], min(atomicLoad(&pts_header.next), pts_header.capacity));
  atomicStore(&control[${S('markEdges')}], min(atomicLoad(&edg_header.next), edg_header.capacity));
  // The iteration's first attempt begins here too (one dispatch fewer a round).
${beginAttempt}${
  activeLists
    ? `
  // The first submission's initial sets were merged from a segments list: closed here (later
  // rounds' lists are closed by then, and this does nothing).${closeList('segments')}`
    : ''
}`,
)}
${singleKernel('begin_attempt', beginAttempt)}
${singleKernel(
  'rules_gate',
  /* wgsl */ `
  // First in a submission of the next round's rules queued right behind an update, before the
  // host has read that update's status (GpuSolverOptions.rulesAhead): the folds queued with them
  // and the rules run only when the host will have nothing to do between the two, i.e. when the
  // update ran and was not redone, the round's merges (if any) are taken by the folds queued
  // (params.fold_levels: NONE when no folds were queued, else log2 of the most children a class may
  // have, 31 or more for any: merge_data folds the roots their levels leave), it was not the
  // last round, and neither pool is short of room for three times what the round allocated nor
  // the worklist for three times the round's pairs (the host's grow-ahead tests, in integers:
  // (capacity − next) / below < last ⇔ capacity − next < below · last). Otherwise every rules and
  // fold kernel returns at once and the host runs them.
  let merged = atomicLoad(&control[${S('merged')}]);
  let quiet = atomicLoad(&control[${S('active')}]) == 0u && atomicLoad(&control[${S('freshNodes')}]) == 0u && merged == 0u;
  let folds = params.fold_levels;
  let folded = merged == 0u || (folds != NONE &&
    (folds >= 31u || atomicLoad(&control[${S('mergeMaxChildren')}]) <= (1u << folds)));
  var skip = atomicLoad(&control[${S('fatal')}]) != 0u || atomicLoad(&control[${S('skipUpdate')}]) != 0u ||
    atomicLoad(&control[${S('skipMerge')}]) != 0u || !folded || quiet;
  let below = params.grow_below;
  let pts_next = atomicLoad(&control[${S('ptsNext')}]);
  let pts_capacity = atomicLoad(&control[${S('ptsCapacity')}]);
  let pts_last = pts_next - min(pts_next, atomicLoad(&control[${S('markPts')}]));
  skip = skip || pts_next >= pts_capacity || (below > 0u && (pts_capacity - pts_next) / below < pts_last);
  let edg_next = atomicLoad(&control[${S('edgesNext')}]);
  let edg_capacity = atomicLoad(&control[${S('edgesCapacity')}]);
  let edg_last = edg_next - min(edg_next, atomicLoad(&control[${S('markEdges')}]));
  skip = skip || edg_next >= edg_capacity || (below > 0u && (edg_capacity - edg_next) / below < edg_last);
  skip = skip || (below > 0u && params.pair_capacity / below < atomicLoad(&control[${S('pairCount')}]));${
    gateUpdate
      ? `
  // A round queued behind one held back is held back too (its gate would test stale words), and
  // the radix sort queued with it (which reads its count from the GPU) sorts nothing.
  skip = skip || ${rulesSkipped};
  if (skip) { atomicStore(&control[${S('sortedCount')}], 0u); }`
      : ''
  }
  atomicStore(&control[${S('rulesSkipped')}], select(0u, 1u, skip));`,
)}
${singleKernel(
  'sort_gate',
  /* wgsl */ `
  // After the rules: the pairs to sort and merge, unless the worklist overflowed or the sort and
  // partial-merge levels the host recorded for this submission (on a guess, before it could read
  // the rules' counts) fall short. Then nothing is sorted or merged, the update is skipped, and
  // the host runs the missing levels, the right sort and the update in a submission of its own.
  let count = atomicLoad(&control[${S('pairCount')}]);
  let levels_cover = params.guess_levels * ${mergeBits}u >= 31u || atomicLoad(&control[${S('pullMaxChunks')}]) <= (1u << (params.guess_levels * ${mergeBits}u));
  let fits = count <= params.pair_capacity && count <= params.guess_sort_capacity && levels_cover;
  atomicStore(&control[${S('sortedCount')}], select(0u, count, fits));
  atomicStore(&control[${S('guessMissed')}], select(1u, 0u, fits));
  // And the pools' state: a pool the rules ran out of is grown before any update is submitted.
${reportPools}
  // The rules' lists, their readers done.${closeDeltaAndPull}`,
)}
${threadKernel('delta_clear', clearTables)}
var<workgroup> delta_bits_words: array<atomic<u32>, ${THREAD_WORKGROUP / 32}>;
var<workgroup> rules_gate_word: u32;

@compute @workgroup_size(${THREAD_WORKGROUP})
fn delta_bits(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {${groupRulesGate}
  // Bit m of word m / 32: node m's class has a ΔP. The pulls AND it with their E words, so a
  // representative whose sources gained nothing costs a word test per word of E, not a find and
  // a head load per source (late rounds have a few hundred ΔPs among hundreds of thousands of
  // sources). Rebuilt every attempt, after the folds, which move ΔPs between classes. One
  // invocation per node, its workgroup's words gathered in workgroup memory.
  let words = 30u * ((params.n + 959u) / 960u);
  let stride = nwg.x * nwg.y * ${THREAD_WORKGROUP}u;
  {
    // delta_clear's work, before the tables' first reader (delta_leaders): a dispatch fewer a
    // round, and no grid of its own (gcc's was 16,384 workgroups).
    let first_item = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u + lid;
    let item_stride = stride;
    ${clearTables}
  }
  ${classBitmap(
    'delta',
    deltaList
      ? `
    // The delta list: the roots with a ΔP (delta_leaders runs over it).
    list_append(${L('delta')}, ${A('deltaList')}, set_bit && root == m, m, lid);`
      : '',
  )}
}
${teamKernel(
  'delta_leaders',
  /* wgsl */ `
  // ΔP-equivalent variables (§6.3): every root with a ΔP finds a root whose ΔP is equal (the first
  // to claim a slot of the hash's probe sequence) through an open-addressed table. An equal hash is
  // checked with pts_equals, so only equal sets share a leader; a missed match (probe limit, a stale
  // hash) only costs a pull that could have been skipped.
  ${equalSetLeaders('delta', deltaList)}`,
)}
${teamKernel(
  'pull_count',
  /* wgsl */ `
  // Per representative: how many pulls its E and F lists ask for, hence how many chunks (of about
  // params.pull_chunk pulls each, at most params.max_chunks) they are split into.
  ${sourcesSweep({
    otherwise: `atomicStore(&control[${A('pullChunks')} + r], 0u);
        atomicStore(&control[${A('pullSlots')} + r], 0u);`,
    body: /* wgsl */ `
    var pulls = 0u;
    var ordinal = 0u;
    let lo = 0u;
    let hi = NONE;${
      laneCount
        ? /* wgsl */ `
    // Each lane counts its own sources, a ΔP source only when its leader is not the one the lane
    // counted last (an estimate: the chunks are word slots of the lists, so only their number
    // depends on it); the team adds the counts once.
    var lane_pulls = 0u;
    var lane_lead = NONE;
    ${scanSources(
      'points',
      'delta',
      countDelta,
      (src) => `let lead = atomicLoad(&control[${A('deltaLeader')} + ${src}]);
              if (lead != lane_lead) { lane_pulls++; lane_lead = lead; }`,
    )}
    ${scanSources('delta', 'points', countPoints, () => 'lane_pulls++;')}
    pulls = pts_team_add(lane_pulls);`
        : /* wgsl */ `
    // Pulls of a ΔP equal to one already counted are not counted (the pulls skip them too).
    pull_cache_reset();
    ${scanSources('points', 'delta', countDelta)}
    ${scanSources('delta', 'points', countPoints)}`
    }
    let chunks = min(params.max_chunks, (pulls + params.pull_chunk - 1u) / params.pull_chunk);
    if (pts_lane == 0u) {
      atomicStore(&control[${A('pullChunks')} + r], chunks);
      atomicStore(&control[${A('pullSlots')} + r], 30u * ordinal);
    }`,
  })}`,
)}

var<workgroup> pull_group_total: atomic<u32>;
var<workgroup> pull_group_base: u32;

@compute @workgroup_size(${THREAD_WORKGROUP})
fn pull_items(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {${groupRulesGate}
  // Hands out the extra chunks (all but chunk 0, which the representative's own team runs), one
  // global atomic per workgroup. A representative whose extra chunks do not all fit in the chunk
  // capacity gets none: its own team pulls everything (exact, just not split).
  let stride = nwg.x * nwg.y * ${THREAD_WORKGROUP}u;
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < params.n; start += stride) {
    let r = start + lid;
    var extra = 0u;
    var pulls = false;
    if (r < params.n) {
      let chunks = atomicLoad(&control[${A('pullChunks')} + r]);
      if (chunks > 1u) { extra = chunks - 1u; }
      pulls = chunks != 0u;
    }${
      activeLists
        ? `
    // The pull list: the representatives with pulls (pull_sources runs chunk 0 of each).
    list_append(${L('pull')}, ${A('pullList')}, pulls, r, lid);`
        : ''
    }
    if (lid == 0u) { atomicStore(&pull_group_total, 0u); }
    workgroupBarrier();
    var offset = 0u;
    if (extra > 0u) { offset = atomicAdd(&pull_group_total, extra); }
    workgroupBarrier();
    if (lid == 0u) {
      let total = atomicLoad(&pull_group_total);
      var base = params.chunk_capacity;
      // Past the capacity nothing more fits: leave the counter alone (it must not wrap).
      if (total > 0u && atomicLoad(&control[${S('pullChunkCount')}]) < params.chunk_capacity) {
        base = atomicAdd(&control[${S('pullChunkCount')}], total);
      }
      pull_group_base = base;
    }
    let base = workgroupUniformLoad(&pull_group_base);
    if (extra > 0u) {
      let first = base + offset;
      if (first < params.chunk_capacity && params.chunk_capacity - first >= extra) {
        atomicStore(&control[${A('pullBase')} + r], first);
        for (var j = 0u; j < extra; j++) {
          atomicStore(&control[pull_owner_word(first + j)], r);
          pts_heads[partial_slot(first + j)] = NONE;
        }
        atomicMax(&control[${S('pullMaxChunks')}], extra + 1u);
      } else {
        atomicStore(&control[${A('pullChunks')} + r], 1u);
        atomicAdd(&control[${S('pullRefused')}], 1u);
        if (first < params.chunk_capacity) {
          for (var j = first; j < min(first + extra, params.chunk_capacity); j++) {
            atomicStore(&control[pull_owner_word(j)], NONE);
          }
        }
      }
    }
  }
${
  ruleList
    ? /* wgsl */ `
  // The rule list: the loads, stores and offsets whose read class has a ΔP (member_rules runs over
  // it). Built here, after delta_bits, so that it costs no dispatch of its own; member_rules swept
  // every rule (gcc, on lavapipe: 26,000 workgroups each round, most rules finding an empty ΔP).
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < params.hcd_start; start += stride) {
    let c = start + lid;
    var reads = false;
    if (c < params.hcd_start) {
      let rule = rule_table[c];
      reads = delta_bit(select(rule.y, rule.w, rule.x == ${RULE_KIND.store}u));
    }
    list_append(${L('rules')}, rule_list_word(0u), reads, c, lid);
  }`
    : ''
}
}
${teamKernel(
  'pull_sources',
  /* wgsl */ `
  // copy⁻¹: old sources pull what they gained (ΔP), sources added by the last update pull all of P.
  // Units 0 … n−1 are chunk 0 of each representative (into N(r)), the rest its extra chunks (each
  // into its own partial set, so no two teams ever write one list).
  let n = params.n;
  ${listLimit}
  let extras = pts_team_u(min(atomicLoad(&control[${S('pullChunkCount')}]), params.chunk_capacity));
  // Units before \`firsts\` are chunk 0 of a representative (every node, or the pull list's).
  let firsts = ${activeLists ? `pts_team_u(${listLength('pull')})` : 'n'};
  ${sweep({
    item: 't',
    count: 'firsts + extras',
    // Chunk 0 of a representative with pulls, or an extra chunk handed out.
    test: `(t < firsts && ${activeLists ? 'true' : `atomicLoad(&control[${A('pullChunks')} + t]) != 0u`}) || (t >= firsts && atomicLoad(&control[pull_owner_word(t - firsts)]) != NONE)`,
    body: /* wgsl */ `
    var r = t;${
      activeLists
        ? `
    if (t < firsts) { r = pts_team_u(atomicLoad(&control[${A('pullList')} + t])); }`
        : ''
    }
    var c = 0u;
    var dst = ${slot('pending', 'r')};
    if (t >= firsts) {
      r = pts_team_u(atomicLoad(&control[pull_owner_word(t - firsts)]));
      c = t - firsts - pts_team_u(atomicLoad(&control[${A('pullBase')} + r])) + 1u;
      dst = partial_slot(t - firsts);
    }
    let chunks = pts_team_u(atomicLoad(&control[${A('pullChunks')} + r]));
    if (chunks == 0u) { continue; }
    // Chunk c gets the word slots [lo, hi): an even share of r's E and F lists.
    let slots = pts_team_u(atomicLoad(&control[${A('pullSlots')} + r]));
    let share = slots / chunks;
    let rest = slots % chunks;
    let lo = c * share + min(c, rest);
    let hi = lo + share + select(0u, 1u, c < rest);
    var status = 0u;
    var ordinal = 0u;
    var skipped = 0u;
    pull_cache_reset();
    ${scanSources('points', 'delta', pullDelta)}
    ${scanSources('delta', 'points', pullPoints)}
    if (pts_lane == 0u) {
      if (skipped > 0u) { atomicAdd(&control[${S('pullsSkipped')}], skipped); }
      if ((status & pts_CORRUPT) != 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }
    }`,
  })}`,
)}
${teamKernel(
  'merge_partials',
  /* wgsl */ `
  // One level of the tree that folds a representative's chunks into N(r), ${1 << mergeBits} to a group: at
  // level L (shift = ${mergeBits}·L), the chunks c whose digit L (base ${1 << mergeBits}) is nonzero and whose lower
  // digits are 0 fold into c with digit L cleared (chunk 0 being N(r)); the team of the group's
  // first child (digit 1) adds its siblings' sets and its own, so each set is read or written by
  // one team per level, and every chunk's set reaches chunk 0 after ⌈log2 chunks / ${mergeBits}⌉ levels.
  let level = pts_team_u(atomicLoad(&control[${S('pullLevel')}]));
  let shift = min(level * ${mergeBits}u, 31u);
  // A level past what the most chunks of one representative need (queued on a guess) merges nothing.
  if ((1u << shift) >= pts_team_u(atomicLoad(&control[${S('pullMaxChunks')}]))) { return; }
  let extras = pts_team_u(min(atomicLoad(&control[${S('pullChunkCount')}]), params.chunk_capacity));
  let step = 1u << shift;
  for (var i = first_team; i < extras; i += team_stride) {
    let r = pts_team_u(atomicLoad(&control[pull_owner_word(i)]));
    if (r == NONE) { continue; }
    let base = pts_team_u(atomicLoad(&control[${A('pullBase')} + r]));
    let c = i - base + 1u;
    if ((c & (step - 1u)) != 0u || ((c >> shift) & ${(1 << mergeBits) - 1}u) != 1u) { continue; }
    let to = c - step;
    var dst = ${slot('pending', 'r')};
    if (to > 0u) { dst = partial_slot(base + to - 1u); }
    // The group's children: c, c + step, … while they are r's chunks.
    let chunks = pts_team_u(atomicLoad(&control[${A('pullChunks')} + r]));
    var status = 0u;
    for (var j = 0u; j < ${(1 << mergeBits) - 1}u; j++) {
      let child = c + j * step;
      if (child >= chunks) { break; }
      let src = partial_slot(base + child - 1u);
      if (pts_team_u(pts_heads[src]) == NONE) { continue; }
      status |= pts_union(dst, src);
    }
    if ((status & pts_CORRUPT) != 0u && pts_lane == 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }
  }${nextLevel('pullLevelDone', `atomicAdd(&control[${S('pullLevel')}], 1u);`)}`,
)}
${teamKernel(
  'member_rules',
  /* wgsl */ `
  // The loads, stores and offsets, ${ruleSplit} team(s) per rule (not per class: a large class's
  // rules spread over many teams), element k of the ΔP the rule reads going to team k mod
  // ${ruleSplit} (one team per rule left a large ΔP's members to one team's lanes, each member a
  // few dependent loads); each pushes worklist pairs for the new pointees it sees.
  let n = params.n;
  let list_limit = pts_team_u(pts_header.capacity) + 1u;${
    ruleList
      ? /* wgsl */ `
  // The rules of the rule list (pull_items built it: each reads a ΔP).
  let listed = pts_team_u(${listLength('rules')});`
      : ''
  }
  ${sweep({
    item: 'u',
    count: ruleList ? `listed * ${ruleSplit}u` : `params.hcd_start * ${ruleSplit}u`,
    test: ruleList ? 'true' : `rule_reads_delta(u / ${ruleSplit}u)`,
    body: /* wgsl */ `
    let c = ${ruleList ? `pts_team_u(atomicLoad(&control[rule_list_word(u / ${ruleSplit}u)]))` : `u / ${ruleSplit}u`};
    let part = u % ${ruleSplit}u;
    let rule = pts_team_u2(rule_table[c].xy);
    let k = pts_team_u(rule_table[c].z);
    // The sweep's test found the class whose ΔP the rule reads not empty (most rules read an
    // empty ΔP, and cost that one find).
    let is_store = rule.x == ${RULE_KIND.store}u;
    let reads = pts_team_u(rule_read_class(c));
    var r = reads;
    var other = reads;
    if (is_store) { other = pts_team_u(find(rule.y)); } else { r = pts_team_u(find(rule_table[c].w)); }
    ${
      shareRules
        ? /* wgsl */ `
    // Rules of one signature push the same pairs: one runs (in the CPU model of the rounds this
    // leaves 2–2.5× fewer pairs to sort and merge on php, 1.5–2× on linux).
    let lead = pts_team_u(atomicLoad(&control[${A('deltaLeader')} + reads]));
    if (rule_shared(c, vec4u(rule.x, select(r, other, is_store), lead, k))) {
      if (part == 0u && pts_lane == 0u) { atomicAdd(&control[${S('rulesShared')}], 1u); }
      continue;
    }`
        : ''
    }
    // The field class this lane pushed last for this rule (with the pair table): pointees in one
    // class give it in a row, and a repeat of it is the same pair (the rule fixes the rest),
    // skipped without a probe of the table.
    var last_field = NONE;
    let skip_repeats = params.pair_table_mask != 0u;
    if (rule.x == ${RULE_KIND.load}u) {
      // x = *(y + k): each new pointee o of y gives the copy⁻¹ source o + k of x.
      ${forEachMemberByLane(
        slot('delta', 'other'),
        /* wgsl */ `
        if (k < object_size(m)) {
          let field = find(m + k);
          if (field != r && !(skip_repeats && field == last_field)) {
            push_pair(2u * r + ${PAIR_POOL.edges}u, field);
            last_field = field;
          }
        }`,
        { part: 'part', parts: ruleSplit },
      )}
    } else if (rule.x == ${RULE_KIND.store}u) {
      // *(x + k) = y: each new pointee o of x gives the copy edge y → o + k (to o + k's owner).
      ${forEachMemberByLane(
        slot('delta', 'r'),
        /* wgsl */ `
        if (k < object_size(m)) {
          let field = find(m + k);
          if (field != other && !(skip_repeats && field == last_field)) {
            push_pair(2u * field + ${PAIR_POOL.edges}u, other);
            last_field = field;
          }
        }`,
        { part: 'part', parts: ruleSplit },
      )}
    } else {
      // x = y + k: each new pointee o of y gives o + k when k is inside o's object.
      ${forEachMemberByLane(
        slot('delta', 'other'),
        /* wgsl */ `
        if (k < object_size(m)) { push_pair(2u * r + ${PAIR_POOL.points}u, m + k); }`,
        { part: 'part', parts: ruleSplit },
      )}
    }`,
  })}`,
)}
${threadKernel(
  'mark_segments',
  activeLists
    ? /* wgsl */ `
  // Each key's run of the sorted worklist, and the list of the keys that have one (apply_pairs
  // runs over it).
  if (lid == 0u) { list_group_count = atomicLoad(&control[${S('sortedCount')}]); }
  let count = workgroupUniformLoad(&list_group_count);
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < count; start += item_stride) {
    let i = start + lid;
    var begins = false;
    var key = 0u;
    if (i < count) {
      key = pair_keys[i] >> params.base_bits;
      begins = i == 0u || (pair_keys[i - 1u] >> params.base_bits) != key;
      if (begins) { atomicStore(&control[${A('segmentStart')} + key], i); }
      if (i + 1u == count || (pair_keys[i + 1u] >> params.base_bits) != key) { atomicStore(&control[${A('segmentEnd')} + key], i + 1u); }
    }
    list_append(${L('segments')}, ${A('segmentList')}, begins, key, lid);
  }`
    : /* wgsl */ `
  let count = atomicLoad(&control[${S('sortedCount')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let key = pair_keys[i] >> params.base_bits;
    if (i == 0u || (pair_keys[i - 1u] >> params.base_bits) != key) { atomicStore(&control[${A('segmentStart')} + key], i); }
    if (i + 1u == count || (pair_keys[i + 1u] >> params.base_bits) != key) { atomicStore(&control[${A('segmentEnd')} + key], i + 1u); }
  }`,
)}
${threadKernel(
  'pending_list',
  /* wgsl */ `
  if (lid == 0u) { list_group_count = select(0u, 1u, skip_update()); }
  if (workgroupUniformLoad(&list_group_count) != 0u) { return; }${pendingListBody}`,
)}
${threadKernel(
  'guard_pending',
  /* wgsl */ `
  // guard_update and pending_list in one dispatch: the list is built whether or not the guard lets
  // the update commit (a skipped update's kernels ignore it, and guard_merge closes it, so that the
  // host's redo builds it afresh).
  if (gm_workgroup_index(wid, nwg) == 0u && lid == 0u) { guard_update_part(); }${pendingListBody}`,
)}
${
  subgroups
    ? teamKernel(
        'apply_pairs',
        /* wgsl */ `
  ${sweep({
    item: activeLists ? 'i' : 'key',
    count: activeLists ? `pts_team_u(${listLength('segments')})` : '2u * params.n',
    test: activeLists ? 'true' : `atomicLoad(&control[${A('segmentStart')} + key]) != NONE`,
    body: /* wgsl */ `${
      activeLists
        ? `
    let key = pts_team_u(atomicLoad(&control[${A('segmentList')} + i]));`
        : ''
    }
    let start = pts_team_u(atomicLoad(&control[${A('segmentStart')} + key]));
    let end = pts_team_u(atomicLoad(&control[${A('segmentEnd')} + key]));
    if (pts_lane == 0u) { atomicStore(&control[${A('segmentStart')} + key], NONE); }
    let v = ${slot('pending', 'key >> 1u')};
    var status = 0u;
    if ((key & 1u) == ${PAIR_POOL.points}u) { status = pts_merge_sorted(v, start, end); } else { status = edg_merge_sorted(v, start, end); }
    if ((status & pts_CORRUPT) != 0u && pts_lane == 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }`,
  })}`,
      )
    : threadKernel(
        'apply_pairs',
        /* wgsl */ `
  for (var item = first_item; item < ${activeLists ? listLength('segments') : '2u * params.n'}; item += item_stride) {
    let key = ${activeLists ? `atomicLoad(&control[${A('segmentList')} + item])` : 'item'};
    let start = atomicLoad(&control[${A('segmentStart')} + key]);
    if (start == NONE) { continue; }
    atomicStore(&control[${A('segmentStart')} + key], NONE);
    let end = atomicLoad(&control[${A('segmentEnd')} + key]);
    let v = ${slot('pending', 'key >> 1u')};
    if ((key & 1u) == ${PAIR_POOL.points}u) { _ = pts_insert_sorted(v, start, end); } else { _ = edg_insert_sorted(v, start, end); }
  }`,
      )
}
${threadKernel(
  'hop_bits',
  /* wgsl */ `
  // The second copy hop's screen: bit m of the delta_bits words (whose rules and pulls have run)
  // now says that node m's class has a pending set N, so that hop_pull decodes only those sources.
  let words = 30u * ((params.n + 959u) / 960u);
  let stride = item_stride;
  ${classBitmap('pending')}`,
)}
${teamKernel(
  'hop_pull',
  /* wgsl */ `
  // The second copy hop: what a source gathered this round (its N, pulls and worklist pairs both)
  // reaches the representatives it is copied into in the same round, not the next. Any part of
  // this is exact (N(s) ⊆ pts(s) ⊆ pts(r) for a source s of r), so each representative reads only
  // the first ${hopLimits.slots} word slots of F then E and pulls from at most ${hopLimits.pulls}
  // sources: in a CPU model of the rounds two pulls from two
  // elements took as few rounds as unbounded hops (gcc 46 → 36, perl 51 → 34, python 62 → 43).
  // The pulls go into H(r), not N(r), which other teams read now; update_sets adds H to N.
  ${sourcesSweep({
    body: /* wgsl */ `${
      hopLimits.pointsElements === undefined
        ? ''
        : /* wgsl */ `
    // Only a representative whose P is short: subtracting a long P is a long walk for a few
    // pointees a round early.
    if (pts_team_u(select(0u, 1u, pts_elements_at_most(${slot('points', 'r')}, ${hopLimits.pointsElements}u))) == 0u) { continue; }`
    }
    var ordinal = 0u;
    let lo = 0u;
    var hi = ${hopLimits.slots}u;
    var budget = ${hopLimits.pulls}u;
    var status = 0u;
    ${scanSources('delta', 'pending', hopPull)}
    ${scanSources('points', 'pending', hopPull)}
    // guard_update's room counts the elements allocated since the round began (H's among them)
    // once, and the update copies H's twice (into N, then with N into P): H's count is added.
    if (pts_team_u(pts_heads[${slot('hop', 'r')}]) != NONE) {
      let elements = pts_elements(${slot('hop', 'r')});
      if (pts_lane == 0u) { atomicAdd(&control[${S('mergeNeedPts')}], elements); }
    }
    if (pts_lane == 0u && (status & pts_CORRUPT) != 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }`,
  })}`,
)}
${singleKernel('guard_update', guardUpdateBody)}
fn guard_update_part() {${guardUpdateBody}
}
${teamKernel(
  'update_sets',
  /* wgsl */ `
  // The update of one node, by one team: N ∪= H (the second hop's), N −= P, P ∪= N, then ΔP ← N
  // and F ← G. Every step reads and writes only the node's own sets, so one kernel does it all,
  // with no dispatch boundary between the steps. A node with a ΔP or F and nothing pending is
  // visited too: its ΔP and F are dropped.
  if (pts_team_u(select(0u, 1u, skip_update())) != 0u) { return; }
  ${updateSweep(/* wgsl */ `
    var status = 0u;${
      hop
        ? /* wgsl */ `
    // What the second hop brought joins N (hop_pull counted its elements for guard_update).
    if (pts_team_u(pts_heads[${slot('hop', 'v')}]) != NONE) {
      status |= pts_union(${slot('pending', 'v')}, ${slot('hop', 'v')});
      if (pts_lane == 0u) { pts_heads[${slot('hop', 'v')}] = NONE; }
    }`
        : ''
    }
    // N − P in place: what is really new; then P ∪= N.
    if (pts_team_u(pts_heads[${slot('pending', 'v')}]) != NONE) {
      _ = pts_difference(${slot('pending', 'v')}, ${slot('points', 'v')});
    }
    if (pts_team_u(pts_heads[${slot('pending', 'v')}]) != NONE) {
      status |= pts_union(${slot('points', 'v')}, ${slot('pending', 'v')});
    }
    if (pts_team_u(edg_heads[${slot('pending', 'v')}]) != NONE) {
      _ = edg_difference(${slot('pending', 'v')}, ${slot('points', 'v')});
    }
    if (pts_team_u(edg_heads[${slot('pending', 'v')}]) != NONE) {
      status |= edg_union(${slot('points', 'v')}, ${slot('pending', 'v')});
      let added = edg_count(${slot('pending', 'v')});
      if (edg_lane == 0u) { atomicAdd(&control[${S('edgesAdded')}], added); }
    }
    // ΔP ← N, F ← G; the previous ΔP and F are dropped (the bump pools never reuse elements).
    let gained = pts_team_u(pts_heads[${slot('pending', 'v')}]);
    let fresh = pts_team_u(edg_heads[${slot('pending', 'v')}]);
    if (pts_lane == 0u) {
      pts_heads[${slot('delta', 'v')}] = gained;
      pts_heads[${slot('pending', 'v')}] = NONE;
      if (gained != NONE) { atomicAdd(&control[${S('active')}], 1u); }
      edg_heads[${slot('delta', 'v')}] = fresh;
      edg_heads[${slot('pending', 'v')}] = NONE;
      if (fresh != NONE) { atomicAdd(&control[${S('freshNodes')}], 1u); }
      if ((status & (pts_INCOMPLETE | pts_CORRUPT)) != 0u) {
        atomicOr(&control[${S('fatal')}], select(FATAL_EXHAUSTED, FATAL_CORRUPT, (status & pts_CORRUPT) != 0u));
      }
    }`)}`,
)}
${teamKernel(
  'hcd_hook',
  /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update())) != 0u) { return; }
  let list_limit = pts_team_u(pts_header.capacity) + 1u;
  // ${hookSplit} team(s) per pair, element k of ΔP(x) going to team k mod ${hookSplit}.
  for (var u = first_team; u < params.hcd_count * ${hookSplit}u; u += team_stride) {
    let i = u / ${hookSplit}u;
    let part = u % ${hookSplit}u;
    let pair = pts_team_u2(rule_table[params.hcd_start + i].xy);
    let x = pts_team_u(find(pair.y));
    // Pairs whose pointers share a class share their target too (as the CPU engine merges them),
    // but only once the class points to an object that can be dereferenced: while it points
    // nowhere no cycle closes through *x, and joining the targets would merge unrelated sets.
    var targets_joined = false;
    // Every new pointee of x lies on the offline cycle through *x: it joins y's class. Most have
    // joined it in an earlier round: a pointee whose parent is the target's root (found once per
    // pair) needs no hook, since classes only ever merge (skipped unless hcdSkipJoined is off).
    ${skipJoined ? 'let joined_root = pts_team_u(find(pair.x));' : ''}
    ${forEachMemberByLane(
      slot('delta', 'x'),
      /* wgsl */ `
            ${skipJoined ? `if (atomicLoad(&control[${A('parent')} + m]) == joined_root) { continue; }` : ''}
            // Nothing is loaded from or stored into a pointee of objectSize 0 (an opaque object
            // whose contents are kept empty): the cycle through *x does not pass through it.
            if (object_size(m) == 0u) { continue; }
            if (!targets_joined) {
              targets_joined = true;
              loop {
                let claimed = atomicCompareExchangeWeak(&control[${A('hcdSlot')} + x], NONE, pair.x);
                if (claimed.exchanged) { break; }
                // A weak exchange may fail spuriously: retry until the slot holds someone's target.
                if (claimed.old_value != NONE) { hook(claimed.old_value, pair.x); break; }
              }
            }
            hook(m, pair.x);`,
      { part: 'part', parts: hookSplit },
    )}
  }`,
)}
${threadKernel(
  'compress',
  /* wgsl */ `
  if (atomicLoad(&control[${S('merged')}]) == 0u) { return; }
  for (var v = first_item; v < params.n; v += item_stride) {
    atomicStore(&control[${A('parent')} + v], find(v));
  }
  // In the same dispatch (shortening parents leaves every find's root as it is), each merged node
  // takes its position among its root's new children (mergeSize[r] is 0 until then: merge_done
  // sets it back once the children are folded, before the next round's merges).
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let a = atomicLoad(&control[${A('mergedList')} + i]);
    let r = find(a);
    atomicStore(&control[${A('childSlot')} + a], atomicAdd(&control[${A('mergeSize')} + r], 1u));
  }`,
)}
${threadKernel(
  'merge_rank',
  /* wgsl */ `
  if (skip_update()) { return; }
  // Gives each representative with new children its range of mergeOrder (the children's first
  // stands for it), so that the levels of merge_level can pair them by position; merge_count puts
  // each child at its position. (Walking each root's chain of children here left a class of a
  // thousand new children to one invocation's dependent loads.)
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let a = atomicLoad(&control[${A('mergedList')} + i]);
    if (atomicLoad(&control[${A('childSlot')} + a]) != 0u) { continue; }
    let r = find(a);
    let k = atomicLoad(&control[${A('mergeSize')} + r]);
    atomicStore(&control[${A('mergeStart')} + r], atomicAdd(&control[${S('mergeCursor')}], k));
    atomicMax(&control[${S('mergeMaxChildren')}], k);
  }`,
)}
${threadKernel(
  'merge_count',
  /* wgsl */ `
  if (skip_update()) { return; }
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let a = atomicLoad(&control[${A('mergedList')} + i]);
    let r = find(a);
    let at = atomicLoad(&control[${A('mergeStart')} + r]) + atomicLoad(&control[${A('childSlot')} + a]);
    atomicStore(&control[${A('mergeOrder')} + at], a);
    // A bound, not an exact figure: a child's P is copied once (K), then its union U at most once per
    // level of its representative's tree and once more into N(r); the root's own P counts once per child.
    let copies = 3u + firstLeadingBit(max(1u, atomicLoad(&control[${A('mergeSize')} + r])));
    atomicAdd(&control[${S('mergeNeedPts')}], pts_elements(${slot('points', 'a')}) * copies + pts_elements(${slot('points', 'r')}));
    atomicAdd(&control[${S('mergeNeedEdges')}], (edg_elements(${slot('points', 'a')}) + edg_elements(${slot('delta', 'a')})) * copies);
  }`,
)}
${singleKernel(
  'guard_merge',
  /* wgsl */ `
  // The pools' state for the host first (whatever the guards decided), and the update's lists,
  // their readers done.
${reportPools}${closeSegmentsAndPending}
  if (skip_update()) { return; }
  let pts_next = atomicLoad(&pts_header.next);
  let edg_next = atomicLoad(&edg_header.next);
  let pts_cap = pts_header.capacity;
  let edg_cap = edg_header.capacity;
  var skip = pts_next >= pts_cap || pts_cap - pts_next < atomicLoad(&control[${S('mergeNeedPts')}]);
  skip = skip || edg_next >= edg_cap || edg_cap - edg_next < atomicLoad(&control[${S('mergeNeedEdges')}]);
  atomicStore(&control[${S('skipMerge')}], select(0u, 1u, skip));`,
)}
${teamKernel(
  'merge_prepare',
  /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u)) != 0u) { return; }
  // What each member of a class has already pushed through its edges and rules is its P − ΔP; the
  // class keeps the intersection K of those as P and gathers the union U in N, so the next update
  // makes ΔP = U − K: every member's edges and rules see exactly what they have not seen. (Moving
  // all of U to ΔP would be exact too, but re-propagates whole sets at every merge.) Each child
  // starts as U = P in N and K = P − ΔP in P; merge_level folds them pairwise, merge_data into r.
  let count = pts_team_u(atomicLoad(&control[${S('merged')}]));
  for (var i = first_team; i < count; i += team_stride) {
    let a = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + i]));
    if (pts_lane == 0u) {
      pts_heads[${slot('pending', 'a')}] = pts_heads[${slot('points', 'a')}];
      pts_heads[${slot('points', 'a')}] = NONE;
    }
    var status = pts_union(${slot('points', 'a')}, ${slot('pending', 'a')});
    status |= pts_difference(${slot('points', 'a')}, ${slot('delta', 'a')});
    if (pts_lane == 0u) {
      pts_heads[${slot('delta', 'a')}] = NONE;
      edg_heads[${slot('pending', 'a')}] = NONE;
      if ((status & (pts_INCOMPLETE | pts_CORRUPT)) != 0u) {
        atomicOr(&control[${S('fatal')}], select(FATAL_EXHAUSTED, FATAL_CORRUPT, (status & pts_CORRUPT) != 0u));
      }
    }
  }`,
)}
${teamKernel(
  'merge_level',
  /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u)) != 0u) { return; }
  let stride = pts_team_u(atomicLoad(&control[${S('mergeStride')}]));
  if (stride >= pts_team_u(atomicLoad(&control[${S('mergeMaxChildren')}]))) { return; }
  // One level of the tree: the child at position p (p a multiple of 2·stride) absorbs the child at
  // p + stride, so no team folds more than one set per level; two teams per pair, the even one
  // the points-to sets, the odd one the edge sets.
  let count = pts_team_u(atomicLoad(&control[${S('merged')}]));
  for (var u = first_team; u < 2u * count; u += team_stride) {
    let i = u >> 1u;
    let a = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + i]));
    let r = pts_team_u(find(a));
    let p = i - pts_team_u(atomicLoad(&control[${A('mergeStart')} + r]));
    if (p % (2u * stride) != 0u || p + stride >= pts_team_u(atomicLoad(&control[${A('mergeSize')} + r]))) { continue; }
    let b = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + i + stride]));
    var status = 0u;
    if ((u & 1u) == 0u) {${foldPointsTo('a', 'b')}
    } else {${foldEdges('a', 'b')}
    }${foldFailed}
  }${nextLevel('mergeLevelDone', `atomicStore(&control[${S('mergeStride')}], 2u * stride);`)}`,
)}
${teamKernel(
  'merge_data',
  /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u)) != 0u) { return; }
  // Folds queued ahead for a round that merged nothing (rulesAhead): no child anywhere.
  if (pts_team_u(atomicLoad(&control[${S('merged')}])) == 0u) { return; }
  // The levels run left the children's sets in the tree roots at positions 0, 2·stride, 4·stride…
  // (one root when the levels covered the largest class): r takes K = P − ΔP and U = P of its own
  // and folds the roots in. Two teams per root, as in merge_level: part 0 the points-to sets, part
  // 1 the edge sets; merge_done then sets each root's count of children back to 0 (here one part
  // could see the other's reset before it began).
  let stride = pts_team_u(atomicLoad(&control[${S('mergeStride')}]));
  // Two items per child in the merge order; the first child of each root's run stands for the
  // root, so the grid follows the children merged (a sweep of two items per node was gcc's
  // 30,000 workgroups in every round that merged).
  let children = pts_team_u(atomicLoad(&control[${S('merged')}]));
  ${sweep({
    item: 'u',
    count: '2u * children',
    test: `u >> 1u == atomicLoad(&control[${A('mergeStart')} + find(atomicLoad(&control[${A('mergeOrder')} + (u >> 1u)]))])`,
    body: /* wgsl */ `
    let r = pts_team_u(find(atomicLoad(&control[${A('mergeOrder')} + (u >> 1u)])));
    let start = u >> 1u;
    let size = pts_team_u(atomicLoad(&control[${A('mergeSize')} + r]));
    var status = 0u;
    if ((u & 1u) == 0u) {
      if (pts_lane == 0u) {
        pts_heads[${slot('pending', 'r')}] = pts_heads[${slot('points', 'r')}];
        pts_heads[${slot('points', 'r')}] = NONE;
      }
      status |= pts_union(${slot('points', 'r')}, ${slot('pending', 'r')});
      status |= pts_difference(${slot('points', 'r')}, ${slot('delta', 'r')});
      for (var p = 0u; p < size; p += stride) {
        let c = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + start + p]));${foldPointsTo('r', 'c')}
      }
      if (pts_lane == 0u) { pts_heads[${slot('delta', 'r')}] = NONE; }
    } else {
      for (var p = 0u; p < size; p += stride) {
        let c = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + start + p]));${foldEdges('r', 'c')}
      }
    }${foldFailed}`,
  })}`,
)}
${threadKernel(
  'merge_done',
  /* wgsl */ `
  if (skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u) { return; }
  // After merge_data: each root with children is done (its children's count set back to 0 for the
  // next round's merges). Every child of a root writes the same words.
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let r = find(atomicLoad(&control[${A('mergedList')} + i]));
    atomicStore(&control[${A('mergeSize')} + r], 0u);
  }`,
)}
${teamKernel(
  'live_leaders',
  /* wgsl */ `
  // After the last iteration: representatives whose P sets are equal share one copy in the
  // readback (on python 5.5% of the representatives' elements are in distinct sets).
  ${equalSetLeaders('points')}`,
)}
${threadKernel(
  'live_count',
  /* wgsl */ `
  // Lays the distinct P sets out for the readback: a representative with elements (none for one
  // that reads an equal set's copy, see live_leaders) reserves as many consecutive elements of
  // pair_values from STATUS.liveElements on, and writes where they start to pair_keys[v] (NONE for
  // none) and how many there are to pair_keys[n + v]. Each node's parent becomes its root, so that
  // the union–find read back is flat (a root written over a parent only shortens other finds).
  for (var v = first_item; v < params.n; v += item_stride) {
    let r = find(v);
    atomicStore(&control[${A('parent')} + v], r);
    var count = 0u;
    var head = NONE;
    if (r == v && live_leader(v) == v) {
      count = pts_elements(${slot('points', 'v')});
      if (count > 0u) { head = atomicAdd(&control[${S('liveElements')}], count); }
    }
    pair_keys[v] = head;
    pair_keys[params.n + v] = count;
  }`,
)}
${teamKernel(
  'live_copy',
  /* wgsl */ `
  // Copies each set live_count laid out to pair_values from element pair_keys[v] on, contiguous and
  // relinked there, so that only the live sets are read back; nothing when they do not all fit
  // (the host, seeing STATUS.liveElements, makes room and lays them out again). On the way it
  // checks that each list is canonical (bases strictly increasing, no empty element, no member past
  // 2^32 - 1), which the host then need not walk the lists again to check.
  //
  // It also counts, for the report, the representatives' elements (a shared copy counted for each
  // representative that reads it; 64 bits, as linux's would pass 2^32 with enough sharing) and the
  // representatives that read another's copy, per team first so that few atomics reach each word.
  let room = arrayLength(&pair_values) / 32u;
  if (pts_team_u(atomicLoad(&control[${S('liveElements')}])) > room) { return; }
  var counted_low = 0u;
  var counted_high = 0u;
  var sharing = 0u;
  for (var v = first_team; v < params.n; v += team_stride) {
    if (pts_team_u(atomicLoad(&control[${A('parent')} + v])) == v) {
      let leader = pts_team_u(live_leader(v));
      let sum = counted_low + pair_keys[params.n + leader];
      counted_high += select(0u, 1u, sum < counted_low);
      counted_low = sum;
      sharing += select(0u, 1u, leader != v);
    }
    var k = pts_team_u(pair_keys[v]);
    if (k == NONE) { continue; }
    var e = pts_team_u(pts_heads[${slot('points', 'v')}]);
    var later = false;
    var previous_base = 0u;
    loop {
      if (e == NONE) { break; }
      let next = pts_team_u(pts_load(e, 31u));
      var bits = 0u;
      var high_bits = 0u;
      for (var w = pts_lane; w < 31u; w += pts_lanes) {
        let word = pts_load(e, w);
        pair_values[k * 32u + w] = word;
        if (w < 30u) { bits |= word; }
        if (w >= 8u && w < 30u) { high_bits |= word; }
      }
      let base = pts_team_u(pts_load(e, 30u));
      let empty = pts_team_or(bits) == 0u;
      let high = pts_team_or(high_bits);
      let past = base > ${MAX_BASE}u || (base == ${MAX_BASE}u && high != 0u);
      if (pts_lane == 0u) {
        pair_values[k * 32u + 31u] = select(k + 1u, NONE, next == NONE);
        if (empty || past || (later && base <= previous_base)) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }
      }
      later = true;
      previous_base = base;
      k++;
      e = next;
    }
  }
  if (pts_lane == 0u) {
    if (counted_low != 0u) {
      let before = atomicAdd(&control[${S('liveCountLow')}], counted_low);
      counted_high += select(0u, 1u, before + counted_low < before);
    }
    if (counted_high != 0u) { atomicAdd(&control[${S('liveCountHigh')}], counted_high); }
    if (sharing != 0u) { atomicAdd(&control[${S('liveShared')}], sharing); }
  }`,
)}
`;
  // pull_sources writes N(r) and the partial sets; member_rules reads only ΔP and pushes pairs.
  return `${code}${fusedTeamKernel('pull_rules', ['pull_sources', 'member_rules'])}`;
}

/**
 * The kernels of a round's folds and rules (through `sort_gate`), which return at once when
 * `rules_gate` found that those submitted ahead must wait for the host (see `STATUS.rulesSkipped`).
 */
const RULES_GATED: ReadonlySet<string> = new Set([
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
const UPDATE_GATED: ReadonlySet<string> = new Set([
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
const BARRIER_KERNELS: ReadonlySet<string> = new Set([
  'mark_segments',
  'pending_list',
  'guard_pending',
  'hop_bits',
]);

/** Entry points of {@link solverKernelsWgsl} and how each is dispatched. */
export const SOLVER_ENTRY_POINTS = {
  init_state: 'thread',
  rules_gate: 'single',
  begin_iteration: 'single',
  begin_attempt: 'single',
  sort_gate: 'single',
  pending_list: 'thread',
  delta_clear: 'thread',
  delta_bits: 'thread',
  delta_leaders: 'team',
  pull_count: 'team',
  pull_items: 'thread',
  pull_sources: 'team',
  member_rules: 'team',
  pull_rules: 'team',
  merge_partials: 'team',
  sort_small: 'single',
  mark_segments: 'thread',
  apply_pairs: 'thread',
  hop_bits: 'thread',
  hop_pull: 'team',
  guard_update: 'single',
  guard_pending: 'thread',
  update_sets: 'team',
  hcd_hook: 'team',
  compress: 'thread',
  merge_rank: 'thread',
  merge_count: 'thread',
  guard_merge: 'single',
  merge_prepare: 'team',
  merge_level: 'team',
  merge_data: 'team',
  merge_done: 'thread',
  live_leaders: 'team',
  live_count: 'thread',
  live_copy: 'team',
} as const;

/** How each entry point is dispatched for a team kind (`apply_pairs` runs per team with subgroups). */
export function solverEntryKinds(team: TeamKind): Record<SolverEntryPoint, 'single' | 'team' | 'thread'> {
  return { ...SOLVER_ENTRY_POINTS, apply_pairs: team === 'subgroup' ? 'team' : 'thread' };
}

/** Name of one entry point of the solver module. */
export type SolverEntryPoint = keyof typeof SOLVER_ENTRY_POINTS;

/**
 * WGSL of `<p>_merge_sorted(v, start, end) -> u32` for pool `p` (subgroup teams only): the team
 * merges the sources `pair_values[start, end)`, ordered by word group (source >> 5), into vector
 * `v`. Each step takes one source per lane, and for each element base among them (smallest
 * first) ORs the members into the list at a cursor that only moves forward. Once the cursor is
 * past the list's last element every base left in the window is new and comes in order, so the
 * team appends them all with one allocation (contiguous elements, linked in order) instead of one
 * allocation and 30 subgroup reductions per base.
 */
function mergeSortedWgsl(p: 'pts' | 'edg', laneWords: number): string {
  const append = /* wgsl */ `
      } else if (d == NONE) {
        // Every base left in the window is new: lane ranks give the bases consecutive elements
        // (a subgroup team's alloc hands out one block, ranked by subgroupExclusiveAdd).
        let base_before = subgroupShuffleUp(my_base, 1u);
        let rest = my_base != NONE;
        let base_lead = rest && (${p}_lane == 0u || base_before != my_base);
        let fresh = ${p}_alloc(base_lead, ${p}_lane);
        if (subgroupOr(select(0u, 1u, base_lead && fresh == GM_INVALID_ELEMENT)) != 0u) { return status | ${p}_INCOMPLETE; }
        let first = subgroupMin(select(NONE, fresh, base_lead));
        let total = subgroupAdd(select(0u, 1u, base_lead));
        let element = first + subgroupInclusiveAdd(select(0u, 1u, base_lead)) - 1u;
        // The words each base's leads write (a segmented OR by base, like the bits above): the
        // first lane of a base zeroes the others, so that every word is written once.
        var written = select(0u, 1u << my_word, leads && rest);
        for (var off = 1u; off < ${p}_lanes; off *= 2u) {
          let other_written = subgroupShuffleDown(written, off);
          let other_base = subgroupShuffleDown(my_base, off);
          if (${p}_lane + off < ${p}_lanes && other_base == my_base) { written |= other_written; }
        }
        if (leads && rest) { ${p}_store(element, my_word, my_bits); }
        if (base_lead) {
          for (var w = 0u; w < 30u; w++) {
            if ((written & (1u << w)) == 0u) { ${p}_store(element, w, 0u); }
          }
          ${p}_store(element, 30u, my_base);
          ${p}_store(element, 31u, select(element + 1u, NONE, element == first + total - 1u));
        }
        if (${p}_lane == 0u) {
          if (prev == NONE) { ${p}_heads[v] = first; } else { ${p}_store(prev, 31u, first); }
        }
        let last = first + total - 1u;
        if (total > 1u) { prev = last - 1u; }
        d = last;
        status |= ${p}_CHANGED;
        my_base = NONE;
        continue;`;
  return /* wgsl */ `
// The team merges the sources pair_values[start, end), ordered by word group (source >> 5), into
// vector v: each step takes one source per lane, and for each element base among them (smallest
// first) ORs the members into the list at a cursor that only moves forward, appending the bases past its end together (subgroup teams only).
fn ${p}_merge_sorted(v: u32, start: u32, end: u32) -> u32 {
  var status = 0u;
  var prev = NONE;
  var d = ${p}_team_u(${p}_heads[v]);
  let limit = ${p}_team_u(${p}_header.capacity) * 4u + 64u;
  var steps = 0u;
  var c = start;
  loop {
    if (c >= end) { break; }
    let i = c + ${p}_lane;
    var m = NONE;
    if (i < end) { m = pair_values[i]; }
    var my_base = NONE;
    if (m != NONE) { my_base = m / 960u; }
    let my_word = (m % 960u) / 32u;
    // The window is ordered by word group, so the lanes of one (base, word) are adjacent (repeats
    // included, which OR nothing new): a segmented OR leaves each such run's bits in its first
    // lane, which alone writes that word below — one shuffle per doubling instead of 30 subgroup
    // ORs per base.
    let my_key = select(NONE, my_base * 30u + my_word, m != NONE);
    var my_bits = select(0u, 1u << (m % 32u), m != NONE);
    for (var off = 1u; off < ${p}_lanes; off *= 2u) {
      let other_bits = subgroupShuffleDown(my_bits, off);
      let other_key = subgroupShuffleDown(my_key, off);
      if (${p}_lane + off < ${p}_lanes && other_key == my_key) { my_bits |= other_bits; }
    }
    let key_before = subgroupShuffleUp(my_key, 1u);
    let leads = my_key != NONE && (${p}_lane == 0u || key_before != my_key);
    loop {
      let b = subgroupMin(my_base);
      if (b == NONE) { break; }
      var dh = vec2u(NONE, NONE);
      var passed_word = 0u;
      loop {
        if (d == NONE) { break; }
        // The lane's word of the element passed, in case its base is b: loaded with the header.
        passed_word = ${p}_load(d, my_word);
        dh = ${p}_team_u2(vec2u(${p}_load(d, 30u), ${p}_load(d, 31u)));
        if (dh.x >= b) { break; }
        prev = d;
        d = dh.y;
        steps++;
        if (steps > limit) { return status | ${p}_CORRUPT; }
      }
      if (d != NONE && dh.x == b) {
        if (leads && my_base == b) {
          let a = passed_word;
          let n = a | my_bits;
          if (n != a) { ${p}_store(d, my_word, n); }
        }${append}
      } else {
        // A new element (the set's first member of this base): every one of its words from the window.
        var mine: array<u32, ${laneWords}>;
        for (var w = 0u; w < 30u; w++) {
          let x = subgroupOr(select(0u, my_bits, leads && my_base == b && my_word == w));
          if (w % ${p}_lanes == ${p}_lane) { mine[w / ${p}_lanes] = x; }
        }
        let fresh = ${p}_team_u(${p}_alloc(${p}_lane == 0u, ${p}_lane));
        if (fresh == GM_INVALID_ELEMENT) { return status | ${p}_INCOMPLETE; }
        for (var k = 0u; k < ${laneWords}u; k++) {
          let w = ${p}_lane + k * ${p}_lanes;
          if (w < 30u) { ${p}_store(fresh, w, mine[k]); }
        }
        // Linked only once complete, as the library does.
        if (${p}_lane == 0u) {
          ${p}_store(fresh, 30u, b);
          ${p}_store(fresh, 31u, d);
          if (prev == NONE) { ${p}_heads[v] = fresh; } else { ${p}_store(prev, 31u, fresh); }
        }
        d = fresh;
        dh = vec2u(b, d);
        status |= ${p}_CHANGED;
      }
      if (my_base == b) { my_base = NONE; }
    }
    // Teams of both pools have the same width.
    c = skip_copies(c + pts_lanes, end);
  }
  return status;
}`;
}
