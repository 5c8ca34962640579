/**
 * The solver's loops over every node or pair, each in a function of its own. The solve's body
 * (`GpuSolver.#run`, thousands of lines with its closures) is too large for V8 to optimize, so a
 * loop inside it runs as baseline code every solve: on the H100 machine the solve's body took
 * 6.4 ms of the main thread's own time in a profiled gcc solve, 2.0 with these loops moved out
 * (gcc's whole solve is about 30 ms).
 * A small function is optimized once it is hot, as `prepare.ts`'s passes are. (The readback's
 * loops, the live sets' layout and their counts, have since moved to the GPU: `live_count` and
 * `live_copy`.)
 */

/**
 * The worklist's sort keys for pairs `(key, source)` when the key and the source's word group
 * share one word: `key << compositeBits | source >> wordShift`, into `into`.
 *
 * @example
 * ```ts
 * compositeKeysInto(new Uint32Array(1), Uint32Array.of(3), Uint32Array.of(64), 1, 4, 5); // [0x32]
 * ```
 */
export function compositeKeysInto(
  into: Uint32Array,
  keys: Uint32Array,
  sources: Uint32Array,
  count: number,
  compositeBits: number,
  wordShift: number,
): Uint32Array {
  for (let i = 0; i < count; i++) {
    into[i] = (((keys[i] as number) << compositeBits) | ((sources[i] as number) >>> wordShift)) >>> 0;
  }
  return into;
}
