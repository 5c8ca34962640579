export {
  createRadixSort,
  RadixSort,
  type RadixSortOptions,
  type RadixSortTuning,
  type SortOptions,
  type SortPrepareOptions,
} from './radix-sort';
export { radixSortReference, type SortBits } from './reference';
