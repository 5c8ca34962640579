/**
 * The CPU sparse bit vector alone: `@gpumorph/sparse-bitvector/cpu` loads no GPU code (its module
 * graph holds neither `@gpumorph/gpu-primitives` nor the WebGPU parts of
 * `@gpumorph/gpu-allocator`: `test/cpu-entry.test.ts` checks the sources, the repository's
 * `test/cpu-only.test.ts` the build in a fresh Node process), for CPU engines and users without a GPU.
 *
 * @example
 * ```ts
 * import { SparseBitVectorPool } from '@gpumorph/sparse-bitvector/cpu';
 * const pool = new SparseBitVectorPool();
 * const a = pool.fromArray([1, 5, 960]);
 * a.has(960); // true
 * ```
 * @module
 */
export {
  BASE_WORD,
  BITS_WORDS,
  ELEMENT_WORDS,
  MAX_MEMBER,
  MEMBERS_PER_ELEMENT,
  NEXT_WORD,
  NO_ELEMENT,
} from './layout';
export { type ShiftLimit, SparseBitVector, SparseBitVectorPool } from './sparse-bitvector';
