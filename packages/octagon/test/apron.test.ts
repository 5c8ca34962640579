import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addDimensionsAt,
  addEpsilon,
  addEpsilonBin,
  boundLinear,
  createOctagonDomain,
  expand,
  fold,
  forgetVars,
  joinArray,
  type LinearExpr,
  matPos,
  meetArray,
  type Octagon,
  type OctagonKind,
  parallelAssign,
  type Rational,
  satConstraint,
  satInterval,
  substitute,
} from '../src/index';
import { constraintsArb } from './arbitraries';
import { expectOracle, loadOracle, maximize, octRows, type Row } from './oracle';

beforeAll(loadOracle);

const N = 3;
const kinds: OctagonKind[] = ['real', 'int'];
const xs = Array.from({ length: N }, (_, v) => `x${v}`);
const ys = Array.from({ length: N }, (_, v) => `y${v}`);

/** A linear form over N variables: octagonal (±x ± y + c, a·x + c) or general. */
const octagonalExpr = fc.oneof(
  fc
    .record({
      i: fc.integer({ min: 0, max: N - 1 }),
      j: fc.integer({ min: 0, max: N - 1 }),
      si: fc.constantFrom(1, -1),
      sj: fc.constantFrom(1, -1),
      c: fc.integer({ min: -5, max: 5 }),
    })
    .map(
      ({ i, j, si, sj, c }): LinearExpr => ({
        terms:
          i === j
            ? [[i, si]]
            : [
                [i, si],
                [j, sj],
              ],
        constant: c,
      }),
    ),
  fc
    .record({
      i: fc.integer({ min: 0, max: N - 1 }),
      a: fc.integer({ min: -3, max: 3 }),
      c: fc.integer({ min: -5, max: 5 }),
    })
    .map(({ i, a, c }): LinearExpr => ({ terms: [[i, a]], constant: c })),
);
const generalExpr = fc
  .record({
    coefs: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: N, maxLength: N }),
    lo: fc.integer({ min: -4, max: 4 }),
    width: fc.nat(3),
  })
  .map(
    ({ coefs, lo, width }): LinearExpr => ({
      terms: coefs.map((a, v) => [v, a] as [number, number]),
      constant: { lo, hi: lo + width },
    }),
  );

function formOf(e: LinearExpr, prefix = 'x'): Record<string, number> {
  const t: Record<string, number> = {};
  for (const [v, a] of e.terms) t[`${prefix}${v}`] = (t[`${prefix}${v}`] ?? 0) + Number(a);
  return t;
}
function constantEnds(e: LinearExpr): [number, number] {
  const c = e.constant ?? 0;
  if (typeof c === 'object' && c !== null && 'lo' in c) return [Number(c.lo), Number(c.hi)];
  return [Number(c), Number(c)];
}
const negate = (t: Record<string, number>) => Object.fromEntries(Object.entries(t).map(([v, a]) => [v, -a]));
const num = (r: Rational | null | undefined) => (r === null || r === undefined ? null : r.toNumber());

describe.each(kinds)('APRON operators against HiGHS (%s)', (kind) => {
  const X = createOctagonDomain({ engine: 'exact', kind });
  const F = createOctagonDomain({ engine: 'f64', kind });

  it('bound_linexpr: sound, exact on octagonal forms; sat_lincons and sat_interval agree', () => {
    fc.assert(
      fc.property(
        constraintsArb(N, 6, -2, 8),
        fc.oneof(octagonalExpr, generalExpr),
        fc.boolean(),
        (cons, e, useF) => {
          const o = (useF ? F : X).fromConstraints(N, cons) as Octagon<unknown>;
          const b = boundLinear(o, e);
          const rows = octRows(cons);
          if (Number.isNaN(maximize({}, rows, xs, kind))) {
            expect(b).toBeNull();
            return;
          }
          expect(b).not.toBeNull();
          const [clo, chi] = constantEnds(e);
          const maxT = maximize(formOf(e), rows, xs, kind);
          const minT = maximize(negate(formOf(e)), rows, xs, kind);
          const hi = maxT === null ? null : maxT + chi;
          const lo = minT === null ? null : -minT + clo;
          const exact =
            e.terms.filter(([, a]) => Number(a) !== 0).length <= 2 &&
            constantEnds(e)[0] === constantEnds(e)[1];
          const octagonal =
            exact && (e.terms.length === 1 || e.terms.every(([, a]) => Math.abs(Number(a)) === 1));
          if (hi === null) expect(b?.hi).toBeNull();
          else if (octagonal) expect(num(b?.hi)).toBeCloseTo(hi, 9);
          else expect(b?.hi === null || (num(b?.hi) as number) >= hi - 1e-9).toBe(true);
          if (lo === null) expect(b?.lo).toBeNull();
          else if (octagonal) expect(num(b?.lo)).toBeCloseTo(lo, 9);
          else expect(b?.lo === null || (num(b?.lo) as number) <= lo + 1e-9).toBe(true);
          // sat_lincons e ≤ 0: true only when the maximum is ≤ 0; exactly then for octagonal forms
          const sat = satConstraint(o, { expr: e, op: '<=' });
          if (sat) expect(hi !== null && hi <= 1e-9).toBe(true);
          if (octagonal) expect(sat).toBe(hi !== null && hi <= 1e-9);
          // sat_interval x_i ∈ [−1, 4]: exact
          const [v] = e.terms[0] as [number, number];
          const mx = maximize({ [`x${v}`]: 1 }, rows, xs, kind);
          const mn = maximize({ [`x${v}`]: -1 }, rows, xs, kind);
          expect(satInterval(o, v, -1, 4)).toBe(mx !== null && mx <= 4 && mn !== null && -mn >= -1);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('parallel assignment: the octagonal hull of the image for octagonal forms, sound otherwise', () => {
    fc.assert(
      fc.property(
        constraintsArb(N, 6, -2, 8),
        fc.uniqueArray(fc.integer({ min: 0, max: N - 1 }), { minLength: 1, maxLength: N }),
        fc.array(fc.oneof(octagonalExpr, generalExpr), { minLength: N, maxLength: N }),
        (cons, targets, exprs) => {
          const es = targets.map((_, t) => exprs[t] as LinearExpr);
          const r = parallelAssign(X.fromConstraints(N, cons), targets, es);
          const rows: Row[] = [...octRows(cons)];
          for (let v = 0; v < N; v++) {
            const t = targets.indexOf(v);
            if (t < 0) rows.push({ terms: { [`y${v}`]: 1, [`x${v}`]: -1 }, op: '=', rhs: 0 });
            else {
              const e = es[t] as LinearExpr;
              const [lo, hi] = constantEnds(e);
              const terms = { ...negate(formOf(e)), [`y${v}`]: 1 };
              rows.push({ terms, op: '>=', rhs: lo }, { terms, op: '<=', rhs: hi });
            }
          }
          const unit = (e: LinearExpr) => {
            const nz = e.terms.filter(([, a]) => Number(a) !== 0);
            return nz.length === 0 || (nz.length === 1 && Math.abs(Number(nz[0]?.[1])) === 1);
          };
          const mode = es.every(unit) && kind === 'real' ? 'tight' : 'sound';
          expectOracle(r, rows, [...xs, ...ys], mode);
          // the f64 engine is never tighter than the oracle
          expectOracle(
            parallelAssign(F.fromConstraints(N, cons), targets, es).toExact(),
            rows,
            [...xs, ...ys],
            'sound',
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('substitution (backward assignment): exact for octagonal forms, sound otherwise', () => {
    fc.assert(
      fc.property(
        constraintsArb(N, 6, -2, 8),
        fc.uniqueArray(fc.integer({ min: 0, max: N - 1 }), { minLength: 1, maxLength: 2 }),
        fc.array(fc.oneof(octagonalExpr, generalExpr), { minLength: 2, maxLength: 2 }),
        (cons, targets, exprs) => {
          const es = targets.map((_, t) => exprs[t] as LinearExpr);
          const r = substitute(X.fromConstraints(N, cons), targets, es);
          // result y; the constraints hold at w = y[targets ↦ e(y)]
          const rows: Row[] = [...octRows(cons, 'w')];
          for (let v = 0; v < N; v++) {
            const t = targets.indexOf(v);
            if (t < 0) rows.push({ terms: { [`w${v}`]: 1, [`y${v}`]: -1 }, op: '=', rhs: 0 });
            else {
              const e = es[t] as LinearExpr;
              const [lo, hi] = constantEnds(e);
              const terms = { ...negate(formOf(e, 'y')), [`w${v}`]: 1 };
              rows.push({ terms, op: '>=', rhs: lo }, { terms, op: '<=', rhs: hi });
            }
          }
          const octagonalOne = (e: LinearExpr) => {
            const nz = e.terms.filter(([, a]) => Number(a) !== 0);
            return nz.length === 0 || (nz.length === 1 && Math.abs(Number(nz[0]?.[1])) === 1);
          };
          const mode = es.every(octagonalOne) && kind === 'real' ? 'tight' : 'sound';
          const ws = Array.from({ length: N }, (_, v) => `w${v}`);
          expectOracle(r, rows, [...ws, ...ys], mode);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('forget with and without projection: the projection of the octagon', () => {
    fc.assert(
      fc.property(
        constraintsArb(N, 6, -2, 8),
        fc.uniqueArray(fc.integer({ min: 0, max: N - 1 }), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        (cons, vars, project) => {
          const r = forgetVars(X.fromConstraints(N, cons), vars, { project });
          const rows: Row[] = [...octRows(cons)];
          for (let v = 0; v < N; v++) {
            if (!vars.includes(v)) rows.push({ terms: { [`y${v}`]: 1, [`x${v}`]: -1 }, op: '=', rhs: 0 });
            else if (project) rows.push({ terms: { [`y${v}`]: 1 }, op: '=', rhs: 0 });
          }
          expectOracle(r, rows, [...xs, ...ys], kind === 'real' ? 'tight' : 'sound');
        },
      ),
      { numRuns: 20 },
    );
  });

  it('expand: the octagonal hull of {(x, u) | x ∈ o, x[v ↦ u] ∈ o}; fold undoes it', () => {
    fc.assert(
      fc.property(constraintsArb(N, 6, -2, 8), fc.integer({ min: 0, max: N - 1 }), (cons, v) => {
        const o = X.fromConstraints(N, cons);
        const e = expand(o, v, 1);
        const renamed = cons.map((c) => ({ ...c, i: c.i === v ? N : c.i, j: c.j === v ? N : c.j }));
        const rows: Row[] = [...octRows(cons), ...octRows(renamed)];
        for (let w = 0; w <= N; w++) rows.push({ terms: { [`y${w}`]: 1, [`x${w}`]: -1 }, op: '=', rhs: 0 });
        expectOracle(e, rows, [...xs, `x${N}`, ...ys, `y${N}`], kind === 'real' ? 'tight' : 'sound');
        expect(fold(e, [v, N]).equals(o)).toBe(true);
        expect(
          fold(F.fromConstraints(N, cons), [0, 1])
            .toExact()
            .equals(fold(o, [0, 1])),
        ).toBe(true);
      }),
      { numRuns: 20 },
    );
  });
});

describe('APRON operators against the exact engine', () => {
  const X = createOctagonDomain({ engine: 'exact', kind: 'int' });
  const F = createOctagonDomain({ engine: 'f64', kind: 'int' });

  it('fold: the join of each folded variable renamed onto the first, the others removed', () => {
    fc.assert(
      fc.property(constraintsArb(N), (cons) => {
        const o = X.fromConstraints(N, cons);
        const f = fold(o, [0, 2]);
        const as0 = o.forget([2]).removeDimensions([2]);
        const as2 = o.forget([0]).permute([2, 1, 0]).removeDimensions([2]);
        expect(f.equals(as0.join(as2))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('meet_array and join_array equal repeated meets and joins; f64 = exact', () => {
    fc.assert(
      fc.property(fc.array(constraintsArb(N), { minLength: 1, maxLength: 5 }), (all) => {
        const os = all.map((c) => X.fromConstraints(N, c));
        const joined = os.slice(1).reduce((a, b) => a.join(b), os[0] as (typeof os)[number]);
        const met = os.slice(1).reduce((a, b) => a.meet(b), os[0] as (typeof os)[number]);
        expect(joinArray(os).equals(joined)).toBe(true);
        expect(meetArray(os).equals(met)).toBe(true);
        const fs = all.map((c) => F.fromConstraints(N, c));
        expect(joinArray(fs).toExact().equals(joined)).toBe(true);
        expect(meetArray(fs).toExact().equals(met)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it('add_epsilon grows every finite cell by ε·max|cell|; add_epsilon_bin contains both', () => {
    fc.assert(
      fc.property(constraintsArb(N), constraintsArb(N), fc.integer({ min: 0, max: 4 }), (c1, c2, k) => {
        const R = createOctagonDomain({ engine: 'exact', kind: 'real' });
        const a = R.fromConstraints(N, c1);
        const eps = `${k}/4`;
        const r = addEpsilon(a, eps);
        expect(a.includedIn(r)).toBe(true);
        const am = a.closedMatrix();
        const rm = r.rawMatrix();
        if (am && rm) {
          let max = 0;
          for (let p = 0; p < am.length; p++)
            if (!(am[p] as Rational).isInf) max = Math.max(max, Math.abs((am[p] as Rational).toNumber()));
          for (let i = 0; i < 2 * N; i++)
            for (let j = 0; j <= (i | 1); j++) {
              const p = matPos(i, j);
              const before = am[p] as Rational;
              const after = rm[p] as Rational;
              if (before.isInf) expect(after.isInf).toBe(true);
              else expect(after.toNumber()).toBeCloseTo(before.toNumber() + (i === j ? 0 : (max * k) / 4), 9);
            }
        }
        const b = R.fromConstraints(N, c2);
        const bin = addEpsilonBin(a, b, eps);
        expect(a.includedIn(bin) && b.includedIn(bin)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it('adding dimensions at any position moves every constraint; removing them gives the octagon back', () => {
    fc.assert(
      fc.property(
        constraintsArb(N),
        fc
          .array(fc.integer({ min: 0, max: N }), { minLength: 1, maxLength: 4 })
          .map((p) => p.sort((a, b) => a - b)),
        fc.boolean(),
        (cons, positions, project) => {
          const o = X.fromConstraints(N, cons);
          const r = addDimensionsAt(o, positions, { project });
          expect(r.dim).toBe(N + positions.length);
          const fresh = positions.map((p, t) => p + t);
          const old = [...Array(r.dim).keys()].filter((v) => !fresh.includes(v));
          expect(r.removeDimensions(fresh).equals(o)).toBe(true);
          if (o.isEmpty()) return;
          for (let a = 0; a < N; a++)
            for (let b = 0; b < N; b++)
              for (const [sa, sb] of [
                [1, 1],
                [1, -1],
                [-1, 1],
                [-1, -1],
              ] as const)
                if (a !== b)
                  expect(String(r.upperBound(sa, old[a] as number, sb, old[b] as number))).toBe(
                    String(o.upperBound(sa, a, sb, b)),
                  );
          for (const f of fresh) {
            const bound = r.bound(f);
            if (project) expect([String(bound?.lo), String(bound?.hi)]).toEqual(['0', '0']);
            else expect(bound).toEqual({ lo: null, hi: null });
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('rejects unsorted positions, repeated targets and out-of-range variables', () => {
    const o = X.top(2);
    expect(() => addDimensionsAt(o, [2, 1])).toThrow(/not sorted/);
    expect(() => parallelAssign(o, [0, 0], [{ terms: [] }, { terms: [] }])).toThrow(/twice/);
    expect(() => substitute(o, [0], [{ terms: [[5, 1]] }])).toThrow(/out of range/);
    expect(() => fold(o, [0, 0])).toThrow(/distinct/);
  });
});
