import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellsEq, cellsLe, maxCells, minCells, narrowCells, widenCells } from '../src/dbm/elementwise';
import {
  createClosureThreads,
  createMatrixPool,
  createOctagonDomain,
  halfSize,
  type Octagon,
  OctagonDimensionError,
  OctagonPoolError,
} from '../src/index';
import { f64Bounds } from '../src/numbers/bounds';
import { constraintsArb } from './arbitraries';

const INF = Number.POSITIVE_INFINITY;

/** A cell value: +∞, a small integer (often repeated, so ties occur), a fraction or a large value. */
const cellArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(INF) },
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 5 }) },
  { weight: 1, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 0.5, -1e300, 1e300) },
);

/** Two half matrices over n variables (n up to 60). */
const pairArb = fc
  .integer({ min: 1, max: 60 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(cellArb, { minLength: halfSize(n), maxLength: halfSize(n) }),
      fc.array(cellArb, { minLength: halfSize(n), maxLength: halfSize(n) }),
    ),
  );

const reference: Record<string, (u: number, v: number) => number> = {
  max: (u, v) => Math.max(u, v),
  min: (u, v) => Math.min(u, v),
  widen: (u, v) => (v <= u ? u : INF),
  narrow: (u, v) => (u === INF ? v : u),
};

type Run = (a: Float64Array, b: Float64Array, n: number, into?: Float64Array) => Float64Array;
const runs: Record<string, Run> = {
  max: (a, b, _n, into) => maxCells(f64Bounds, a, b, into) as Float64Array,
  min: (a, b, _n, into) => minCells(f64Bounds, a, b, into) as Float64Array,
  widen: (a, b, n, into) => widenCells(f64Bounds, a, b, n, [], false, into) as Float64Array,
  narrow: (a, b, _n, into) => narrowCells(f64Bounds, a, b, into) as Float64Array,
};

/** Same values, with 0 and −0 told apart only by `===` (as the operators compare cells). */
function sameCells(x: ArrayLike<number>, y: ArrayLike<number>): boolean {
  if (x.length !== y.length) return false;
  for (let p = 0; p < x.length; p++) if (x[p] !== y[p]) return false;
  return true;
}

describe('cell-by-cell kernels (join, meet, widening, narrowing) on f64 matrices', () => {
  it('every path — fresh, into a plain array, into a pool in place, aliased — equals the reference', () => {
    fc.assert(
      fc.property(pairArb, ([n, ca, cb]) => {
        const pool = createMatrixPool(n, { capacity: 3 });
        expect(pool.simd).toBe(true); // Node has WebAssembly SIMD: the in-place kernel is what runs
        for (const [op, run] of Object.entries(runs)) {
          const f = reference[op] as (u: number, v: number) => number;
          const want = ca.map((u, p) => f(u, cb[p] as number));
          const a = Float64Array.from(ca);
          const b = Float64Array.from(cb);
          expect(sameCells(run(a, b, n), want)).toBe(true);
          const plain = new Float64Array(a.length);
          expect(run(a, b, n, plain)).toBe(plain);
          expect(sameCells(plain, want)).toBe(true);
          const [pa, pb, pd] = [pool.acquire(), pool.acquire(), pool.acquire()];
          pa.set(ca);
          pb.set(cb);
          expect(run(pa, pb, n, pd)).toBe(pd);
          expect(sameCells(pd, want)).toBe(true);
          expect(run(pa, pb, n, pa)).toBe(pa); // the destination is an argument
          expect(sameCells(pa, want)).toBe(true);
          expect(sameCells(pb, cb)).toBe(true); // the other argument is untouched
          for (const m of [pa, pb, pd]) pool.release(m);
        }
        return true;
      }),
      { numRuns: 60 },
    );
  });

  it('inclusion and equality read pool matrices in place and agree with the loop', () => {
    fc.assert(
      fc.property(pairArb, fc.boolean(), ([n, ca, cb], lower) => {
        const pool = createMatrixPool(n, { capacity: 2 });
        const a = Float64Array.from(ca);
        // half the time b is a above a cell by cell (inclusion holds), and sometimes a copy
        const b = lower
          ? Float64Array.from(ca, (u, p) => Math.max(u, cb[p] as number))
          : Float64Array.from(cb);
        const [pa, pb] = [pool.acquire(), pool.acquire()];
        pa.set(a);
        pb.set(b);
        const le = ca.every((u, p) => u <= (b[p] as number));
        expect(cellsLe(f64Bounds, pa, pb)).toBe(le);
        expect(cellsLe(f64Bounds, a, b)).toBe(le);
        expect(cellsEq(f64Bounds, pa, pb)).toBe(ca.every((u, p) => u === b[p]));
        pb.set(a);
        expect(cellsEq(f64Bounds, pa, pb)).toBe(true);
        expect(cellsLe(f64Bounds, pa, pb)).toBe(true);
        return true;
      }),
      { numRuns: 60 },
    );
  });
});

describe('pools on worker threads', () => {
  /** Cells of a seeded stream: +∞, small integers (ties), fractions, large values. */
  const cells = (count: number, seed: number): Float64Array => {
    let x = seed >>> 0 || 1;
    const next = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    return Float64Array.from({ length: count }, () => {
      const r = next();
      return r < 0.25 ? INF : r < 0.75 ? Math.floor(next() * 11) - 5 : (next() - 0.5) * 1e6;
    });
  };

  it('split each operator among the threads: every cell equals the reference, aliased too', () => {
    const threads = createClosureThreads({ threads: 3 });
    expect(threads).toBeDefined();
    try {
      for (const [n, seed] of [
        [256, 1],
        [300, 2],
      ] as const) {
        const pool = createMatrixPool(n, { capacity: 3, threads });
        expect(pool.threads).toBe(3);
        const ca = cells(halfSize(n), seed);
        const cb = cells(halfSize(n), seed + 100);
        for (const [op, run] of Object.entries(runs)) {
          const f = reference[op] as (u: number, v: number) => number;
          const want = ca.map((u, p) => f(u, cb[p] as number));
          const [pa, pb, pd] = [pool.acquire(), pool.acquire(), pool.acquire()];
          pa.set(ca);
          pb.set(cb);
          expect(run(pa, pb, n, pd)).toBe(pd);
          expect(sameCells(pd, want)).toBe(true);
          expect(run(pa, pb, n, pb)).toBe(pb); // into the second argument
          expect(sameCells(pb, want)).toBe(true);
          pb.set(cb);
          expect(run(pa, pb, n, pa)).toBe(pa); // into the first
          expect(sameCells(pa, want)).toBe(true);
          for (const m of [pa, pb, pd]) pool.release(m);
        }
      }
    } finally {
      threads?.destroy();
    }
  });

  it('run on the calling thread once the threads are destroyed', () => {
    const threads = createClosureThreads({ threads: 2 });
    const pool = createMatrixPool(256, { capacity: 3, threads });
    threads?.destroy();
    const [pa, pb, pd] = [pool.acquire(), pool.acquire(), pool.acquire()];
    pa.set(cells(pa.length, 7));
    pb.set(cells(pb.length, 8));
    expect(runs.max?.(pa, pb, 256, pd)).toBe(pd);
    expect(
      sameCells(
        pd,
        pa.map((u, p) => Math.max(u, pb[p] as number)),
      ),
    ).toBe(true);
  });
});

describe('operators into a destination', () => {
  const ops = {
    join: (a: Octagon<number>, b: Octagon<number>, into?: Float64Array) => a.join(b, { into }),
    meet: (a: Octagon<number>, b: Octagon<number>, into?: Float64Array) => a.meet(b, { into }),
    widen: (a: Octagon<number>, b: Octagon<number>, into?: Float64Array) => a.widen(b, [], { into }),
    widenRaw: (a: Octagon<number>, b: Octagon<number>, into?: Float64Array) =>
      a.widen(b, [], { into, left: 'raw' }),
    widenThresholds: (a: Octagon<number>, b: Octagon<number>, into?: Float64Array) =>
      a.widen(b, [-3, 4, 10], { into }),
    narrow: (a: Octagon<number>, b: Octagon<number>, into?: Float64Array) => a.narrow(b, { into }),
  };

  const pairOfOctagonsArb = fc
    .integer({ min: 1, max: 8 })
    .chain((n) => fc.tuple(fc.constant(n), constraintsArb(n, 2 * n, -2, 9), constraintsArb(n, 2 * n, -2, 9)));

  it.each(['int', 'real'] as const)('equal the plain operators on %s octagons (pool in place)', (kind) => {
    const D = createOctagonDomain({ engine: 'f64', kind });
    fc.assert(
      fc.property(pairOfOctagonsArb, ([n, ca, cb]) => {
        const pool = createMatrixPool(n, { capacity: 3 });
        // each argument's closed matrix copied into the pool (a join with itself), as an analyzer
        // keeping its iterates there would have them
        const inPool = (o: Octagon<number>) => (o.isEmpty() ? o : o.join(o, { into: pool.acquire() }));
        const a = inPool(D.fromConstraints(n, ca));
        const b = inPool(D.fromConstraints(n, cb));
        expect(a.equals(D.fromConstraints(n, ca))).toBe(true);
        for (const [name, op] of Object.entries(ops)) {
          const plain = op(a, b);
          const into = pool.acquire();
          const got = op(a, b, into);
          expect(got.equals(plain), name).toBe(true);
          expect(got.toDense('raw'), name).toEqual(plain.toDense('raw'));
          expect(got.isClosed, name).toBe(plain.isClosed);
          if (!a.isEmpty() && !b.isEmpty()) expect(got.rawMatrix(), name).toBe(into);
          pool.release(into); // `got` is dead from here on
        }
        return true;
      }),
      { numRuns: 80 },
    );
  });

  it('on the exact engine too', () => {
    const X = createOctagonDomain({ engine: 'exact', kind: 'int' });
    const a = X.fromConstraints(2, [{ i: 0, si: 1, j: 1, sj: -1, c: 1 }]);
    const b = X.fromConstraints(2, [{ i: 0, si: 1, c: 4 }]);
    const into = X.bounds.alloc(halfSize(2));
    const j = a.join(b, { into });
    expect(j.rawMatrix()).toBe(into);
    expect(j.equals(a.join(b))).toBe(true);
    expect(a.meet(b, { into: X.bounds.alloc(halfSize(2)) }).equals(a.meet(b))).toBe(true);
  });

  it('refuse a destination of the wrong size or engine', () => {
    const D = createOctagonDomain({ engine: 'f64' });
    const a = D.fromBox([{ lo: 0, hi: 1 }]);
    expect(() => a.join(a, { into: new Float64Array(3) })).toThrow(OctagonDimensionError);
    expect(() => a.meet(a, { into: new Float64Array(halfSize(2)) })).toThrow(OctagonDimensionError);
    const X = createOctagonDomain({ engine: 'exact' });
    const e = X.fromBox([{ lo: 0, hi: 1 }]);
    expect(() => e.join(e, { into: new Float64Array(halfSize(1)) as never })).toThrow(OctagonDimensionError);
  });
});

describe('matrix pools', () => {
  it('hand out distinct matrices and take them back', () => {
    const pool = createMatrixPool(3, { capacity: 2 });
    const m1 = pool.acquire();
    const m2 = pool.acquire();
    expect(m1).not.toBe(m2);
    expect(m1.length).toBe(halfSize(3));
    expect(m1.byteOffset % 16).toBe(0);
    expect(m2.byteOffset % 16).toBe(0);
    expect(pool.available).toBe(0);
    expect(() => pool.acquire()).toThrow(OctagonPoolError);
    pool.release(m1);
    expect(pool.available).toBe(1);
    expect(() => pool.release(m1)).toThrow(/already given back/);
    expect(() => pool.release(new Float64Array(halfSize(3)))).toThrow(/does not hold/);
    expect(pool.acquire()).toBe(m1);
  });

  it('refuse a nonsensical size', () => {
    expect(() => createMatrixPool(-1)).toThrow(OctagonPoolError);
    expect(() => createMatrixPool(4, { capacity: 0 })).toThrow(OctagonPoolError);
  });
});
