import { type BindingLayout, type BindingSpecs, defineBindings } from '@gpumorph/gpu-allocator';

/** Invocations per workgroup of the reduce kernels (default). */
export const REDUCE_WORKGROUP_SIZE = 256;
/** vec4s per invocation (default): 16 elements per invocation, 4096 per tile. */
export const REDUCE_VECTORS = 4;

/** Which bindings a reduce kernel has: level 0 or a level of tile aggregates, and whether it writes the result. */
export type ReduceLayoutKind = 'values' | 'partials' | 'top-values' | 'top-partials';

const layouts = new Map<string, BindingLayout>();

/**
 * The typed binding layout of a reduce kernel: `params` (the scan's `ScanParams`), the window
 * views `src4`/`src_tail` at level 0, `scratch` (running total and tile aggregates), and for the
 * top kernels `result`.
 *
 * @example
 * ```ts
 * reduceLayout('top-values').wgsl(); // "@group(0) @binding(0) var<uniform> params: ScanParams; …"
 * ```
 */
export function reduceLayout(kind: ReduceLayoutKind): BindingLayout {
  let layout = layouts.get(kind);
  if (!layout) {
    const specs: Record<string, BindingSpecs[string]> = { params: { kind: 'uniform', type: 'ScanParams' } };
    if (kind.endsWith('values')) {
      specs.src4 = { kind: 'storage', type: 'array<vec4<u32>>', access: 'read' };
      specs.src_tail = { kind: 'storage', type: 'array<u32>', access: 'read' };
    }
    specs.scratch = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
    if (kind.startsWith('top')) specs.result = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
    layout = defineBindings(`gm reduce ${kind}`, specs);
    layouts.set(kind, layout);
  }
  return layout;
}
