import { type BindingLayout, type BindingSpec, defineBindings } from '@gpumorph/gpu-allocator';

/** Bytes between two parameter slots of the sort's uniform buffer (the uniform offset alignment). */
export const PARAM_SLOT_BYTES = 256;
/** u32 words of one parameter slot. */
export const PARAM_SLOT_WORDS = PARAM_SLOT_BYTES / 4;
/** Most destination windows one scatter dispatch binds (keys and values each). */
export const MAX_SCATTER_WINDOWS = 4;

/**
 * Per-dispatch parameters of the histogram and scatter kernels. Field order is the order
 * {@link writeSortParams} writes them in.
 */
export const sortParamsWgsl = /* wgsl */ `
struct SortParams {
  count: u32,            // keys in the whole sort
  shift: u32,            // first key bit of this pass's digit
  digit_mask: u32,       // (1 << digit width of this pass) - 1
  num_tiles: u32,        // tiles in the whole sort (row length of the digit-major table)
  first_tile: u32,       // first tile of the bound source window
  window_tiles: u32,     // tiles of this dispatch (surplus grid workgroups exit)
  window_keys: u32,      // keys per destination window
  first_dst_window: u32, // first destination window bound in this dispatch
}`;

/** Parameters of one SortParams slot. */
export interface SortParams {
  readonly count: number;
  readonly shift: number;
  readonly digitMask: number;
  readonly numTiles: number;
  readonly firstTile: number;
  readonly windowTiles: number;
  readonly windowKeys: number;
  readonly firstDstWindow: number;
}

/** Writes `p` into slot `slot` of `words`. */
export function writeSortParams(words: Uint32Array, slot: number, p: SortParams): void {
  words.set(
    [p.count, p.shift, p.digitMask, p.numTiles, p.firstTile, p.windowTiles, p.windowKeys, p.firstDstWindow],
    slot * PARAM_SLOT_WORDS,
  );
}

/** Per-dispatch parameters of the histogram-table scan kernels. */
export const scanParamsWgsl = /* wgsl */ `
struct SortScanParams {
  length: u32,    // elements of this level
  blocks: u32,    // blocks (workgroups) of this level
  has_carry: u32, // 1 when scan_carry holds each block's offset (every level but the top)
}`;

/** Writes scan parameters into slot `slot` of `words`. */
export function writeScanParams(
  words: Uint32Array,
  slot: number,
  p: { length: number; blocks: number; hasCarry: boolean },
): void {
  words.set([p.length, p.blocks, p.hasCarry ? 1 : 0], slot * PARAM_SLOT_WORDS);
}

/** Per-tile digit histograms of one source window, written digit-major into `table`. */
export const histogramLayout = defineBindings('gm radix sort histogram', {
  params: { kind: 'uniform', type: 'SortParams' },
  src_keys: { kind: 'storage', type: 'array<u32>', access: 'read' },
  table: { kind: 'storage', type: 'array<u32>' },
});

/** Block sums of one level of the table scan. */
export const scanReduceLayout = defineBindings('gm radix sort scan reduce', {
  scan_params: { kind: 'uniform', type: 'SortScanParams' },
  scan_data: { kind: 'storage', type: 'array<u32>', access: 'read' },
  scan_sums: { kind: 'storage', type: 'array<u32>' },
});

/** Exclusive scan of one level in place, each block offset by its scanned block sum. */
export const scanBlockLayout = defineBindings('gm radix sort scan block', {
  scan_params: { kind: 'uniform', type: 'SortScanParams' },
  scan_data: { kind: 'storage', type: 'array<u32>' },
  scan_carry: { kind: 'storage', type: 'array<u32>', access: 'read' },
});

const scatterLayouts = new Map<string, BindingLayout>();

/**
 * Layout of the scatter kernel with `windows` destination windows for the keys (and as many for the
 * values when `withValues`): `dst_keys_0 … dst_keys_{windows-1}`, `dst_values_0 …`.
 */
export function scatterLayout(windows: number, withValues: boolean): BindingLayout {
  if (!Number.isInteger(windows) || windows < 1 || windows > MAX_SCATTER_WINDOWS)
    throw new RangeError(`scatter with ${windows} destination windows (1…${MAX_SCATTER_WINDOWS})`);
  const key = `${windows}|${withValues}`;
  let layout = scatterLayouts.get(key);
  if (!layout) {
    const specs: Record<string, BindingSpec> = {
      params: { kind: 'uniform', type: 'SortParams' },
      table: { kind: 'storage', type: 'array<u32>', access: 'read' },
      src_keys: { kind: 'storage', type: 'array<u32>', access: 'read' },
    };
    if (withValues) specs.src_values = { kind: 'storage', type: 'array<u32>', access: 'read' };
    for (let w = 0; w < windows; w++) specs[`dst_keys_${w}`] = { kind: 'storage', type: 'array<u32>' };
    if (withValues)
      for (let w = 0; w < windows; w++) specs[`dst_values_${w}`] = { kind: 'storage', type: 'array<u32>' };
    layout = defineBindings(`gm radix sort scatter ${windows}w${withValues ? ' kv' : ''}`, specs);
    scatterLayouts.set(key, layout);
  }
  return layout;
}
