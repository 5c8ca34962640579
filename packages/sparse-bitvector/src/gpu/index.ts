export {
  type ApplyResult,
  createGpuSparseBitVectors,
  type GpuSetOperation,
  GpuSparseBitVectors,
  type GpuSparseBitVectorsOptions,
} from './gpu-sparse-bitvectors';
export {
  applyKernelWgsl,
  type BatchKernelParams,
  batchStructsWgsl,
  decodeKernelWgsl,
  queryKernelWgsl,
} from './kernels/batch.wgsl';
export { type LibraryWgslOptions, sparseBitVectorLibraryWgsl, type TeamKind } from './kernels/library.wgsl';
export {
  quadAccessWgsl,
  quadWindowSpecs,
  type UnionAllocation,
  type UnionKernelParams,
  unionCountKernelWgsl,
  unionDirectivesWgsl,
  unionKernelWgsl,
} from './kernels/union.wgsl';
export {
  MAX_BASE,
  OP_CODES,
  QUERY_CODES,
  STATUS_CHANGED,
  STATUS_CORRUPT,
  STATUS_INCOMPLETE,
} from './layout';
export {
  type AdoptedVectorTable,
  adoptVectors,
  adoptVectorTable,
  type PackedMemberPairs,
  type PackedVectors,
  packMemberPairs,
  packVectors,
  SparseBitVectorLayoutError,
  unpackVectors,
} from './transfer';
