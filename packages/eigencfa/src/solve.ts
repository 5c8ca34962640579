/**
 * One entry point for both engines: {@link CfaSolver} (a typed event emitter with cancellation)
 * and {@link solveCfa}, which picks the engine (`auto`: WebGPU when a context is given, else CPU).
 * @module
 */
import type {
  AnalysisIterationEvent,
  AnalysisProgressOptions,
  AnalysisTimings,
  GpuAnalysisEvents,
  GpuContext,
} from '@gpumorph/gpu-allocator';
import { EventEmitter } from 'events';
// A namespace import: typed-emitter is CommonJS with `export default`, which a default import
// mistypes for users on `moduleResolution: node16/nodenext` (the interface sits under `.default`).
import type * as TypedEmitter from 'typed-emitter';
import { solveCpuSparse } from './cpu/sparse';
import { CfaAbortedError, CfaEngineError } from './errors';
import { type CfaMatrices, termCount } from './matrix/program';
import type { CfaStore } from './store';
import type { CfaBufferPool } from './webgpu/buffer-pool';
import { solveWebGpu } from './webgpu/delta';

/** Which engine to run. */
export type CfaEngine = 'cpu' | 'webgpu' | 'auto';

/** Phases of a solve, in order. */
export type CfaPhase = 'setup' | 'solve' | 'readback' | 'done';

/**
 * Progress, every analysis' iteration event: CPU worklist steps, or GPU rounds after each batch.
 */
export interface CfaIterationEvent extends AnalysisIterationEvent {
  readonly engine: 'cpu' | 'webgpu';
  /** CPU: rows taken off the worklist so far; WebGPU: rounds run so far. */
  readonly round: number;
  /** CPU: worklist length; WebGPU: 1 when the last round changed the store. */
  readonly pending: number;
}

/** Sizes, counters and times of a solve. */
export interface CfaStatistics {
  readonly engine: 'cpu' | 'webgpu';
  readonly lams: number;
  readonly vars: number;
  readonly calls: number;
  readonly terms: number;
  /** Σ |σ(row)| over all rows (lambda rows included). */
  readonly storeEntries: number;
  /** Time to the fixpoint (CPU: the worklist; WebGPU: the rounds), ms. */
  readonly solveMs: number;
  /** WebGPU: pipelines and uploads; CPU: 0. */
  readonly setupMs: number;
  /** WebGPU: rows back to the host; CPU: building the sorted rows is inside solveMs. */
  readonly readbackMs: number;
  /** Engine-specific counters (steps, edges, rounds, …). */
  readonly counters: Readonly<Record<string, number>>;
  /** `auto` only: why the WebGPU engine could not run this program (the CPU engine ran instead). */
  readonly fallback?: string;
}

/**
 * Events of {@link CfaSolver}: every analysis' events (`phase`, `iteration`, `done`), and `grow`
 * when the WebGPU engine enlarges its `items` or `members` buffer.
 */
export type CfaSolverEvents = GpuAnalysisEvents<CfaPhase, CfaIterationEvent, CfaStatistics>;

/** Options of a solve. */
export interface CfaSolveOptions extends AnalysisProgressOptions<CfaPhase, CfaIterationEvent> {
  readonly engine?: CfaEngine;
  /** The GPU for `webgpu` (and `auto`). */
  readonly gpu?: GpuContext | null | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * WebGPU tuning: store buffer rows; rounds per dispatch or command buffer; a buffer pool that
   * keeps the store between solves.
   */
  readonly webgpu?: {
    rowsPerChunk?: number;
    roundsPerBatch?: number;
    maxRoundsPerBatch?: number;
    /** Dense or paged store, the paged store's first pool, a cap on binding bytes (see `solveWebGpu`). */
    store?: 'dense' | 'paged';
    pageCapacity?: number;
    maxBindingBytes?: number;
    /** The delta engine's store from and back to this pool ({@link createCfaBufferPool}). */
    bufferPool?: CfaBufferPool;
  };
}

/** The fixpoint and how it was computed. */
export interface CfaResult {
  /** The engine that ran (also `statistics.engine`), as in the other analyses' results. */
  readonly engine: 'cpu' | 'webgpu';
  readonly store: CfaStore;
  /** Where the time went, in the shape every analysis reports (from `statistics`, plus the whole call). */
  readonly timings: AnalysisTimings;
  readonly statistics: CfaStatistics;
}

/**
 * A 0CFA solve of one program, as an event emitter.
 *
 * @example
 * ```ts
 * const solver = createCfaSolver(matrices, { engine: 'cpu', signal: AbortSignal.timeout(10_000) });
 * solver.on('iteration', (e) => console.error(`${e.round} steps`));
 * const { store, statistics } = await solver.solve();
 * ```
 */
export class CfaSolver extends (EventEmitter as new () => TypedEmitter.default<CfaSolverEvents>) {
  readonly matrices: CfaMatrices;
  readonly #options: CfaSolveOptions;
  #started = false;
  /** Iterations so far (CPU: worklist steps, WebGPU: rounds), for the `phase` events. */
  #rounds = 0;

  constructor(matrices: CfaMatrices, options: CfaSolveOptions = {}) {
    super();
    this.matrices = matrices;
    this.#options = options;
    if (options.onPhase) this.on('phase', options.onPhase);
    if (options.onIteration) this.on('iteration', options.onIteration);
  }

  /** The engine `solve()` will run. */
  get engine(): 'cpu' | 'webgpu' {
    const engine = this.#options.engine ?? 'auto';
    if (engine === 'auto') return this.#options.gpu ? 'webgpu' : 'cpu';
    return engine;
  }

  /** Solves to the least fixpoint; may be called once. Rejects with {@link CfaAbortedError} when cancelled. */
  async solve(): Promise<CfaResult> {
    if (this.#started) throw new Error('CfaSolver.solve() may be called once; create another solver');
    this.#started = true;
    const signal = this.#options.signal;
    if (signal?.aborted) throw new CfaAbortedError('CFA cancelled', { cause: signal.reason });
    const engine = this.engine;
    const start = performance.now();
    let result: Omit<CfaResult, 'timings'>;
    this.emit('phase', 'setup', 0);
    if (engine === 'cpu') result = this.#solveCpu(start);
    else {
      try {
        result = await this.#solveWebGpu(start);
      } catch (error) {
        // `auto` falls back to the CPU engine when the WebGPU engine cannot run this program here.
        if ((this.#options.engine ?? 'auto') !== 'auto' || !(error instanceof CfaEngineError)) throw error;
        result = this.#solveCpu(start, error.message);
      }
    }
    const { setupMs, solveMs, readbackMs } = result.statistics;
    const timings = { totalMs: performance.now() - start, setupMs, solveMs, readbackMs };
    this.emit('phase', 'done', this.#rounds);
    this.emit('done', result.statistics);
    return { ...result, timings };
  }

  #iteration(event: CfaIterationEvent): void {
    this.#rounds = event.round;
    this.emit('iteration', event);
  }

  #base() {
    const m = this.matrices;
    return { lams: m.lams, vars: m.vars, calls: m.calls, terms: termCount(m) };
  }

  #solveCpu(start: number, fallback?: string): Omit<CfaResult, 'timings'> {
    const engine = 'cpu';
    this.emit('phase', 'solve', 0);
    const t = performance.now();
    const { store, statistics } = solveCpuSparse(this.matrices, {
      signal: this.#options.signal,
      onProgress: (steps, pending) =>
        this.#iteration({ engine, round: steps, pending, elapsedMs: performance.now() - start }),
    });
    this.#rounds = statistics.steps;
    const solveMs = performance.now() - t;
    return {
      engine,
      store,
      statistics: {
        engine,
        ...this.#base(),
        storeEntries: store.size,
        solveMs,
        setupMs: 0,
        readbackMs: 0,
        counters: { ...statistics },
        ...(fallback !== undefined ? { fallback } : {}),
      },
    };
  }

  async #solveWebGpu(start: number): Promise<Omit<CfaResult, 'timings'>> {
    const engine = 'webgpu';
    const m = this.matrices;
    const signal = this.#options.signal;
    const gpu = this.#options.gpu;
    if (!gpu)
      throw new CfaEngineError('the WebGPU engine needs a GPU context (acquireGpu() found no adapter?)');
    let solving = false;
    const tuning = this.#options.webgpu ?? {};
    const onBatch = (rounds: number, changed: boolean) => {
      if (!solving) {
        solving = true;
        this.emit('phase', 'solve', 0);
      }
      this.#iteration({
        engine,
        round: rounds,
        pending: changed ? 1 : 0,
        elapsedMs: performance.now() - start,
      });
    };
    const { store, statistics } = await solveWebGpu(gpu, m, {
      signal,
      ...tuning,
      onBatch,
      onGrow: (pool, from, to) => this.emit('grow', { pool, from, to }),
    });
    this.#rounds = statistics.rounds;
    this.emit('phase', 'readback', this.#rounds);
    const { solveMs, setupMs, readbackMs, storeLayout, ...rest } = statistics;
    const counters = { ...rest, pagedStore: storeLayout === 'paged' ? 1 : 0 };
    return {
      engine,
      store,
      statistics: {
        engine,
        ...this.#base(),
        storeEntries: store.size,
        solveMs,
        setupMs,
        readbackMs,
        counters,
      },
    };
  }
}

/**
 * A new {@link CfaSolver}.
 *
 * @example
 * ```ts
 * const { store } = await createCfaSolver(matrices).solve();
 * ```
 */
export function createCfaSolver(matrices: CfaMatrices, options: CfaSolveOptions = {}): CfaSolver {
  return new CfaSolver(matrices, options);
}

/**
 * Solves `matrices` on the chosen engine.
 *
 * @example
 * ```ts
 * const { store, statistics } = await solveCfa(await readMatricesDir('…/vhm/1024'), { engine: 'cpu' });
 * console.log(statistics.solveMs, store.size);
 * ```
 */
export function solveCfa(matrices: CfaMatrices, options: CfaSolveOptions = {}): Promise<CfaResult> {
  return createCfaSolver(matrices, options).solve();
}
