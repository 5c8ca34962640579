import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closeF64,
  closeGeneric,
  closeMatrix,
  createOctagonDomain,
  exactBounds,
  f64Bounds,
  type OctConstraint,
  Rational,
  type Sign,
  variableBlocks,
} from '../src/index';

/** Constraints over `n` variables that only relate variables of the same block of `size` (and unary ones). */
function blockConstraintsArb(n: number, size: number): fc.Arbitrary<OctConstraint[]> {
  const sign = fc.constantFrom<Sign>(1, -1);
  return fc.array(
    fc
      .record({
        i: fc.integer({ min: 0, max: n - 1 }),
        offset: fc.integer({ min: 0, max: size - 1 }),
        unary: fc.boolean(),
        si: sign,
        sj: sign,
        c: fc.integer({ min: -3, max: 20 }),
      })
      .map(({ i, offset, unary, si, sj, c }): OctConstraint => {
        const j = Math.min(n - 1, i - (i % size) + offset);
        return unary || j === i ? { i, si, c } : { i, si, j, sj, c };
      }),
    { minLength: 1, maxLength: 4 * n },
  );
}

describe('decomposed closure (blocks of related variables)', () => {
  it.each([
    [24, 4],
    [40, 8],
  ])('equals the dense closure cell for cell (%i variables, blocks of %i)', (n, size) => {
    fc.assert(
      fc.property(blockConstraintsArb(n, size), fc.boolean(), fc.boolean(), (cons, tight, mixed) => {
        const kind = tight ? 'int' : 'real';
        const F = createOctagonDomain({ engine: 'f64', kind });
        const X = createOctagonDomain({ engine: 'exact', kind });
        const ints = !tight && mixed ? Array.from({ length: n }, (_, v) => (v % 3 === 0 ? 1 : 0)) : tight;
        const raw = F.fromConstraints(n, cons).rawMatrix() as Float64Array | null;
        if (!raw) return;
        const blocks = variableBlocks(raw, n, f64Bounds) ?? [];
        expect(Math.max(...blocks.map((b) => b.length))).toBeLessThanOrEqual(size);
        const byBlocks = Float64Array.from(raw);
        const dense = Float64Array.from(raw);
        const okBlocks = closeMatrix(byBlocks, n, f64Bounds, ints);
        const okDense = closeF64(dense, n, ints);
        expect(okBlocks).toBe(okDense);
        if (okDense) expect(Array.from(byBlocks)).toEqual(Array.from(dense));
        // the exact engine decomposes too
        const xraw = X.fromConstraints(n, cons).rawMatrix() as Rational[] | null;
        if (!xraw) return;
        const xb = [...xraw];
        const xd = [...xraw];
        expect(closeMatrix(xb, n, exactBounds, ints)).toBe(okDense);
        expect(closeGeneric(xd, n, exactBounds, ints)).toBe(okDense);
        if (okDense) expect(xb.map(String)).toEqual(xd.map(String));
      }),
      { numRuns: 40 },
    );
  });

  it('on fractional bounds (outward rounding) equals the dense f64 closure and stays above the exact one', () => {
    const n = 32;
    fc.assert(
      fc.property(blockConstraintsArb(n, 8), fc.integer({ min: 1, max: 9 }), (cons, den) => {
        const frac = cons.map((c) => ({
          ...c,
          c: Rational.of(BigInt(Number(c.c)) * 7n + 1n, BigInt(den) * 3n),
        }));
        const F = createOctagonDomain({ engine: 'f64', kind: 'real' });
        const raw = F.fromConstraints(
          n,
          frac.map((c) => ({ ...c, c: c.c.toNumber('up') })),
        ).rawMatrix() as Float64Array | null;
        if (!raw) return;
        const byBlocks = Float64Array.from(raw);
        const dense = Float64Array.from(raw);
        const ok = closeMatrix(byBlocks, n, f64Bounds, false);
        expect(ok).toBe(closeF64(dense, n, false));
        const exact = createOctagonDomain({ engine: 'exact', kind: 'real' })
          .fromConstraints(n, frac)
          .closedMatrix();
        if (!ok) {
          expect(exact).toBeNull(); // f64 may miss an emptiness, never claim a false one
          return;
        }
        expect(Array.from(byBlocks)).toEqual(Array.from(dense));
        if (exact)
          for (const [p, v] of byBlocks.entries())
            expect(Rational.fromNumber(v).compare(exact[p] as Rational)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 30 },
    );
  });

  it('finds the blocks: related variables together, lone ones alone', () => {
    const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
    const o = F.fromConstraints(5, [
      { i: 0, si: 1, j: 3, sj: -1, c: 1 },
      { i: 3, si: 1, j: 4, sj: 1, c: 2 },
      { i: 1, si: 1, c: 0 },
    ]);
    const blocks = (variableBlocks(o.rawMatrix() as Float64Array, 5, f64Bounds) ?? []).map((b) =>
      b.join(','),
    );
    expect(blocks.sort()).toEqual(['0,3,4', '1', '2']);
    expect(variableBlocks(o.rawMatrix() as Float64Array, 5, f64Bounds, 2)).toBeNull(); // a block of 3 > 2
  });
});
