/**
 * Matrix computations of the octagon's operators that need no octagon: the shift of a variable's
 * rows and columns (`x := ±x + [lo, hi]`), the interval bounds of linear forms (Miné 2006
 * §4.4.4), the cells kept by a projection or moved by a permutation, the constraints of a matrix.
 * @module
 */
import type { BoundStore, Bounds } from '../numbers/bounds';
import { Rational } from '../numbers/rational';
import type { OctConstraint, Sign } from './constraints';
import { halfSize, matPos } from './layout';

/**
 * A copy of `src` with `x := s·x + [lo, hi]` applied (`null`: an unbounded end): only the rows and
 * columns of x's two nodes change — cell `(i, j)` (`V_j − V_i`) grows by the most `V_j` can grow
 * minus the least `V_i` can (the nodes of x swap first when `s = −1`). +∞ cells stay +∞.
 *
 * @example
 * ```ts
 * shiftCells(f64Bounds, 2, m, 0, 1, Rational.ZERO, Rational.ONE); // x0 := x0 + [0, 1]
 * ```
 */
export function shiftCells<T>(
  B: Bounds<T>,
  dim: number,
  src: BoundStore<T>,
  x: number,
  s: Sign,
  lo: Rational | null,
  hi: Rational | null,
): BoundStore<T> {
  const p = 2 * x;
  // grow[k] / least[k]: the most / least V'_k − V_{node(k)} for k = p, p+1 (null: unbounded)
  const grow = [hi, lo === null ? null : lo.neg()];
  const least = [lo, hi === null ? null : hi.neg()];
  const delta = new Map<string, T>();
  const deltaOf = (i: number, j: number): T | null => {
    const up = j === p || j === p + 1 ? grow[j - p] : Rational.ZERO;
    const down = i === p || i === p + 1 ? least[i - p] : Rational.ZERO;
    if (up === null || up === undefined || down === null || down === undefined) return B.inf;
    const d = up.sub(down);
    if (d.num === 0n) return null;
    const key = d.toString();
    let v = delta.get(key);
    if (v === undefined) {
      v = B.fromRational(d);
      delta.set(key, v);
    }
    return v;
  };
  const node = (k: number) => (s === -1 && k >> 1 === x ? k ^ 1 : k);
  const m = B.copy(src);
  const N = 2 * dim;
  const visit = (i: number, j: number) => {
    if (i === j) return;
    const v = src[matPos(node(i), node(j))] as T;
    const d = deltaOf(i, j);
    m[matPos(i, j)] = d === null || B.isInf(v) ? v : B.isInf(d) ? B.inf : B.add(v, d);
  };
  for (let k = 0; k < N; k++) {
    visit(p, k);
    visit(p + 1, k);
    visit(k, p);
    visit(k, p + 1);
  }
  return m;
}

/** Upper bounds of a linear form and of its negation (outward: never below the exact ones). */
export interface FormBounds<T> {
  readonly up: T;
  readonly down: T;
}

/**
 * Upper bounds of `x_v` and of `−x_v` from a closed matrix.
 *
 * @example
 * ```ts
 * varBounds(f64Bounds, 2, closed).hi[1]; // the upper bound of x1
 * ```
 */
export function varBounds<T>(B: Bounds<T>, dim: number, c: BoundStore<T>): { hi: T[]; negLo: T[] } {
  const hi: T[] = [];
  const negLo: T[] = [];
  for (let v = 0; v < dim; v++) {
    hi.push(B.half(c[matPos(2 * v + 1, 2 * v)] as T));
    negLo.push(B.half(c[matPos(2 * v, 2 * v + 1)] as T));
  }
  return { hi, negLo };
}

/**
 * Outward bounds of `e + s·x_y` (`y = −1`: of `e`) for `e = Σ terms + [clo, chi]` on the box `iv`.
 *
 * @example
 * ```ts
 * formBounds(B, [[0, Rational.ONE]], null, Rational.ZERO, varBounds(B, n, c), -1, 0).up; // up(x0)
 * ```
 */
export function formBounds<T>(
  B: Bounds<T>,
  terms: readonly [number, Rational][],
  clo: Rational | null,
  chi: Rational | null,
  iv: { hi: T[]; negLo: T[] },
  y: number,
  s: number,
): FormBounds<T> {
  let up = chi === null ? B.inf : B.fromRational(chi);
  let down = clo === null ? B.inf : B.fromRational(clo.neg());
  const coef = new Map(terms);
  if (y >= 0) coef.set(y, (coef.get(y) ?? Rational.ZERO).add(Rational.of(s)));
  for (const [v, a] of coef) {
    if (a.num === 0n) continue;
    const pos = a.num > 0n;
    const abs = pos ? a : a.neg();
    // up(a·x) = a·hi (a > 0) or |a|·(−lo); down = up(−a·x)
    if (!B.isInf(up)) up = B.add(up, B.mul((pos ? iv.hi[v] : iv.negLo[v]) as T, abs));
    if (!B.isInf(down)) down = B.add(down, B.mul((pos ? iv.negLo[v] : iv.hi[v]) as T, abs));
  }
  return { up, down };
}

/**
 * The half matrix over the variables `keep` (in that order) of the closed matrix `c`.
 *
 * @example
 * ```ts
 * keepCells(f64Bounds, c, [0, 2]); // x1 removed from an octagon over 3 variables
 * ```
 */
export function keepCells<T>(B: Bounds<T>, c: BoundStore<T>, keep: readonly number[]): BoundStore<T> {
  const n = keep.length;
  const m = B.alloc(halfSize(n));
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const va = keep[a] as number;
      const vb = keep[b] as number;
      for (let da = 0; da < 2; da++) {
        for (let db = 0; db < 2; db++) {
          const i = 2 * a + da;
          const j = 2 * b + db;
          if (j > (i | 1)) continue;
          m[matPos(i, j)] = c[matPos(2 * va + da, 2 * vb + db)] as T;
        }
      }
    }
  }
  return m;
}

/**
 * `src` with variable `v` renamed `perm[v]`.
 *
 * @example
 * ```ts
 * permuteCells(f64Bounds, 2, m, [1, 0]); // x0 and x1 swapped
 * ```
 */
export function permuteCells<T>(
  B: Bounds<T>,
  dim: number,
  src: BoundStore<T>,
  perm: readonly number[],
): BoundStore<T> {
  const m = B.alloc(src.length);
  const N = 2 * dim;
  for (let i = 0; i < N; i++) {
    for (let j = 0; j <= (i | 1); j++) {
      const ni = 2 * (perm[i >> 1] as number) + (i & 1);
      const nj = 2 * (perm[j >> 1] as number) + (j & 1);
      m[matPos(ni, nj)] = src[matPos(i, j)] as T;
    }
  }
  return m;
}

/**
 * The finite constraints of a half matrix, each once.
 *
 * @example
 * ```ts
 * matrixConstraints(f64Bounds, 1, Float64Array.of(0, -2, 6, 0)); // [{ i: 0, si: -1, c: 1 }, { i: 0, si: 1, c: 3 }]
 * ```
 */
export function matrixConstraints<T>(B: Bounds<T>, dim: number, m: BoundStore<T>): OctConstraint[] {
  const out: OctConstraint[] = [];
  const N = 2 * dim;
  for (let i = 0; i < N; i++) {
    for (let j = 0; j <= (i | 1); j++) {
      if (i === j) continue;
      const v = m[matPos(i, j)] as T;
      if (B.isInf(v)) continue;
      const r = B.toRational(v);
      // V_j − V_i ≤ v, with V_q = s·x_(q>>1), s = + for even q
      const sj: Sign = j & 1 ? -1 : 1;
      const si: Sign = i & 1 ? 1 : -1; // −V_i
      if (j >> 1 === i >> 1) out.push({ i: j >> 1, si: sj, c: r.half() });
      else out.push({ i: j >> 1, si: sj, j: i >> 1, sj: si, c: r });
    }
  }
  return out;
}
