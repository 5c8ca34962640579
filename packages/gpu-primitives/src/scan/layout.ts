import { type BindingLayout, type BindingSpecs, defineBindings } from '@gpumorph/gpu-allocator';

/** Invocations per workgroup of the scan kernels (default). */
export const SCAN_WORKGROUP_SIZE = 256;
/** vec4s per invocation (default): 16 elements per invocation, 4096 per tile. */
export const SCAN_VECTORS = 4;
/** Words of the scratch buffer before the first level of tile aggregates (the window carry). */
export const SCAN_CARRY_WORDS = 4;

/** WGSL of the uniform every scan dispatch gets (all offsets in u32 words of `scratch`). */
export const scanParamsWgsl = /* wgsl */ `
struct ScanParams {
  n: u32,        // elements of this level (of this window at level 0)
  in_off: u32,   // scratch offset of this level's elements (levels above 0)
  out_off: u32,  // scratch offset of the next level: tile aggregates, later their exclusive prefixes
  carry: u32,    // scratch offset of the running prefix carried between windows
  first: u32,    // 1 in the first window: the carry starts at the identity
  result: u32,  // word index of the result (reduce)
  split: u32,   // window-relative first element of the tail views (src_tail, dst_tail)
  pad: u32,
}`;

/** Bytes of one params uniform. */
export const SCAN_PARAMS_BYTES = 32;

/** Which bindings a scan kernel has. */
export type ScanLayoutKind = 'up-values' | 'down-values' | 'down-values-inplace' | 'partials' | 'single-pass';

const layouts = new Map<string, BindingLayout>();

/**
 * The typed binding layout of one kind of scan kernel: `params`, then the element views
 * (`src4`/`src_tail`: the window of the input as vec4s up to `params.split` and the u32 tail after, `heads` when segmented,
 * `dst4`/`dst_tail` for the output), then `scratch` (carry and tile aggregates of every level).
 * `single-pass` (the decoupled-fallback kernel) has a `DfParams` uniform and, instead of
 * `scratch`, `state`: atomic words holding the tile counters, the window carries and the tile states.
 *
 * @example
 * ```ts
 * const layout = scanLayout('partials', false);
 * layout.wgsl(); // "@group(0) @binding(0) var<uniform> params: ScanParams; …"
 * ```
 */
export function scanLayout(kind: ScanLayoutKind, segmented: boolean): BindingLayout {
  const key = `${kind}|${segmented}`;
  let layout = layouts.get(key);
  if (!layout) {
    const specs: Record<string, BindingSpecs[string]> = {
      params: { kind: 'uniform', type: kind === 'single-pass' ? 'DfParams' : 'ScanParams' },
    };
    if (kind !== 'partials') {
      const access = kind === 'down-values-inplace' ? 'read_write' : 'read';
      specs.src4 = { kind: 'storage', type: 'array<vec4<u32>>', access };
      specs.src_tail = { kind: 'storage', type: 'array<u32>', access };
      if (segmented) specs.heads = { kind: 'storage', type: 'array<u32>', access: 'read' };
      if (kind === 'down-values' || kind === 'single-pass') {
        specs.dst4 = { kind: 'storage', type: 'array<vec4<u32>>', access: 'read_write' };
        specs.dst_tail = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
      }
    }
    if (kind === 'single-pass')
      specs.state = { kind: 'storage', type: 'array<atomic<u32>>', access: 'read_write' };
    else specs.scratch = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
    layout = defineBindings(`gm scan ${kind}${segmented ? ' segmented' : ''}`, specs);
    layouts.set(key, layout);
  }
  return layout;
}
