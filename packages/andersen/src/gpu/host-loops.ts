/**
 * The solver's loops over every node or pair, each in a function of its own. The solve's body
 * (`GpuSolver.#run`, thousands of lines with its closures) is too large for V8 to optimize, so a
 * loop inside it runs as baseline code every solve: on the H100 machine the solve's body took
 * 6.4 ms of the main thread's own time in a profiled gcc solve, 2.0 with these loops moved out
 * (`scripts/andersen-host-profile.mjs`; gcc's whole solve is about 30 ms).
 * A small function is optimized once it is hot, as `prepare.ts`'s passes are.
 */
import { NO_ELEMENT } from '@gpumorph/sparse-bitvector';

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

/**
 * Lays the live sets out one after another: each node with `lengths[v] > 0` elements starts at
 * the running total (`offsets[v]` and `heads[v]`; an empty set has offset 0 and head
 * {@link NO_ELEMENT}). Returns the total.
 *
 * @example
 * ```ts
 * const offsets = new Uint32Array(3), heads = new Uint32Array(3);
 * liveLayout(Uint32Array.of(2, 0, 3), offsets, heads); // 5; offsets [0, 0, 2], heads [0, NONE, 2]
 * ```
 */
export function liveLayout(lengths: Uint32Array, offsets: Uint32Array, heads: Uint32Array): number {
  let live = 0;
  for (let v = 0; v < lengths.length; v++) {
    const count = lengths[v] as number;
    if (count > 0) {
      heads[v] = live;
      offsets[v] = live;
      live += count;
    } else {
      heads[v] = NO_ELEMENT;
      offsets[v] = 0;
    }
  }
  return live;
}

/**
 * The representatives' elements, each shared set counted for every representative that reads
 * it, and how many representatives read another's set (`leaderOf[v] !== v`).
 *
 * @example
 * ```ts
 * sharedSetCounts(Uint32Array.of(0, 1, 1), Uint32Array.of(0, 0, 0), Uint32Array.of(4, 0, 0));
 * // { elements: 8, shared: 1 }: node 2 is not a representative
 * ```
 */
export function sharedSetCounts(
  parent: Uint32Array,
  leaderOf: Uint32Array,
  lengths: Uint32Array,
): { elements: number; shared: number } {
  let elements = 0;
  let shared = 0;
  for (let v = 0; v < parent.length; v++) {
    if (parent[v] !== v) continue;
    const leader = leaderOf[v] as number;
    elements += lengths[leader] as number;
    if (leader !== v) shared++;
  }
  return { elements, shared };
}
