import { defineBindings } from '@gpumorph/gpu-allocator';

/** Bytes between two parameter slots of the merge sort's uniform buffer (the uniform offset alignment). */
export const MERGE_PARAM_SLOT_BYTES = 256;
/** u32 words of one parameter slot. */
export const MERGE_PARAM_SLOT_WORDS = MERGE_PARAM_SLOT_BYTES / 4;
/** `count_word` of a sort whose count the host gives (`MergeSortParams.count`). */
export const HOST_COUNT = 0xffff_ffff;

/**
 * Per-dispatch parameters of the tile and merge kernels. Field order is the order
 * {@link writeMergeSortParams} writes them in.
 */
export const mergeSortParamsWgsl = /* wgsl */ `
struct MergeSortParams {
  count: u32,      // pairs planned for (with count_word: the most the GPU's count may say)
  count_word: u32, // index of the count in count_src, or 0xffffffff: the count is 'count'
  width: u32,      // merge passes: length of the sorted runs in the source (a power of two)
}`;

/** Parameters of one MergeSortParams slot. */
export interface MergeSortParams {
  readonly count: number;
  readonly countWord: number;
  readonly width: number;
}

/** Writes `p` into slot `slot` of `words`. */
export function writeMergeSortParams(words: Uint32Array, slot: number, p: MergeSortParams): void {
  words.set([p.count, p.countWord, p.width], slot * MERGE_PARAM_SLOT_WORDS);
}

/**
 * Out of place: tiles sorted from `src_*` into `dst_*`, or runs of `width` merged from `src_*`
 * into `dst_*` (two different buffers: WebGPU rejects a buffer bound both read-only and writable
 * in one dispatch, hence the in-place layout below).
 */
export const mergeSortLayout = defineBindings('gm merge sort', {
  params: { kind: 'uniform', type: 'MergeSortParams' },
  count_src: { kind: 'storage', type: 'array<u32>', access: 'read' },
  src_keys: { kind: 'storage', type: 'array<u32>', access: 'read' },
  src_values: { kind: 'storage', type: 'array<u32>', access: 'read' },
  dst_keys: { kind: 'storage', type: 'array<u32>' },
  dst_values: { kind: 'storage', type: 'array<u32>' },
});

/** In place: tiles of `keys` / `values` sorted where they are. */
export const mergeSortInPlaceLayout = defineBindings('gm merge sort in place', {
  params: { kind: 'uniform', type: 'MergeSortParams' },
  count_src: { kind: 'storage', type: 'array<u32>', access: 'read' },
  keys: { kind: 'storage', type: 'array<u32>' },
  values: { kind: 'storage', type: 'array<u32>' },
});
