import { BASE_WORD, BITS_WORDS, MEMBERS_PER_ELEMENT, NEXT_WORD } from '@gpumorph/sparse-bitvector';

import type { SolverWgsl } from '../module/context';

/** N ∪= S − X in one walk of the three lists (the pulls of ΔP minus P). */
export function unionMinusWgsl(w: SolverWgsl): string {
  const { lw, laneWords } = w;
  return /* wgsl */ `// dst ∪= src − excl in one walk of the three sorted lists: an element of src whose members excl
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
    let sh = pts_team_u2(vec2u(pts_load(s, ${BASE_WORD}u), pts_load(s, ${NEXT_WORD}u)));
    let tb = sh.x;
    var xb = NONE;
    loop {
      if (x == NONE) { break; }${laneWords('excluded', 'x')}
      let xh = pts_team_u2(vec2u(pts_load(x, ${BASE_WORD}u), pts_load(x, ${NEXT_WORD}u)));
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
      if (w < ${BITS_WORDS}u) {
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
        dh = pts_team_u2(vec2u(pts_load(d, ${BASE_WORD}u), pts_load(d, ${NEXT_WORD}u)));
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
            if (w < ${BITS_WORDS}u) {
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
              if (w < ${BITS_WORDS}u) { pts_store(fresh, w, mine[k]); }
            }
            // Linked only once complete: an exhausted re-run never sees half an element.
            if (pts_lane == 0u) {
              pts_store(fresh, ${BASE_WORD}u, tb);
              pts_store(fresh, ${NEXT_WORD}u, d);
              if (prev == NONE) { pts_heads[dst] = fresh; } else { pts_store(prev, ${NEXT_WORD}u, fresh); }
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

`;
}

/** The second copy hop, and the update's guard. */
export function hopWgsl(w: SolverWgsl): string {
  const {
    threadKernel,
    classBitmap,
    teamKernel,
    hopLimits,
    sourcesSweep,
    slot,
    scanSources,
    hopPull,
    S,
    singleKernel,
    guardUpdateBody,
  } = w;
  return /* wgsl */ `${threadKernel(
    'hop_bits',
    /* wgsl */ `
  // The second copy hop's screen: bit m of the delta_bits words (whose rules and pulls have run)
  // now says that node m's class has a pending set N, so that hop_pull decodes only those sources.
  let words = ${BITS_WORDS}u * ((params.n + ${MEMBERS_PER_ELEMENT - 1}u) / ${MEMBERS_PER_ELEMENT}u);
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
`;
}

/** ΔP = N − P, P ∪= ΔP, F = G − E, E ∪= F; and the HCD hooks. */
export function updateSetsWgsl(w: SolverWgsl): string {
  const { teamKernel, updateSweep, hop, slot, S, hookSplit, skipJoined, forEachMemberByLane, A } = w;
  return /* wgsl */ `${teamKernel(
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
`;
}
