/**
 * What the readback and upload pools share: buffers kept by power-of-two size class up to a byte
 * budget, and the range check of a copy.
 */

/** The power of two at or above `size`, and at least `min`. */
export function sizeClassOf(size: number, min = 4): number {
  return 2 ** Math.ceil(Math.log2(Math.max(min, size)));
}

/**
 * Throws a RangeError unless bytes `[byteOffset, byteOffset + byteLength)` are a 4-byte aligned
 * range of `buffer`; `what` names the copy in the message (e.g. "readback of status").
 */
export function checkCopyRange(
  what: string,
  buffer: GPUBuffer,
  byteOffset: number,
  byteLength: number,
): void {
  if (byteOffset % 4 !== 0 || byteLength % 4 !== 0) {
    throw new RangeError(`${what} needs 4-byte aligned offset and length (${byteOffset}, ${byteLength})`);
  }
  if (byteOffset + byteLength > buffer.size) {
    throw new RangeError(
      `${what}: bytes ${byteOffset}..${byteOffset + byteLength} past its size ${buffer.size}`,
    );
  }
}

/**
 * Free buffers by size class, at most `maxBytes` of them: `take` one of a class, `give` one back
 * (destroyed when the budget is full), `release` them all.
 *
 * @example
 * ```ts
 * const free = new SizeClassFreeList(256 * 2 ** 20);
 * const buffer = free.take(4096) ?? device.createBuffer({ size: 4096, usage });
 * free.give(buffer);
 * ```
 */
export class SizeClassFreeList {
  readonly #free = new Map<number, GPUBuffer[]>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes of the buffers kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A kept buffer of `sizeClass` bytes, no longer counted, or `undefined`. */
  take(sizeClass: number): GPUBuffer | undefined {
    const buffer = this.#free.get(sizeClass)?.pop();
    if (buffer) this.#bytes -= sizeClass;
    return buffer;
  }

  /** Whether `bytes` more (and `reservedBytes` promised elsewhere) stay within the budget. */
  hasRoom(bytes: number, reservedBytes = 0): boolean {
    return this.#bytes + reservedBytes + bytes <= this.maxBytes;
  }

  /** Keeps `buffer` (of a size class) when the budget has room for it, else destroys it. */
  give(buffer: GPUBuffer): void {
    if (!this.hasRoom(buffer.size)) {
      buffer.destroy();
      return;
    }
    const list = this.#free.get(buffer.size) ?? [];
    list.push(buffer);
    this.#free.set(buffer.size, list);
    this.#bytes += buffer.size;
  }

  /** Destroys every kept buffer. */
  release(): void {
    for (const list of this.#free.values()) for (const buffer of list) buffer.destroy();
    this.#free.clear();
    this.#bytes = 0;
  }
}
