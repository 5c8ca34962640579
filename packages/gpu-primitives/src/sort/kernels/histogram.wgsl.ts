import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { histogramLayout, sortParamsWgsl } from '../layout';

/** Shape of the histogram kernel. */
export interface HistogramKernelParams {
  /** Invocations per workgroup. */
  readonly workgroupSize: number;
  /** Keys per invocation: a tile is `workgroupSize × itemsPerThread` keys. */
  readonly itemsPerThread: number;
  /** Bits per digit (the table has `2^radixBits` rows). */
  readonly radixBits: number;
}

/**
 * WGSL of the per-tile digit histogram: one workgroup per tile of the bound source window counts
 * the digits of its keys with workgroup atomics and writes the counts to
 * `table[digit * num_tiles + tile]` (digit-major, so one exclusive scan of the table gives every
 * tile's global offset for every digit).
 */
export function histogramKernelWgsl(p: HistogramKernelParams): string {
  const radix = 1 << p.radixBits;
  return linkWgsl(
    /* wgsl */ `
${sortParamsWgsl}
${histogramLayout.wgsl()}
const WG = ${p.workgroupSize}u;
const ITEMS = ${p.itemsPerThread}u;
const TILE = ${p.workgroupSize * p.itemsPerThread}u;
const RADIX = ${radix}u;
var<workgroup> hist: array<atomic<u32>, RADIX>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let local_tile = gm_workgroup_index(wid, nwg);
  if (local_tile >= params.window_tiles) { return; }
  let tile = params.first_tile + local_tile;
  // A sort whose count the GPU wrote may leave whole tiles past it (zero rows of the table).
  let tile_count = select(0u, min(TILE, params.count - tile * TILE), tile * TILE < params.count);
  let src_start = local_tile * TILE;
  for (var d = lid; d < RADIX; d += WG) { atomicStore(&hist[d], 0u); }
  workgroupBarrier();
  for (var r = 0u; r < ITEMS; r++) {
    let i = r * WG + lid;
    if (i < tile_count) {
      let digit = (src_keys[src_start + i] >> params.shift) & params.digit_mask;
      atomicAdd(&hist[digit], 1u);
    }
  }
  workgroupBarrier();
  for (var d = lid; d < RADIX; d += WG) { table[d * params.num_tiles + tile] = atomicLoad(&hist[d]); }
}`,
    [gridWgsl],
  );
}
