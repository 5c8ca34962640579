import type { CliIo } from './io';

/**
 * The one shape of every analysis command's `--json` output (`andersen solve`, `andersen ll`,
 * `cfa`, `octagon`), so scripts read each the same way: what was read, which engine ran where,
 * how big the problem was, how long each phase took (all `…Ms`), the command's own answer, and
 * whether every check passed (`ok` is false exactly when the exit status is 1).
 *
 * @example
 * ```ts
 * const report = JSON.parse(stdoutOf('gpumorph cfa prog.scm --json')) as AnalysisReport<…>;
 * console.log(report.engine, report.timings.solveMs, report.result.store.length);
 * ```
 */
export interface AnalysisReport<Input, Sizes, Timings, Result> {
  /** The command that wrote it, e.g. `'andersen solve'`. */
  readonly command: string;
  /** The files read (paths as given on the command line). */
  readonly input: Input;
  /** The engine that ran (`cpu`, `webgpu`, or the octagon's `exact`/`f64`). */
  readonly engine: string;
  /** The WebGPU adapter's description, or null when no GPU engine ran. */
  readonly adapter: string | null;
  readonly sizes: Sizes;
  /** Milliseconds per phase. */
  readonly timings: Timings;
  readonly result: Result;
  /** False when a check failed (a verification difference, a failed alias check, an unproved assertion). */
  readonly ok: boolean;
}

/**
 * Writes `report` on stdout as indented JSON and a newline.
 *
 * @example
 * ```ts
 * writeReport(io, { command: 'octagon', input: { file }, engine: 'f64', adapter: null, sizes, timings, result, ok });
 * ```
 */
export function writeReport(io: CliIo, report: AnalysisReport<unknown, unknown, unknown, unknown>): void {
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
