/**
 * The guard `e ≤ 0` of an interval linear form on an octagon (Miné 2006 §4.4.3).
 * @module
 */
import type { BoundStore } from '../numbers/bounds';
import { Rational } from '../numbers/rational';
import { type LinearExpr, linearConstant, linearTerms, type Sign } from './constraints';
import { matPos } from './layout';
import type { Octagon } from './octagon';

/** Upper bounds of `x_v` and of `−x_v` from a closed matrix. */
function varBounds<T>(o: Octagon<T>, c: BoundStore<T>): { hi: T[]; negLo: T[] } {
  const B = o.bounds;
  const hi: T[] = [];
  const negLo: T[] = [];
  for (let v = 0; v < o.dim; v++) {
    hi.push(B.half(c[matPos(2 * v + 1, 2 * v)] as T));
    negLo.push(B.half(c[matPos(2 * v, 2 * v + 1)] as T));
  }
  return { hi, negLo };
}

/**
 * Guard `e ≤ 0` for a linear form (Miné 2006 §4.4.3): exact when `e` is octagonal, otherwise
 * each unit-coefficient variable and pair is bounded by the interval of the rest of `e` on the
 * closed argument, and other variables by division.
 *
 * @example
 * ```ts
 * guardLinearForm(o, { terms: [[0, 2], [1, 1]], constant: -1 }); // 2·x0 + x1 − 1 ≤ 0
 * ```
 */
export function guardLinearForm<T>(self: Octagon<T>, e: LinearExpr): Octagon<T> {
  const terms = linearTerms(e, self.dim);
  const [clo] = linearConstant(e);
  const unit = (a: Rational) => a.eq(Rational.ONE) || a.eq(Rational.ONE.neg());
  const sign = (a: Rational): Sign => (a.num > 0n ? 1 : -1);
  // e ≤ 0 holds for some point of the constant interval: Σ aᵢxᵢ ≤ −c_lo.
  if (clo === null) return self;
  const rhs = clo.neg();
  if (terms.length === 0) return rhs.num < 0n ? self.toBottom() : self;
  if (terms.length <= 2 && terms.every(([, a]) => unit(a))) {
    const [i, ai] = terms[0] as [number, Rational];
    const t2 = terms[1];
    return self.guard({ i, si: sign(ai), j: t2?.[0], sj: t2 ? sign(t2[1]) : undefined, c: rhs });
  }
  const c0 = self.closedMatrix();
  if (!c0) return self.toBottom();
  const B = self.bounds;
  const iv = varBounds(self, c0);
  // up(−Σ_{k∉S} a_k x_k) for a set S of excluded variables.
  const restUp = (skip: ReadonlySet<number>): T => {
    let acc = B.fromRational(rhs);
    for (const [v, a] of terms) {
      if (skip.has(v)) continue;
      // −a·x ≤ up: a > 0 uses −x's bound, a < 0 uses x's bound
      const b = a.num > 0n ? iv.negLo[v] : iv.hi[v];
      acc = B.add(acc, B.mul(b as T, a.num > 0n ? a : a.neg()));
      if (B.isInf(acc)) return acc;
    }
    return acc;
  };
  let o: Octagon<T> = self.close();
  for (let t = 0; t < terms.length; t++) {
    const [v, a] = terms[t] as [number, Rational];
    const up = restUp(new Set([v]));
    if (!B.isInf(up)) {
      // a·x ≤ up ⇒ sign(a)·x ≤ up / |a|
      const abs = a.num > 0n ? a : a.neg();
      const bound = B.toRational(up).div(abs);
      o = o.guard({ i: v, si: sign(a), c: bound });
    }
    if (!unit(a)) continue;
    for (let u = t + 1; u < terms.length; u++) {
      const [w, b] = terms[u] as [number, Rational];
      if (!unit(b)) continue;
      const pairUp = restUp(new Set([v, w]));
      if (!B.isInf(pairUp)) o = o.guard({ i: v, si: sign(a), j: w, sj: sign(b), c: B.toRational(pairUp) });
    }
    if (o.isEmpty()) return o;
  }
  return o;
}
