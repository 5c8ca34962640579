import { BASE_WORD, BITS_WORDS, NEXT_WORD } from '@gpumorph/sparse-bitvector';
import { CONTROL_ARRAY_COUNT, CONTROL_HEAD_WORDS, NODE_SET_SLOTS, paramsStructWgsl } from '../layout';
import type { SolverWgsl } from './context';

/** The parameters, bindings, constants and the addressing of the tables and lists. */
export function moduleHeaderWgsl(w: SolverWgsl): string {
  const { params, NONE } = w;
  return /* wgsl */ `
${paramsStructWgsl()}
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

`;
}

/** The team-wide hash of a set, the final sets' leaders and the fatal status codes. */
export function setHashWgsl(w: SolverWgsl): string {
  const { lw, laneWords, shareEqualSets, A } = w;
  return /* wgsl */ `// A hash of set v that the whole team computes: each lane mixes its own words with the element's
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
    let header = pts_team_u2(vec2u(pts_load(e, ${BASE_WORD}u), pts_load(e, ${NEXT_WORD}u)));
    var mine = 0u;
    for (var k = 0u; k < ${lw}u; k++) {
      let w = pts_lane + k * pts_lanes;
      if (w >= ${BITS_WORDS}u) { break; }
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

`;
}

/** The lock-free union–find of the classes (find with path halving, hook). */
export function unionFindWgsl(w: SolverWgsl): string {
  const { A, S } = w;
  return /* wgsl */ `fn find(v0: u32) -> u32 {
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

`;
}
