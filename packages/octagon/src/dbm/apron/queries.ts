/**
 * APRON's tests and bounds on octagons: the interval of a linear form (`bound_linexpr`),
 * whether a linear constraint or an interval holds everywhere (`sat_lincons`, `sat_interval`).
 * @module
 */
import { Rational } from '../../numbers/rational';
import {
  type Interval,
  type LinearExpr,
  linearConstant,
  linearTerms,
  type NumberLike,
  type Sign,
  toRational,
} from '../constraints';

import type { Octagon } from '../octagon';

/** The relation of a linear constraint `e op 0` (APRON's `ap_constyp_t`). */
export type ConstraintOp = '<=' | '<' | '=' | '!=';

/** A linear constraint `e op 0` over the variables of an octagon. */
export interface LinearConstraint {
  readonly expr: LinearExpr;
  readonly op: ConstraintOp;
}

const add = (a: Rational | null, b: Rational | null) => (a === null || b === null ? null : a.add(b));

/**
 * The least upper bound of `Σ aᵢ·xᵢ` (no constant) on the octagon, `null` for +∞: exact when
 * the form is octagonal (`±x`, `±x ± y`, or `a·x`), read from the closed matrix; otherwise the sum
 * of the pair bounds of a partition of the unit-coefficient variables into pairs and the interval
 * bounds of the rest (sound, as APRON's interval evaluation, often tighter). The octagon is not empty.
 */
function upperOfTerms<T>(o: Octagon<T>, terms: readonly [number, Rational][]): Rational | null {
  const unit = (a: Rational) => a.eq(Rational.ONE) || a.eq(Rational.ONE.neg());
  const sign = (a: Rational): Sign => (a.num > 0n ? 1 : -1);
  if (terms.length === 0) return Rational.ZERO;
  const units = terms.filter(([, a]) => unit(a));
  const others = terms.filter(([, a]) => !unit(a));
  let total: Rational | null = Rational.ZERO;
  for (let k = 0; k + 1 < units.length; k += 2) {
    const [i, ai] = units[k] as [number, Rational];
    const [j, aj] = units[k + 1] as [number, Rational];
    total = add(total, o.upperBound(sign(ai), i, sign(aj), j));
  }
  if (units.length % 2 === 1) {
    const [i, ai] = units[units.length - 1] as [number, Rational];
    total = add(total, o.upperBound(sign(ai), i));
  }
  for (const [v, a] of others) {
    const up = o.upperBound(sign(a), v);
    total = add(total, up === null ? null : up.mul(a.num > 0n ? a : a.neg()));
  }
  return total;
}

/**
 * The interval of a linear form on the octagon (APRON's `bound_linexpr`); `null` when the octagon
 * is empty. Exact when the form is octagonal (at most two variables with coefficients ±1, or one
 * variable); otherwise sound: unit-coefficient variables are bounded in pairs from the closed
 * matrix, the others by their intervals.
 *
 * @example
 * ```ts
 * const o = createOctagonDomain({ engine: 'exact' }).fromConstraints(2, [{ i: 0, si: 1, j: 1, sj: -1, c: 2 }]);
 * boundLinear(o, { terms: [[0, 1], [1, -1]], constant: 1 }); // { lo: null, hi: 3 }
 * ```
 */
export function boundLinear<T>(o: Octagon<T>, e: LinearExpr): Interval | null {
  const terms = linearTerms(e, o.dim);
  if (o.isEmpty()) return null;
  const [clo, chi] = linearConstant(e);
  const hi = add(upperOfTerms(o, terms), chi);
  const negLo = add(
    upperOfTerms(
      o,
      terms.map(([v, a]) => [v, a.neg()]),
    ),
    clo === null ? null : clo.neg(),
  );
  return { lo: negLo === null ? null : negLo.neg(), hi };
}

/**
 * Whether every point of the octagon satisfies `e op 0` (APRON's `sat_lincons`): `true` is
 * certain; `false` means "not proved" — exact (a point violates it) when `e` is octagonal and the
 * relation is `<=`, `<` or `=`. The empty octagon satisfies everything.
 *
 * @example
 * ```ts
 * const o = createOctagonDomain({ engine: 'exact' }).fromBox([{ lo: 0, hi: 3 }]);
 * satConstraint(o, { expr: { terms: [[0, 1]], constant: -3 }, op: '<=' }); // true: x0 − 3 ≤ 0
 * ```
 */
export function satConstraint<T>(o: Octagon<T>, c: LinearConstraint): boolean {
  const b = boundLinear(o, c.expr);
  if (b === null) return true;
  switch (c.op) {
    case '<=':
      return b.hi !== null && b.hi.num <= 0n;
    case '<':
      return b.hi !== null && b.hi.num < 0n;
    case '=':
      return b.hi !== null && b.lo !== null && b.hi.num === 0n && b.lo.num === 0n;
    case '!=':
      return (b.hi !== null && b.hi.num < 0n) || (b.lo !== null && b.lo.num > 0n);
  }
}

/**
 * Whether variable `x` lies in `[lo, hi]` everywhere in the octagon (APRON's `sat_interval`):
 * exact. `null` ends are infinite; the empty octagon satisfies every interval.
 *
 * @example
 * ```ts
 * satInterval(createOctagonDomain().fromBox([{ lo: 0, hi: 3 }]), 0, -1, 5); // true
 * ```
 */
export function satInterval<T>(
  o: Octagon<T>,
  x: number,
  lo: NumberLike | null,
  hi: NumberLike | null,
): boolean {
  const b = o.bound(x);
  if (b === null) return true;
  const loOk = lo === null || (b.lo !== null && toRational(lo).le(b.lo));
  const hiOk = hi === null || (b.hi !== null && b.hi.le(toRational(hi)));
  return loOk && hiOk;
}
