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
