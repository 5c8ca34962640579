/**
 * APRON's n-ary lattice operators (`meet_array`, `join_array`) and its enlargements
 * (`add_epsilon`, `add_epsilon_bin`) on octagons.
 * @module
 */
import { OctagonDimensionError } from '../../errors';
import type { BoundStore } from '../../numbers/bounds';
import { type NumberLike, toRational } from '../constraints';
import { matPos } from '../layout';
import { Octagon } from '../octagon';

function checkSame<T>(os: readonly Octagon<T>[], what: string): Octagon<T> {
  const first = os[0];
  if (!first) throw new OctagonDimensionError(`${what} of no octagons`);
  for (const o of os) {
    if (
      o.dim !== first.dim ||
      o.kind !== first.kind ||
      o.bounds.engine !== first.bounds.engine ||
      String(o.integers) !== String(first.integers)
    )
      throw new OctagonDimensionError(
        `${what} of octagons over ${first.dim} ${first.kind} (${first.engine}) and ${o.dim} ${o.kind} (${o.engine}) variables`,
      );
  }
  return first;
}

/**
 * The least upper bound of several octagons (APRON's `join_array`): the max of their closed
 * matrices, cell by cell, in one pass (empty ones are skipped). The result is closed.
 *
 * @example
 * ```ts
 * const D = createOctagonDomain({ engine: 'exact' });
 * joinArray([D.fromBox([{ lo: 0, hi: 1 }]), D.fromBox([{ lo: 5, hi: 6 }])]).bound(0); // [0, 6]
 * ```
 */
export function joinArray<T>(os: readonly Octagon<T>[]): Octagon<T> {
  const first = checkSame(os, 'join');
  const B = first.bounds;
  const mats = os.map((o) => o.closedMatrix()).filter((m): m is BoundStore<T> => m !== null);
  if (mats.length === 0) return new Octagon(B, first.kind, first.dim, null, true, first.integers);
  const m = B.copy(mats[0] as BoundStore<T>);
  for (const other of mats.slice(1))
    for (let p = 0; p < m.length; p++) m[p] = B.max(m[p] as T, other[p] as T);
  return new Octagon(B, first.kind, first.dim, m, true, first.integers);
}

/**
 * The greatest lower bound of several octagons (APRON's `meet_array`): the min of their matrices
 * as built, cell by cell (not closed).
 *
 * @example
 * ```ts
 * meetArray([D.fromBox([{ lo: 0, hi: 4 }]), D.fromBox([{ lo: 2, hi: 6 }])]).bound(0); // [2, 4]
 * ```
 */
export function meetArray<T>(os: readonly Octagon<T>[]): Octagon<T> {
  const first = checkSame(os, 'meet');
  const B = first.bounds;
  const mats = os.map((o) => o.rawMatrix());
  if (mats.some((m) => m === null)) return new Octagon(B, first.kind, first.dim, null, true, first.integers);
  const m = B.copy(mats[0] as BoundStore<T>);
  for (const other of mats.slice(1) as BoundStore<T>[])
    for (let p = 0; p < m.length; p++) m[p] = B.min(m[p] as T, other[p] as T);
  return new Octagon(B, first.kind, first.dim, m, false, first.integers);
}

/** `ε·max |finite cell|` of a matrix, rounded up (0 when there is no finite cell). */
function epsilonOf<T>(o: Octagon<T>, m: BoundStore<T>, epsilon: NumberLike): T {
  const B = o.bounds;
  const eps = toRational(epsilon);
  if (eps.num < 0n) throw new RangeError(`add_epsilon: negative epsilon ${eps.toString()}`);
  let max = B.zero;
  for (let p = 0; p < m.length; p++) {
    const v = m[p] as T;
    if (B.isInf(v)) continue;
    const abs = B.lt(v, B.zero) ? B.neg(v) : v;
    max = B.max(max, abs);
  }
  return B.mul(max, eps);
}

/**
 * The octagon enlarged by `ε` times the largest finite bound in magnitude (APRON's
 * `add_epsilon`): every finite cell of the closed matrix but the diagonal grows by it. A
 * superset; not closed.
 *
 * @example
 * ```ts
 * addEpsilon(D.fromBox([{ lo: 0, hi: 10 }]), '1/10').bound(0); // [−1, 11]
 * ```
 */
export function addEpsilon<T>(o: Octagon<T>, epsilon: NumberLike): Octagon<T> {
  const c = o.closedMatrix();
  if (!c) return o;
  const B = o.bounds;
  const d = epsilonOf(o, c, epsilon);
  const m = B.copy(c);
  for (let i = 0; i < 2 * o.dim; i++) {
    for (let j = 0; j <= (i | 1); j++) {
      const p = matPos(i, j);
      if (i !== j && !B.isInf(m[p] as T)) m[p] = B.add(m[p] as T, d);
    }
  }
  return new Octagon(B, o.kind, o.dim, m, false, o.integers);
}

/**
 * A widening-like enlargement (APRON's `add_epsilon_bin`): a cell of `b` (closed) above the
 * cell of `a` (closed) grows by `ε` times the largest finite bound of `b` in magnitude; the others
 * keep `a`'s. A superset of both; not closed.
 *
 * @example
 * ```ts
 * addEpsilonBin(D.fromBox([{ lo: 0, hi: 10 }]), D.fromBox([{ lo: 0, hi: 12 }]), '1/2').bound(0); // [0, 18]
 * ```
 */
export function addEpsilonBin<T>(a: Octagon<T>, b: Octagon<T>, epsilon: NumberLike): Octagon<T> {
  checkSame([a, b], 'add_epsilon_bin');
  const am = a.closedMatrix();
  const bm = b.closedMatrix();
  if (!am) return b.close();
  if (!bm) return a.close();
  const B = a.bounds;
  const d = epsilonOf(b, bm, epsilon);
  const m = B.copy(am);
  for (let p = 0; p < m.length; p++) {
    const bv = bm[p] as T;
    if (B.lt(m[p] as T, bv)) m[p] = B.isInf(bv) ? bv : B.add(bv, d);
  }
  return new Octagon(B, a.kind, a.dim, m, false, a.integers);
}
