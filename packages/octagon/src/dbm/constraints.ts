/**
 * The vocabulary of the octagon domain: kinds, signs, numbers, octagonal constraints, intervals
 * and interval linear forms, with their conversions and printing.
 * @module
 */
import { OctagonDimensionError } from '../errors';
import { Rational } from '../numbers/rational';

/** `int`: variables range over the integers (tight closure); `real`: over the reals (strong closure). */
export type OctagonKind = 'int' | 'real';

/** +1 or −1. */
export type Sign = 1 | -1;

/** A number given to the domain: a rational, a JS number (its exact value) or a string (`'7/2'`). */
export type NumberLike = Rational | number | bigint | string;

/**
 * An octagonal constraint `si·x_i + sj·x_j ≤ c`, or `si·x_i ≤ c` without `j`.
 *
 * @example
 * ```ts
 * const c: OctConstraint = { i: 0, si: 1, j: 1, sj: -1, c: 3 }; // x0 − x1 ≤ 3
 * ```
 */
export interface OctConstraint {
  readonly i: number;
  readonly si: Sign;
  readonly j?: number | undefined;
  readonly sj?: Sign | undefined;
  readonly c: NumberLike;
}

/** A closed interval; `null` is an infinite end. */
export interface Interval {
  readonly lo: Rational | null;
  readonly hi: Rational | null;
}

/**
 * A linear form `Σ coef·x_var + constant` with an interval constant (APRON's interval linear forms).
 *
 * @example
 * ```ts
 * const e: LinearExpr = { terms: [[0, 2], [1, -1]], constant: 5 }; // 2·x0 − x1 + 5
 * ```
 */
export interface LinearExpr {
  readonly terms: ReadonlyArray<readonly [variable: number, coefficient: NumberLike]>;
  readonly constant?: NumberLike | { readonly lo: NumberLike | null; readonly hi: NumberLike | null };
}

/** Converts a {@link NumberLike} to an exact rational. */
export function toRational(x: NumberLike): Rational {
  if (x instanceof Rational) return x;
  if (typeof x === 'bigint') return Rational.of(x);
  if (typeof x === 'string') return Rational.parse(x);
  if (x === Number.NEGATIVE_INFINITY || Number.isNaN(x)) throw new RangeError(`bad constant ${x}`);
  return Rational.fromNumber(x);
}

/**
 * Node of the signed variable `s·x_i`: `2i` for `+x_i`, `2i+1` for `−x_i`.
 *
 * @example
 * ```ts
 * signedNode(-1, 3); // 7: the node of −x3
 * ```
 */
export function signedNode(s: Sign, i: number): number {
  return s === 1 ? 2 * i : 2 * i + 1;
}

/**
 * Text of a constraint in variable order: `x - y <= 3`, `x + y <= 4`, `x <= 2`; constraints whose
 * terms are all negative print flipped: `x >= 1`, `x + y >= -2`.
 *
 * @example
 * ```ts
 * formatConstraint({ i: 0, si: -1, c: -1 }, ['x']); // "x >= 1"
 * ```
 */
export function formatConstraint(c: OctConstraint, names?: readonly string[]): string {
  const name = (v: number) => names?.[v] ?? `x${v}`;
  const bound = toRational(c.c);
  let terms: [Sign, number][] = [[c.si, c.i]];
  if (c.j !== undefined && c.sj !== undefined) terms.push([c.sj, c.j]);
  terms.sort((a, b) => a[1] - b[1]);
  const flip = terms.every(([s]) => s === -1);
  if (flip) terms = terms.map(([s, v]) => [-s as Sign, v]);
  const lhs = terms
    .map(([s, v], k) => (k === 0 ? `${s === 1 ? '' : '-'}${name(v)}` : ` ${s === 1 ? '+' : '-'} ${name(v)}`))
    .join('');
  return flip ? `${lhs} >= ${bound.neg().toString()}` : `${lhs} <= ${bound.toString()}`;
}

/** The terms of `e` with their coefficients summed by variable (zeros dropped), checked against `dim`. */
export function linearTerms(e: LinearExpr, dim: number): [number, Rational][] {
  const acc = new Map<number, Rational>();
  for (const [v, a] of e.terms) {
    if (!Number.isInteger(v) || v < 0 || v >= dim)
      throw new OctagonDimensionError(`variable ${v} out of range 0…${dim - 1}`);
    acc.set(v, (acc.get(v) ?? Rational.ZERO).add(toRational(a)));
  }
  return [...acc].filter(([, a]) => a.num !== 0n);
}

/** The ends of the constant of `e` (`null`: infinite). */
export function linearConstant(e: LinearExpr): [Rational | null, Rational | null] {
  const c = e.constant ?? 0;
  if (typeof c === 'object' && !(c instanceof Rational)) {
    return [c.lo === null ? null : toRational(c.lo), c.hi === null ? null : toRational(c.hi)];
  }
  const r = toRational(c);
  return [r, r];
}
