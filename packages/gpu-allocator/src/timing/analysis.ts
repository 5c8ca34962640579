/**
 * Where an analysis spent its time, in the same shape for every analysis (`result.timings` of
 * `solveAndersen`, `solveCfa` and `analyzeProgram`), so a host can report any of them alike.
 * Phases an engine does not have are 0 (a CPU engine uploads and reads back nothing).
 *
 * @example
 * ```ts
 * const { timings } = await solveAndersen(program);
 * console.log(`${timings.totalMs} ms, ${timings.solveMs} of them to the fixpoint`);
 * ```
 */
export interface AnalysisTimings {
  /** Wall clock of the whole call, ms. */
  readonly totalMs: number;
  /** Preparing and uploading the input and building pipelines, ms (0 on the CPU). */
  readonly setupMs: number;
  /** Computing the fixpoint, ms. */
  readonly solveMs: number;
  /** Bringing the result back to the host and building it, ms (0 on the CPU). */
  readonly readbackMs: number;
}
