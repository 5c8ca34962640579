import { acquireGpu, type GpuContext } from '@gpumorph/gpu-allocator';
import { EventEmitter } from 'events';
// A namespace import: typed-emitter is CommonJS with `export default`, which a default import
// mistypes for users on `moduleResolution: node16/nodenext` (the interface sits under `.default`).
import type * as TypedEmitter from 'typed-emitter';
import type { IterationEvent, SolvePhase } from '../cpu/solver';
import { EngineUnavailableError, SolveAbortedError } from '../errors';
import type { ConstraintProgram } from '../model/program';
import { AndersenResult, type SolveStatistics } from '../result/result';
import type { GpuSolverOptions, SolverSettings } from './options';
import type { GpuSolveReport } from './report';
import { SolveResources } from './session/resources';
import { type SessionHost, SolveSession } from './session/session';

export { GpuSolverError } from './errors';

/**
 * Events of {@link GpuSolver} (the CPU engine's, plus growth: `pool` is `pts` or `edg`, in
 * elements, or `worklist`, in pairs).
 *
 * @example
 * ```ts
 * solver.on('grow', ({ pool, from, to }) => console.error(`${pool}: ${from} → ${to}`));
 * ```
 */
export type GpuSolverEvents = {
  phase: (phase: SolvePhase, round: number) => void;
  iteration: (event: IterationEvent) => void;
  grow: (event: { readonly pool: string; readonly from: number; readonly to: number }) => void;
  done: (statistics: SolveStatistics) => void;
};

/**
 * The WebGPU Andersen engine (PPoPP'12 §5–6 on WebGPU). Every node has a points-to set P, what it
 * gained in the last update (ΔP) and what the rules gathered this iteration (N), and three copy⁻¹
 * edge sets — E (propagated), F (added by the last update) and G (gathered) — all wide sparse bit
 * vectors in two growable element pools (points-to and edges). Each iteration, every class
 * representative pulls ΔP of its E sources and P of its F sources into N — split into chunks on
 * separate teams when it has many (partial sets merged by a tree of unions), skipping a ΔP equal to
 * one the team already pulled (ΔP-equivalence) — and one team per load, store and offset turns new
 * pointees into worklist pairs (copy⁻¹ sources, copy edges, field addresses), which are sorted and
 * merged into the targets' G / N; a guarded update sets ΔP = N − P, P ∪= ΔP,
 * F = G − E, E ∪= F; HCD online pairs hook every new pointee under the pair's target with a
 * lock-free union–find, and the merged classes' sets are moved to the representative. The host reads
 * 128 bytes of status per iteration; when a pool or the worklist ran short the guard committed
 * nothing, the host grows it and runs the iteration again. Only the points-to pool, the heads of P
 * and the union–find are read back at the end.
 *
 * @example
 * ```ts
 * const solver = await createGpuSolver(program, { hcd });
 * try {
 *   solver.on('iteration', (e) => console.error(`iteration ${e.round}: ${e.propagated} nodes`));
 *   const result = await solver.solve();
 *   result.pointsTo(v);
 * } finally {
 *   solver.destroy();
 * }
 * ```
 */
export class GpuSolver extends (EventEmitter as new () => TypedEmitter.default<GpuSolverEvents>) {
  readonly program: ConstraintProgram;
  readonly ctx: GpuContext;
  readonly #ownsContext: boolean;
  /** The options with the tuning (`'~unstable'`) beside them. */
  readonly #options: SolverSettings;
  /** The buffers, pools and sorts the solve holds (given back by destroy()). */
  readonly #resources: SolveResources;
  #solved = false;
  #destroyed = false;
  /** What the last solve measured (undefined before `solve()` ends). */
  report: GpuSolveReport | undefined;

  /** Use {@link createGpuSolver}. */
  constructor(program: ConstraintProgram, ctx: GpuContext, ownsContext: boolean, options: GpuSolverOptions) {
    super();
    const fanIn = options['~unstable']?.partialMergeFanIn;
    if (fanIn !== undefined && ![2, 4, 8, 16].includes(fanIn)) {
      throw new RangeError(`partialMergeFanIn must be 2, 4, 8 or 16, not ${fanIn}`);
    }
    this.program = program;
    this.ctx = ctx;
    this.#ownsContext = ownsContext;
    this.#options = { ...options['~unstable'], ...options };
    // Buffers, sorts and upload arrays are taken from the context and left there for the next
    // solve with `keepBuffers` and a context the solver was given; else created and freed.
    this.#resources = new SolveResources(ctx, this.#options.keepBuffers === true && !ownsContext);
  }

  /** Solves to the least fixed point; may be called once. */
  async solve(): Promise<AndersenResult> {
    if (this.#solved) throw new Error('GpuSolver.solve() may be called once; create another solver');
    if (this.#destroyed) throw new Error('GpuSolver.solve() after destroy()');
    this.#solved = true;
    return this.#run();
  }

  /** Releases the solver's buffers (and the GPU context when the solver acquired it). */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#resources.destroy();
    if (this.#ownsContext) this.ctx.destroy();
  }

  #checkAbort = (): void => {
    const signal = this.#options.signal;
    if (signal?.aborted) {
      throw new SolveAbortedError('the Andersen solve was cancelled', { cause: signal.reason });
    }
  };

  /** The session's view of the solver: its events and its signal. */
  readonly #sessionHost: SessionHost = {
    emitPhase: (phase, round) => this.emit('phase', phase, round),
    emitIteration: (event) => this.emit('iteration', event),
    emitGrow: (event) => this.emit('grow', event),
    checkAbort: this.#checkAbort,
  };

  /** One solve: a session set up, its rounds, the readback, the result. */
  async #run(): Promise<AndersenResult> {
    const started = performance.now();
    this.#checkAbort();
    this.emit('phase', 'setup', 0);
    const session = await SolveSession.open(
      this.#resources,
      this.#options,
      this.program,
      this.#sessionHost,
      started,
    );
    const { sets, statistics, report } = await session.solve();
    this.report = report;
    const result = new AndersenResult(this.program.nodeCount, sets.parent, sets.sets, statistics, {
      flat: true,
    });
    this.emit('phase', 'done', statistics.rounds);
    this.emit('done', statistics);
    return result;
  }
}

/**
 * A new {@link GpuSolver} for `program` on `options.gpu`, or on a GPU it acquires (throws
 * {@link EngineUnavailableError} when there is none).
 *
 * @example
 * ```ts
 * const solver = await createGpuSolver(program, { hcd: input.hcd, initialPoolElements: 64 });
 * const result = await solver.solve();
 * solver.destroy();
 * ```
 */
export async function createGpuSolver(
  program: ConstraintProgram,
  options: GpuSolverOptions = {},
): Promise<GpuSolver> {
  if (options.gpu) return new GpuSolver(program, options.gpu, false, options);
  const ctx = await acquireGpu();
  if (!ctx) {
    throw new EngineUnavailableError(
      'no WebGPU adapter for the Andersen webgpu engine (run `gpumorph doctor`; engine "auto" falls back to the CPU)',
    );
  }
  return new GpuSolver(program, ctx, true, options);
}
