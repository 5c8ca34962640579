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

export { solverModuleWgsl } from './module/module';
export { type SolverKernelParams, solverKernelsWgsl } from './module/solver.wgsl';
export type { GpuSolverOptions, GpuSolverTuning } from './options';
export type { GpuSolvePhase, GpuSolveReport, HostTimes, SubmissionKind } from './report';
export { createGpuSolver, GpuSolver, GpuSolverError, type GpuSolverEvents } from './solver';
