/**
 * Exact rationals on BigInt, with +∞ (the only infinity a DBM needs: bounds are upper bounds, so
 * −∞ never occurs; an empty octagon is represented by a flag, not by −∞ entries).
 * @module
 */

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * An exact rational number `num/den` (normalized, `den > 0`), or +∞ (`den === 0n`).
 *
 * @example
 * ```ts
 * const a = Rational.of(1, 3).add(Rational.of(1, 6)); // 1/2
 * a.toString(); // "1/2"
 * Rational.INF.isInf; // true
 * ```
 */
export class Rational {
  /** +∞. */
  static readonly INF = new Rational(1n, 0n, true);
  static readonly ZERO = new Rational(0n, 1n, true);
  static readonly ONE = new Rational(1n, 1n, true);
  readonly num: bigint;
  readonly den: bigint;

  private constructor(num: bigint, den: bigint, normalized: boolean) {
    if (!normalized) {
      if (den === 0n) throw new RangeError(`rational ${num}/0`);
      if (den < 0n) {
        num = -num;
        den = -den;
      }
      const g = gcd(num, den);
      if (g > 1n) {
        num /= g;
        den /= g;
      }
    }
    this.num = num;
    this.den = den;
  }

  /** `num/den` normalized. */
  static of(num: bigint | number, den: bigint | number = 1n): Rational {
    return new Rational(BigInt(num), BigInt(den), false);
  }

  /** The exact value of a finite double (every double is a dyadic rational); +∞ for `Infinity`. */
  static fromNumber(x: number): Rational {
    if (x === Number.POSITIVE_INFINITY) return Rational.INF;
    if (!Number.isFinite(x)) throw new RangeError(`no rational for ${x}`);
    if (Number.isInteger(x)) return new Rational(BigInt(x), 1n, true);
    let den = 1n;
    let v = x;
    while (!Number.isInteger(v)) {
      v *= 2;
      den *= 2n;
    }
    return Rational.of(BigInt(v), den);
  }

  /** Parses `-3`, `7/2`, `2.5`, `inf`. */
  static parse(text: string): Rational {
    const t = text.trim();
    if (/^\+?(inf|infinity|∞)$/i.test(t)) return Rational.INF;
    const frac = /^([+-]?\d+)\s*\/\s*(\d+)$/.exec(t);
    if (frac) return Rational.of(BigInt(frac[1] as string), BigInt(frac[2] as string));
    const dec = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(t);
    if (dec && (dec[2] || dec[3])) {
      const digits = dec[3] ?? '';
      const n = BigInt(`${dec[1]}${dec[2] || '0'}${digits}`);
      return Rational.of(n, 10n ** BigInt(digits.length));
    }
    throw new SyntaxError(`not a rational number: '${text}'`);
  }

  get isInf(): boolean {
    return this.den === 0n;
  }

  get isInteger(): boolean {
    return this.den === 1n;
  }

  add(o: Rational): Rational {
    if (this.den === 0n || o.den === 0n) return Rational.INF;
    if (this.den === o.den) return Rational.of(this.num + o.num, this.den);
    return Rational.of(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  /** Negation (finite values only). */
  neg(): Rational {
    if (this.den === 0n) throw new RangeError('negation of +∞');
    return new Rational(-this.num, this.den, true);
  }

  sub(o: Rational): Rational {
    return this.add(o.neg());
  }

  /** Product; +∞ times a positive number is +∞ (the caller never multiplies +∞ by 0 or a negative). */
  mul(o: Rational): Rational {
    if (this.den === 0n || o.den === 0n) {
      const other = this.den === 0n ? o : this;
      if (other.den !== 0n && other.num <= 0n) throw new RangeError('+∞ times a non-positive number');
      return Rational.INF;
    }
    return Rational.of(this.num * o.num, this.den * o.den);
  }

  /** Quotient by a finite non-zero rational (finite `this`). */
  div(o: Rational): Rational {
    if (o.den === 0n || o.num === 0n || this.den === 0n) throw new RangeError(`${this} / ${o}`);
    return Rational.of(this.num * o.den, this.den * o.num);
  }

  half(): Rational {
    if (this.den === 0n) return this;
    return Rational.of(this.num, this.den * 2n);
  }

  double(): Rational {
    if (this.den === 0n) return this;
    return Rational.of(this.num * 2n, this.den);
  }

  floor(): Rational {
    if (this.den === 0n || this.den === 1n) return this;
    const q = this.num / this.den;
    return new Rational(this.num < 0n && q * this.den !== this.num ? q - 1n : q, 1n, true);
  }

  ceil(): Rational {
    if (this.den === 0n || this.den === 1n) return this;
    return this.neg().floor().neg();
  }

  /** -1, 0 or 1; +∞ equals itself. */
  compare(o: Rational): number {
    if (this.den === 0n) return o.den === 0n ? 0 : 1;
    if (o.den === 0n) return -1;
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }

  lt(o: Rational): boolean {
    return this.compare(o) < 0;
  }

  le(o: Rational): boolean {
    return this.compare(o) <= 0;
  }

  eq(o: Rational): boolean {
    return this.num === o.num && this.den === o.den;
  }

  /**
   * The least double at or above (`'up'`) or the greatest at or below (`'down'`) this value, or
   * the nearest (`'nearest'`, ties to even, as `Number()` rounds), exactly this value when
   * representable. Past the doubles, `'up'` is +∞ and `'down'` −∞ (or ±`MAX_VALUE` on the side
   * that holds).
   */
  toNumber(direction: 'up' | 'down' | 'nearest' = 'nearest'): number {
    if (this.den === 0n) return Number.POSITIVE_INFINITY;
    const down = this.#greatestDoubleAtOrBelow();
    if (direction === 'down') return down;
    // The least double at or above: down itself when it is the value, else the next one up.
    const up =
      down === Number.NEGATIVE_INFINITY
        ? -Number.MAX_VALUE
        : Rational.fromNumber(down).compare(this) === 0
          ? down
          : nextUp(down);
    if (direction === 'up' || down === up) return up;
    // Nearest, ties to even; past MAX_VALUE and half an ulp, ±∞ (as IEEE rounds).
    if (up === Number.POSITIVE_INFINITY) return this.compare(OVERFLOW) >= 0 ? up : down;
    if (down === Number.NEGATIVE_INFINITY) return this.compare(OVERFLOW.neg()) <= 0 ? down : up;
    const c = this.sub(Rational.fromNumber(down)).compare(Rational.fromNumber(up).sub(this));
    if (c !== 0) return c < 0 ? down : up;
    scratch.setFloat64(0, down);
    return (scratch.getUint32(4) & 1) === 0 ? down : up;
  }

  /**
   * The greatest double at or below this finite value (−∞ below −MAX_VALUE). The quotient may be a
   * few ulps off on either side (num and den each rounded, then the division): it steps down onto
   * the value's side, then up while the next double stays there. A single step from the quotient
   * is not enough: it left f64 bounds below the exact ones (e.g. 198.02404045714573 · 167/17).
   */
  #greatestDoubleAtOrBelow(): number {
    const above = (y: number) => Rational.fromNumber(y).compare(this) > 0;
    let x = approximateQuotient(this.num, this.den);
    if (x === Number.POSITIVE_INFINITY) x = Number.MAX_VALUE;
    while (x !== Number.NEGATIVE_INFINITY && above(x)) x = nextDown(x);
    while (x !== Number.MAX_VALUE && !above(nextUp(x))) x = nextUp(x);
    return x;
  }

  toString(): string {
    if (this.den === 0n) return '+inf';
    return this.den === 1n ? `${this.num}` : `${this.num}/${this.den}`;
  }
}

/**
 * `num / den` (`den > 0`) within a few ulps, also where `num` or `den` is past the doubles or the
 * quotient is not a normal double (where `Number(num) / Number(den)` gives ∞, NaN or 0).
 */
function approximateQuotient(num: bigint, den: bigint): number {
  const n = Number(num);
  const d = Number(den);
  const x = n / d;
  if (Number.isFinite(n) && Number.isFinite(d) && (num === 0n || Math.abs(x) >= MIN_NORMAL)) return x;
  // A quotient of 64 bits scaled by 2^shift, in steps exact while the value stays a normal double
  // (below that they round, and the directed roundings step onto their side after).
  const magnitude = num < 0n ? -num : num;
  const shift = magnitude.toString(2).length - den.toString(2).length - 64;
  const q = shift >= 0 ? magnitude / (den << BigInt(shift)) : (magnitude << BigInt(-shift)) / den;
  let y = Number(q);
  let e = shift;
  for (; e > 1000; e -= 1000) y *= 2 ** 1000;
  for (; e < -1000; e += 1000) y *= 2 ** -1000;
  y *= 2 ** e;
  return num < 0n ? -y : y;
}

const MIN_NORMAL = 2 ** -1022;
/** MAX_VALUE plus half its ulp: where round-to-nearest goes to +∞. */
const OVERFLOW = Rational.of(2n ** 1024n - 2n ** 970n);
const scratch = new DataView(new ArrayBuffer(8));

/**
 * The least double above `x` (`x` finite or −∞).
 *
 * @example
 * ```ts
 * nextUp(1) === 1 + Number.EPSILON; // true
 * ```
 */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Number.POSITIVE_INFINITY) return x;
  if (x === 0) return Number.MIN_VALUE;
  scratch.setFloat64(0, x);
  const bits = scratch.getBigUint64(0);
  scratch.setBigUint64(0, x > 0 ? bits + 1n : bits - 1n);
  return scratch.getFloat64(0);
}

/**
 * The greatest double below `x`.
 *
 * @example
 * ```ts
 * nextDown(1) < 1; // true
 * ```
 */
export function nextDown(x: number): number {
  return -nextUp(-x);
}

const TWO53 = 2 ** 53;

/**
 * `a + b` rounded towards +∞ (exact when representable): plain addition when both are integers
 * whose sum is a safe integer, else Knuth's TwoSum gives the rounding error exactly (doubles round
 * to nearest) and the sum is moved one ulp up when the error is positive.
 *
 * @example
 * ```ts
 * addUp(0.1, 0.2) >= 0.30000000000000004; // true, and the exact sum is ≤ the result
 * ```
 */
export function addUp(a: number, b: number): number {
  const s = a + b;
  if (!Number.isFinite(s)) return s === Number.NEGATIVE_INFINITY ? -Number.MAX_VALUE : s;
  if (Number.isInteger(a) && Number.isInteger(b) && Math.abs(s) < TWO53) return s;
  const bb = s - a;
  const err = a - (s - bb) + (b - bb);
  return err > 0 ? nextUp(s) : s;
}

/**
 * `a * b` rounded towards +∞ (exact for safe-integer products).
 *
 * @example
 * ```ts
 * mulUp(3, 7); // 21 (exact); mulUp(0.1, 3) ≥ the exact product
 * ```
 */
export function mulUp(a: number, b: number): number {
  const p = a * b;
  if (Number.isNaN(p)) throw new RangeError(`${a} * ${b}`);
  if (!Number.isFinite(p)) return p === Number.NEGATIVE_INFINITY ? -Number.MAX_VALUE : p;
  if (Number.isInteger(a) && Number.isInteger(b) && Math.abs(p) < TWO53) return p;
  return Rational.fromNumber(a).mul(Rational.fromNumber(b)).toNumber('up');
}

/**
 * `a / 2` rounded towards +∞ (exact except in the subnormal range).
 *
 * @example
 * ```ts
 * halfUp(3); // 1.5
 * ```
 */
export function halfUp(a: number): number {
  const h = a / 2;
  return Math.abs(a) < 2 ** -1000 && h * 2 !== a ? nextUp(h) : h;
}
