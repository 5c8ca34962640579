import { PoolCapacityError } from '../errors';
import { DEFAULT_ELEMENT_WORDS, INVALID_ELEMENT } from './layout';

/**
 * A WebAssembly memory as {@link CpuElementPool} uses it (structurally typed, so no DOM typings are
 * needed): its buffer, replaced on growth, and `grow(pages)` in 64 KiB pages.
 */
export interface GrowableMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/**
 * The CPU counterpart of {@link ElementPool}: the same element layout and bump-pointer semantics
 * in one growable `Uint32Array`, so CPU engines (e.g. the CPU sparse bit vector) store many
 * structures in one pool without a JS object per element, and tests have a model of the GPU pool.
 *
 * @example
 * ```ts
 * const pool = new CpuElementPool({ capacity: 4 });
 * const e = pool.alloc();      // 0
 * pool.words[e * pool.elementWords] = 42;
 * ```
 */
export class CpuElementPool {
  readonly elementWords: number;
  readonly reserved: number;
  readonly maxCapacity: number;
  #words: Uint32Array;
  #next: number;
  readonly #memory: GrowableMemory | undefined;

  constructor(options: {
    capacity: number;
    elementWords?: number;
    reserved?: number;
    maxCapacity?: number;
    /**
     * Keep the elements in this WebAssembly memory (from byte 0; it grows with the pool, so the
     * elements never move) instead of a plain `ArrayBuffer`, so WebAssembly code, e.g. SIMD set
     * operations, can work on them in place. Limits the pool to 4 GiB.
     */
    memory?: GrowableMemory;
    /**
     * Start from these words as the storage, without copying them (not with `memory`): every
     * element in them counts as handed out, and growth moves them to a larger array as usual.
     * Bulk transfers hand a buffer read back from the GPU to a CPU pool this way.
     */
    adopt?: Uint32Array;
  }) {
    this.elementWords = options.elementWords ?? DEFAULT_ELEMENT_WORDS;
    this.reserved = options.reserved ?? 0;
    const addressable = options.memory ? 2 ** 32 / 4 : 2 ** 31;
    this.maxCapacity = Math.min(options.maxCapacity ?? Infinity, Math.floor(addressable / this.elementWords));
    const capacity = Math.max(options.capacity, this.reserved, 1);
    this.#memory = options.memory;
    if (options.adopt) {
      if (options.memory) throw new RangeError('CpuElementPool: `adopt` and `memory` exclude each other');
      if (options.adopt.length % this.elementWords !== 0 || options.adopt.length === 0) {
        throw new RangeError(
          `CpuElementPool: ${options.adopt.length} words to adopt is not a positive whole number of elements`,
        );
      }
      this.#words = options.adopt;
      this.#next = Math.max(this.reserved, options.adopt.length / this.elementWords);
      return;
    }
    if (this.#memory) {
      this.#reserveMemory(capacity);
      this.#words = new Uint32Array(this.#memory.buffer, 0, capacity * this.elementWords);
    } else {
      this.#words = new Uint32Array(capacity * this.elementWords);
    }
    this.#next = this.reserved;
  }

  /** Grows the WebAssembly memory to hold `capacity` elements. */
  #reserveMemory(capacity: number): void {
    const memory = this.#memory as GrowableMemory;
    const bytes = capacity * this.elementWords * 4;
    const pages = Math.ceil(bytes / 65_536) - memory.buffer.byteLength / 65_536;
    if (pages > 0) memory.grow(pages);
  }

  /** The storage; replaced when the pool grows, so do not keep it across `alloc` calls. */
  get words(): Uint32Array {
    return this.#words;
  }

  get capacity(): number {
    return this.#words.length / this.elementWords;
  }

  /** Elements handed out so far, reserved ones included. */
  get allocated(): number {
    return this.#next;
  }

  /** A fresh zeroed element, growing the storage (doubling) when full. */
  alloc(): number {
    if (this.#next === this.capacity) this.#grow(this.#next + 1);
    return this.#next++;
  }

  /**
   * `count` fresh zeroed elements with consecutive indices (the first is returned), growing the
   * storage at most once: bulk transfers fill them without one `alloc` per element.
   */
  allocBlock(count: number): number {
    if (count > this.capacity - this.#next) this.#grow(this.#next + count);
    const first = this.#next;
    this.#next += count;
    return first;
  }

  /** Frees every element but the reserved ones and zeroes them. */
  reset(): void {
    this.#words.fill(0);
    this.#next = this.reserved;
  }

  #grow(minCapacity: number): void {
    const capacity = Math.min(this.maxCapacity, Math.max(minCapacity, this.capacity * 2));
    if (capacity < minCapacity) {
      throw new PoolCapacityError(
        `CPU pool needs ${minCapacity} elements, at most ${this.maxCapacity}`,
        'cpu',
        minCapacity,
        this.maxCapacity,
      );
    }
    if (this.#memory) {
      this.#reserveMemory(capacity);
      this.#words = new Uint32Array(this.#memory.buffer, 0, capacity * this.elementWords);
      return;
    }
    const words = new Uint32Array(capacity * this.elementWords);
    words.set(this.#words);
    this.#words = words;
  }
}

/** What one team-aggregated allocation step does to a pool header, per the WGSL semantics. */
export interface TeamAllocationOutcome {
  /** For each request (in team order, lane order), its element or `INVALID_ELEMENT`. */
  readonly indices: readonly (readonly number[])[];
  readonly next: number;
  readonly exhausted: boolean;
}

/**
 * Reference of `<name>_alloc` for teams served in the given order: each team claims its count
 * with one bump and lanes take consecutive indices in lane order; indices past the capacity are
 * invalid and set the flag. The GPU serves teams in some order, so tests compare the set of indices
 * and the header, which do not depend on it.
 */
export function allocateTeamsReference(
  teams: readonly (readonly boolean[])[],
  state: { next: number; capacity: number },
): TeamAllocationOutcome {
  let next = state.next;
  let exhausted = false;
  const indices = teams.map((wants) => {
    const total = wants.filter(Boolean).length;
    const base = next;
    if (total > 0) {
      next += total;
      if (base >= state.capacity || total > state.capacity - base) exhausted = true;
    }
    let rank = 0;
    return wants.map((want) => {
      if (!want) return INVALID_ELEMENT;
      const index = base + rank++;
      return index < state.capacity ? index : INVALID_ELEMENT;
    });
  });
  return { indices, next, exhausted };
}
