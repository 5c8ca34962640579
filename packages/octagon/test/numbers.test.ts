import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { f64Bounds } from '../src/numbers/bounds';
import { addUp, mulUp, nextDown, nextUp, Rational } from '../src/numbers/rational';

const MAX = Number.MAX_VALUE;
const exact = (x: number) => Rational.fromNumber(x);

/** `up` is the least double at or above `r` (+∞ past MAX_VALUE; −MAX_VALUE below −MAX_VALUE). */
function expectTightUp(r: Rational, up: number) {
  if (up === Number.POSITIVE_INFINITY) {
    expect(exact(MAX).compare(r)).toBe(-1);
    return;
  }
  expect(Number.isFinite(up)).toBe(true);
  expect(exact(up).compare(r)).toBeGreaterThanOrEqual(0);
  if (up !== -MAX) expect(exact(nextDown(up)).compare(r)).toBe(-1);
}

/** `down` is the greatest double at or below `r` (−∞ below −MAX_VALUE; MAX_VALUE above it). */
function expectTightDown(r: Rational, down: number) {
  if (down === Number.NEGATIVE_INFINITY) {
    expect(exact(-MAX).compare(r)).toBe(1);
    return;
  }
  expect(Number.isFinite(down)).toBe(true);
  expect(exact(down).compare(r)).toBeLessThanOrEqual(0);
  if (down !== MAX) expect(exact(nextUp(down)).compare(r)).toBe(1);
}

/** Rationals whose numerator, denominator or value leave the doubles: 2^k · n / d. */
const wideRationals = fc
  .tuple(
    fc.bigInt({ min: -(2n ** 90n), max: 2n ** 90n }),
    fc.bigInt({ min: 1n, max: 2n ** 70n }),
    fc.integer({ min: -1300, max: 1300 }),
  )
  .map(([n, d, k]) => (k >= 0 ? Rational.of(n << BigInt(k), d) : Rational.of(n, d << BigInt(-k))));

/** Doubles of every range: tiny and subnormal, ordinary, near MAX_VALUE. */
const doubles = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
  fc.integer({ min: -(2 ** 30), max: 2 ** 30 }).map((i) => i * 2 ** -1060),
);

describe('rounding rationals to doubles', () => {
  it('toNumber up / down give the nearest double on that side, for any size of numerator and denominator', () => {
    fc.assert(
      fc.property(fc.oneof(wideRationals, doubles.map(exact)), (r) => {
        expectTightUp(r, r.toNumber('up'));
        expectTightDown(r, r.toNumber('down'));
        // The nearest is one of the two, and no farther from r than the other.
        const [down, up, nearest] = [r.toNumber('down'), r.toNumber('up'), r.toNumber()];
        expect([down, up]).toContain(nearest);
        if (Number.isFinite(down) && Number.isFinite(up) && down !== up) {
          const other = nearest === down ? up : down;
          const distance = (x: number) => {
            const d = exact(x).sub(r);
            return d.compare(Rational.ZERO) < 0 ? d.neg() : d;
          };
          expect(distance(nearest).compare(distance(other))).toBeLessThanOrEqual(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('toNumber() rounds as Number() does: doubles to themselves, integers of any size ties to even', () => {
    fc.assert(
      fc.property(doubles, fc.bigInt({ min: -(2n ** 1100n), max: 2n ** 1100n }), (x, n) => {
        expect(Object.is(exact(x).toNumber() + 0, x + 0)).toBe(true);
        expect(Rational.of(n).toNumber()).toBe(Number(n));
      }),
      { numRuns: 2000 },
    );
    // Halfway between 2^53 and 2^53 + 2: to the even mantissa.
    expect(Rational.of(2n ** 53n + 1n).toNumber()).toBe(2 ** 53);
    expect(Rational.of(2n ** 53n + 3n).toNumber()).toBe(2 ** 53 + 4);
    expect(Rational.of(2n ** 1024n).toNumber()).toBe(Number.POSITIVE_INFINITY);
    expect(Rational.of(2n ** 1024n - 2n ** 971n).toNumber()).toBe(Number.MAX_VALUE);
  });

  it('rounds the cases one correction step left on the wrong side (found by stress runs)', () => {
    // Numerator past 2^53: Number(num) / Number(den) rounds three times.
    const big = Rational.of(9007199254740997n, 151n);
    expectTightUp(big, big.toNumber('up'));
    expectTightDown(big, big.toNumber('down'));
    // Numerator and denominator past MAX_VALUE (Number() gives ∞ / ∞ = NaN before).
    const huge = Rational.of(10n ** 400n + 1n, 3n * 10n ** 400n);
    expectTightUp(huge, huge.toNumber('up'));
    expectTightDown(huge, huge.toNumber('down'));
    expect(huge.toNumber()).toBeCloseTo(1 / 3, 15);
    // A denominator past MAX_VALUE with a normal value (0 and then 5e-324 before).
    const small = Rational.of(10n ** 300n, 10n ** 309n);
    expect(small.toNumber('up')).toBeGreaterThan(1e-10);
    expectTightUp(small, small.toNumber('up'));
  });
});

describe('upward arithmetic on doubles', () => {
  it('addUp and mulUp are at or above the exact sum and product', () => {
    fc.assert(
      fc.property(doubles, doubles, (a, b) => {
        const sum = addUp(a, b);
        if (sum !== Number.POSITIVE_INFINITY)
          expect(exact(sum).compare(exact(a).add(exact(b)))).toBeGreaterThanOrEqual(0);
        const product = mulUp(a, b);
        if (product !== Number.POSITIVE_INFINITY) {
          expect(exact(product).compare(exact(a).mul(exact(b)))).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('f64Bounds.mul (a guard or an assignment with a rational coefficient) is at or above the exact product', () => {
    fc.assert(
      fc.property(
        doubles,
        fc.integer({ min: -200, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        (a, p, q) => {
          const coefficient = Rational.of(p, q);
          const bound = f64Bounds.mul(a, coefficient);
          if (bound !== Number.POSITIVE_INFINITY) {
            expect(exact(bound).compare(exact(a).mul(coefficient))).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 2000 },
    );
    // The product one step left below the exact one before.
    const a = 198.02404045714573;
    expect(exact(f64Bounds.mul(a, Rational.of(167, 17))).compare(exact(a).mul(Rational.of(167, 17)))).toBe(1);
  });
});
