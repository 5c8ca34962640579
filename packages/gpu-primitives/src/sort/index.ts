export {
  createRadixSort,
  RadixSort,
  type RadixSortOptions,
  type RadixSortTuning,
  type SortOptions,
} from './radix-sort';
export { radixSortReference, type SortBits } from './reference';
