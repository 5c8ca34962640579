import type { WgslModule } from '../../kernels/wgsl';
import { type PoolGeometry, poolHeaderWgsl } from '../layout';

/** How the lanes that allocate together are grouped. */
export type TeamMode = 'subgroup' | 'workgroup';

/**
 * WGSL of `<name>_alloc(want, local_index) -> u32`: every lane of a team calls it together; each
 * lane with `want` gets a distinct element index, or `GM_INVALID_ELEMENT` if the pool is exhausted.
 * The pool's counter sees one atomic per team:
 * - `subgroup`: the team is a subgroup (ranks by subgroup exclusive add, one elected lane bumps the
 *   counter, the base is broadcast). Call it in subgroup-uniform control flow. Needs `subgroups`.
 * - `workgroup`: the team is the workgroup; with `subgroups`, each subgroup first aggregates into a
 *   workgroup counter (one workgroup atomic per subgroup), without it each lane does. Call it in
 *   workgroup-uniform control flow (WGSL checks the barriers).
 *
 * Also emits `<name>_alloc_single(want)`, one atomic per lane, usable anywhere (and the baseline of
 * the allocator benchmark), and `<name>_claim(total) -> u32`, which one lane calls for a team that
 * wants `total` consecutive elements in an order of its own: it returns the first, and flags the
 * pool exhausted when `total` elements from it do not fit below the capacity (the caller checks).
 */
export function poolAllocWgsl(
  pool: Pick<PoolGeometry, 'name'>,
  team: TeamMode,
  subgroups: boolean,
): WgslModule {
  const p = pool.name;
  const single = /* wgsl */ `
fn ${p}_alloc_single(want: bool) -> u32 {
  if (!want) { return GM_INVALID_ELEMENT; }
  let index = atomicAdd(&${p}_header.next, 1u);
  if (index >= ${p}_header.capacity) {
    atomicStore(&${p}_header.exhausted, 1u);
    return GM_INVALID_ELEMENT;
  }
  return index;
}`;
  const claim = /* wgsl */ `
// One atomic for the whole team; flags exhaustion when the request does not fit.
fn ${p}_claim(total: u32) -> u32 {
  let base = atomicAdd(&${p}_header.next, total);
  let capacity = ${p}_header.capacity;
  if (base >= capacity || total > capacity - base) { atomicStore(&${p}_header.exhausted, 1u); }
  return base;
}
fn ${p}_checked(want: bool, base: u32, rank: u32) -> u32 {
  let index = base + rank;
  if (!want || index >= ${p}_header.capacity || index < base) { return GM_INVALID_ELEMENT; }
  return index;
}`;
  if (team === 'subgroup') {
    if (!subgroups) throw new Error(`pool '${p}': subgroup teams need the 'subgroups' feature`);
    return {
      name: `gm_pool_alloc_${p}_subgroup`,
      requires: [poolHeaderWgsl],
      enables: ['subgroups'],
      // Callers invoke alloc in subgroup-uniform control flow that the analysis cannot prove
      // (e.g. a loop over a list that one subgroup walks together).
      diagnostics: ['off, subgroup_uniformity'],
      code: `${claim}
fn ${p}_alloc(want: bool, local_index: u32) -> u32 {
  let ask = select(0u, 1u, want);
  let rank = subgroupExclusiveAdd(ask);
  let total = subgroupAdd(ask);
  let elected = subgroupElect();
  var base = 0u;
  if (elected && total != 0u) { base = ${p}_claim(total); }
  base = subgroupBroadcastFirst(base);
  return ${p}_checked(want, base, rank);
}
${single}`,
    };
  }
  // Rank of this lane within the workgroup's request: per subgroup when available, else per lane.
  const rankInWorkgroup = subgroups
    ? /* wgsl */ `
  let ask = select(0u, 1u, want);
  let lane_rank = subgroupExclusiveAdd(ask);
  let subgroup_total = subgroupAdd(ask);
  let elected = subgroupElect();
  var offset = 0u;
  if (elected && subgroup_total != 0u) { offset = atomicAdd(&${p}_team_count, subgroup_total); }
  let rank = subgroupBroadcastFirst(offset) + lane_rank;`
    : /* wgsl */ `
  var rank = 0u;
  if (want) { rank = atomicAdd(&${p}_team_count, 1u); }`;
  return {
    name: `gm_pool_alloc_${p}_workgroup${subgroups ? '_subgroups' : ''}`,
    requires: [poolHeaderWgsl],
    ...(subgroups ? { enables: ['subgroups'] } : {}),
    code: `${claim}
var<workgroup> ${p}_team_count: atomic<u32>;
var<workgroup> ${p}_team_base: u32;
fn ${p}_alloc(want: bool, local_index: u32) -> u32 {
  if (local_index == 0u) { atomicStore(&${p}_team_count, 0u); }
  workgroupBarrier();${rankInWorkgroup}
  workgroupBarrier();
  if (local_index == 0u) {
    let total = atomicLoad(&${p}_team_count);
    var base = 0u;
    if (total != 0u) { base = ${p}_claim(total); }
    ${p}_team_base = base;
  }
  let base = workgroupUniformLoad(&${p}_team_base);
  return ${p}_checked(want, base, rank);
}
${single}`,
  };
}

/**
 * WGSL of `<name>_load(element, word) -> u32` and `<name>_store(element, word, value)` over the
 * pool's windows. Element indices are u32 (up to 2^32 elements); the word offset inside a window
 * fits u32 because a window is at most one binding (≤ 4 GiB), so pools larger than a binding work
 * like the 64-bit-like indexing of the PTAGPU chapter.
 */
export function poolAccessWgsl(pool: PoolGeometry): WgslModule {
  const { name: p, windows, windowElements, elementWords } = pool;
  const at = (w: number) => `${p}_w${w}[(element - ${w * windowElements}u) * ${elementWords}u + word]`;
  let load: string;
  let store: string;
  if (windows === 1) {
    load = `return ${at(0)};`;
    store = `${at(0)} = value;`;
  } else {
    const cases = (body: (w: number) => string) =>
      Array.from({ length: windows }, (_, w) =>
        w === windows - 1 ? `    default: { ${body(w)} }` : `    case ${w}u: { ${body(w)} }`,
      ).join('\n');
    load = `switch (element / ${windowElements}u) {\n${cases((w) => `return ${at(w)};`)}\n  }`;
    store = `switch (element / ${windowElements}u) {\n${cases((w) => `${at(w)} = value;`)}\n  }`;
  }
  return {
    name: `gm_pool_access_${p}_${windows}x${windowElements}x${elementWords}`,
    requires: [poolHeaderWgsl],
    code: /* wgsl */ `
const ${p}_ELEMENT_WORDS: u32 = ${elementWords}u;
fn ${p}_load(element: u32, word: u32) -> u32 {
  ${load}
}
fn ${p}_store(element: u32, word: u32, value: u32) {
  ${store}
}`,
  };
}
