export {
  createMergeSort,
  MergeSort,
  type MergeSortCreateOptions,
  type MergeSortOptions,
  type MergeSortTuning,
} from './merge-sort';
export { mergeSortReference } from './reference';
