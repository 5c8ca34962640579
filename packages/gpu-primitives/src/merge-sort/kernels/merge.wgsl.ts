import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { mergeSortInPlaceLayout, mergeSortLayout, mergeSortParamsWgsl } from '../layout';

/** Shape of the merge sort's kernels: a tile (and a merge's output chunk) is `workgroupSize × itemsPerThread` pairs. */
export interface MergeKernelParams {
  /** Invocations per workgroup (a power of two). */
  readonly workgroupSize: number;
  /** Pairs per invocation (a power of two). */
  readonly itemsPerThread: number;
}

/** Bytes of workgroup memory either kernel declares: a tile's keys and values. */
export function mergeWorkgroupBytes(p: MergeKernelParams): number {
  return 2 * 4 * p.workgroupSize * p.itemsPerThread + 16;
}

/** The count, the pair order and the tile's workgroup arrays, shared by both kernels. */
function commonWgsl(p: MergeKernelParams): string {
  const tile = p.workgroupSize * p.itemsPerThread;
  return /* wgsl */ `
${mergeSortParamsWgsl}
const WG = ${p.workgroupSize}u;
const ITEMS = ${p.itemsPerThread}u;
const TILE = ${tile}u;
var<workgroup> tile_keys: array<u32, TILE>;
var<workgroup> tile_values: array<u32, TILE>;

// Pairs to sort: the host's count, or the GPU's (never more than the plan's, which the grid covers).
fn sort_count() -> u32 {
  if (params.count_word == 0xffffffffu) { return params.count; }
  return min(count_src[params.count_word], params.count);
}

// (ak, av) < (bk, bv), by key and then by value.
fn pair_less(ak: u32, av: u32, bk: u32, bv: u32) -> bool {
  return ak < bk || (ak == bk && av < bv);
}`;
}

/**
 * WGSL of the tile sort: one workgroup sorts one tile of `TILE` pairs in workgroup memory with a
 * bitonic network (pairs past the count padded with the largest pair, and not written back),
 * from `src_*` to `dst_*`, or in place in `keys` / `values`.
 */
export function tileSortKernelWgsl(p: MergeKernelParams & { readonly inPlace: boolean }): string {
  const layout = p.inPlace ? mergeSortInPlaceLayout : mergeSortLayout;
  const [srcKeys, srcValues, dstKeys, dstValues] = p.inPlace
    ? ['keys', 'values', 'keys', 'values']
    : ['src_keys', 'src_values', 'dst_keys', 'dst_values'];
  return linkWgsl(
    /* wgsl */ `
${commonWgsl(p)}
${layout.wgsl()}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let n = sort_count();
  let base = gm_workgroup_index(wid, nwg) * TILE;
  if (base >= n) { return; }
  // The network sorts the power of two that holds the tile's pairs, not always the whole tile: a
  // worklist of a few pairs (a solver's quiet rounds) takes a few stages, not all of a full
  // tile's (66 barriers for 2,048 pairs).
  let live = min(n - base, TILE);
  var width = 2u;
  while (width < live) { width <<= 1u; }
  for (var r = 0u; r < ITEMS; r++) {
    let i = r * WG + lid;
    let g = base + i;
    if (g < n) {
      tile_keys[i] = ${srcKeys}[g];
      tile_values[i] = ${srcValues}[g];
    } else if (i < width) {
      tile_keys[i] = 0xffffffffu;
      tile_values[i] = 0xffffffffu;
    }
  }
  workgroupBarrier();
  // Bitonic network: at stage k, blocks of k pairs alternate ascending and descending, so that
  // the last stage (k = width) leaves one ascending run.
  for (var k = 2u; k <= width; k <<= 1u) {
    for (var j = k >> 1u; j > 0u; j >>= 1u) {
      for (var q = lid; q < width / 2u; q += WG) {
        let i = ((q & ~(j - 1u)) << 1u) | (q & (j - 1u));
        let l = i + j;
        let ki = tile_keys[i];
        let vi = tile_values[i];
        let kl = tile_keys[l];
        let vl = tile_values[l];
        if (pair_less(kl, vl, ki, vi) == ((i & k) == 0u)) {
          tile_keys[i] = kl;
          tile_values[i] = vl;
          tile_keys[l] = ki;
          tile_values[l] = vi;
        }
      }
      workgroupBarrier();
    }
  }
  for (var r = 0u; r < ITEMS; r++) {
    let i = r * WG + lid;
    let g = base + i;
    if (g < n) {
      ${dstKeys}[g] = tile_keys[i];
      ${dstValues}[g] = tile_values[i];
    }
  }
}`,
    [gridWgsl],
  );
}

/**
 * WGSL of one merge pass: the source holds sorted runs of `width` pairs; run 2m and run 2m + 1
 * are merged into positions [2m·width, (2m + 2)·width) of the destination (a lone last run is
 * copied). Each workgroup writes one chunk of `TILE` outputs: two invocations find where the
 * chunk starts and ends on the merge path (a binary search in the source), the workgroup loads
 * those pieces of both runs into workgroup memory, and each pair goes to its rank in the merged
 * order — its index in its piece plus the number of pairs of the other piece before it (ties: the
 * first run's pairs first).
 */
export function mergePassKernelWgsl(p: MergeKernelParams): string {
  return linkWgsl(
    /* wgsl */ `
${commonWgsl(p)}
${mergeSortLayout.wgsl()}
var<workgroup> path_ends: array<u32, 2>;

// How many of run A's pairs are among the first d of the merge of A and B (A's first on ties).
fn merge_path(a0: u32, a_len: u32, b0: u32, b_len: u32, d: u32) -> u32 {
  var lo = select(0u, d - b_len, d > b_len);
  var hi = min(d, a_len);
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    let b = b0 + d - 1u - mid;
    if (pair_less(src_keys[b], src_values[b], src_keys[a0 + mid], src_values[a0 + mid])) {
      hi = mid;
    } else {
      lo = mid + 1u;
    }
  }
  return lo;
}

// Pairs of tile[first, first + len) less than (k, v), or not greater when or_equal.
fn rank_in(first: u32, len: u32, k: u32, v: u32, or_equal: bool) -> u32 {
  var lo = 0u;
  var hi = len;
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    let mk = tile_keys[first + mid];
    let mv = tile_values[first + mid];
    let before = pair_less(mk, mv, k, v) || (or_equal && mk == k && mv == v);
    if (before) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let n = sort_count();
  let out0 = gm_workgroup_index(wid, nwg) * TILE;
  if (out0 >= n) { return; }
  let width = params.width;
  let a0 = out0 - out0 % (2u * width);
  let a_len = min(width, n - a0);
  let b0 = a0 + a_len;
  let b_len = select(0u, min(width, n - b0), a_len == width && b0 < n);
  let d0 = out0 - a0;
  let d1 = min(d0 + TILE, a_len + b_len);
  if (lid < 2u) {
    path_ends[lid] = merge_path(a0, a_len, b0, b_len, select(d0, d1, lid == 1u));
  }
  let i0 = workgroupUniformLoad(&path_ends[0]);
  let i1 = workgroupUniformLoad(&path_ends[1]);
  let la = i1 - i0;
  let lb = (d1 - i1) - (d0 - i0);
  let j0 = d0 - i0;
  for (var r = 0u; r < ITEMS; r++) {
    let i = r * WG + lid;
    if (i < la) {
      tile_keys[i] = src_keys[a0 + i0 + i];
      tile_values[i] = src_values[a0 + i0 + i];
    } else if (i < la + lb) {
      tile_keys[i] = src_keys[b0 + j0 + i - la];
      tile_values[i] = src_values[b0 + j0 + i - la];
    }
  }
  workgroupBarrier();
  for (var r = 0u; r < ITEMS; r++) {
    let i = r * WG + lid;
    if (i < la + lb) {
      let k = tile_keys[i];
      let v = tile_values[i];
      var out = out0;
      if (i < la) {
        out += i + rank_in(la, lb, k, v, false);
      } else {
        out += (i - la) + rank_in(0u, la, k, v, true);
      }
      dst_keys[out] = k;
      dst_values[out] = v;
    }
  }
}`,
    [gridWgsl],
  );
}
