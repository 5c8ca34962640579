import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addDimensionsAt,
  createOctagonDomain,
  deserializeOctagon,
  expand,
  fold,
  matPos,
  OctagonDimensionError,
  type Rational,
  serializeOctagon,
} from '../src/index';
import { constraintsArb } from './arbitraries';
import { cellForm, expectAtOrAbove, loadOracle, maximize, octRows } from './oracle';

beforeAll(loadOracle);

const N = 3;
const xs = Array.from({ length: N }, (_, v) => `x${v}`);
const X = createOctagonDomain({ engine: 'exact', kind: 'real' });
const F = createOctagonDomain({ engine: 'f64', kind: 'real' });
const maskArb = fc.uniqueArray(fc.integer({ min: 0, max: N - 1 }), { minLength: 1, maxLength: N - 1 });

/** Constraints with constants in halves, so integrality matters. */
const halvesArb = constraintsArb(N, 6, -3, 9).map((cons) =>
  cons.map((c) => ({ ...c, c: `${Number(c.c)}/2` })),
);

describe('mixed integer/real octagons (APRON intdim)', () => {
  it('closure is sound against the mixed-integer optimum and at least as tight as the strong closure', () => {
    fc.assert(
      fc.property(halvesArb, maskArb, (cons, ints) => {
        const mixed = X.fromConstraints(N, cons).withIntegerVars(ints);
        const real = X.fromConstraints(N, cons);
        const integers = ints.map((v) => `x${v}`);
        const rows = octRows(cons);
        const feasible = !Number.isNaN(maximize({}, rows, xs, { integers }));
        const m = mixed.closedMatrix();
        if (m === null) {
          expect(feasible).toBe(false);
          return;
        }
        const r = real.closedMatrix() as Rational[];
        // f64 equals exact on these dyadic inputs
        expect(F.fromConstraints(N, cons).withIntegerVars(ints).toExact().equals(mixed)).toBe(true);
        if (!feasible) return;
        for (let i = 0; i < 2 * N; i++) {
          for (let j = 0; j <= (i | 1); j++) {
            if (i === j) continue;
            const cell = m[matPos(i, j)] as Rational;
            expect(cell.le(r[matPos(i, j)] as Rational)).toBe(true);
            // HiGHS's MIP: integrality within 1e-6
            expectAtOrAbove(cell, cellForm(i, j), rows, xs, { integers }, 1e-5);
            // the bound of an integer variable is an integer
            if (j === (i ^ 1) && ints.includes(i >> 1) && !cell.isInf)
              expect(cell.half().isInteger).toBe(true);
          }
        }
      }),
      { numRuns: 15 },
    );
  });

  it('keeps the integer variables through every operator', () => {
    const o = X.fromBox([
      { lo: 0, hi: '5/2' },
      { lo: '1/2', hi: 3 },
      { lo: 0, hi: 1 },
    ]).withIntegerVars([0, 2]);
    expect(o.bound(0)?.hi?.toString()).toBe('2');
    expect(o.bound(1)?.lo?.toString()).toBe('1/2');
    const flags = (a: { integers: Uint8Array | null }) => Array.from(a.integers ?? []);
    expect(flags(o.join(o))).toEqual([1, 0, 1]);
    expect(flags(o.assignLinear(1, { terms: [[0, 1]], constant: '1/2' }))).toEqual([1, 0, 1]);
    expect(flags(o.removeDimensions([1]))).toEqual([1, 1]);
    expect(flags(o.permute([2, 0, 1]))).toEqual([0, 1, 1]);
    expect(flags(o.addDimensions(1))).toEqual([1, 0, 1, 0]);
    expect(flags(o.addDimensions(1, { integer: true }))).toEqual([1, 0, 1, 1]);
    expect(flags(addDimensionsAt(o, [0]))).toEqual([0, 1, 0, 1]);
    expect(flags(expand(o, 0, 2))).toEqual([1, 0, 1, 1, 1]);
    expect(flags(fold(o, [0, 2]))).toEqual([1, 0]);
    expect(() => fold(o, [0, 1])).toThrow(OctagonDimensionError);
    expect(() => o.join(X.top(3))).toThrow(OctagonDimensionError);
    const back = deserializeOctagon(serializeOctagon(o));
    expect(flags(back)).toEqual([1, 0, 1]);
    // x0 + x2 ≤ 5/2 between two integers: ≤ 2; x0 + x1 ≤ 5/2 with x1 real: kept
    const g = o.guard({ i: 0, si: 1, j: 2, sj: 1, c: '5/2' }).guard({ i: 0, si: 1, j: 1, sj: 1, c: '5/2' });
    expect(g.upperBound(1, 0, 1, 2)?.toString()).toBe('2');
    expect(g.upperBound(1, 0, 1, 1)?.toString()).toBe('5/2');
  });
});
