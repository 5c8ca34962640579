/**
 * Buffers kept after use, for the next caller that wants one of the same kind. On the H100
 * machine a new buffer costs about 27 ms per GiB to create and up to as much again on its first
 * use, and the Andersen engine's setup on linux spent 35–346 ms
 * creating its pools between solves of one process: a caching allocator, as PyTorch keeps for
 * CUDA, lets the second solve in a process find its buffers made. Kept buffers hold what their last user left in them, so
 * only callers that write before they read take them (see `GpuContext.reuseBuffer`).
 */

/**
 * The buffers a {@link GpuContext} keeps for reuse, at most `limitBytes` of them.
 *
 * @example
 * ```ts
 * const kept = new RetainedBuffers(2 ** 30);
 * kept.keep(buffer); // true: kept, not destroyed
 * kept.take(buffer.usage, 1024, 2 * buffer.size) === buffer; // true
 * kept.trim(); // destroys whatever is still kept
 * ```
 */
export class RetainedBuffers {
  /** The most bytes kept at once; a buffer past it is destroyed instead (0 keeps nothing). */
  readonly limitBytes: number;
  readonly #kept: GPUBuffer[] = [];
  #bytes = 0;

  constructor(limitBytes: number) {
    this.limitBytes = Math.max(0, limitBytes);
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Buffers kept now. */
  get count(): number {
    return this.#kept.length;
  }

  /** The kept buffers, oldest first. */
  get buffers(): readonly GPUBuffer[] {
    return [...this.#kept];
  }

  /**
   * Takes the smallest kept buffer of exactly this usage whose size is in `[minBytes, maxBytes]`,
   * or `undefined` when there is none.
   */
  take(usage: number, minBytes: number, maxBytes: number): GPUBuffer | undefined {
    let best = -1;
    for (let i = 0; i < this.#kept.length; i++) {
      const buffer = this.#kept[i] as GPUBuffer;
      if (buffer.usage !== usage || buffer.size < minBytes || buffer.size > maxBytes) continue;
      if (best < 0 || buffer.size < (this.#kept[best] as GPUBuffer).size) best = i;
    }
    if (best < 0) return undefined;
    const [buffer] = this.#kept.splice(best, 1) as [GPUBuffer];
    this.#bytes -= buffer.size;
    return buffer;
  }

  /**
   * Keeps `buffer` for a later {@link take}, destroying the oldest kept ones to make room; a buffer
   * larger than the limit is destroyed at once. Returns whether it was kept.
   */
  keep(buffer: GPUBuffer): boolean {
    if (buffer.size > this.limitBytes) {
      buffer.destroy();
      return false;
    }
    while (this.#bytes + buffer.size > this.limitBytes) {
      const oldest = this.#kept.shift() as GPUBuffer;
      this.#bytes -= oldest.size;
      oldest.destroy();
    }
    this.#kept.push(buffer);
    this.#bytes += buffer.size;
    return true;
  }

  /** Destroys every kept buffer; returns the bytes freed. */
  trim(): number {
    const freed = this.#bytes;
    for (const buffer of this.#kept) buffer.destroy();
    this.#kept.length = 0;
    this.#bytes = 0;
    return freed;
  }
}
