/**
 * The cell-by-cell operators of the domain — join (max), meet (min), widening, narrowing,
 * inclusion and equality — over two half matrices, with a `Float64Array` path that is one plain
 * typed-array loop (no calls per cell: memory speed) beside the generic one on any {@link Bounds}.
 * @module
 */
import type { BoundStore, Bounds } from '../numbers/bounds';

const INF = Number.POSITIVE_INFINITY;

function f64(a: BoundStore<unknown>, b: BoundStore<unknown>): [Float64Array, Float64Array] | null {
  return a instanceof Float64Array && b instanceof Float64Array ? [a, b] : null;
}

/**
 * `max(a, b)` cell by cell (the join of two closed matrices).
 *
 * @example
 * ```ts
 * maxCells(f64Bounds, Float64Array.of(0, 3), Float64Array.of(1, 2)); // Float64Array [1, 3]
 * ```
 */
export function maxCells<T>(B: Bounds<T>, a: BoundStore<T>, b: BoundStore<T>): BoundStore<T> {
  const fast = f64(a, b);
  if (fast) {
    const [x, y] = fast;
    const m = new Float64Array(x.length);
    for (let p = 0; p < x.length; p++) {
      const u = x[p] as number;
      const v = y[p] as number;
      m[p] = u > v ? u : v;
    }
    return m as unknown as BoundStore<T>;
  }
  const m = B.alloc(a.length);
  for (let p = 0; p < a.length; p++) m[p] = B.max(a[p] as T, b[p] as T);
  return m;
}

/** `min(a, b)` cell by cell (the meet). */
export function minCells<T>(B: Bounds<T>, a: BoundStore<T>, b: BoundStore<T>): BoundStore<T> {
  const fast = f64(a, b);
  if (fast) {
    const [x, y] = fast;
    const m = new Float64Array(x.length);
    for (let p = 0; p < x.length; p++) {
      const u = x[p] as number;
      const v = y[p] as number;
      m[p] = u < v ? u : v;
    }
    return m as unknown as BoundStore<T>;
  }
  const m = B.alloc(a.length);
  for (let p = 0; p < a.length; p++) m[p] = B.min(a[p] as T, b[p] as T);
  return m;
}

/** Narrowing: the +∞ cells of `a` take `b`'s. */
export function narrowCells<T>(B: Bounds<T>, a: BoundStore<T>, b: BoundStore<T>): BoundStore<T> {
  const fast = f64(a, b);
  if (fast) {
    const [x, y] = fast;
    const m = new Float64Array(x.length);
    for (let p = 0; p < x.length; p++) {
      const u = x[p] as number;
      m[p] = u === INF ? (y[p] as number) : u;
    }
    return m as unknown as BoundStore<T>;
  }
  const m = B.alloc(a.length);
  for (let p = 0; p < a.length; p++) m[p] = B.isInf(a[p] as T) ? (b[p] as T) : (a[p] as T);
  return m;
}

/**
 * Widening: a cell of `b` above `a`'s goes to the least of `thresholds` (sorted) at or above it,
 * else +∞; `unaryTwice` compares a unary cell (`2·x`) with twice each threshold. `dim` is the
 * number of variables (for the unary cells).
 */
export function widenCells<T>(
  B: Bounds<T>,
  a: BoundStore<T>,
  b: BoundStore<T>,
  dim: number,
  thresholds: readonly T[],
  unaryTwice: boolean,
): BoundStore<T> {
  const fast = f64(a, b);
  if (fast && thresholds.length === 0) {
    const [x, y] = fast;
    const m = new Float64Array(x.length);
    for (let p = 0; p < x.length; p++) {
      const u = x[p] as number;
      m[p] = (y[p] as number) <= u ? u : INF;
    }
    return m as unknown as BoundStore<T>;
  }
  const m = B.alloc(a.length);
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

/** Whether `a ≤ b` in every cell (inclusion when `a` is closed). */
export function cellsLe<T>(B: Bounds<T>, a: BoundStore<T>, b: BoundStore<T>): boolean {
  const fast = f64(a, b);
  if (fast) {
    const [x, y] = fast;
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
    for (let p = 0; p < x.length; p++) if (x[p] !== y[p]) return false;
    return true;
  }
  for (let p = 0; p < a.length; p++) if (!B.eq(a[p] as T, b[p] as T)) return false;
  return true;
}
