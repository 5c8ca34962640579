/**
 * The analyzer's arithmetic on its syntax: linear forms with integer coefficients, interval
 * products, negated conditions, and the printing of expressions.
 * @module
 */
import type { LinearExpr } from '../dbm/constraints';
import type { Rational } from '../numbers/rational';
import type { Cond, Expr, RelOp } from './parse';

/** A linear form with integer coefficients over the analyzer's variable indices. */
export interface Lin {
  readonly coeffs: Map<number, bigint>;
  readonly constant: bigint;
}

export function negate(c: Cond): Cond {
  switch (c.kind) {
    case 'const':
      return { kind: 'const', value: !c.value };
    case 'unknown':
      return c;
    case 'not':
      return c.arg;
    case 'and':
      return { kind: 'or', left: negate(c.left), right: negate(c.right) };
    case 'or':
      return { kind: 'and', left: negate(c.left), right: negate(c.right) };
    case 'rel': {
      const op: Record<RelOp, RelOp> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };
      return { ...c, op: op[c.op] };
    }
  }
}

/** An interval end: a number, or −∞ / +∞. */
type End = bigint | number;

/**
 * The product of two integer intervals (`null` ends unbounded): the least and greatest of the
 * products of their ends, with `0 · ∞ = 0` (an end of 0 bounds the product whatever the other).
 */
export function multiply(
  a: { lo: bigint | null; hi: bigint | null },
  b: { lo: bigint | null; hi: bigint | null },
): { lo: bigint | null; hi: bigint | null } {
  const ends = (x: typeof a): [End, End] => [x.lo ?? -Infinity, x.hi ?? Infinity];
  const times = (x: End, y: End): End => {
    if (x === 0n || y === 0n) return 0n;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x * y;
    const positive = x > 0 === y > 0;
    return positive ? Infinity : -Infinity;
  };
  const [al, ah] = ends(a);
  const [bl, bh] = ends(b);
  const ps = [times(al, bl), times(al, bh), times(ah, bl), times(ah, bh)];
  const lt = (x: End, y: End) =>
    typeof x === 'bigint' && typeof y === 'bigint' ? x < y : Number(x) < Number(y);
  let lo = ps[0] as End;
  let hi = ps[0] as End;
  for (const p of ps) {
    if (lt(p, lo)) lo = p;
    if (lt(hi, p)) hi = p;
  }
  return { lo: typeof lo === 'bigint' ? lo : null, hi: typeof hi === 'bigint' ? hi : null };
}

export function konst(c: bigint): Lin {
  return { coeffs: new Map(), constant: c };
}

export function scale(a: Lin, k: bigint): Lin {
  return { coeffs: new Map([...a.coeffs].map(([v, c]) => [v, c * k])), constant: a.constant * k };
}

export function add(a: Lin, b: Lin): Lin {
  const coeffs = new Map(a.coeffs);
  for (const [v, c] of b.coeffs) coeffs.set(v, (coeffs.get(v) ?? 0n) + c);
  return { coeffs, constant: a.constant + b.constant };
}

export function toLinear(l: Lin): LinearExpr {
  return {
    terms: [...l.coeffs].filter(([, c]) => c !== 0n).map(([v, c]) => [v, c] as const),
    constant: l.constant,
  };
}

export function ratFloor(r: Rational): bigint {
  return r.floor().num;
}

export function show(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return `${e.value}`;
    case 'var':
      return e.name;
    case 'unknown':
      return '?';
    case 'index':
      return `${e.array}[${show(e.index)}]`;
    case 'neg':
      return `-${show(e.arg)}`;
    case 'bin':
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
  }
}
