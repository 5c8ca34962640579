import {
  type ElementPool,
  GpuLimitError,
  GpuOutOfMemoryError,
  type ListHeads,
} from '@gpumorph/gpu-allocator';
import { NEXT_WORD } from '@gpumorph/sparse-bitvector';
import { poolWindowShares, SET_SLOT, STATUS } from './layout';

/**
 * When the pools and the worklist grow ahead of need (the tuning's `growAhead`): after a round
 * that allocated k elements in a pool, the pool grows when fewer than `below`·k are free, to hold
 * `to`·k more; the worklist likewise by the round's pairs.
 */
export interface GrowAhead {
  readonly below: number;
  readonly to: number;
}

/** The default {@link GrowAhead}. */
export const DEFAULT_GROW_AHEAD: GrowAhead = { below: 3, to: 8 };

/** Each pool's words in the status (after the rules, sort_gate's; after an update, guard_merge's). */
interface PoolWords {
  readonly pool: ElementPool;
  readonly next: number;
  readonly capacity: number;
  readonly exhausted: number;
  readonly mark: number;
  readonly mergeNeed: number;
  /** The pool's head slots, one range per slot (`SET_SLOT` order): what a compaction keeps. */
  readonly heads: readonly ListHeads[];
}

/**
 * Every decision of a solve to grow the points-to and edge pools and the worklist, in one place:
 * growing what ran out (the rules', the guarded update's, the merge guard's needs, as the status
 * words report them) and growing ahead of need after a round. Growing itself is the pools' own
 * (`ElementPool.grow`) and, for the worklist, the `growWorklist` the solver passes in.
 *
 * Growing ahead is a guess: it stops at the pool's largest size (so the pool cannot refuse it),
 * and a GPU that cannot hold that much leaves the pool as it is (the guarded update grows it to
 * what it really needs, or reports why it cannot).
 *
 * A pool the guarded update would have to grow past its largest size (what a kernel can bind) is
 * compacted first: bump allocation keeps every set a round replaced, several times the sets in use
 * on large programs, and `ElementPool.compact` drops them. The whole attempt then runs again.
 *
 * @example
 * ```ts
 * const growth = new PoolGrowth(points, edges, { growAhead, maxStorageBuffers, maxBindingBytes, ... });
 * if (status[STATUS.skipUpdate] !== 0) await growth.growShortPools(status);
 * ```
 */
export class PoolGrowth {
  readonly growAhead: GrowAhead;
  readonly #points: ElementPool;
  readonly #poolWords: readonly PoolWords[];
  readonly #shares: { readonly points: number; readonly edges: number };
  readonly #maxPairs: number;
  readonly #maxBindingBytes: number;
  readonly #pairCapacity: () => number;
  readonly #growWorklist: (capacity: number) => Promise<void>;
  readonly #timed: (ms: number) => void;
  readonly #writeControl: (word: number, value: number) => void;
  /** Times a pool was compacted in this solve. */
  compactions = 0;
  /**
   * Whether a pool was compacted since {@link attemptBegins}: the attempt's worklist pairs and pull
   * chunks named elements that moved, so its update must not run again alone.
   */
  compactedThisAttempt = false;

  constructor(
    points: ElementPool,
    edges: ElementPool,
    init: {
      /** Default {@link DEFAULT_GROW_AHEAD}. */
      readonly growAhead?: GrowAhead | undefined;
      /** The device's `maxStorageBuffersPerShaderStage` (the pools' window shares). */
      readonly maxStorageBuffers: number;
      /** The device's `maxStorageBufferBindingSize` (the worklist's largest size). */
      readonly maxBindingBytes: number;
      /** A smaller largest worklist, in pairs (the tuning's `maxWorklistPairs`). */
      readonly maxWorklistPairs?: number | undefined;
      /** The worklist's capacity now, in pairs. */
      readonly pairCapacity: () => number;
      /** Moves the worklist to buffers of `capacity` pairs. */
      readonly growWorklist: (capacity: number) => Promise<void>;
      /** Adds the milliseconds a growth took to the host's times. */
      readonly timed: (ms: number) => void;
      /** Each pool's head slots, one range per slot in `SET_SLOT` order (the nodes' sets only). */
      readonly heads: { readonly points: readonly ListHeads[]; readonly edges: readonly ListHeads[] };
      /** Writes one word of the control buffer (before the next submission). */
      readonly writeControl: (word: number, value: number) => void;
    },
  ) {
    this.growAhead = init.growAhead ?? DEFAULT_GROW_AHEAD;
    this.#points = points;
    this.#shares = poolWindowShares(init.maxStorageBuffers);
    this.#maxPairs = Math.min(
      Math.floor(init.maxBindingBytes / 4),
      init.maxWorklistPairs ?? Number.POSITIVE_INFINITY,
    );
    this.#maxBindingBytes = init.maxBindingBytes;
    this.#pairCapacity = init.pairCapacity;
    this.#growWorklist = init.growWorklist;
    this.#timed = init.timed;
    this.#writeControl = init.writeControl;
    this.#poolWords = [
      {
        pool: points,
        next: STATUS.ptsNext,
        capacity: STATUS.ptsCapacity,
        exhausted: STATUS.ptsExhausted,
        mark: STATUS.markPts,
        mergeNeed: STATUS.mergeNeedPts,
        heads: init.heads.points,
      },
      {
        pool: edges,
        next: STATUS.edgesNext,
        capacity: STATUS.edgesCapacity,
        exhausted: STATUS.edgesExhausted,
        mark: STATUS.markEdges,
        mergeNeed: STATUS.mergeNeedEdges,
        heads: init.heads.edges,
      },
    ];
  }

  /** Runs `work`, counting its time as growth. */
  async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await work();
    this.#timed(performance.now() - started);
    return result;
  }

  /** Marks the start of an attempt (see {@link compactedThisAttempt}). */
  attemptBegins(): void {
    this.compactedThisAttempt = false;
  }

  /** Whether a pool is short of room for `growAhead.below` times what the round allocated. */
  shortOfRoom(pool: ElementPool, next: number, mark: number): boolean {
    return pool.capacity - next < this.growAhead.below * (next - mark);
  }

  /** Whether the worklist is short of room for `growAhead.below` times a round's pairs (rules_gate tests the same). */
  pairsShort(pairCount: number): boolean {
    return this.#pairCapacity() < this.growAhead.below * pairCount;
  }

  /** Whether the host would grow a pool or the worklist ahead after a round with this status. */
  growsAhead(status: Uint32Array): boolean {
    return (
      this.#poolWords.some(({ pool, next, mark }) =>
        this.shortOfRoom(pool, status[next] as number, status[mark] as number),
      ) || this.pairsShort(status[STATUS.pairCount] as number)
    );
  }

  /**
   * Grows each pool that ran out, or that lacks room for what the update may copy (everything
   * allocated since the iteration began, once more) and the last merges' needs: the guarded
   * update's (and the rules') growth before a round runs again.
   */
  growShortPools(status: Uint32Array): Promise<void> {
    return this.#growPoolsShortOf(
      status,
      (words) =>
        Math.min(status[words.next] as number, status[words.capacity] as number) -
        (status[words.mark] as number) +
        (status[words.mergeNeed] as number),
      { compact: true },
    );
  }

  /**
   * Grows each pool the merge guard found short of room for the folds of a round's merges (never
   * by compacting: the round's plan stands, and nothing runs again).
   */
  growForMerges(status: Uint32Array): Promise<void> {
    return this.#growPoolsShortOf(status, (words) => status[words.mergeNeed] as number, { compact: false });
  }

  /**
   * After a round that ran: grows each pool short of room for `growAhead.below` times what the
   * round allocated to hold `growAhead.to` times that more, and the worklist likewise by the
   * round's pairs (a round that would not fit runs twice; python's pairs jump 15-fold from one
   * round to the next, and such rounds come again).
   */
  async growAheadAfter(status: Uint32Array): Promise<void> {
    for (const { pool, next, mark } of this.#poolWords) {
      const used = status[next] as number;
      const last = used - (status[mark] as number);
      if (this.shortOfRoom(pool, used, status[mark] as number))
        await this.#growAheadOf(pool, used + this.growAhead.to * last);
    }
    const pairCount = status[STATUS.pairCount] as number;
    if (this.pairsShort(pairCount)) await this.#growPairsAhead(this.growAhead.to * pairCount);
  }

  /**
   * Grows the worklist after a round emitted `pairCount` pairs, more than it holds: to twice that,
   * at most what one binding holds. A round that emits more pairs than one binding holds cannot
   * run on this device: {@link GpuLimitError}, before anything is allocated.
   */
  async growWorklistFor(pairCount: number): Promise<void> {
    if (pairCount > this.#maxPairs) {
      throw new GpuLimitError(
        `andersen: a round of the WebGPU engine emits ${pairCount} worklist pairs, more than the ` +
          `${this.#maxPairs} one storage binding holds (maxStorageBufferBindingSize ${this.#maxBindingBytes} ` +
          'bytes); the CPU engine solves this program',
        'maxStorageBufferBindingSize',
        4 * pairCount,
        4 * this.#maxPairs,
      );
    }
    const capacity = Math.min(this.#maxPairs, Math.max(2 * this.#pairCapacity(), 2 * pairCount));
    await this.timed(() => this.#growWorklist(capacity));
  }

  /**
   * Grows each pool that ran out or has less room than `need` of it, as the status words report
   * them. With `compact` (only where the whole attempt runs again next), a pool that would have to
   * grow past its largest size first drops what no set reaches, and grows only if that still
   * leaves too little room.
   */
  async #growPoolsShortOf(
    status: Uint32Array,
    need: (words: PoolWords) => number,
    options: { readonly compact: boolean },
  ): Promise<void> {
    for (const words of this.#poolWords) {
      const next = status[words.next] as number;
      const capacity = status[words.capacity] as number;
      const room = need(words);
      if (status[words.exhausted] === 0 && next < capacity && capacity - next >= room) continue;
      const wanted = Math.max(next, Math.min(next, capacity) + room) + 1;
      if (options.compact && wanted > words.pool.maxCapacity) {
        const inUse = await this.#compact(words);
        if (inUse !== undefined) {
          if (inUse + room + 1 > words.pool.capacity)
            await this.timed(() => words.pool.grow(inUse + room + 1));
          continue;
        }
      }
      await this.timed(() => words.pool.grow(wanted));
    }
  }

  /**
   * Drops the elements of a pool that no node's set reaches. Returns the elements still in use,
   * or undefined when nothing could be dropped. The sets the attempt gathered (N and H, or G) now
   * lie below the new end: the iteration's mark moves back by their size, so that the update
   * guard still counts them among what the attempt run next gathers, as without the compaction.
   * The partial sets of pull chunks are not kept: they belong to the attempt, and the attempt run
   * next hands its chunks out again, each starting empty.
   */
  async #compact(words: PoolWords): Promise<number | undefined> {
    const compacted = await this.timed(() => words.pool.compact({ nextWord: NEXT_WORD, heads: words.heads }));
    if (compacted.after >= compacted.before) return undefined;
    this.compactions++;
    this.compactedThisAttempt = true;
    const gathered = compacted.kept.reduce(
      (sum, kept, slot) => sum + (slot === SET_SLOT.pending || slot === SET_SLOT.hop ? kept : 0),
      0,
    );
    this.#writeControl(words.mark, compacted.after - gathered);
    this.#writeControl(words.next, compacted.after);
    return compacted.after;
  }

  /** Grows a pool ahead, as far as its window share and its largest size allow (see the class). */
  async #growAheadOf(pool: ElementPool, wanted: number): Promise<void> {
    const share = (pool === this.#points ? this.#shares.points : this.#shares.edges) * pool.windowElements;
    const target = Math.min(pool.maxCapacity, Math.max(pool.capacity, share), wanted);
    if (target <= pool.capacity) return;
    try {
      await this.timed(() => pool.grow(target));
    } catch (error) {
      if (!(error instanceof GpuOutOfMemoryError)) throw error;
    }
  }

  /** Grows the worklist ahead, up to what one binding holds; a GPU that cannot hold it leaves it as it is. */
  async #growPairsAhead(wanted: number): Promise<void> {
    const capacity = Math.min(this.#maxPairs, Math.ceil(wanted));
    if (capacity <= this.#pairCapacity()) return;
    try {
      await this.timed(() => this.#growWorklist(capacity));
    } catch (error) {
      if (!(error instanceof GpuOutOfMemoryError)) throw error;
    }
  }
}
