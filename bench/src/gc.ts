import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * Runs a full garbage collection. Benchmarks call it before every timed run, so that garbage left
 * by an earlier run (hundreds of MiB of JS arrays for the larger inputs) is not collected in the
 * middle of a later one and charged to it. (It did not remove the spread of the eigencfa H100 runs:
 * that came from the GPU idling while the CPU engine ran, which the eigencfa bench now warms up for.)
 *
 * @example
 * ```ts
 * collectGarbage();
 * const t = performance.now();
 * solve();
 * times.push(performance.now() - t);
 * ```
 */
export function collectGarbage(): void {
  if (!gc) {
    // Node exposes `gc` only with --expose-gc; setting the flag at run time and reading `gc` from a
    // fresh context gives the same function without asking every caller for the flag.
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * {@link collectGarbage}, then lets the event loop run until a turn comes back quickly (at most
 * `maxTurns` turns), so that the work a collection leaves for later runs before the next timed run
 * and not inside it. Objects that wrap native ones — Dawn's buffers, pipelines and bind groups, the
 * staging memory of a readback — are released by callbacks the collection schedules on the event
 * loop; after a solve of linux on the H100 those took 13–100 ms, which `collectGarbage` alone left
 * to the first `await` of the next timed solve (the pool part of its setup read 37–192 ms, 18–48
 * ms with them run first). Resolves to the milliseconds it took.
 *
 * @example
 * ```ts
 * await settleGarbage();
 * const t = performance.now();
 * await solveOnGpu();
 * times.push(performance.now() - t);
 * ```
 */
export async function settleGarbage(maxTurns = 8): Promise<number> {
  const started = performance.now();
  collectGarbage();
  for (let turn = 0; turn < maxTurns; turn++) {
    const before = performance.now();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (performance.now() - before < 1) break;
  }
  return performance.now() - started;
}
