/**
 * Pools of f64 half matrices for the into-destination operators (`join(o, { into })`, …): the
 * matrices of a pool lie in one fixed WebAssembly memory, where the SIMD kernels of join, meet,
 * widening, narrowing, inclusion and equality read and write them in place — no allocation, no
 * copy: one pass over the cells at memory speed.
 * @module
 */
import { OctagonPoolError } from '../errors';
import type { ClosureThreads } from './closure-threads';
import { halfSize } from './layout';
import { createElementwiseKernel, registerInPlace } from './wasm/elementwise';

/** Options of {@link createMatrixPool}. */
export interface MatrixPoolOptions {
  /** How many matrices the pool holds (default 8). */
  readonly capacity?: number;
  /**
   * Worker threads ({@link createClosureThreads}): the pool's memory is then shared with them, and
   * join, meet, widening and narrowing into its matrices split the cells among the threads from
   * 2¹⁷ cells (about 256 variables). The caller owns the threads; once they are destroyed the
   * operators run on the calling thread.
   */
  readonly threads?: ClosureThreads | undefined;
}

/** Half matrices of one size to reuse as destinations of the f64 operators. */
export interface MatrixPool {
  /** Variables of each matrix (a matrix has `2·dim·(dim+1)` cells). */
  readonly dim: number;
  readonly capacity: number;
  /** Matrices not in use. */
  readonly available: number;
  /** Whether the matrices lie in a WebAssembly memory the SIMD kernels read in place. */
  readonly simd: boolean;
  /** Threads its operators split large matrices among (1 without `threads`). */
  readonly threads: number;
  /** A matrix of the pool (its cells are whatever it held); throws {@link OctagonPoolError} when all are in use. */
  acquire(): Float64Array;
  /** Gives a matrix back; it must not be read again (nor any octagon built on it). */
  release(m: Float64Array): void;
}

/**
 * A pool of `capacity` half matrices over `dim` variables, in one WebAssembly memory when SIMD is
 * available (else plain typed arrays: the operators then run their JavaScript loops). The pool is
 * freed with its last reference.
 *
 * @example
 * ```ts
 * const pool = createMatrixPool(512); // or createMatrixPool(512, { threads: createClosureThreads({ threads: 4 }) })
 * let head = D.top(512);
 * const next = head.join(body, { into: pool.acquire() }); // max of the two closed matrices, in place
 * // … once `head` is dead: pool.release(its matrix)
 * ```
 */
export function createMatrixPool(dim: number, options: MatrixPoolOptions = {}): MatrixPool {
  const capacity = options.capacity ?? 8;
  if (!Number.isInteger(dim) || dim < 0 || !Number.isInteger(capacity) || capacity < 1) {
    throw new OctagonPoolError(`a pool of ${capacity} matrices over ${dim} variables`);
  }
  const cells = halfSize(dim);
  const slotBytes = Math.ceil((8 * cells) / 16) * 16;
  const shared = cells > 0 ? options.threads?.elementwiseKernel(slotBytes * capacity) : undefined;
  if (shared) registerInPlace(shared);
  const kernel = shared ?? (cells > 0 ? createElementwiseKernel(slotBytes * capacity, true) : undefined);
  const slots = Array.from({ length: capacity }, (_, k) =>
    kernel ? new Float64Array(kernel.memory.buffer, k * slotBytes, cells) : new Float64Array(cells),
  );
  const inUse = new Uint8Array(capacity);
  let available = capacity;
  return {
    dim,
    capacity,
    get available() {
      return available;
    },
    simd: kernel !== undefined,
    threads: shared ? (options.threads?.threads ?? 1) : 1,
    acquire() {
      const k = inUse.indexOf(0);
      if (k < 0) throw new OctagonPoolError(`all ${capacity} matrices of the pool are in use`);
      inUse[k] = 1;
      available--;
      return slots[k] as Float64Array;
    },
    release(m) {
      const k = slots.indexOf(m as (typeof slots)[number]);
      if (k < 0) throw new OctagonPoolError('release of a matrix this pool does not hold');
      if (inUse[k] === 0) throw new OctagonPoolError('release of a matrix already given back');
      inUse[k] = 0;
      available++;
    },
  };
}
