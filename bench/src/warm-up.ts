/**
 * The benches' warm-up: untimed runs until the GPU runs at its working clock.
 *
 * A GPU that has idled for about a second drops its shader clock (an H200 from 1,980 to 345 MHz)
 * and needs more than a second of steady work to raise it again, so the first solves after the
 * CPU engine's rows, after reading a big input or in a fresh process run up to twice as long as
 * the rest (docs/decisions/gpu-clock-warm-up.md). A fixed count of warm-ups is too few for short
 * solves and a fixed time too little for a GPU that idled long; this policy runs until a minimum
 * time has passed *and* the last few runs agree.
 */

/** When a warm-up may stop. */
export interface WarmUpPolicy {
  /** Runs at least this many (the first also compiles the kernels). */
  readonly minRuns: number;
  /** Runs at least this long in all, in milliseconds. */
  readonly minMs: number;
  /** Stops after this long even when the runs still disagree (the report says so). */
  readonly maxMs: number;
  /** How many of the last runs must agree. */
  readonly window: number;
  /** They agree when their spread (largest − smallest) is at most this fraction of their median. */
  readonly tolerance: number;
}

/** What a warm-up did. */
export interface WarmUpReport {
  /** Untimed runs made. */
  readonly runs: number;
  /** Their total wall time in milliseconds. */
  readonly ms: number;
  /** Whether the last {@link WarmUpPolicy.window} runs agreed when it stopped. */
  readonly steady: boolean;
  /** The last runs' times in milliseconds, oldest first. */
  readonly lastRunsMs: readonly number[];
}

/**
 * The GPU benches' policy: two runs, two seconds, then until three runs agree within 5%; at most
 * twenty seconds.
 */
export const GPU_WARM_UP: WarmUpPolicy = {
  minRuns: 2,
  minMs: 2000,
  maxMs: 20_000,
  window: 3,
  tolerance: 0.05,
};

/**
 * Whether the last `window` of `runsMs` agree within `tolerance` (false while there are fewer).
 *
 * @example
 * ```ts
 * steadyRuns([90, 40, 31, 30, 30.5], 3, 0.05); // true
 * steadyRuns([90, 40, 31], 3, 0.05); // false
 * ```
 */
export function steadyRuns(runsMs: readonly number[], window: number, tolerance: number): boolean {
  if (runsMs.length < window || window < 1) return false;
  const last = runsMs.slice(-window).sort((a, b) => a - b);
  const median = last[last.length >> 1] as number;
  return (last[last.length - 1] as number) - (last[0] as number) <= tolerance * median;
}

/**
 * Calls `run` untimed until `policy` is met, timing each call with `now`. A `run` that resolves to
 * a number gives its own time in milliseconds (e.g. the solve alone, without the garbage
 * collection before it); the policy's times still count the whole calls.
 *
 * @example
 * ```ts
 * const warm = await warmUntilSteady(() => solveAndersen(program, options));
 * if (!warm.steady) log(`not steady after ${warm.runs} runs: ${warm.lastRunsMs.join(', ')} ms`);
 * ```
 */
export async function warmUntilSteady(
  run: () => Promise<unknown>,
  policy: WarmUpPolicy = GPU_WARM_UP,
  now: () => number = () => performance.now(),
): Promise<WarmUpReport> {
  const started = now();
  const runsMs: number[] = [];
  for (;;) {
    const before = now();
    const own = await run();
    const after = now();
    runsMs.push(typeof own === 'number' ? own : after - before);
    const elapsed = after - started;
    const steady = steadyRuns(runsMs, policy.window, policy.tolerance);
    const done = runsMs.length >= policy.minRuns && elapsed >= policy.minMs && steady;
    if (done || elapsed >= policy.maxMs) {
      return { runs: runsMs.length, ms: elapsed, steady, lastRunsMs: runsMs.slice(-policy.window) };
    }
  }
}
