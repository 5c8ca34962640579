/**
 * MurmurHash3 (x86, 32-bit) over u32 words, for {@link SparseBitVector.hash}.
 *
 * Duplicated on purpose from `@gpumorph/gpu-primitives` (`hashMix` / `hashFinish`, whose WGSL twin
 * the GPU sets use): importing it from there would put the GPU packages in the module graph of
 * every CPU-only user of the sparse bit vector. The two must stay equal — the CPU and GPU hashes
 * of one set are compared — and `test/cpu-entry.test.ts` checks that they are.
 * @module
 */

/** Mixes one word into the running hash (u32 arithmetic). */
export function hashMix(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h1 = (h ^ k) >>> 0;
  h1 = (h1 << 13) | (h1 >>> 19);
  return (Math.imul(h1, 5) + 0xe6546b64) >>> 0;
}

/** MurmurHash3's finaliser, mixing in the hashed length in bytes. */
export function hashFinish(h: number, length: number): number {
  let h1 = (h ^ length) >>> 0;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}
