/**
 * Bindings and constants of the WebGPU engine. The store's variable rows are full-width bitsets
 * (⌈|Lam|/32⌉ words each) split by row ranges into as many storage buffers as the device's binding
 * size needs; every kernel reaches a row through the generated `loadWord`/`orWord`.
 * @module
 */
import { type BindingSpec, defineBindings } from '@gpumorph/gpu-allocator';

/** Threads per workgroup of every kernel. */
export const WORKGROUP = 256;

/** The shape of one program on the device, baked into the kernels' WGSL. */
export interface StoreGeometry {
  readonly lams: number;
  readonly calls: number;
  /** Words per row: ⌈lams / 32⌉. */
  readonly words: number;
  /** Variable rows per store chunk (the last chunk may hold fewer). */
  readonly rowsPerChunk: number;
  /** Number of store chunks (bindings). */
  readonly chunks: number;
}

/**
 * Splits 2·lams bitset rows into chunks of at most `maxBindingBytes` each.
 *
 * @example
 * ```ts
 * storeGeometry(1996, 1997, 128 * 2 ** 20); // one chunk of 3992 rows × 63 words
 * ```
 */
export function storeGeometry(
  lams: number,
  calls: number,
  maxBindingBytes: number,
  rowsPerChunk?: number,
): StoreGeometry {
  const words = Math.max(1, Math.ceil(lams / 32));
  const rows = 2 * lams;
  const fit = Math.max(1, Math.floor(maxBindingBytes / (words * 4)));
  const per = Math.max(1, Math.min(rows, rowsPerChunk ?? fit, fit));
  return { lams, calls, words, rowsPerChunk: per, chunks: Math.ceil(rows / per) };
}

const storage = (type: string, access: 'read' | 'read_write' = 'read_write'): BindingSpec => ({
  kind: 'storage',
  type,
  access,
});

/** The bindings of the readback kernels (block counts and places, row starts, row contents). */
export function readbackBindings(g: StoreGeometry) {
  const specs: Record<string, BindingSpec> = {
    blocks: storage('array<u32>'),
    rowStarts: storage('array<u32>'),
    out: storage('array<u32>'),
  };
  for (let k = 0; k < g.chunks; k++) specs[`store${k}`] = storage('array<u32>', 'read');
  return defineBindings(`eigencfa readback (${g.chunks} store chunks)`, specs);
}
