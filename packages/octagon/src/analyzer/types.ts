/**
 * The analyzer's options, events and results.
 * @module
 */
import type {
  AnalysisEvents,
  AnalysisIterationEvent,
  AnalysisProgressOptions,
  AnalysisTimings,
  GpuContext,
} from '@gpumorph/gpu-allocator';
import type { OctConstraint } from '../dbm/constraints';
import type { SourcePosition } from '../errors';

/** Engines of the analyzer: exact rationals, f64, or WebGPU (closures, joins and widenings' right arguments on the GPU). */
export type AnalyzerEngine = 'exact' | 'f64' | 'webgpu';

/** Phases of an analysis, in order: parsing and engine set-up, the abstract interpretation, the end. */
export type AnalyzerPhase = 'setup' | 'analyze' | 'done';

/** One iteration of a loop head towards its fixpoint (every analysis' iteration event). */
export interface AnalyzerIterationEvent extends AnalysisIterationEvent {
  /** Loop-head iterations so far over all loops, 1-based (`statistics.loopIterations` at the end). */
  readonly round: number;
  /** The `while` whose head iterated. */
  readonly loop: SourcePosition;
}

/** Events of {@link ProgramAnalyzer}: every analysis' events (`phase`, `iteration`, `done`). */
export type ProgramAnalyzerEvents = AnalysisEvents<AnalyzerPhase, AnalyzerIterationEvent, AnalysisStatistics>;

/** Options of {@link analyzeProgram}. */
export interface AnalyzeOptions extends AnalysisProgressOptions<AnalyzerPhase, AnalyzerIterationEvent> {
  readonly engine?: AnalyzerEngine;
  /** The GPU of the `webgpu` engine (required for it): the same option as in the other analyses. */
  readonly gpu?: GpuContext | null | undefined;
  /**
   * The former name of {@link gpu}.
   * @deprecated Use `gpu`; `ctx` will be removed in the next release.
   */
  readonly ctx?: GpuContext | null | undefined;
  /**
   * Cancels the analysis: it stops before its next statement or loop iteration with
   * {@link OctagonAbortedError} (the signal's reason as `cause`), returning to the event loop at
   * least every 50 ms so that a timer can fire.
   */
  readonly signal?: AbortSignal | undefined;
  /** Joins before widening at a loop head (default 2). */
  readonly wideningDelay?: number;
  /** Narrowing iterations after a loop's fixpoint (default 2). */
  readonly narrowing?: number;
  /** Widen with the program's constants (and ±1) as thresholds (default true). */
  readonly thresholds?: boolean;
  /**
   * Also run the backward mode: for each assertion of the main program, the reachable states
   * that may lead to its failure, at every statement (`result.backward`).
   */
  readonly backward?: boolean;
}

/** The backward analysis of one assertion (`options.backward`). */
export interface BackwardResult {
  readonly pos: SourcePosition;
  readonly text: string;
  /** The states at the start of the program that may lead to the failure (`⊥`: none). */
  readonly entry: string;
  /** Whether no execution can fail the assertion (the entry is empty). */
  readonly proved: boolean;
  /** For each statement (loop head for `while`), the states before it that may lead to the failure. */
  readonly points: readonly ProgramPoint[];
}

/** The invariant at one program point. */
export interface ProgramPoint {
  readonly pos: SourcePosition;
  /** `before <statement>`, `loop head of <while …>`, or `end`. */
  readonly label: string;
  readonly invariant: string;
  /** Bounds of each variable (null ends unbounded); null when unreachable. */
  readonly box: readonly { lo: string | null; hi: string | null }[] | null;
  /** The procedure the point is in (its variables: `result.procedures`), or null in the main program. */
  readonly procedure: string | null;
  /**
   * The invariant's constraints over the variables of its procedure (or the main program), each
   * constant a decimal or fraction string; null when unreachable.
   */
  readonly constraints: readonly OctConstraint[] | null;
}

/**
 * A procedure's variables and summary. The variables are its parameters, its locals, then `p@in`
 * for each parameter `p` (its value at entry) and `@ret` (the return value); the summary relates
 * the `@in` variables and `@ret` over every call (context-insensitive).
 */
export interface ProcedureResult {
  readonly name: string;
  readonly variables: readonly string[];
  /** The summary over `p@in` and `@ret` (`⊥` when the procedure never returns). */
  readonly summary: string;
  /** Rounds of the summaries' fixpoint in which this summary grew. */
  readonly rounds: number;
}

/**
 * One assertion, array-bound check or division check (a divisor that is not a nonzero literal)
 * and whether the analysis proved it.
 */
export interface AssertionResult {
  readonly pos: SourcePosition;
  readonly text: string;
  readonly kind: 'assert' | 'bounds' | 'division';
  readonly proved: boolean;
}

/** Counters of one analysis (`result.statistics`), as the other analyses report theirs. */
export interface AnalysisStatistics {
  /** The engine that ran. */
  readonly engine: AnalyzerEngine;
  /** Variables of the program (array elements included as one variable per array). */
  readonly variables: number;
  /** Iterations of loop heads until their fixpoint, over all loops (widening included). */
  readonly loopIterations: number;
  /** Closures computed (on the GPU with `webgpu`). */
  readonly closures: number;
  /** Joins computed. */
  readonly joins: number;
}

/** What {@link analyzeProgram} found. */
export interface AnalysisResult {
  readonly file: string;
  readonly engine: AnalyzerEngine;
  readonly variables: readonly string[];
  readonly points: readonly ProgramPoint[];
  readonly assertions: readonly AssertionResult[];
  /** The procedures' variables and summaries, in the order of the source. */
  readonly procedures: readonly ProcedureResult[];
  /** With `options.backward`: one backward analysis per assertion of the main program. */
  readonly backward?: readonly BackwardResult[];
  /** Wall clock of the analysis, ms (also `timings.totalMs`). */
  readonly timeMs: number;
  /**
   * Where the time went, in the shape every analysis reports: the analysis interleaves its
   * closures (on the GPU with `webgpu`) with the rest, so all of it counts as solving.
   */
  readonly timings: AnalysisTimings;
  /** Counters of the analysis. */
  readonly statistics: AnalysisStatistics;
}
