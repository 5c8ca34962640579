export { createRecordHasher, type RecordBuffers, RecordHasher } from './hasher';
export { hashFunctionsWgsl } from './kernels/hash.wgsl';
export {
  assertRecords,
  type HashOptions,
  type HostRecords,
  hashFinish,
  hashMask,
  hashMix,
  hashRecordsReference,
} from './reference';
