/**
 * Bindings and constants of the WebGPU engine. The store's variable rows are full-width bitsets
 * (⌈|Lam|/32⌉ words each) split by row ranges into as many storage buffers as the device's binding
 * size needs; every kernel reaches a row through the generated `loadWord`/`orWord`.
 * @module
 */
import { type BindingSpec, defineBindings } from '@gpumorph/gpu-allocator';

/** Slots of the `state` buffer (u32 atomics). Counters come in two copies, by the parity of the round. */
export const STATE = {
  /** Calls selected in a round of parity 0 / 1. */
  activeCount0: 0,
  activeCount1: 1,
  /** (call, λ) pairs appended in a round of parity 0 / 1 (may exceed the capacity: then the overflow flag is set). */
  pairCount0: 2,
  pairCount1: 3,
  /** Label of the latest change: round + 1 after a round that changed the store. */
  changedRound: 5,
  /** Set when a round had more pairs than the pair buffer holds (the host grows it). */
  overflow: 6,
  /** Capacity of the pair buffer, in pairs (written by the host). */
  pairCapacity: 7,
  /** Largest pair count seen (for sizing). */
  pairPeak: 8,
} as const;

/** Bytes between two rounds' entries of the round-number uniform buffer (the dynamic-offset alignment). */
export const ROUND_STRIDE = 256;

/** Words of the state buffer. */
export const STATE_WORDS = 16;

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

/** The bindings of the round kernels (select, expand, propagate) and the readback kernels. */
export function mainBindings(g: StoreGeometry) {
  const specs: Record<string, BindingSpec> = {
    state: storage('array<atomic<u32>>'),
    fun: storage('array<u32>', 'read'),
    arg1: storage('array<u32>', 'read'),
    arg2: storage('array<u32>', 'read'),
    changedAt: storage('array<atomic<u32>>'),
    activeCalls: storage('array<u32>'),
    pairs: storage('array<u32>'),
  };
  for (let k = 0; k < g.chunks; k++) specs[`store${k}`] = storage('array<atomic<u32>>');
  return defineBindings(`eigencfa main (${g.chunks} store chunks)`, specs);
}

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
