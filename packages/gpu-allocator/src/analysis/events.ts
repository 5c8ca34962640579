/**
 * The events every analysis emits, in one shape (docs/architecture.md, "One API across the
 * analyses"): andersen's `CpuSolver` and `GpuSolver`, eigencfa's `CfaSolver` and octagon's
 * `ProgramAnalyzer` are typed event emitters (typed-emitter) of {@link AnalysisEvents}, the GPU
 * engines with {@link GpuAnalysisEvents}; their `solve*`/`analyzeProgram` functions take the same
 * `onPhase` and `onIteration` callbacks. Only the analyses' own phase names, iteration details and
 * statistics differ.
 * @module
 */

/**
 * The fields every `iteration` event has; an analysis adds its own.
 *
 * @example
 * ```ts
 * solver.on('iteration', ({ round, elapsedMs }) => console.error(`round ${round} at ${elapsedMs} ms`));
 * ```
 */
export interface AnalysisIterationEvent {
  /**
   * 1-based count of the fixpoint's iterations so far: andersen's rounds, eigencfa's WebGPU rounds
   * or CPU worklist steps, octagon's loop-head iterations.
   */
  readonly round: number;
  /** Milliseconds since the analysis started. */
  readonly elapsedMs: number;
}

/**
 * A GPU engine grew a buffer or pool in place: `pool` names it, `from` and `to` are its capacity in
 * its own units (elements, pairs, rows).
 *
 * @example
 * ```ts
 * solver.on('grow', ({ pool, from, to }) => console.error(`${pool}: ${from} → ${to}`));
 * ```
 */
export interface AnalysisGrowEvent {
  readonly pool: string;
  readonly from: number;
  readonly to: number;
}

/**
 * The events of an analysis, for typed-emitter. `phase` fires when a phase starts, with the
 * iterations done so far (0 before the first); the first phase is `setup` and the last `done`.
 * `iteration` fires after each iteration (or batch of them); `done` once, with the result's
 * `statistics`, after the last phase.
 *
 * @example
 * ```ts
 * type MyEvents = AnalysisEvents<'setup' | 'solve' | 'done', AnalysisIterationEvent, MyStatistics>;
 * class MySolver extends (EventEmitter as new () => TypedEmitter.default<MyEvents>) {}
 * ```
 */
export type AnalysisEvents<Phase extends string, Iteration extends AnalysisIterationEvent, Statistics> = {
  phase: (phase: Phase, round: number) => void;
  iteration: (event: Iteration) => void;
  done: (statistics: Statistics) => void;
};

/** {@link AnalysisEvents} of a GPU engine: also `grow` when it enlarges a buffer in place. */
export type GpuAnalysisEvents<
  Phase extends string,
  Iteration extends AnalysisIterationEvent,
  Statistics,
> = AnalysisEvents<Phase, Iteration, Statistics> & {
  grow: (event: AnalysisGrowEvent) => void;
};

/**
 * The progress callbacks of an analysis' one-call entry point (`solveAndersen`, `solveCfa`,
 * `analyzeProgram`): the `phase` and `iteration` events as options.
 *
 * @example
 * ```ts
 * await solveCfa(matrices, { onIteration: ({ round }) => bar.update(round) });
 * ```
 */
export interface AnalysisProgressOptions<Phase extends string, Iteration extends AnalysisIterationEvent> {
  /** Called when a phase starts (see {@link AnalysisEvents}). */
  readonly onPhase?: ((phase: Phase, round: number) => void) | undefined;
  /** Called after each iteration (see {@link AnalysisEvents}). */
  readonly onIteration?: ((event: Iteration) => void) | undefined;
}
