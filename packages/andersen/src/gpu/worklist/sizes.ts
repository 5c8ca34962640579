import { BITS_WORDS, MEMBERS_PER_ELEMENT } from '@gpumorph/sparse-bitvector';

/** Words of the `delta_bits` bitmap for `nodeCount` nodes: whole elements' worth (30 words per 960 members). */
export function deltaBitmapWords(nodeCount: number): number {
  return BITS_WORDS * Math.ceil(Math.max(1, nodeCount) / MEMBERS_PER_ELEMENT);
}

/** Invocations of `sort_small`, the one-workgroup sort of a short worklist. */
export const SMALL_SORT_THREADS = 256;

/** The most pairs `sort_small` sorts with `items` pairs per invocation. */
export function smallSortCapacity(items: number): number {
  return SMALL_SORT_THREADS * items;
}

/** Workgroup memory `sort_small` declares with `items` pairs per invocation: 8 bytes a pair, 4 per invocation. */
export function smallSortWorkgroupBytes(items: number): number {
  return 8 * smallSortCapacity(items) + 4 * SMALL_SORT_THREADS;
}
