import fc from 'fast-check';
import { type OctConstraint, type Sign, toRational } from '../src/index';

/** Random octagonal constraints over `n` variables with small integer constants (mostly satisfiable). */
export function constraintsArb(n: number, max = 3 * n, cLo = -2, cHi = 12): fc.Arbitrary<OctConstraint[]> {
  const sign = fc.constantFrom<Sign>(1, -1);
  return fc.array(
    fc.record({
      i: fc.integer({ min: 0, max: n - 1 }),
      si: sign,
      j: fc.option(fc.integer({ min: 0, max: n - 1 }), { nil: undefined }),
      sj: sign,
      c: fc.integer({ min: cLo, max: cHi }),
    }),
    { minLength: 1, maxLength: max },
  ) as fc.Arbitrary<OctConstraint[]>;
}

/** Evaluates `si·x_i + sj·x_j ≤ c` at a point. */
export function satisfies(c: OctConstraint, point: readonly number[]): boolean {
  const v =
    c.si * (point[c.i] as number) +
    (c.j !== undefined && c.sj !== undefined ? c.sj * (point[c.j] as number) : 0);
  return toRational(v).le(toRational(c.c));
}
