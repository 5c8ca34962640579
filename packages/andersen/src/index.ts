/**
 * Inclusion-based (Andersen) points-to analysis for C programs: the constraint model and its
 * builder, readers and writers (Hardekopf files, an own text format, JSON), offline passes (HCD,
 * HVN), an exact CPU engine, the WebGPU engine and the results API.
 *
 * @example
 * ```ts
 * import { readHardekopf, solveAndersen } from '@gpumorph/andersen';
 * const input = await readHardekopf({ prefix: 'data/gcc' });
 * const result = await solveAndersen(input.program, { hcd: input.hcd });
 * result.pointsTo(42); // Uint32Array of object ids
 * ```
 * @module
 */
export { solveAndersenReference } from './cpu/reference';
export {
  type CpuSolver,
  type CpuSolverEvents,
  type CpuSolverOptions,
  createCpuSolver,
  type IterationEvent,
  type SolvePhase,
} from './cpu/solver';
export * from './errors';
export {
  createGpuSolver,
  type GpuSolvePhase,
  type GpuSolveReport,
  GpuSolver,
  GpuSolverError,
  type GpuSolverEvents,
  type GpuSolverOptions,
  type GpuSolverTuning,
  type HostTimes,
  type SubmissionKind,
} from './gpu/index';
export * from './io/index';
export * from './llvm/index';
export * from './model/index';
export * from './offline/index';
export { AndersenResult, type NodeSets, type SolveStatistics } from './result/result';
export { type AndersenEngine, type SolveAndersenOptions, type SolvedAndersen, solveAndersen } from './solve';
export {
  HARDEKOPF_REFERENCE_CONVENTIONS,
  type VerificationDifference,
  type VerificationReport,
  type VerifyOptions,
  verifySolution,
} from './verify';
