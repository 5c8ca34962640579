export {
  Compaction,
  type CompactionEncodeOptions,
  type CompactionOptions,
  type CompactionPrepareOptions,
  type CreateCompactionOptions,
  createCompaction,
} from './compaction';
export { compactReference } from './reference';
