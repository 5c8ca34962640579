import { type CpuSolverOptions, createCpuSolver, type IterationEvent, type SolvePhase } from './cpu/solver';
import { EngineUnavailableError } from './errors';
import type { ConstraintProgram } from './model/program';
import type { AndersenResult } from './result/result';

/** Which engine solves: `cpu` (embedded, runs anywhere), `webgpu`, or `auto` (the best one present). */
export type AndersenEngine = 'cpu' | 'webgpu' | 'auto';

/** Options of {@link solveAndersen}. */
export interface SolveAndersenOptions extends CpuSolverOptions {
  /** Default `auto`. */
  readonly engine?: AndersenEngine | undefined;
  /** Called at each phase change. */
  readonly onPhase?: ((phase: SolvePhase, round: number) => void) | undefined;
  /** Called after each round. */
  readonly onIteration?: ((event: IterationEvent) => void) | undefined;
}

/**
 * Solves a points-to problem to its least fixed point.
 *
 * `auto` picks the CPU engine: the WebGPU engine is not part of this release yet, so asking for
 * `webgpu` explicitly throws {@link EngineUnavailableError} rather than quietly running on the CPU.
 *
 * @example
 * ```ts
 * const input = await readHardekopf({ prefix: 'data/perl' });
 * const result = await solveAndersen(input.program, { hcd: input.hcd, signal: AbortSignal.timeout(60_000) });
 * result.pointsTo(42);
 * ```
 */
export async function solveAndersen(
  program: ConstraintProgram,
  options: SolveAndersenOptions = {},
): Promise<AndersenResult & { readonly engine: 'cpu' }> {
  const engine = options.engine ?? 'auto';
  if (engine === 'webgpu') {
    throw new EngineUnavailableError(
      'the WebGPU Andersen engine is not available in this version; use engine "cpu" or "auto"',
    );
  }
  const solver = createCpuSolver(program, options);
  if (options.onPhase) solver.on('phase', options.onPhase);
  if (options.onIteration) solver.on('iteration', options.onIteration);
  const result = await solver.solve();
  return Object.assign(result, { engine: 'cpu' as const });
}
