import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOctagonDomain, type OctagonKind, Rational, type Sign } from '../src/index';
import { constraintsArb } from './arbitraries';
import { expectOracle, loadOracle, octRows, type Row } from './oracle';

beforeAll(loadOracle);

const N = 3;
const kinds: OctagonKind[] = ['int', 'real'];
const oldVars = Array.from({ length: N }, (_, v) => `x${v}`);
const newVars = Array.from({ length: N }, (_, v) => `y${v}`);

/** Rows `y_v = x_v` for every v but `except`. */
function unchanged(except: number): Row[] {
  return oldVars.flatMap((x, v) =>
    v === except ? [] : [{ terms: { [`y${v}`]: 1, [x]: -1 }, op: '=', rhs: 0 }],
  );
}

describe('x := ±x + [a, b] keeps the relations of x (APRON)', () => {
  it.each(kinds)('from x0 − x1 ≤ 0, x0 := x0 + [0, 1] gives x0 − x1 ≤ 1 (%s, both engines)', (kind) => {
    for (const engine of ['exact', 'f64'] as const) {
      const D = createOctagonDomain({ engine, kind });
      const o = D.fromConstraints(2, [{ i: 0, si: 1, j: 1, sj: -1, c: 0 }]);
      const r = o.assignLinear(0, { terms: [[0, 1]], constant: { lo: 0, hi: 1 } });
      expect(r.upperBound(1, 0, -1, 1)?.toString()).toBe('1');
      expect(r.upperBound(-1, 0, 1, 1)).toBeNull();
      const neg = o.assignLinear(0, { terms: [[0, -1]], constant: { lo: 0, hi: 1 } }); // x0' = −x0 + t
      expect(neg.upperBound(-1, 0, -1, 1)?.toString()).toBe('0'); // −x0' − x1 = x0 − x1 − t ≤ 0
    }
  });

  it.each(kinds)('equals the octagonal hull of the image (HiGHS, %s)', (kind) => {
    const X = createOctagonDomain({ engine: 'exact', kind });
    const F = createOctagonDomain({ engine: 'f64', kind });
    const end = fc.option(fc.integer({ min: -4, max: 4 }), { nil: null, freq: 5 });
    fc.assert(
      fc.property(
        constraintsArb(N, 6, -2, 8),
        fc.integer({ min: 0, max: N - 1 }),
        fc.constantFrom<Sign>(1, -1),
        end,
        fc.nat(3),
        (cons, x, s, lo, width) => {
          const hi = lo === null ? (width === 3 ? null : width) : width === 3 ? null : lo + width;
          const expr = { terms: [[x, s]] as [number, number][], constant: { lo, hi } };
          const r = X.fromConstraints(N, cons).assignLinear(x, expr);
          // y_x = s·x_x + t, t ∈ [lo, hi]
          const rows: Row[] = [
            ...octRows(cons),
            ...unchanged(x),
            { terms: { [`y${x}`]: 1, [`x${x}`]: -s, t: -1 }, op: '=', rhs: 0 },
            ...(lo === null ? [] : [{ terms: { t: 1 }, op: '>=', rhs: lo } as Row]),
            ...(hi === null ? [] : [{ terms: { t: 1 }, op: '<=', rhs: hi } as Row]),
          ];
          expectOracle(r, rows, [...oldVars, ...newVars, 't'], 'tight');
          // the f64 engine gives the same matrix on integer inputs
          const f = F.fromConstraints(N, cons).assignLinear(x, expr);
          expect(f.toExact().equals(r)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('widening and narrowing (APRON semantics by default, Miné as an option)', () => {
  const D = createOctagonDomain({ engine: 'exact', kind: 'int' });
  // left argument as built: x0 − x1 ≤ 0, x1 ≤ 1 (closure adds x0 ≤ 1)
  const left = D.fromConstraints(2, [
    { i: 0, si: 1, j: 1, sj: -1, c: 0 },
    { i: 1, si: 1, c: 1 },
  ]);
  const right = D.fromConstraints(2, [
    { i: 0, si: 1, j: 1, sj: -1, c: 0 },
    { i: 1, si: 1, c: 5 },
    { i: 0, si: 1, c: 0 },
  ]);
  it('closes the left argument by default; left: raw uses it as built', () => {
    // x1's cell grows (1 → 5): +∞. As built, x0's cell is +∞ and stays so (x0 unbounded);
    // closed, it is 2 ≥ 0 and kept (x0 ≤ 1). Narrowing fills the +∞ cell from the right (x0 ≤ 0).
    expect(left.widen(right).upperBound(1, 0)?.toString()).toBe('1');
    expect(left.widen(right, [], { left: 'raw' }).upperBound(1, 0)).toBeNull();
    expect(left.narrow(right, { left: 'raw' }).upperBound(1, 0)?.toString()).toBe('0');
    expect(left.narrow(right).upperBound(1, 0)?.toString()).toBe('1');
  });
  it('compares thresholds with the stored cell (2·x) by default, with the bound as an option', () => {
    const a = D.fromBox([{ lo: 5, hi: 10 }]);
    const b = D.fromBox([{ lo: 0, hi: 12 }]);
    const cell = a.widen(b, [-20, 30, 100]);
    expect(cell.bound(0)).toEqual({ lo: Rational.of(-15), hi: Rational.of(15) }); // −2x ≤ 30, 2x ≤ 30
    const bound = a.widen(b, [-20, 30, 100], { thresholds: 'bound' });
    expect(bound.bound(0)).toEqual({ lo: Rational.of(-30), hi: Rational.of(30) }); // −x ≤ 30, x ≤ 30
  });
  it('thresholds on cells are sound and above the right argument', () => {
    fc.assert(
      fc.property(
        constraintsArb(N),
        constraintsArb(N),
        fc.array(fc.integer({ min: -30, max: 30 })),
        fc.constantFrom('cell' as const, 'bound' as const),
        fc.constantFrom('closed' as const, 'raw' as const),
        (c1, c2, ts, on, leftMode) => {
          const a = D.fromConstraints(N, c1);
          const b = D.fromConstraints(N, c2);
          const w = a.widen(b, ts, { thresholds: on, left: leftMode });
          expect(a.includedIn(w) && b.includedIn(w)).toBe(true);
          const n = a.narrow(b, { left: leftMode });
          expect(a.meet(b).includedIn(n)).toBe(true);
          expect(n.includedIn(a)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
  it('an empty left argument, even one not yet known to be, gives the right one closed', () => {
    const empty = D.fromConstraints(1, [
      { i: 0, si: 1, c: 0 },
      { i: 0, si: -1, c: -1 },
    ]);
    expect(empty.isClosed).toBe(false);
    const b = D.fromConstraints(1, [{ i: 0, si: 1, c: 3 }]);
    for (const left of ['closed', 'raw'] as const) {
      const w = empty.widen(b, [], { left });
      expect(w.equals(b) && w.isClosed).toBe(true);
    }
  });
  it('Miné widening chains stabilise (left as built)', () => {
    fc.assert(
      fc.property(fc.array(constraintsArb(N), { minLength: 2, maxLength: 40 }), (seq) => {
        let w = D.fromConstraints(N, seq[0] ?? []);
        let changes = 0;
        for (const cons of seq.slice(1)) {
          const next = w.widen(w.join(D.fromConstraints(N, cons)), [], { left: 'raw' });
          if (!next.equals(w)) changes++;
          w = next;
        }
        expect(changes).toBeLessThanOrEqual(2 * N * (N + 1) + 1);
      }),
      { numRuns: 40 },
    );
  });
});
