import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BoundStore,
  createMatrixPool,
  createOctagonDomain,
  halfSize,
  Octagon,
  type OctagonDomain,
  type OctagonKind,
  type Sign,
} from '../src/index';

/** One operation of a random sequence, applied alike to a decomposed octagon and its dense twin. */
type Op =
  | { op: 'guard'; i: number; si: Sign; j: number | undefined; sj: Sign; c: number }
  | { op: 'forget'; v: number }
  | { op: 'assignVar'; x: number; s: Sign; y: number; c: number }
  | { op: 'assignInterval'; x: number; lo: number; hi: number }
  | { op: 'shift'; x: number; s: Sign; lo: number; hi: number }
  | { op: 'meet' | 'join'; with: Op[] }
  | { op: 'addDimension' };

const sign = fc.constantFrom<Sign>(1, -1);

/** Operations over `n` variables; pairs mostly near each other, so blocks stay small. */
function opArb(n: number, depth: number): fc.Arbitrary<Op> {
  const v = fc.integer({ min: 0, max: n - 1 });
  const near = (x: number, d: number) => Math.min(n - 1, Math.max(0, x + d));
  const base: fc.Arbitrary<Op>[] = [
    fc
      .record({
        i: v,
        si: sign,
        d: fc.integer({ min: -2, max: 2 }),
        unary: fc.boolean(),
        sj: sign,
        c: fc.integer({ min: -4, max: 12 }),
      })
      .map(({ i, si, d, unary, sj, c }) => ({
        op: 'guard' as const,
        i,
        si,
        j: unary ? undefined : near(i, d),
        sj,
        c,
      })),
    v.map((x) => ({ op: 'forget' as const, v: x })),
    fc
      .record({ x: v, s: sign, d: fc.integer({ min: -2, max: 2 }), c: fc.integer({ min: -3, max: 3 }) })
      .map(({ x, s, d, c }) => ({ op: 'assignVar' as const, x, s, y: near(x, d), c })),
    fc
      .record({ x: v, lo: fc.integer({ min: -3, max: 3 }), w: fc.integer({ min: 0, max: 4 }) })
      .map(({ x, lo, w }) => ({ op: 'assignInterval' as const, x, lo, hi: lo + w })),
    fc
      .record({ x: v, s: sign, lo: fc.integer({ min: -2, max: 2 }), w: fc.integer({ min: 0, max: 3 }) })
      .map(({ x, s, lo, w }) => ({ op: 'shift' as const, x, s, lo, hi: lo + w })),
  ];
  if (depth > 0) {
    const inner = fc.array(opArb(n, depth - 1), { minLength: 1, maxLength: 6 });
    base.push(
      fc.record({ op: fc.constantFrom<'meet' | 'join'>('meet', 'join'), with: inner }).map((r) => r as Op),
      fc.record({ op: fc.constantFrom<'meet' | 'join'>('join'), with: inner }).map((r) => r as Op),
      fc.constant<Op>({ op: 'addDimension' }), // at the top level only: the inner octagons have the outer's size
    );
  }
  return fc.oneof(...base);
}

function dense<T>(D: OctagonDomain<T>, o: Octagon<T>): Octagon<T> {
  const raw = o.rawMatrix();
  return new Octagon(D.bounds, D.kind, o.dim, raw && D.bounds.copy(raw), false);
}

function apply<T>(D: OctagonDomain<T>, o: Octagon<T>, op: Op, twin: boolean): Octagon<T> {
  switch (op.op) {
    case 'guard':
      return o.guard(op.j === undefined ? { i: op.i, si: op.si, c: op.c } : op);
    case 'forget':
      return o.forget([op.v]);
    case 'assignVar':
      return o.assignVar(op.x, op.s, op.y, op.c);
    case 'assignInterval':
      return o.assignInterval(op.x, op.lo, op.hi);
    case 'shift':
      return o.assignLinear(op.x, { terms: [[op.x, op.s]], constant: { lo: op.lo, hi: op.hi } });
    case 'addDimension':
      return o.addDimensions(1);
    default: {
      let other = D.top(o.dim);
      if (twin) other = dense(D, other);
      for (const inner of op.with) other = apply(D, other, inner, twin);
      return op.op === 'meet' ? o.meet(other) : o.join(other);
    }
  }
}

function sameClosure<T>(D: OctagonDomain<T>, a: Octagon<T>, b: Octagon<T>): boolean {
  if (a.isEmpty() !== b.isEmpty()) return false;
  const x = a.closedMatrix();
  const y = b.closedMatrix();
  if (!x || !y) return x === y;
  for (let p = 0; p < x.length; p++) if (!D.bounds.eq(x[p] as T, y[p] as T)) return false;
  return true;
}

describe('online decomposition (blocks kept by the operators)', () => {
  const cases: [string, 'exact' | 'f64', OctagonKind][] = [
    ['exact, int', 'exact', 'int'],
    ['exact, real', 'exact', 'real'],
    ['f64, int', 'f64', 'int'],
    ['f64, real', 'f64', 'real'],
  ];
  it.each(cases)('random sequences equal the dense engine cell for cell (%s)', (_, engine, kind) => {
    const D = createOctagonDomain({ engine, kind }) as OctagonDomain<unknown>;
    let decomposedSteps = 0;
    let steps = 0;
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 14 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(opArb(n, 1), { minLength: 1, maxLength: 14 }))),
        ([n, ops]) => {
          let o = D.top(n);
          let d = dense(D, o);
          for (const op of ops) {
            o = apply(D, o, op, false);
            d = apply(D, d, op, true);
            expect(d.blocks).toBeNull();
            steps++;
            if (o.blocks !== null) decomposedSteps++;
            if (!sameClosure(D, o, d)) {
              expect.fail(
                `after ${JSON.stringify(op)}: ${o.toString()} ≠ ${d.toString()} (blocks ${JSON.stringify(o.blocks)})`,
              );
            }
            expect(o.includedIn(d) && d.includedIn(o)).toBe(true);
          }
          return true;
        },
      ),
      { numRuns: 150 },
    );
    // the property is about decomposed octagons: most steps must have been on one
    expect(decomposedSteps / steps).toBeGreaterThan(0.5);
  });

  it('keeps blocks through guards, forget and joins, linking only related blocks', () => {
    const D = createOctagonDomain({ engine: 'exact', kind: 'int' });
    const o = D.fromConstraints(6, [
      { i: 0, si: 1, j: 1, sj: -1, c: 0 },
      { i: 2, si: 1, j: 3, sj: 1, c: 5 },
      { i: 4, si: 1, c: 7 },
    ]);
    expect(o.blocks).toEqual([[0, 1], [2, 3], [4], [5]]);
    expect(o.forget([1]).blocks).toEqual([[0], [1], [2, 3], [4], [5]]);
    // {x0 = x1 = 0} ⊔ {x0 = x1 = 1}: the join relates x0 and x1 (x0 − x1 = 0), as the dense join does
    const zero = D.fromBox(
      Array.from({ length: 6 }, (_, v) => (v < 2 ? { lo: 0, hi: 0 } : { lo: null, hi: null })),
    );
    const one = D.fromBox(
      Array.from({ length: 6 }, (_, v) => (v < 2 ? { lo: 1, hi: 1 } : { lo: null, hi: null })),
    );
    expect(zero.blocks).toEqual([[0], [1], [2], [3], [4], [5]]);
    const j = zero.join(one);
    expect(j.blocks).toEqual([[0, 1], [2], [3], [4], [5]]);
    expect(j.upperBound(1, 0, -1, 1)?.toString()).toBe('0');
    // both grow together: no relation is created between x2 and the others
    const a = D.fromBox(Array.from({ length: 6 }, (_, v) => (v === 2 ? { lo: 0, hi: 1 } : { lo: 0, hi: 0 })));
    const b = D.fromBox(Array.from({ length: 6 }, (_, v) => (v === 2 ? { lo: 0, hi: 3 } : { lo: 0, hi: 0 })));
    expect(a.join(b).blocks).toEqual([[0], [1], [2], [3], [4], [5]]);
  });

  it('joins into a pool matrix', () => {
    const D = createOctagonDomain({ engine: 'f64', kind: 'int' });
    const a = D.fromConstraints(8, [
      { i: 0, si: 1, j: 1, sj: -1, c: 2 },
      { i: 0, si: 1, c: 3 },
    ]);
    const b = D.fromConstraints(8, [
      { i: 0, si: 1, j: 1, sj: -1, c: 1 },
      { i: 5, si: -1, c: 3 },
    ]);
    const pool = createMatrixPool(8, { capacity: 1 });
    const into = pool.acquire();
    into.fill(-1); // whatever it held
    const j = a.join(b, { into });
    expect(j.rawMatrix()).toBe(into);
    expect(j.blocks).not.toBeNull();
    expect(j.equals(a.join(b))).toBe(true);
    expect(j.equals(dense(D as OctagonDomain<number>, a).join(dense(D as OctagonDomain<number>, b)))).toBe(
      true,
    );
  });

  it('the closure of a decomposed octagon touches only its blocks', () => {
    const D = createOctagonDomain({ engine: 'f64', kind: 'int' });
    // 64 variables in blocks of 4, each x_{4k} ≤ x_{4k+1} ≤ … ≤ 10: the dense closure relates
    // every pair through the bounds; the decomposed one keeps those cells +∞ until asked
    const cs = [];
    for (let v = 0; v < 64; v++) {
      if (v % 4 !== 3) cs.push({ i: v, si: 1 as Sign, j: v + 1, sj: -1 as Sign, c: 0 });
      else cs.push({ i: v, si: 1 as Sign, c: 10 });
    }
    const o = D.fromConstraints(64, cs);
    expect(o.blocks?.length).toBe(16);
    expect(o.isEmpty()).toBe(false);
    expect(o.bound(0)?.hi?.toString()).toBe('10');
    const m = o.closedMatrix() as BoundStore<number>;
    expect(m.length).toBe(halfSize(64));
    expect(sameClosure(D as OctagonDomain<number>, o, dense(D as OctagonDomain<number>, o))).toBe(true);
  });
});
