import { BASE_WORD, BITS_WORDS, ELEMENT_WORDS, MAX_BASE, NEXT_WORD } from '@gpumorph/sparse-bitvector';
import type { SolverWgsl } from '../module/context';

/** The live sets laid out for the readback: leaders, counts and copies. */
export function liveSetsWgsl(w: SolverWgsl): string {
  const { teamKernel, equalSetLeaders, threadKernel, A, slot, S } = w;
  return /* wgsl */ `${teamKernel(
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
      let next = pts_team_u(pts_load(e, ${NEXT_WORD}u));
      var bits = 0u;
      var high_bits = 0u;
      for (var w = pts_lane; w < ${NEXT_WORD}u; w += pts_lanes) {
        let word = pts_load(e, w);
        pair_values[k * ${ELEMENT_WORDS}u + w] = word;
        if (w < ${BITS_WORDS}u) { bits |= word; }
        if (w >= 8u && w < ${BITS_WORDS}u) { high_bits |= word; }
      }
      let base = pts_team_u(pts_load(e, ${BASE_WORD}u));
      let empty = pts_team_or(bits) == 0u;
      let high = pts_team_or(high_bits);
      let past = base > ${MAX_BASE}u || (base == ${MAX_BASE}u && high != 0u);
      if (pts_lane == 0u) {
        pair_values[k * ${ELEMENT_WORDS}u + ${NEXT_WORD}u] = select(k + 1u, NONE, next == NONE);
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
}
