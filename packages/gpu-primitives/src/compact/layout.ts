import { type BindingLayout, type BindingSpecs, defineBindings } from '@gpumorph/gpu-allocator';

/** Invocations per workgroup of the compaction kernels (default). */
export const COMPACT_WORKGROUP_SIZE = 256;
/** vec4s per invocation (default). */
export const COMPACT_VECTORS = 4;

/** WGSL of the uniform of every compaction dispatch. */
export const compactParamsWgsl = /* wgsl */ `
struct CompactParams {
  n: u32,       // elements
  split: u32,   // first element of the tail view src_tail
  tiles: u32,   // tiles (entries of counts)
  pad: u32,
}`;

/** Kernels of a compaction: per-tile counts, the scatter, and the kept-count writer. */
export type CompactLayoutKind = 'count' | 'scatter' | 'finish';

const layouts = new Map<string, BindingLayout>();

/**
 * Typed bindings of a compaction kernel: `params`, the input views `src4`/`src_tail`, `flags`
 * (when keeping by flags), `dst` (the output), `counts` (kept per tile, then their inclusive
 * scan) and `kept` (the count output).
 *
 * @example
 * ```ts
 * compactLayout('scatter', true).wgsl();
 * ```
 */
export function compactLayout(kind: CompactLayoutKind, flags: boolean): BindingLayout {
  const key = `${kind}|${flags}`;
  let layout = layouts.get(key);
  if (!layout) {
    const specs: Record<string, BindingSpecs[string]> = {
      params: { kind: 'uniform', type: 'CompactParams' },
    };
    if (kind !== 'finish') {
      specs.src4 = { kind: 'storage', type: 'array<vec4<u32>>', access: 'read' };
      specs.src_tail = { kind: 'storage', type: 'array<u32>', access: 'read' };
      if (flags) specs.flags = { kind: 'storage', type: 'array<u32>', access: 'read' };
    }
    if (kind === 'scatter') specs.dst = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
    specs.counts = { kind: 'storage', type: 'array<u32>', access: kind === 'count' ? 'read_write' : 'read' };
    if (kind === 'finish') specs.kept = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
    layout = defineBindings(`gm compact ${kind}${flags ? ' flags' : ''}`, specs);
    layouts.set(key, layout);
  }
  return layout;
}
