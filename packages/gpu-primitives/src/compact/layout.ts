import { type BindingLayout, type BindingSpecs, defineBindings } from '@gpumorph/gpu-allocator';

/** Invocations per workgroup of the compaction kernels (default). */
export const COMPACT_WORKGROUP_SIZE = 256;
/** vec4s per invocation (default). */
export const COMPACT_VECTORS = 4;
/** Most output windows one scatter dispatch binds (default, lowered to the device's storage-buffer limit). */
export const COMPACT_OUTPUT_WINDOWS = 8;
/** Storage bindings of a scatter besides its output windows: `src4`, `src_tail`, `flags`, `counts`. */
export const COMPACT_OTHER_STORAGE_BINDINGS = 4;

/** WGSL of the uniform of every compaction dispatch (one per input window and output group). */
export const compactParamsWgsl = /* wgsl */ `
struct CompactParams {
  n: u32,           // elements of this input window
  split: u32,       // first element (window-relative) of the tail view src_tail
  tiles: u32,       // tiles of this window (finish: tiles of the whole input)
  first_tile: u32,  // global index of the window's first tile
  start: u32,       // global index of the window's first element
  counts_base: u32, // global tile index of counts[0] in the bound view of the counts
  win: u32,         // elements per output window (= per input window)
  first_dst: u32,   // output window bound as dst_0
  stride: u32,      // output windows between consecutive groups (0: every output window is bound)
  group: u32,       // group of output windows bound by this dispatch
  pad0: u32,
  pad1: u32,
}`;

/** Kernels of a compaction: per-tile counts, the scatter, and the kept-count writer. */
export type CompactLayoutKind = 'count' | 'scatter' | 'finish';

const layouts = new Map<string, BindingLayout>();

/**
 * Typed bindings of a compaction kernel: `params`, the input window views `src4`/`src_tail`,
 * `flags` (the same window of the flags, when keeping by flags), the scatter's output windows
 * `dst_0` … `dst_{outputWindows-1}`, `counts` (a view of the kept counts per tile, then of their
 * inclusive scan) and `kept` (the count output).
 *
 * @example
 * ```ts
 * compactLayout('scatter', true, 2).wgsl(); // … dst_0, dst_1 …
 * ```
 */
export function compactLayout(kind: CompactLayoutKind, flags: boolean, outputWindows = 1): BindingLayout {
  const key = `${kind}|${flags}|${kind === 'scatter' ? outputWindows : 0}`;
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
    if (kind === 'scatter') {
      for (let j = 0; j < outputWindows; j++) {
        specs[`dst_${j}`] = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
      }
    }
    specs.counts = { kind: 'storage', type: 'array<u32>', access: kind === 'count' ? 'read_write' : 'read' };
    if (kind === 'finish') specs.kept = { kind: 'storage', type: 'array<u32>', access: 'read_write' };
    const name = `gm compact ${kind}${flags ? ' flags' : ''}${kind === 'scatter' ? ` ${outputWindows}w` : ''}`;
    layout = defineBindings(name, specs);
    layouts.set(key, layout);
  }
  return layout;
}
