import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeF64, createOctagonDomain, matPos, type OctagonKind, Rational } from '../src/index';
import { constraintsArb, satisfies } from './arbitraries';

const N = 4;
const kinds: OctagonKind[] = ['int', 'real'];

describe.each(kinds)('octagon domain (%s)', (kind) => {
  const X = createOctagonDomain({ engine: 'exact', kind });
  const F = createOctagonDomain({ engine: 'f64', kind });

  it('closure is idempotent and keeps the same points (random integer points)', () => {
    fc.assert(
      fc.property(
        constraintsArb(N),
        fc.array(fc.array(fc.integer({ min: -6, max: 14 }), { minLength: N, maxLength: N }), {
          minLength: 20,
          maxLength: 20,
        }),
        (cons, points) => {
          const o = X.fromConstraints(N, cons);
          const c = o.close();
          expect(c.close().equals(c)).toBe(true);
          const closedCons = c.toConstraints() ?? [];
          for (const p of points) {
            const inRaw = cons.every((k) => satisfies(k, p));
            const inClosed = c.isEmpty() ? false : closedCons.every((k) => satisfies(k, p));
            expect(inClosed).toBe(inRaw);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('f64 engine equals the exact engine on integer inputs', () => {
    fc.assert(
      fc.property(constraintsArb(N), (cons) => {
        const a = X.fromConstraints(N, cons).close();
        const b = F.fromConstraints(N, cons).close();
        expect(b.toExact().equals(a)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('f64 bounds are never below the exact ones on fractional inputs', () => {
    fc.assert(
      fc.property(
        constraintsArb(N),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 12, maxLength: 12 }),
        (cons, dens) => {
          const frac = cons.map((c, k) => ({
            ...c,
            c: Rational.of(BigInt(Number(c.c)) * 7n + 1n, BigInt(dens[k % dens.length] as number) * 3n),
          }));
          const exact = X.fromConstraints(N, frac).closedMatrix();
          const f64 = F.fromConstraints(
            N,
            frac.map((c) => ({ ...c, c: c.c.toNumber('up') })),
          ).closedMatrix();
          if (!exact) return; // f64 may only be less precise
          expect(f64).not.toBeNull();
          for (let p = 0; p < exact.length; p++) {
            expect(
              Rational.fromNumber(f64?.[p] as number).compare(exact[p] as Rational),
            ).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('incremental closure after a guard equals full closure', () => {
    fc.assert(
      fc.property(constraintsArb(N), constraintsArb(N, 2), (cons, extra) => {
        const closed = X.fromConstraints(N, cons).close();
        const inc = closed.guardAll(extra); // closed argument: incremental closure
        const full = X.fromConstraints(N, [...cons, ...extra]).close();
        expect(inc.equals(full)).toBe(true);
        expect(inc.isClosed).toBe(true);
        if (!full.isEmpty())
          expect(Array.from((inc.rawMatrix() ?? []) as ArrayLike<Rational>).map(String)).toEqual(
            Array.from((full.closedMatrix() ?? []) as ArrayLike<Rational>).map(String),
          );
      }),
      { numRuns: 150 },
    );
  });

  it('join is the least upper bound: both below it, every cell the max of the closed arguments', () => {
    fc.assert(
      fc.property(constraintsArb(N), constraintsArb(N), (c1, c2) => {
        const a = X.fromConstraints(N, c1);
        const b = X.fromConstraints(N, c2);
        const j = a.join(b);
        expect(a.includedIn(j) && b.includedIn(j)).toBe(true);
        const am = a.closedMatrix();
        const bm = b.closedMatrix();
        const jm = j.closedMatrix();
        if (am && bm && jm)
          for (let p = 0; p < jm.length; p++) {
            const x = am[p] as Rational;
            const y = bm[p] as Rational;
            expect((jm[p] as Rational).eq(x.le(y) ? y : x)).toBe(true);
          }
        expect(j.close().equals(j)).toBe(true);
        // meet is below both
        const m = a.meet(b);
        expect(m.includedIn(a) && m.includedIn(b)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('widening chains stabilise', () => {
    fc.assert(
      fc.property(fc.array(constraintsArb(N), { minLength: 2, maxLength: 40 }), (seq) => {
        let w = X.fromConstraints(N, seq[0] ?? []);
        let stable = 0;
        for (const cons of seq.slice(1)) {
          const next = w.widen(w.join(X.fromConstraints(N, cons)), [], { left: 'raw' });
          if (next.equals(w)) stable++;
          w = next;
        }
        // Along any chain, each widening step either leaves the octagon unchanged or sets a cell to +∞:
        // at most 2n(n+1) steps change it.
        expect(seq.length - 1 - stable).toBeLessThanOrEqual(2 * N * (N + 1) + 1);
      }),
      { numRuns: 60 },
    );
  });

  it('assignments and guards match their concrete semantics on sample points', () => {
    fc.assert(
      fc.property(
        constraintsArb(N),
        fc.integer({ min: 0, max: N - 1 }),
        fc.integer({ min: 0, max: N - 1 }),
        fc.integer({ min: -3, max: 3 }),
        fc.array(fc.array(fc.integer({ min: -5, max: 12 }), { minLength: N, maxLength: N }), {
          minLength: 15,
          maxLength: 15,
        }),
        (cons, x, y, c, points) => {
          const o = X.fromConstraints(N, cons);
          const assigned = o.assignVar(x, -1, y, c);
          const lin = o.assignLinear(x, {
            terms: [
              [y, 2],
              [(y + 1) % N, -1],
            ],
            constant: c,
          });
          for (const p of points) {
            if (!cons.every((k) => satisfies(k, p))) continue;
            const q = [...p];
            q[x] = -(p[y] as number) + c;
            expect(contains(assigned, q)).toBe(true);
            const r = [...p];
            r[x] = 2 * (p[y] as number) - (p[(y + 1) % N] as number) + c;
            expect(contains(lin, r)).toBe(true);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('half-matrix storage is coherent by construction: cell (i, j) is cell (j̄, ī)', () => {
    for (let i = 0; i < 2 * N; i++)
      for (let j = 0; j < 2 * N; j++) if (i !== j) expect(matPos(i, j)).toBe(matPos(j ^ 1, i ^ 1));
  });

  it('dimensions: add, remove, permute, forget', () => {
    const o = X.fromConstraints(3, [
      { i: 0, si: 1, j: 1, sj: -1, c: 2 },
      { i: 2, si: 1, c: 5 },
    ]);
    expect(o.addDimensions(1).removeDimensions([3]).equals(o)).toBe(true);
    expect(o.permute([2, 0, 1]).permute([1, 2, 0]).equals(o)).toBe(true);
    expect(o.removeDimensions([1]).toString()).toBe('{ x1 <= 5 }');
    expect(o.forget([0]).upperBound(1, 2)?.toString()).toBe('5');
    expect(o.upperBound(1, 0, -1, 1)?.toString()).toBe('2');
  });
});

function contains(
  o: ReturnType<ReturnType<typeof createOctagonDomain>['top']> | import('../src/index').Octagon<Rational>,
  p: readonly number[],
): boolean {
  const cons = o.toConstraints();
  if (!cons) return false;
  return cons.every((k) => satisfies(k, p));
}

describe('operators on fixed cases', () => {
  const D = createOctagonDomain({ engine: 'exact', kind: 'int' });
  it('tight closure rounds unary bounds for integers; strong closure keeps halves for reals', () => {
    const cons = [
      { i: 0, si: 1 as const, j: 1, sj: 1 as const, c: 3 },
      { i: 0, si: 1 as const, j: 1, sj: -1 as const, c: 0 },
    ];
    expect(D.fromConstraints(2, cons).upperBound(1, 0)?.toString()).toBe('1');
    const R = createOctagonDomain({ engine: 'exact', kind: 'real' });
    expect(R.fromConstraints(2, cons).upperBound(1, 0)?.toString()).toBe('3/2');
  });
  it('widening with thresholds stops at the next threshold', () => {
    const a = D.fromBox([{ lo: 0, hi: 1 }]);
    const b = D.fromBox([{ lo: 0, hi: 2 }]);
    expect(a.widen(b).bound(0)).toEqual({ lo: Rational.ZERO, hi: null });
    expect(a.widen(b, [10, 100]).bound(0)?.hi?.toString()).toBe('5'); // the cell 2·x0 ≤ 10 (APRON)
    expect(a.widen(b, [10, 100], { thresholds: 'bound' }).bound(0)?.hi?.toString()).toBe('10');
    expect(a.widen(b).narrow(b).bound(0)?.hi?.toString()).toBe('2');
  });
  it('linear guard and box conversion', () => {
    const o = D.fromBox([
      { lo: 0, hi: 10 },
      { lo: 0, hi: 10 },
      { lo: 0, hi: 10 },
    ]).guardLinear({
      terms: [
        [0, 1],
        [1, 1],
        [2, 1],
      ],
      constant: -6,
    });
    expect(o.upperBound(1, 0, 1, 1)?.toString()).toBe('6');
    expect(o.toBox()?.map((b) => b.hi?.toString())).toEqual(['6', '6', '6']);
    expect(D.bottom(2).toString()).toBe('⊥');
    expect(D.top(2).toString()).toBe('⊤');
  });
});

describe('f64 closure paths', () => {
  it.each([16, 24])(
    'WebAssembly SIMD sweep = JavaScript loop = exact engine (%i variables, tight and strong)',
    (n) => {
      fc.assert(
        fc.property(constraintsArb(n, 4 * n, -3, 40), fc.boolean(), (cons, tight) => {
          const kind = tight ? 'int' : 'real';
          const F = createOctagonDomain({ engine: 'f64', kind });
          const X = createOctagonDomain({ engine: 'exact', kind });
          const rawOrNull = F.fromConstraints(n, cons).rawMatrix() as Float64Array | null;
          if (!rawOrNull) {
            expect(X.fromConstraints(n, cons).isEmpty()).toBe(true); // a trivially false constraint (0 ≤ c < 0)
            return;
          }
          const raw = rawOrNull;
          const simd = Float64Array.from(raw);
          const js = Float64Array.from(raw);
          const okSimd = closeF64(simd, n, tight);
          const okJs = closeF64(js, n, tight, { simd: false });
          const exact = X.fromConstraints(n, cons).closedMatrix();
          expect(okSimd).toBe(exact !== null);
          expect(okJs).toBe(exact !== null);
          if (exact) {
            expect(Array.from(simd)).toEqual(Array.from(js));
            expect(Array.from(simd, (v) => Rational.fromNumber(v).toString())).toEqual(
              Array.from(exact as ArrayLike<Rational>, String),
            );
          }
        }),
        { numRuns: 30 },
      );
    },
  );
});
