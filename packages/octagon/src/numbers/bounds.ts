import type { ClosureThreads } from '../dbm/closure-threads';
import { addUp, halfUp, mulUp, nextUp, Rational } from './rational';

/** Which number system an octagon's bounds live in. */
export type NumberEngine = 'exact' | 'f64';

/** A growable array of bounds: `Rational[]` for the exact engine, `Float64Array` for f64. */
export interface BoundStore<T> {
  [index: number]: T;
  readonly length: number;
}

/**
 * The arithmetic an octagon needs on upper bounds, every operation rounded towards +∞ (so a
 * computed bound is never below the exact one). `exactBounds` is exact; `f64Bounds` rounds
 * outward (exact on integers and dyadic values while they stay within 2^53).
 *
 * @example
 * ```ts
 * f64Bounds.add(0.1, 0.2); // the double just above 0.1 + 0.2 when that sum is inexact
 * exactBounds.add(Rational.of(1, 3), Rational.of(1, 6)).toString(); // "1/2"
 * ```
 */
export interface Bounds<T> {
  readonly engine: NumberEngine;
  readonly inf: T;
  readonly zero: T;
  isInf(a: T): boolean;
  /** `a + b` rounded up; +∞ absorbs. */
  add(a: T, b: T): T;
  /** `a * q` rounded up, for a finite rational `q ≥ 0` (or any `q` when `a` is finite). */
  mul(a: T, q: Rational): T;
  /** `-a` (finite `a`). */
  neg(a: T): T;
  half(a: T): T;
  double(a: T): T;
  floor(a: T): T;
  lt(a: T, b: T): boolean;
  le(a: T, b: T): boolean;
  eq(a: T, b: T): boolean;
  min(a: T, b: T): T;
  max(a: T, b: T): T;
  /** The least bound ≥ `r`. */
  fromRational(r: Rational): T;
  /** The exact value of a bound. */
  toRational(a: T): Rational;
  isInteger(a: T): boolean;
  /** A store of `size` bounds, all +∞. */
  alloc(size: number): BoundStore<T>;
  copy(m: BoundStore<T>): BoundStore<T>;
  format(a: T): string;
  /** Worker threads for large dense closures on f64 (a domain's `threads` option); none by default. */
  readonly threads?: ClosureThreads | undefined;
}

/**
 * Exact rational bounds (the oracle).
 *
 * @example
 * ```ts
 * exactBounds.half(Rational.of(3)).toString(); // "3/2"
 * ```
 */
export const exactBounds: Bounds<Rational> = {
  engine: 'exact',
  inf: Rational.INF,
  zero: Rational.ZERO,
  isInf: (a) => a.isInf,
  add: (a, b) => a.add(b),
  mul: (a, q) => (a.isInf ? (q.num === 0n ? Rational.ZERO : Rational.INF) : a.mul(q)),
  neg: (a) => a.neg(),
  half: (a) => a.half(),
  double: (a) => a.double(),
  floor: (a) => a.floor(),
  lt: (a, b) => a.lt(b),
  le: (a, b) => a.le(b),
  eq: (a, b) => a.eq(b),
  min: (a, b) => (a.le(b) ? a : b),
  max: (a, b) => (a.le(b) ? b : a),
  fromRational: (r) => r,
  toRational: (a) => a,
  isInteger: (a) => a.isInteger,
  alloc: (size) => new Array<Rational>(size).fill(Rational.INF),
  copy: (m) => Array.from({ length: m.length }, (_, i) => m[i] as Rational),
  format: (a) => a.toString(),
};

/**
 * Double-precision bounds with outward (upward) rounding.
 *
 * @example
 * ```ts
 * f64Bounds.add(Infinity, -5); // Infinity
 * ```
 */
export const f64Bounds: Bounds<number> = {
  engine: 'f64',
  inf: Number.POSITIVE_INFINITY,
  zero: 0,
  isInf: (a) => a === Number.POSITIVE_INFINITY,
  add: addUp,
  mul: (a, q) => {
    if (a === Number.POSITIVE_INFINITY) return q.num === 0n ? 0 : a;
    const qd = q.toNumber('nearest');
    if (Rational.fromNumber(qd).eq(q)) return mulUp(a, qd);
    return Rational.fromNumber(a).mul(q).toNumber('up');
  },
  neg: (a) => -a,
  half: halfUp,
  double: (a) => (a === Number.POSITIVE_INFINITY ? a : Number.isFinite(2 * a) ? 2 * a : nextUp(2 * a)),
  floor: Math.floor,
  lt: (a, b) => a < b,
  le: (a, b) => a <= b,
  eq: (a, b) => a === b,
  min: Math.min,
  max: Math.max,
  fromRational: (r) => r.toNumber('up'),
  toRational: (a) => Rational.fromNumber(a),
  isInteger: (a) => Number.isInteger(a),
  alloc: (size) => new Float64Array(size).fill(Number.POSITIVE_INFINITY),
  copy: (m) => Float64Array.from(m as Float64Array),
  format: (a) => (a === Number.POSITIVE_INFINITY ? '+inf' : `${a}`),
};

/**
 * The bounds of an engine.
 *
 * @example
 * ```ts
 * boundsOf('f64') === f64Bounds; // true
 * ```
 */
export function boundsOf(engine: 'exact'): Bounds<Rational>;
export function boundsOf(engine: 'f64'): Bounds<number>;
export function boundsOf(engine: NumberEngine): Bounds<Rational> | Bounds<number>;
export function boundsOf(engine: NumberEngine): Bounds<Rational> | Bounds<number> {
  return engine === 'exact' ? exactBounds : f64Bounds;
}
