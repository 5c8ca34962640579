import {
  type AcquireGpuOptions,
  type AnalysisProgressOptions,
  type AnalysisTimings,
  acquireGpu,
  type GpuContext,
  GpuLimitError,
  GpuOutOfMemoryError,
  PoolCapacityError,
} from '@gpumorph/gpu-allocator';
import { type CpuSolverOptions, createCpuSolver, type IterationEvent, type SolvePhase } from './cpu/solver';
import { EngineUnavailableError } from './errors';
import type { GpuSolverTuning } from './gpu/options';
import type { GpuSolveReport } from './gpu/report';
import { createGpuSolver } from './gpu/solver';
import { applyOpaqueObjects, type OpaqueObjects } from './model/opaque';
import type { ConstraintProgram } from './model/program';
import type { AndersenResult } from './result/result';

/** Which engine solves: `cpu` (embedded, runs anywhere), `webgpu`, or `auto` (the best one present). */
export type AndersenEngine = 'cpu' | 'webgpu' | 'auto';

/** Options of {@link solveAndersen}. */
export interface SolveAndersenOptions
  extends CpuSolverOptions,
    AnalysisProgressOptions<SolvePhase, IterationEvent> {
  /** Default `auto`. */
  readonly engine?: AndersenEngine | undefined;
  /** The GPU for `webgpu` and `auto` (default: acquired for this solve and released after it). */
  readonly gpu?: GpuContext | undefined;
  /** How to acquire a GPU when `gpu` is not given (e.g. a `gpu` object of your own). */
  readonly acquire?: AcquireGpuOptions | undefined;
  /** WebGPU engine: elements each pool starts with (see `GpuSolverOptions`). */
  readonly initialPoolElements?: number | undefined;
  /**
   * WebGPU engine: start in the buffers earlier solves left on `gpu` and leave this one's there
   * (default false: created and freed; see `GpuSolverOptions.keepBuffers`).
   */
  readonly keepBuffers?: boolean | undefined;
  /**
   * WebGPU engine: read large sets into memory that worker threads touched first (default false:
   * no worker threads; see `GpuSolverOptions.touchReadback`).
   */
  readonly touchReadback?: boolean | undefined;
  /**
   * Objects that stand for unmodelled memory and what happens to their contents (default: none,
   * every object tracked). `readHardekopf` gives the Hardekopf files' convention as
   * `input.opaqueObjects` (node 1, contents `empty`); see {@link applyOpaqueObjects}.
   */
  readonly opaqueObjects?: OpaqueObjects | undefined;
  /** WebGPU engine: its tuning, **unstable** (see `GpuSolverOptions['~unstable']`). */
  readonly '~unstable'?: GpuSolverTuning | undefined;
}

/**
 * What {@link solveAndersen} returns: the result, the engine that ran and, for WebGPU, its report.
 *
 * @example
 * ```ts
 * const solved = await solveAndersen(program);
 * if (solved.engine === 'webgpu') console.log(solved.gpu?.gpuBytes);
 * ```
 */
export type SolvedAndersen = AndersenResult & {
  readonly engine: 'cpu' | 'webgpu';
  /** Where the time went, in the shape every analysis reports (WebGPU: setup, rounds, readback). */
  readonly timings: AnalysisTimings;
  /** The WebGPU engine's memory, transfer and timing report (absent for the CPU engine). */
  readonly gpu?: GpuSolveReport | undefined;
  /** The opaque-object convention the answer was computed under (`contents: 'tracked'` and no nodes by default). */
  readonly opaqueObjects: OpaqueObjects;
};

/**
 * Solves a points-to problem to its least fixed point, on the CPU or on WebGPU (the same answer).
 *
 * `auto` (the default) runs the WebGPU engine when `gpu` is given or a hardware adapter is found,
 * and the CPU engine otherwise: a software adapter (lavapipe, SwiftShader) is slower than the CPU
 * engine, so `auto` leaves it alone; ask for `webgpu` to use one anyway. `webgpu` without any
 * adapter throws {@link EngineUnavailableError} rather than quietly running on the CPU. Where the
 * device cannot hold a program (the WebGPU engine's `PoolCapacityError`, `GpuLimitError` or
 * `GpuOutOfMemoryError`), `auto` solves it on the CPU and says why in `statistics.fallback`;
 * `webgpu` throws.
 *
 * @example
 * ```ts
 * const input = await readHardekopf({ prefix: 'data/perl' });
 * const result = await solveAndersen(input.program, { hcd: input.hcd, signal: AbortSignal.timeout(60_000) });
 * result.engine; // 'webgpu' on a machine with a GPU, else 'cpu'
 * result.pointsTo(42);
 * ```
 */
export async function solveAndersen(
  input: ConstraintProgram,
  options: SolveAndersenOptions = {},
): Promise<SolvedAndersen> {
  const opaqueObjects: OpaqueObjects = options.opaqueObjects ?? { nodes: [], contents: 'tracked' };
  const { program, hcd } = applyOpaqueObjects(input, options.hcd, opaqueObjects);
  const engine = options.engine ?? 'auto';
  const start = performance.now();
  let fallback: string | undefined;
  if (engine !== 'cpu') {
    let ctx = options.gpu ?? null;
    let owned = false;
    if (!ctx) {
      ctx = await acquireGpu({
        ...options.acquire,
        ...(engine === 'auto'
          ? { allowSoftware: options.acquire?.allowSoftware ?? false, require: false }
          : {}),
      });
      owned = ctx !== null;
    }
    if (ctx) {
      const solver = await createGpuSolver(program, {
        gpu: ctx,
        hcd,
        signal: options.signal,
        initialPoolElements: options.initialPoolElements,
        keepBuffers: options.keepBuffers,
        touchReadback: options.touchReadback,
        '~unstable': options['~unstable'],
      });
      if (options.onPhase) solver.on('phase', options.onPhase);
      if (options.onIteration) solver.on('iteration', options.onIteration);
      try {
        const result = await solver.solve();
        const report = solver.report;
        const timings: AnalysisTimings = {
          totalMs: performance.now() - start,
          setupMs: report?.setupMs ?? 0,
          solveMs: report?.iterateMs ?? result.statistics.solveMs,
          readbackMs: report?.transferMs ?? 0,
        };
        return Object.assign(result, { engine: 'webgpu' as const, timings, gpu: report, opaqueObjects });
      } catch (error) {
        // `auto` answers on the CPU where this device cannot hold the program, and says so.
        const deviceTooSmall =
          error instanceof PoolCapacityError ||
          error instanceof GpuLimitError ||
          error instanceof GpuOutOfMemoryError;
        if (engine !== 'auto' || !deviceTooSmall) throw error;
        fallback = error.message;
      } finally {
        solver.destroy();
        if (owned) ctx.destroy();
      }
    }
    if (engine === 'webgpu') {
      throw new EngineUnavailableError(
        'no WebGPU adapter for the Andersen webgpu engine (run `gpumorph doctor`); engine "auto" falls back to the CPU',
      );
    }
  }
  const solver = createCpuSolver(program, { ...options, hcd });
  if (options.onPhase) solver.on('phase', options.onPhase);
  if (options.onIteration) solver.on('iteration', options.onIteration);
  const result = await solver.solve();
  const timings: AnalysisTimings = {
    totalMs: performance.now() - start,
    setupMs: 0,
    solveMs: result.statistics.solveMs,
    readbackMs: 0,
  };
  const statistics = fallback === undefined ? result.statistics : { ...result.statistics, fallback };
  return Object.assign(result, { engine: 'cpu' as const, timings, opaqueObjects, statistics });
}
