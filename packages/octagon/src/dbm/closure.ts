import type { BoundStore, Bounds } from '../numbers/bounds';
import { addUp, halfUp } from '../numbers/rational';
import { shortestPathsBlocked } from './closure-blocked';
import type { ClosureThreads } from './closure-threads';
import { closeByBlocks } from './decompose';
import { matPos, rowStart } from './layout';
import { createClosureSweep } from './wasm/simd';

/**
 * Which variables are integers, for the tightening of the closure: `true` (all: tight closure),
 * `false` (none: strong closure), or one flag per variable (mixed octagons: the unary cells of
 * the integer variables are tightened — sound, and the strong closure on the real ones).
 */
export type Tightness = boolean | ArrayLike<number>;

/** The per-variable integer flags of a {@link Tightness}. */
function integerFlags(tight: Tightness, n: number): Uint8Array {
  if (typeof tight !== 'boolean') return Uint8Array.from({ length: n }, (_, v) => (tight[v] ? 1 : 0));
  return new Uint8Array(n).fill(tight ? 1 : 0);
}

/**
 * Strong closure (reals) or tight closure (integers) of a half matrix in place, on any
 * {@link Bounds}: Miné's Floyd–Warshall with the two nodes of a variable as one pivot
 * (paths through `k`, `k̄`, `k→k̄` and `k̄→k`), then one strengthening step
 * `m[i][j] ← min(m[i][j], (m[i][ī] + m[j̄][j]) / 2)` (Bagnara, Hill & Zaffanella 2008 show one
 * final step suffices); for integers the unary cells are first tightened to even values
 * (`2⌊m[i][ī]/2⌋`), which is their tight closure. Returns false when the DBM is empty (a negative
 * cycle, found on the diagonal after each pivot, or `m[i][ī] + m[ī][i] < 0` after tightening).
 *
 * @example
 * ```ts
 * const m = exactBounds.alloc(halfSize(2)); // top over 2 variables, then add constraints…
 * const nonEmpty = closeGeneric(m, 2, exactBounds, false);
 * ```
 */
export function closeGeneric<T>(m: BoundStore<T>, n: number, B: Bounds<T>, tight: Tightness): boolean {
  const N = 2 * n;
  const a = new Array<T>(N);
  const b = new Array<T>(N);
  for (let k = 0; k < n; k++) {
    const p = 2 * k;
    const p1 = p + 1;
    const mkk1 = m[matPos(p, p1)] as T;
    const mk1k = m[matPos(p1, p)] as T;
    for (let i = 0; i < N; i++) {
      let ai = m[matPos(i, p)] as T;
      let bi = m[matPos(i, p1)] as T;
      let t = B.add(bi, mk1k);
      if (B.lt(t, ai)) ai = t;
      t = B.add(ai, mkk1);
      if (B.lt(t, bi)) bi = t;
      a[i] = ai;
      b[i] = bi;
    }
    for (let i = 0; i < N; i++) {
      const ai = a[i] as T;
      const bi = b[i] as T;
      const base = rowStart(i);
      const jmax = i | 1;
      for (let j = 0; j <= jmax; j++) {
        let v = m[base + j] as T;
        let t = B.add(ai, b[j ^ 1] as T);
        if (B.lt(t, v)) v = t;
        t = B.add(bi, a[j ^ 1] as T);
        if (B.lt(t, v)) v = t;
        m[base + j] = v;
      }
    }
    for (let i = 0; i < N; i++) if (B.lt(m[rowStart(i) + i] as T, B.zero)) return false;
  }
  return strengthenGeneric(m, n, B, tight);
}

/**
 * The strengthening step (and, for integers, tightening) of a shortest-path-closed half matrix,
 * with the emptiness checks; sets the diagonal to 0. Returns false when empty.
 *
 * @example
 * ```ts
 * strengthenGeneric(m, n, exactBounds, false); // after a shortest-path closure of m
 * ```
 */
export function strengthenGeneric<T>(m: BoundStore<T>, n: number, B: Bounds<T>, tight: Tightness): boolean {
  const N = 2 * n;
  const ints = integerFlags(tight, n);
  const t = new Array<T>(N);
  for (let i = 0; i < N; i++) {
    let v = m[matPos(i, i ^ 1)] as T;
    if (ints[i >> 1] && !B.isInf(v)) {
      v = B.double(B.floor(B.half(v)));
      m[matPos(i, i ^ 1)] = v;
    }
    t[i] = v;
  }
  for (let i = 0; i < N; i += 2) {
    if (B.lt(B.add(t[i] as T, t[i + 1] as T), B.zero)) return false;
  }
  for (let i = 0; i < N; i++) {
    const ti = t[i] as T;
    if (B.isInf(ti)) continue;
    const base = rowStart(i);
    const jmax = i | 1;
    for (let j = 0; j <= jmax; j++) {
      const s = B.half(B.add(ti, t[j ^ 1] as T));
      if (B.lt(s, m[base + j] as T)) m[base + j] = s;
    }
  }
  for (let i = 0; i < N; i++) {
    const d = rowStart(i) + i;
    if (B.lt(m[d] as T, B.zero)) return false;
    m[d] = B.zero;
  }
  return true;
}

/**
 * Incremental closure in O(n²) (Miné 2006 §4.3.4, as in APRON and ELINA): `m` was strongly
 * (tightly) closed, then only cells on the rows and columns of variable `v` decreased (a guard or
 * an assignment touching `v`). The rows of `v`'s two nodes are recomputed as shortest paths that
 * leave `v` once through the unchanged closed part, the two nodes are combined, then every cell
 * takes the paths through them, and the matrix is strengthened again. Returns false when empty.
 *
 * @example
 * ```ts
 * m[matPos(1, 0)] = 4; // x0 ≤ 2 on a closed m
 * incrementalCloseGeneric(m, n, f64Bounds, 0, false);
 * ```
 */
export function incrementalCloseGeneric<T>(
  m: BoundStore<T>,
  n: number,
  B: Bounds<T>,
  v: number,
  tight: Tightness,
): boolean {
  const N = 2 * n;
  const p = 2 * v;
  const p1 = p + 1;
  const rows = [new Array<T>(N), new Array<T>(N)];
  const get = (i: number, j: number) => m[matPos(i, j)] as T;
  for (let r = 0; r < 2; r++) {
    const row = rows[r] as T[];
    const node = p + r;
    for (let j = 0; j < N; j++) row[j] = get(node, j);
    for (let x = 0; x < N; x++) {
      if (x === p || x === p1) continue;
      const mx = get(node, x);
      if (B.isInf(mx)) continue;
      for (let j = 0; j < N; j++) {
        if (j === p || j === p1) continue;
        const c = B.add(mx, get(x, j));
        if (B.lt(c, row[j] as T)) row[j] = c;
      }
    }
  }
  // Paths between the two nodes (and back to themselves) through the rest.
  for (let r = 0; r < 2; r++) {
    const row = rows[r] as T[];
    for (const target of [p, p1]) {
      let best = row[target] as T;
      for (let y = 0; y < N; y++) {
        if (y === p || y === p1) continue;
        const c = B.add(row[y] as T, get(y, target));
        if (B.lt(c, best)) best = c;
      }
      row[target] = best;
    }
  }
  const rp = rows[0] as T[];
  const rp1 = rows[1] as T[];
  const toP1 = rp[p1] as T;
  const toP = rp1[p] as T;
  for (let j = 0; j < N; j++) {
    const c = B.add(toP1, rp1[j] as T);
    if (B.lt(c, rp[j] as T)) rp[j] = c;
  }
  for (let j = 0; j < N; j++) {
    const c = B.add(toP, rp[j] as T);
    if (B.lt(c, rp1[j] as T)) rp1[j] = c;
  }
  if (B.lt(rp[p] as T, B.zero) || B.lt(rp1[p1] as T, B.zero)) return false;
  for (let j = 0; j < N; j++) {
    m[matPos(p, j)] = rp[j] as T;
    m[matPos(p1, j)] = rp1[j] as T;
  }
  // Every cell through the two nodes: m[i][p] = m[p1][ī], m[i][p1] = m[p][ī].
  for (let i = 0; i < N; i++) {
    const ip = rp1[i ^ 1] as T;
    const ip1 = rp[i ^ 1] as T;
    const base = rowStart(i);
    const jmax = i | 1;
    for (let j = 0; j <= jmax; j++) {
      let val = m[base + j] as T;
      let c = B.add(ip, rp[j] as T);
      if (B.lt(c, val)) val = c;
      c = B.add(ip1, rp1[j] as T);
      if (B.lt(c, val)) val = c;
      m[base + j] = val;
    }
  }
  for (let i = 0; i < N; i++) if (B.lt(m[rowStart(i) + i] as T, B.zero)) return false;
  return strengthenGeneric(m, n, B, tight);
}

/**
 * Whether every finite value of `m` lies on the grid of multiples of 2^-8 and is small enough
 * (|v|·2^8·(8n + 8) < 2^53) that every sum and half the closure forms stays exact in doubles: then
 * plain `+` is exact and {@link closeF64} skips the outward-rounding corrections.
 *
 * @example
 * ```ts
 * isExactGrid(Float64Array.of(0, 1.5, Infinity, 0), 1); // true
 * ```
 */
export function isExactGrid(m: Float64Array, n: number): boolean {
  const limit = 2 ** 53 / (256 * (8 * n + 8));
  for (let i = 0; i < m.length; i++) {
    const v = m[i] as number;
    if (v === Number.POSITIVE_INFINITY) continue;
    if (!(Math.abs(v) < limit) || !Number.isInteger(v * 256)) return false;
  }
  return true;
}

/** Below this many variables the matrix fits the cache and the pivot-by-pivot sweep is faster. */
const BLOCKED_FROM = 128;

/** Below this many variables a domain's closure stays on the calling thread (the meetings cost more). */
const THREADS_FROM = 256;

/** Which path {@link closeF64} takes on the exact grid (both give the same matrix; for tests). */
export interface CloseF64Options {
  /** WebAssembly SIMD (default: where available, from 16 variables); `false`: the JavaScript loop. */
  readonly simd?: boolean;
  /** The cache-blocked closure ({@link shortestPathsBlocked}; default from 128 variables). */
  readonly blocked?: boolean;
  /** Worker threads for the blocked closure ({@link createClosureThreads}); none by default. */
  readonly threads?: ClosureThreads | undefined;
}

/**
 * Strong (or tight) closure of an f64 half matrix in place: the same algorithm as
 * {@link closeGeneric}, specialised for `Float64Array`. When every value is on the exact grid
 * ({@link isExactGrid}) the sums are exact and plain `+` is used — the usual case, and the one
 * the speed comparisons time; from 128 variables its shortest paths are then cache-blocked
 * ({@link shortestPathsBlocked}); otherwise a candidate that would lower a cell is recomputed rounded
 * up ({@link addUp}) before it is stored, so no stored bound is ever below the exact one.
 *
 * Returns false when the octagon is empty.
 *
 * @example
 * ```ts
 * const m = createOctagonDomain({ engine: 'f64' }).fromConstraints(2, cs).rawMatrix() as Float64Array;
 * const nonEmpty = closeF64(Float64Array.from(m), 2, true); // tight closure in place
 * ```
 */
export function closeF64(
  m: Float64Array,
  n: number,
  tight: Tightness,
  options: CloseF64Options = {},
): boolean {
  const N = 2 * n;
  const exact = isExactGrid(m, n);
  if (exact && n >= 16 && options.simd !== false) {
    if (options.blocked ?? n >= BLOCKED_FROM) {
      const paths = shortestPathsBlocked(m, n, options.threads);
      if (paths !== undefined) return paths && strengthenF64(m, n, tight, true);
    }
    const done = closeF64Simd(m, n, tight);
    if (done !== undefined) return done;
  }
  const a = new Float64Array(N);
  const b = new Float64Array(N);
  const as = new Float64Array(N + (N & 1));
  const bs = new Float64Array(N + (N & 1));
  for (let k = 0; k < n; k++) {
    const p = 2 * k;
    const p1 = p + 1;
    const mkk1 = m[matPos(p, p1)] as number;
    const mk1k = m[matPos(p1, p)] as number;
    for (let i = 0; i < N; i++) {
      let ai = m[matPos(i, p)] as number;
      let bi = m[matPos(i, p1)] as number;
      let t = bi + mk1k;
      if (t < ai) ai = exact ? t : Math.min(ai, addUp(bi, mk1k));
      t = ai + mkk1;
      if (t < bi) bi = exact ? t : Math.min(bi, addUp(ai, mkk1));
      a[i] = ai;
      b[i] = bi;
    }
    for (let j = 0; j < N; j++) {
      as[j] = a[j ^ 1] as number;
      bs[j] = b[j ^ 1] as number;
    }
    if (exact) {
      for (let i = 0; i < N; i++) {
        const ai = a[i] as number;
        const bi = b[i] as number;
        const base = ((i + 1) * (i + 1)) >> 1;
        const jmax = i | 1;
        if (ai === Number.POSITIVE_INFINITY) {
          if (bi === Number.POSITIVE_INFINITY) continue;
          for (let j = 0; j <= jmax; j++) {
            const t = bi + (as[j] as number);
            if (t < (m[base + j] as number)) m[base + j] = t;
          }
        } else if (bi === Number.POSITIVE_INFINITY) {
          for (let j = 0; j <= jmax; j++) {
            const t = ai + (bs[j] as number);
            if (t < (m[base + j] as number)) m[base + j] = t;
          }
        } else {
          for (let j = 0; j <= jmax; j++) {
            let v = m[base + j] as number;
            const t1 = ai + (bs[j] as number);
            const t2 = bi + (as[j] as number);
            if (t1 < v) v = t1;
            if (t2 < v) v = t2;
            m[base + j] = v;
          }
        }
      }
    } else {
      for (let i = 0; i < N; i++) {
        const ai = a[i] as number;
        const bi = b[i] as number;
        const base = ((i + 1) * (i + 1)) >> 1;
        const jmax = i | 1;
        for (let j = 0; j <= jmax; j++) {
          let v = m[base + j] as number;
          if (ai + (bs[j] as number) < v) v = Math.min(v, addUp(ai, bs[j] as number));
          if (bi + (as[j] as number) < v) v = Math.min(v, addUp(bi, as[j] as number));
          m[base + j] = v;
        }
      }
    }
    for (let i = 0; i < N; i++) if ((m[(((i + 1) * (i + 1)) >> 1) + i] as number) < 0) return false;
  }
  return strengthenF64(m, n, tight, exact);
}

/**
 * The exact-grid path of {@link closeF64} with the O(n²) sweep of each pivot in WebAssembly SIMD
 * (two cells per f64x2 instruction) on a copy of the matrix in a fresh WebAssembly memory; the
 * O(n) pivot preparation and the strengthening stay in JavaScript. Undefined when WebAssembly SIMD
 * is unavailable.
 */
function closeF64Simd(m: Float64Array, n: number, tight: Tightness): boolean | undefined {
  const N = 2 * n;
  const cells = m.length;
  const kernel = createClosureSweep(8 * (cells + 4 * N));
  if (!kernel) return undefined;
  const view = new Float64Array(kernel.memory.buffer, 0, cells + 4 * N);
  view.set(m);
  const mm = view.subarray(0, cells);
  const a = view.subarray(cells, cells + N);
  const b = view.subarray(cells + N, cells + 2 * N);
  const as = view.subarray(cells + 2 * N, cells + 3 * N);
  const bs = view.subarray(cells + 3 * N, cells + 4 * N);
  const [ao, bo, aso, bso] = [cells, cells + N, cells + 2 * N, cells + 3 * N].map((x) => 8 * x) as [
    number,
    number,
    number,
    number,
  ];
  for (let k = 0; k < n; k++) {
    const p = 2 * k;
    const p1 = p + 1;
    const mkk1 = mm[matPos(p, p1)] as number;
    const mk1k = mm[matPos(p1, p)] as number;
    for (let i = 0; i < N; i++) {
      let ai = mm[matPos(i, p)] as number;
      let bi = mm[matPos(i, p1)] as number;
      const t = bi + mk1k;
      if (t < ai) ai = t;
      const u = ai + mkk1;
      if (u < bi) bi = u;
      a[i] = ai;
      b[i] = bi;
    }
    for (let j = 0; j < N; j++) {
      as[j] = a[j ^ 1] as number;
      bs[j] = b[j ^ 1] as number;
    }
    kernel.sweep(0, N, ao, bo, aso, bso);
    for (let i = 0; i < N; i++) {
      if ((mm[(((i + 1) * (i + 1)) >> 1) + i] as number) < 0) {
        m.set(mm);
        return false;
      }
    }
  }
  m.set(mm);
  return strengthenF64(m, n, tight, true);
}

/**
 * {@link strengthenGeneric} on f64 (outward rounding unless `exact`).
 *
 * @example
 * ```ts
 * strengthenF64(m, n, false); // m already shortest-path closed
 * ```
 */
export function strengthenF64(m: Float64Array, n: number, tight: Tightness, exact = false): boolean {
  const N = 2 * n;
  const ints = integerFlags(tight, n);
  const t = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const pos = matPos(i, i ^ 1);
    let v = m[pos] as number;
    if (ints[i >> 1] && v !== Number.POSITIVE_INFINITY) {
      v = 2 * Math.floor(v / 2);
      m[pos] = v;
    }
    t[i] = v;
  }
  for (let i = 0; i < N; i += 2) if (addUp(t[i] as number, t[i + 1] as number) < 0) return false;
  for (let i = 0; i < N; i++) {
    const ti = t[i] as number;
    if (ti === Number.POSITIVE_INFINITY) continue;
    const base = ((i + 1) * (i + 1)) >> 1;
    const jmax = i | 1;
    for (let j = 0; j <= jmax; j++) {
      const tj = t[j ^ 1] as number;
      if (tj === Number.POSITIVE_INFINITY) continue;
      let s = exact ? (ti + tj) / 2 : halfUp(addUp(ti, tj));
      // ti, tj even: exact; when rounded up, ⌊·⌋ stays above the exact integer (two integer variables)
      if (ints[i >> 1] && ints[j >> 1]) s = Math.floor(s);
      if (s < (m[base + j] as number)) m[base + j] = s;
    }
  }
  for (let i = 0; i < N; i++) {
    const d = (((i + 1) * (i + 1)) >> 1) + i;
    if ((m[d] as number) < 0) return false;
    m[d] = 0;
  }
  return true;
}

/**
 * The closure the octagons use, chosen automatically: block by block when the variables split
 * into independent blocks none of which holds more than half of them ({@link closeByBlocks}; the
 * same matrix as the dense closure), else dense ({@link closeF64} on f64 matrices,
 * {@link closeGeneric} otherwise). In place; returns false when empty.
 *
 * @example
 * ```ts
 * const nonEmpty = closeMatrix(m, n, f64Bounds, true);
 * ```
 */
export function closeMatrix<T>(m: BoundStore<T>, n: number, B: Bounds<T>, tight: Tightness): boolean {
  const dense = (s: BoundStore<T>, k: number, t: Tightness) => closeDense(s, k, B, t);
  if (n >= 16) {
    const strengthen = (s: BoundStore<T>) =>
      s instanceof Float64Array
        ? strengthenF64(s, n, tight, isExactGrid(s, n))
        : strengthenGeneric(s, n, B, tight);
    const byBlocks = closeByBlocks(m, n, B, tight, dense, strengthen);
    if (byBlocks !== undefined) return byBlocks;
  }
  return dense(m, n, tight);
}

/**
 * The dense closure of any engine, in place ({@link closeF64} on f64 matrices, with the bounds'
 * worker threads from 256 variables; {@link closeGeneric} otherwise). Returns false when empty.
 *
 * @example
 * ```ts
 * const nonEmpty = closeDense(m, n, exactBounds, false);
 * ```
 */
export function closeDense<T>(m: BoundStore<T>, n: number, B: Bounds<T>, tight: Tightness): boolean {
  return m instanceof Float64Array
    ? closeF64(m, n, tight, { threads: n >= THREADS_FROM ? B.threads : undefined })
    : closeGeneric(m, n, B, tight);
}
