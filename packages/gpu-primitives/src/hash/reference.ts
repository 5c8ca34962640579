/** Options of record hashing. */
export interface HashOptions {
  /** Seed of the hash (default 0). */
  readonly seed?: number;
  /**
   * Keep only the low `hashBits` bits (default 32). Fewer bits force collisions: tests use this to
   * check that equal hashes never merge unequal records.
   */
  readonly hashBits?: number;
}

/** Records as CSR: record `i` is `words[offsets[i] .. offsets[i + 1])`. */
export interface HostRecords {
  readonly offsets: Uint32Array;
  readonly words: Uint32Array;
}

/** MurmurHash3 (x86, 32-bit) mixing of one word into the running hash, u32 arithmetic. */
export function hashMix(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h1 = (h ^ k) >>> 0;
  h1 = (h1 << 13) | (h1 >>> 19);
  return (Math.imul(h1, 5) + 0xe6546b64) >>> 0;
}

/** MurmurHash3's finaliser, mixing in the record's length in bytes. */
export function hashFinish(h: number, length: number): number {
  let h1 = (h ^ length) >>> 0;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}

/** Mask keeping the low `bits` bits. */
export function hashMask(bits = 32): number {
  if (!Number.isInteger(bits) || bits < 0 || bits > 32)
    throw new RangeError(`hashBits ${bits} is not in 0..32`);
  return bits === 32 ? 0xffff_ffff : (2 ** bits - 1) >>> 0;
}

/** Checks that `offsets` is a non-decreasing CSR index into `wordCount` words. */
export function assertRecords(offsets: Uint32Array, wordCount: number): void {
  if (offsets.length === 0) throw new RangeError('records need offsets of length count + 1 (got 0)');
  for (let i = 0; i + 1 < offsets.length; i++) {
    if ((offsets[i] as number) > (offsets[i + 1] as number)) {
      throw new RangeError(`record ${i}: offsets decrease (${offsets[i]} > ${offsets[i + 1]})`);
    }
  }
  const end = offsets[offsets.length - 1] as number;
  if (end > wordCount) throw new RangeError(`records end at word ${end}, past the ${wordCount} words given`);
}

/**
 * CPU reference of the record hash: MurmurHash3-style over the record's words, length mixed in,
 * masked to `hashBits`. Bit-for-bit what the GPU computes.
 *
 * @example
 * ```ts
 * hashRecordsReference({ offsets: Uint32Array.of(0, 2, 2), words: Uint32Array.of(7, 9) }); // 2 hashes
 * ```
 */
export function hashRecordsReference(records: HostRecords, options: HashOptions = {}): Uint32Array {
  const { offsets, words } = records;
  assertRecords(offsets, words.length);
  const mask = hashMask(options.hashBits);
  const seed = (options.seed ?? 0) >>> 0;
  const out = new Uint32Array(Math.max(0, offsets.length - 1));
  for (let i = 0; i < out.length; i++) {
    const start = offsets[i] as number;
    const end = offsets[i + 1] as number;
    let h = seed;
    for (let w = start; w < end; w++) h = hashMix(h, words[w] as number);
    out[i] = (hashFinish(h, (end - start) * 4) & mask) >>> 0;
  }
  return out;
}
