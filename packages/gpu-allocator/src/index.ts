export type {
  AnalysisEvents,
  AnalysisGrowEvent,
  AnalysisIterationEvent,
  AnalysisProgressOptions,
  GpuAnalysisEvents,
} from './analysis/events';
export {
  createGpuArray,
  ELEMENT_TYPES,
  type ElementType,
  GpuArray,
  type GpuArrayOptions,
  type HostArray,
} from './buffers/array';
export { createPageToucher, PageToucher } from './buffers/prefault';
export { RetainedBuffers } from './buffers/retained';
export { type MappedRead, type StagedRead, StagingPool } from './buffers/staging';
export { UploadPool } from './buffers/upload';
export { type AcquireGpuOptions, acquireGpu, wrapDevice } from './context/acquire';
export {
  alignTo,
  defaultRetainBytes,
  type GpuAdapterReport,
  type GpuBackend,
  GpuContext,
  type GpuContextInit,
  type GpuFeatures,
} from './context/context';
export { allLimits, type GpuLimits, OPTIONAL_FEATURES, REQUESTED_LIMITS, readLimits } from './context/limits';
export {
  GpuDeviceLostError,
  GpuInternalError,
  GpuLimitError,
  GpumorphError,
  GpuOutOfMemoryError,
  GpuUnavailableError,
  GpuValidationError,
  PoolCapacityError,
  toTypedGpuError,
  type WgslCompilerMessage,
} from './errors';
export { Kernel, KernelCache, type KernelDescriptor } from './kernels/cache';
export { copyKernel } from './kernels/copy';
export { type DispatchGrid, dispatchGrid, dispatchItems, encodeDispatch } from './kernels/dispatch';
export {
  BindingLayout,
  type BindingResources,
  type BindingSpec,
  type BindingSpecs,
  defineBindings,
} from './kernels/layout';
export { gridWgsl, linkWgsl, type WgslModule } from './kernels/wgsl';
export {
  type CompactListsOptions,
  type CompactListsResult,
  CorruptListError,
  compactCopyWgsl,
  compactCountWgsl,
  type ListHeads,
} from './pool/compact';
export { poolAccessWgsl, poolAllocWgsl, type TeamMode } from './pool/kernels/alloc.wgsl';
export {
  DEFAULT_ELEMENT_WORDS,
  INVALID_ELEMENT,
  POOL_HEADER_WORDS,
  type PoolGeometry,
  poolBindingSpecs,
  poolHeaderWgsl,
} from './pool/layout';
export {
  createElementPool,
  ElementPool,
  type ElementPoolEvents,
  type ElementPoolOptions,
  growthLadder,
  type PoolHeaderState,
  type RunGrowingResult,
  WindowBudget,
} from './pool/pool';
export {
  type AllocationProbe,
  allocationProbeWgsl,
  createAllocationProbe,
  type ProbeMode,
  runAllocationProbe,
} from './pool/probe';
export {
  allocateTeamsReference,
  CpuElementPool,
  type GrowableMemory,
  type TeamAllocationOutcome,
} from './pool/reference';
export type { AnalysisTimings } from './timing/analysis';
export { type GpuTimings, measureGpu, median, type PassTimer, type PassTiming } from './timing/timer';
export { BufferUsage, MapMode, ShaderStage } from './webgpu-constants';
