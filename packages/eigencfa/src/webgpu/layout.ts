/**
 * Bindings and constants of the WebGPU engine. The store's variable rows are full-width bitsets
 * (⌈|Lam|/32⌉ words each), either dense (split by row ranges into as many storage buffers as the
 * device's binding size needs) or paged (pages of 32 words allocated on first write, for stores
 * whose dense form needs more bindings than a kernel may have); every kernel reaches a row through
 * the generated `loadWord`/`orWord` of {@link ./kernels/store.wgsl}.
 * @module
 */
import { type BindingSpec, defineBindings } from '@gpumorph/gpu-allocator';
import { storeBindingNames } from './kernels/store.wgsl';

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
  /** Number of store chunks (bindings); 0 when the store is paged. */
  readonly chunks: number;
  /** The paged layout, when the store is paged. */
  readonly paging?: PageGeometry | undefined;
}

/** A paged store: a page table over (row, summary word) and a pool of pages, each split into bindings. */
export interface PageGeometry {
  /** Bindings of the page table (2·|Lam|·⌈words/32⌉ entries). */
  readonly tableChunks: number;
  readonly tableEntriesPerChunk: number;
  /** Pages the pool holds. */
  readonly pageCapacity: number;
  readonly pagesPerChunk: number;
  /** Bindings of the page pool (as many as `pageCapacity` pages need). */
  readonly pageChunks: number;
}

/**
 * The paged layout of a store of 2·lams rows with `pageCapacity` pages of `pageWords` words (see
 * {@link ./kernels/store.wgsl}) in bindings of at most `maxBindingBytes`.
 *
 * @example
 * ```ts
 * pageGeometry(100_000, 4096, 2 ** 27, 35); // { tableChunks: 1, pageChunks: 1, … }
 * ```
 */
export function pageGeometry(
  lams: number,
  pageCapacity: number,
  maxBindingBytes: number,
  pageWords: number,
): PageGeometry {
  const words = Math.max(1, Math.ceil(lams / 32));
  const entries = 2 * lams * Math.ceil(words / 32);
  const tableEntriesPerChunk = Math.max(1, Math.floor(maxBindingBytes / 4));
  const pagesPerChunk = Math.max(1, Math.floor(maxBindingBytes / (pageWords * 4)));
  const tableChunks = Math.ceil(entries / tableEntriesPerChunk);
  return {
    tableChunks,
    tableEntriesPerChunk,
    pageCapacity,
    pagesPerChunk,
    pageChunks: Math.ceil(pageCapacity / pagesPerChunk),
  };
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

/** The bindings of the readback kernels (block counts and places, row starts, row contents, the slice of rows). */
export function readbackBindings(g: StoreGeometry) {
  const specs: Record<string, BindingSpec> = {
    blocks: storage('array<u32>'),
    rowStarts: storage('array<u32>'),
    out: storage('array<u32>'),
    slice: storage('array<u32>', 'read'),
  };
  const names = storeBindingNames(g);
  for (const name of names) specs[name] = storage('array<u32>', 'read');
  return defineBindings(
    `eigencfa readback (${g.paging ? 'paged, ' : ''}${names.length} store bindings)`,
    specs,
  );
}
