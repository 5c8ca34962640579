/**
 * The cell-by-cell operators of the domain — join (max), meet (min), widening, narrowing,
 * inclusion and equality — over two half matrices. On `Float64Array`s they run the WebAssembly
 * SIMD kernels (`wasm/elementwise.ts`) in place when the matrices lie in one matrix pool, else
 * one plain typed-array loop; the generic path works on any {@link Bounds}. Each writes into `into` when given (it may be `a` or `b`), else
 * into a fresh store.
 * @module
 */
import { OctagonDimensionError } from '../errors';
import { type BoundStore, type Bounds, f64Bounds } from '../numbers/bounds';
import { type CellOp, kernelOf, simdBinary } from './wasm/elementwise';

/**
 * The destination option of join, meet, widening and narrowing: the result's matrix is written
 * into `into` (a half matrix of `2·dim·(dim+1)` cells — for the f64 engine a `Float64Array`, at
 * memory speed when it and both arguments' matrices come from one matrix pool, `createMatrixPool`) instead of
 * a fresh store. The result then owns `into` (`result.rawMatrix() === into`) unless an argument is
 * empty; `into` may be an argument's own matrix when that argument is never used again.
 */
export interface IntoOptions<T> {
  readonly into?: BoundStore<T> | undefined;
}

const INF = Number.POSITIVE_INFINITY;

function f64(a: BoundStore<unknown>, b: BoundStore<unknown>): [Float64Array, Float64Array] | null {
  return a instanceof Float64Array && b instanceof Float64Array ? [a, b] : null;
}

/**
 * The destination store of a cell-by-cell operator: `into` (checked: `len` cells of the engine's
 * kind) or a fresh store of +∞.
 *
 * @example
 * ```ts
 * target(f64Bounds, halfSize(n), pool.acquire()); // the pool's matrix, checked
 * ```
 */
export function target<T>(B: Bounds<T>, len: number, into: BoundStore<T> | undefined): BoundStore<T> {
  if (into === undefined) return B.alloc(len);
  if (into.length !== len || (B.engine === 'f64') !== into instanceof Float64Array) {
    throw new OctagonDimensionError(
      `destination of ${into.length} cells for a ${B.engine} matrix of ${len} cells`,
    );
  }
  return into;
}

/** The f64 fast path of `op`: the SIMD kernel on pool matrices, else `loop(dst, x, y)`. */
function binaryF64(
  op: CellOp,
  x: Float64Array,
  y: Float64Array,
  into: BoundStore<unknown> | undefined,
  loop: (d: Float64Array, x: Float64Array, y: Float64Array) => void,
): Float64Array {
  const d =
    into === undefined
      ? new Float64Array(x.length)
      : (target(f64Bounds, x.length, into as BoundStore<number>) as Float64Array);
  if (!simdBinary(op, d, x, y)) loop(d, x, y);
  return d;
}

/**
 * `max(a, b)` cell by cell (the join of two closed matrices), into `into` when given.
 *
 * @example
 * ```ts
 * maxCells(f64Bounds, Float64Array.of(0, 3), Float64Array.of(1, 2)); // Float64Array [1, 3]
 * ```
 */
export function maxCells<T>(
  B: Bounds<T>,
  a: BoundStore<T>,
  b: BoundStore<T>,
  into?: BoundStore<T>,
): BoundStore<T> {
  const fast = f64(a, b);
  if (fast) {
    return binaryF64('max', fast[0], fast[1], into, (m, x, y) => {
      for (let p = 0; p < x.length; p++) {
        const u = x[p] as number;
        const v = y[p] as number;
        m[p] = u > v ? u : v;
      }
    }) as unknown as BoundStore<T>;
  }
  const m = target(B, a.length, into);
  for (let p = 0; p < a.length; p++) m[p] = B.max(a[p] as T, b[p] as T);
  return m;
}

/** `min(a, b)` cell by cell (the meet), into `into` when given. */
export function minCells<T>(
  B: Bounds<T>,
  a: BoundStore<T>,
  b: BoundStore<T>,
  into?: BoundStore<T>,
): BoundStore<T> {
  const fast = f64(a, b);
  if (fast) {
    return binaryF64('min', fast[0], fast[1], into, (m, x, y) => {
      for (let p = 0; p < x.length; p++) {
        const u = x[p] as number;
        const v = y[p] as number;
        m[p] = u < v ? u : v;
      }
    }) as unknown as BoundStore<T>;
  }
  const m = target(B, a.length, into);
  for (let p = 0; p < a.length; p++) m[p] = B.min(a[p] as T, b[p] as T);
  return m;
}

/** Narrowing: the +∞ cells of `a` take `b`'s (into `into` when given). */
export function narrowCells<T>(
  B: Bounds<T>,
  a: BoundStore<T>,
  b: BoundStore<T>,
  into?: BoundStore<T>,
): BoundStore<T> {
  const fast = f64(a, b);
  if (fast) {
    return binaryF64('narrow', fast[0], fast[1], into, (m, x, y) => {
      for (let p = 0; p < x.length; p++) {
        const u = x[p] as number;
        m[p] = u === INF ? (y[p] as number) : u;
      }
    }) as unknown as BoundStore<T>;
  }
  const m = target(B, a.length, into);
  for (let p = 0; p < a.length; p++) m[p] = B.isInf(a[p] as T) ? (b[p] as T) : (a[p] as T);
  return m;
}

/**
 * Widening: a cell of `b` above `a`'s goes to the least of `thresholds` (sorted) at or above it,
 * else +∞; `unaryTwice` compares a unary cell (`2·x`) with twice each threshold. `dim` is the
 * number of variables (for the unary cells). Into `into` when given.
 */
export function widenCells<T>(
  B: Bounds<T>,
  a: BoundStore<T>,
  b: BoundStore<T>,
  dim: number,
  thresholds: readonly T[],
  unaryTwice: boolean,
  into?: BoundStore<T>,
): BoundStore<T> {
  const fast = f64(a, b);
  if (fast && thresholds.length === 0) {
    return binaryF64('widen', fast[0], fast[1], into, (m, x, y) => {
      for (let p = 0; p < x.length; p++) {
        const u = x[p] as number;
        m[p] = (y[p] as number) <= u ? u : INF;
      }
    }) as unknown as BoundStore<T>;
  }
  const m = target(B, a.length, into);
  const doubled = thresholds.map((t) => B.double(t));
  let p = 0;
  for (let i = 0; i < 2 * dim; i++) {
    const jmax = i | 1;
    for (let j = 0; j <= jmax; j++, p++) {
      const av = a[p] as T;
      const bv = b[p] as T;
      if (B.le(bv, av)) {
        m[p] = av;
        continue;
      }
      const ts = unaryTwice && j === (i ^ 1) ? doubled : thresholds;
      let w = B.inf;
      for (const t of ts) {
        if (B.le(bv, t)) {
          w = t;
          break;
        }
      }
      m[p] = w;
    }
  }
  return m;
}

/** The kernel reading both matrices in place (the same pool), if any. */
function pooledPair(x: Float64Array, y: Float64Array) {
  const k = kernelOf(x);
  return k !== undefined && kernelOf(y) === k && x.length % 2 === 0 ? k : undefined;
}

/** Whether `a ≤ b` in every cell (inclusion when `a` is closed). */
export function cellsLe<T>(B: Bounds<T>, a: BoundStore<T>, b: BoundStore<T>): boolean {
  const fast = f64(a, b);
  if (fast) {
    const [x, y] = fast;
    const k = pooledPair(x, y);
    if (k) return k.le(x.byteOffset, y.byteOffset, x.length) === 1;
    for (let p = 0; p < x.length; p++) if ((x[p] as number) > (y[p] as number)) return false;
    return true;
  }
  for (let p = 0; p < a.length; p++) if (!B.le(a[p] as T, b[p] as T)) return false;
  return true;
}

/** Whether `a = b` in every cell. */
export function cellsEq<T>(B: Bounds<T>, a: BoundStore<T>, b: BoundStore<T>): boolean {
  const fast = f64(a, b);
  if (fast) {
    const [x, y] = fast;
    const k = pooledPair(x, y);
    if (k) return k.eq(x.byteOffset, y.byteOffset, x.length) === 1;
    for (let p = 0; p < x.length; p++) if (x[p] !== y[p]) return false;
    return true;
  }
  for (let p = 0; p < a.length; p++) if (!B.eq(a[p] as T, b[p] as T)) return false;
  return true;
}
