/**
 * The WebGPU Andersen engine: {@link createGpuSolver} and its kernels' builder.
 *
 * @example
 * ```ts
 * const solver = await createGpuSolver(program, { hcd });
 * const result = await solver.solve();
 * solver.destroy();
 * ```
 * @module
 */
export { type SolverKernelParams, solverKernelsWgsl } from './kernels/solver.wgsl';
export type { GpuSolverOptions, GpuSolverTuning } from './options';
export {
  createGpuSolver,
  type GpuSolvePhase,
  type GpuSolveReport,
  GpuSolver,
  GpuSolverError,
  type GpuSolverEvents,
  type HostTimes,
  type SubmissionKind,
  solverModuleWgsl,
} from './solver';
