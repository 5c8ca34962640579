import fc from 'fast-check';
import { halfSize, type OctConstraint, rowStart, type Sign, toRational } from '../src/index';

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

/**
 * A dense random coherent half matrix over `n` variables (xorshift from `seed`): every cell an
 * integer in [1, 1000), the diagonal 0, so the octagon is non-empty and every cell finite (the
 * closure's worst case); integral values keep f64 exact and f32 on its exact grid.
 */
export function randomHalf(n: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  const m = new Float64Array(halfSize(n));
  for (let i = 0; i < 2 * n; i++) {
    const base = rowStart(i);
    for (let j = 0; j <= (i | 1); j++) m[base + j] = i === j ? 0 : 1 + (next() % 999);
  }
  return m;
}
