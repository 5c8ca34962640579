import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { closeF64, createClosureThreads, createOctagonDomain, halfSize, Rational } from '../src/index';
import { constraintsArb } from './arbitraries';

/** A dense random half matrix on the exact grid: integer cells in [lo, hi), some +∞, 0 diagonal. */
function denseArb(n: number, lo: number, hi: number): fc.Arbitrary<Float64Array> {
  return fc
    .tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 4 }))
    .map(([seed, infEvery]) => {
      let s = seed;
      const next = () => {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        return s / 2 ** 32;
      };
      const m = new Float64Array(halfSize(n));
      for (let p = 0; p < m.length; p++)
        m[p] =
          infEvery > 0 && next() < 1 / (infEvery + 1)
            ? Number.POSITIVE_INFINITY
            : lo + Math.floor(next() * (hi - lo));
      for (let i = 0; i < 2 * n; i++) m[(((i + 1) * (i + 1)) >> 1) + i] = 0;
      return m;
    });
}

const threads = createClosureThreads({ threads: 3 });
afterAll(() => threads?.destroy());

describe('cache-blocked f64 closure', () => {
  it('starts worker threads in Node', () => {
    expect(threads?.threads).toBe(3);
  });

  it.each([40, 90])(
    'with worker threads equals it cell for cell, and finds the same emptiness (%i variables)',
    (n) => {
      fc.assert(
        fc.property(denseArb(n, -1, 300), fc.boolean(), (raw, tight) => {
          const threaded = Float64Array.from(raw);
          const single = Float64Array.from(raw);
          const ok = closeF64(threaded, n, tight, { blocked: true, threads });
          expect(closeF64(single, n, tight, { blocked: true })).toBe(ok);
          if (ok) expect(threaded).toEqual(single);
          const dense = Float64Array.from(raw, (v) => (v < 0 ? 1 : v)); // non-empty
          const a = Float64Array.from(dense);
          const b = Float64Array.from(dense);
          expect(closeF64(a, n, tight, { blocked: true, threads })).toBe(true);
          expect(closeF64(b, n, tight, { blocked: false })).toBe(true);
          expect(a).toEqual(b);
        }),
        { numRuns: 5 },
      );
    },
  );

  // sizes around the pivot block (16 variables) and the panel chunk (8 columns): partial last blocks
  it.each([17, 23, 40, 70])(
    'equals the pivot-by-pivot SIMD sweep and the JavaScript loop cell for cell (%i variables, dense)',
    (n) => {
      fc.assert(
        fc.property(denseArb(n, 1, 1000), fc.boolean(), (raw, tight) => {
          const blocked = Float64Array.from(raw);
          const sweep = Float64Array.from(raw);
          const js = Float64Array.from(raw);
          const ok = closeF64(blocked, n, tight, { blocked: true });
          expect(closeF64(sweep, n, tight, { blocked: false })).toBe(ok);
          expect(closeF64(js, n, tight, { simd: false })).toBe(ok);
          expect(ok).toBe(true);
          expect(blocked).toEqual(sweep);
          expect(blocked).toEqual(js);
        }),
        { numRuns: 6 },
      );
    },
  );

  it("a domain's threads close its octagons; its octagons combine with those of a domain without", () => {
    const n = 260; // a domain's closures use its threads from 256 variables
    const T = createOctagonDomain({ engine: 'f64', kind: 'int', threads });
    const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
    for (const cons of fc.sample(constraintsArb(n, 6 * n, 0, 60), { numRuns: 2, seed: 7 })) {
      const a = T.fromConstraints(n, cons);
      const b = F.fromConstraints(n, cons);
      expect(a.isEmpty()).toBe(false); // constants ≥ 0: the origin is a point
      expect(a.equals(b)).toBe(true);
      expect(Array.from(a.closedMatrix() ?? [])).toEqual(Array.from(b.closedMatrix() ?? []));
      expect(a.join(b).equals(b)).toBe(true);
    }
  });

  it('finds the same emptiness on matrices with negative cells', () => {
    const n = 20;
    fc.assert(
      fc.property(denseArb(n, -3, 200), fc.boolean(), (raw, tight) => {
        const blocked = Float64Array.from(raw);
        const js = Float64Array.from(raw);
        const ok = closeF64(blocked, n, tight, { blocked: true });
        expect(closeF64(js, n, tight, { simd: false })).toBe(ok);
        if (ok) expect(blocked).toEqual(js);
      }),
      { numRuns: 20 },
    );
  });

  it('equals the exact engine on sparse random constraints (tight and strong)', () => {
    const n = 24;
    fc.assert(
      fc.property(constraintsArb(n, 4 * n, -3, 40), fc.boolean(), (cons, tight) => {
        const kind = tight ? 'int' : 'real';
        const raw = createOctagonDomain({ engine: 'f64', kind })
          .fromConstraints(n, cons)
          .rawMatrix() as Float64Array | null;
        const exact = createOctagonDomain({ engine: 'exact', kind }).fromConstraints(n, cons).closedMatrix();
        if (!raw) {
          expect(exact).toBeNull();
          return;
        }
        const blocked = Float64Array.from(raw);
        expect(closeF64(blocked, n, tight, { blocked: true })).toBe(exact !== null);
        if (exact)
          expect(Array.from(blocked, (v) => Rational.fromNumber(v).toString())).toEqual(
            Array.from(exact as ArrayLike<Rational>, String),
          );
      }),
      { numRuns: 20 },
    );
  });
});
