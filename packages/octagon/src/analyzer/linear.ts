/**
 * The analyzer's arithmetic on its syntax: linear forms with rational coefficients, interval
 * products, negated conditions, and the printing of expressions.
 * @module
 */
import type { Rounding } from '../dbm/apron/tree';
import type { LinearExpr } from '../dbm/constraints';
import { Rational } from '../numbers/rational';
import type { Cond, Expr, RelOp } from './parse';

/** A linear form with rational coefficients over the analyzer's variable indices. */
export interface Lin {
  readonly coeffs: Map<number, Rational>;
  readonly constant: Rational;
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

export function konst(c: bigint | Rational): Lin {
  return { coeffs: new Map(), constant: typeof c === 'bigint' ? Rational.of(c) : c };
}

export function scale(a: Lin, k: bigint | Rational): Lin {
  const r = typeof k === 'bigint' ? Rational.of(k) : k;
  return { coeffs: new Map([...a.coeffs].map(([v, c]) => [v, c.mul(r)])), constant: a.constant.mul(r) };
}

export function add(a: Lin, b: Lin): Lin {
  const coeffs = new Map(a.coeffs);
  for (const [v, c] of b.coeffs) coeffs.set(v, (coeffs.get(v) ?? Rational.ZERO).add(c));
  return { coeffs, constant: a.constant.add(b.constant) };
}

/** Whether the form takes integer values wherever the variables `isInt` accepts are integers. */
export function integral(l: Lin, isInt: (v: number) => boolean): boolean {
  if (!l.constant.isInteger) return false;
  for (const [v, c] of l.coeffs) if (c.num !== 0n && !(c.isInteger && isInt(v))) return false;
  return true;
}

export function toLinear(l: Lin): LinearExpr {
  return {
    terms: [...l.coeffs].filter(([, c]) => c.num !== 0n).map(([v, c]) => [v, c] as const),
    constant: l.constant,
  };
}

/** How an explicit rounding prints (`_i,0`, `_r`, as written). */
function roundingText(r: Rounding | undefined): string {
  if (!r) return '';
  if (r.type === 'real') return '_r';
  const dirs = { nearest: 'n', zero: '0', up: '+oo', down: '-oo', any: '?' } as const;
  return `_i,${dirs[r.dir ?? 'any']}`;
}

export function ratFloor(r: Rational): bigint {
  return r.floor().num;
}

export function show(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return `${e.value}`;
    case 'decimal':
      return e.text;
    case 'var':
      return e.name;
    case 'unknown':
      return '?';
    case 'index':
      return `${e.array}[${show(e.index)}]`;
    case 'neg':
      return `-${show(e.arg)}`;
    case 'bin':
      return `(${show(e.left)} ${e.op}${roundingText(e.round)} ${show(e.right)})`;
  }
}
