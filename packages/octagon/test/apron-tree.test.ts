import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignTree,
  boundTree,
  createOctagonDomain,
  deserializeOctagon,
  guardTree,
  hashOctagon,
  type Octagon,
  OctagonError,
  type OctagonKind,
  type OctConstraint,
  Rational,
  type Rounding,
  satTree,
  serializeOctagon,
  substituteTree,
  type TreeExpr,
  toRational,
} from '../src/index';
import { constraintsArb } from './arbitraries';

const N = 3;
const BOX = 3;

const rounding: fc.Arbitrary<Rounding | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant<Rounding>({ type: 'real' }),
  fc
    .constantFrom<NonNullable<Rounding['dir']>>('nearest', 'zero', 'up', 'down', 'any')
    .map((dir): Rounding => ({ type: 'int', dir })),
);

const treeArb: fc.Arbitrary<TreeExpr> = fc.letrec<{ t: TreeExpr }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -4, max: 4 }).map((value): TreeExpr => ({ op: 'const', value })),
    fc.integer({ min: 0, max: N - 1 }).map((v): TreeExpr => ({ op: 'var', v })),
    fc
      .tuple(fc.integer({ min: -3, max: 3 }), fc.nat(3))
      .map(([lo, w]): TreeExpr => ({ op: 'interval', lo, hi: lo + w })),
    tie('t').map((arg): TreeExpr => ({ op: 'neg', arg })),
    fc
      .tuple(tie('t'), rounding)
      .map(([arg, round]): TreeExpr => ({ op: 'cast', arg, round: round ?? { type: 'int', dir: 'down' } })),
    fc
      .tuple(fc.constantFrom('+', '-', '*', '/', '%' as const), tie('t'), tie('t'), rounding)
      .map(
        ([op, left, right, round]): TreeExpr => (round ? { op, left, right, round } : { op, left, right }),
      ),
  ),
})).t;

function roundValue(x: Rational, r: Rounding | undefined, pickHigh: boolean): Rational {
  if (!r || r.type === 'real') return x;
  switch (r.dir) {
    case 'down':
      return x.floor();
    case 'up':
      return x.ceil();
    case 'zero':
      return x.num < 0n ? x.ceil() : x.floor();
    case 'nearest':
      return x.add(Rational.of(1, 2)).floor().sub(x).eq(Rational.of(1, 2)) && pickHigh
        ? x.floor()
        : x.add(Rational.of(1, 2)).floor();
    default:
      return pickHigh ? x.ceil() : x.floor();
  }
}

/** The value of a tree at a point (interval leaves and `any` rounding take their low or high choice); undefined on division by 0. */
function evaluate(t: TreeExpr, p: readonly Rational[], pickHigh: boolean): Rational | undefined {
  switch (t.op) {
    case 'const':
      return toRational(t.value);
    case 'interval':
      return toRational((pickHigh ? t.hi : t.lo) as number);
    case 'var':
      return p[t.v];
    case 'neg':
      return evaluate(t.arg, p, pickHigh)?.neg();
    case 'cast': {
      const a = evaluate(t.arg, p, pickHigh);
      return a && roundValue(a, t.round, pickHigh);
    }
  }
  const a = evaluate(t.left, p, pickHigh);
  const b = evaluate(t.right, p, pickHigh);
  if (!a || !b) return undefined;
  let v: Rational;
  if (t.op === '+') v = a.add(b);
  else if (t.op === '-') v = a.sub(b);
  else if (t.op === '*') v = a.mul(b);
  else {
    if (b.num === 0n) return undefined;
    const q = a.div(b);
    v = t.op === '/' ? q : a.sub(b.mul(q.num < 0n ? q.ceil() : q.floor()));
  }
  return roundValue(v, t.round, pickHigh);
}

function contains<T>(o: Octagon<T>, p: readonly Rational[]): boolean {
  const cons = o.toConstraints();
  if (!cons) return false;
  return cons.every((c) => {
    const v = Rational.of(c.si)
      .mul(p[c.i] as Rational)
      .add(
        c.j !== undefined && c.sj !== undefined ? Rational.of(c.sj).mul(p[c.j] as Rational) : Rational.ZERO,
      );
    return v.le(toRational(c.c));
  });
}

function boxed(cons: readonly OctConstraint[]): OctConstraint[] {
  const box: OctConstraint[] = [];
  for (let v = 0; v < N; v++) box.push({ i: v, si: 1, c: BOX }, { i: v, si: -1, c: BOX });
  return [...cons, ...box];
}

function* points(): Generator<Rational[]> {
  for (let a = -BOX; a <= BOX; a++)
    for (let b = -BOX; b <= BOX; b++)
      for (let c = -BOX; c <= BOX; c++) yield [a, b, c].map((x) => Rational.of(x));
}

describe.each(['int', 'real'] as OctagonKind[])(
  'tree expressions with / and %% and rounding (%s)',
  (kind) => {
    it('assignment, substitution, guards, bounds and tests contain the concrete semantics', () => {
      const D = createOctagonDomain({ engine: kind === 'int' ? 'exact' : 'f64', kind });
      fc.assert(
        fc.property(
          constraintsArb(N, 5, -1, 6),
          treeArb,
          fc.integer({ min: 0, max: N - 1 }),
          (cons, t, x) => {
            const o = D.fromConstraints(N, boxed(cons)) as Octagon<unknown>;
            const assigned = assignTree(o, x, t);
            const backward = substituteTree(o, x, t);
            const le = guardTree(o, t, '<=');
            const eq = guardTree(o, t, '=');
            const b = boundTree(o, t);
            const sat = satTree(o, t, '<=');
            for (const p of points()) {
              const inside = contains(o, p);
              for (const pickHigh of [false, true]) {
                const v = evaluate(t, p, pickHigh);
                if (v === undefined) continue;
                const image = p.map((w, k) => (k === x ? v : w));
                const integralImage = kind === 'real' || v.isInteger;
                if (inside) {
                  if (integralImage) expect(contains(assigned, image)).toBe(true);
                  expect(b !== null && (b.lo === null || b.lo.le(v)) && (b.hi === null || v.le(b.hi))).toBe(
                    true,
                  );
                  if (v.num <= 0n) expect(contains(le, p)).toBe(true);
                  if (v.num === 0n) expect(contains(eq, p)).toBe(true);
                  if (sat) expect(v.num <= 0n).toBe(true);
                }
                if (integralImage && contains(o, image)) expect(contains(backward, p)).toBe(true);
              }
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  },
);

describe('tree expressions: fixed cases', () => {
  const D = createOctagonDomain({ engine: 'exact', kind: 'int' });
  const x = (v: number): TreeExpr => ({ op: 'var', v });
  const c = (value: number): TreeExpr => ({ op: 'const', value });
  it('the bounds of a rounding are the bounds of its argument, rounded', () => {
    const R = createOctagonDomain({ engine: 'exact', kind: 'real' });
    const o = R.fromBox([
      { lo: '-5/2', hi: '19/2' },
      { lo: null, hi: null },
    ]);
    const cast = (dir: 'down' | 'up' | 'zero' | 'nearest' | 'any') => {
      const b = assignTree(o, 1, { op: 'cast', arg: x(0), round: { type: 'int', dir } }).bound(1);
      return [b?.lo?.toString(), b?.hi?.toString()];
    };
    // ⌊−5/2⌋ = −3, ⌊19/2⌋ = 9 (the linear form alone gives 19/2); nearest breaks ties either way
    expect(['down', 'up', 'zero', 'nearest', 'any'].map((d) => cast(d as 'down'))).toEqual([
      ['-3', '9'],
      ['-2', '10'],
      ['-2', '9'],
      ['-3', '10'],
      ['-3', '10'],
    ]);
  });

  it('C division and remainder of integers', () => {
    const o = D.fromBox([
      { lo: 0, hi: 9 },
      { lo: 0, hi: 100 },
    ]);
    const half = assignTree(o, 1, { op: '/', left: x(0), right: c(2), round: { type: 'int', dir: 'zero' } });
    // x0 ≥ 0 rounds down, and an integer over 2 lies within 1/2 above its floor: x0/2 − [1/2, 0]
    expect(half.bound(1)).toEqual({ lo: Rational.ZERO, hi: Rational.of(4) });
    const mod = assignTree(o, 1, { op: '%', left: x(0), right: c(4), round: { type: 'int', dir: 'zero' } });
    expect(mod.bound(1)).toEqual({ lo: Rational.ZERO, hi: Rational.of(3) });
    const small = assignTree(o, 1, {
      op: '%',
      left: x(0),
      right: c(10),
      round: { type: 'int', dir: 'zero' },
    });
    expect(small.upperBound(1, 1, -1, 0)?.toString()).toBe('0'); // x0 % 10 = x0 when 0 ≤ x0 < 10: x1 = x0
    const byZero = assignTree(o, 1, { op: '/', left: x(0), right: { op: 'interval', lo: -1, hi: 1 } });
    expect(byZero.bound(1)).toEqual({ lo: null, hi: null });
  });
});

describe('serialization and hashing', () => {
  it('round-trips the matrix as built cell for cell; equal octagons hash alike', () => {
    fc.assert(
      fc.property(constraintsArb(N), fc.integer({ min: 1, max: 9 }), fc.boolean(), (cons, den, exact) => {
        const frac = cons.map((k) => ({
          ...k,
          c: Rational.of(BigInt(Number(k.c)) * 7n + 1n, BigInt(den) * 3n),
        }));
        const D = createOctagonDomain({ engine: exact ? 'exact' : 'f64', kind: 'real' }) as ReturnType<
          typeof createOctagonDomain
        >;
        const o = D.fromConstraints(
          N,
          exact ? frac : frac.map((k) => ({ ...k, c: k.c.toNumber('up') })),
        ) as Octagon<unknown>;
        const back = deserializeOctagon(serializeOctagon(o)) as Octagon<unknown>;
        expect(back.engine).toBe(o.engine);
        const cells = (a: Octagon<unknown>) =>
          Array.from((a.rawMatrix() ?? []) as ArrayLike<unknown>, (v) => String(v));
        expect(cells(back)).toEqual(cells(o));
        expect(hashOctagon(back)).toBe(hashOctagon(o));
        expect(hashOctagon(o.close())).toBe(hashOctagon(o));
      }),
      { numRuns: 80 },
    );
  });
  it('rejects malformed text with an OctagonError', () => {
    const ok = serializeOctagon(createOctagonDomain({ engine: 'exact' }).top(1));
    expect(deserializeOctagon(ok).isTop()).toBe(true);
    for (const bad of [
      'nope',
      '{}',
      ok.replace('"dim":1', '"dim":2'),
      ok.replace('"0"', '"x"'),
      ok.replace('"version":1', '"version":9'),
    ])
      expect(() => deserializeOctagon(bad)).toThrow(OctagonError);
    const f64 = serializeOctagon(createOctagonDomain({ engine: 'f64' }).top(1)).replace('"inf"', '"1/3"');
    expect(() => deserializeOctagon(f64)).toThrow(/not a bound of the f64 engine/);
  });
});
