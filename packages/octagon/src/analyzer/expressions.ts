/**
 * The analyzer's expressions over one scope's variables: linear forms, intervals on a box, APRON
 * tree expressions (with each `/` and `%` rounded by the types), whether a condition holds on an
 * octagon, and the widening thresholds of a scope's constants.
 * @module
 */
import { boundLinear } from '../dbm/apron/queries';
import { boundTree, type TreeExpr } from '../dbm/apron/tree';
import type { Interval } from '../dbm/constraints';
import type { Octagon } from '../dbm/octagon';
import { Rational } from '../numbers/rational';
import { add, konst, type Lin, multiply, negate, ratFloor, scale, toLinear } from './linear';
import type { Cond, Expr, VarType } from './parse';
import { roundingOf, type ScopeTypes } from './typing';

type Oct = Octagon<unknown>;

/** C's conversion of a real to an integer: towards zero. */
export const TRUNCATE = { type: 'int', dir: 'zero' } as const;

/** At most this many thresholds from the decimals of a scope (each integer constant ± each decimal). */
const DECIMAL_THRESHOLDS = 256;

/**
 * The widening thresholds of a scope: its integer constants `c` and `c ± 1` (the unit step of
 * integer loops), and with decimals `d`, also `d` and `c ± d` (a real loop's step), sorted.
 */
export function thresholdsOf(constants: Set<bigint>, decimals: Rational[]): Rational[] {
  const out = new Map([...constants].map((c) => [`${c}`, Rational.of(c)]));
  let extra = 0;
  for (const d of decimals) {
    for (const c of [0n, ...constants]) {
      for (const t of [Rational.of(c).add(d), Rational.of(c).sub(d)]) {
        if (extra < DECIMAL_THRESHOLDS && !out.has(t.toString())) {
          out.set(t.toString(), t);
          extra++;
        }
      }
    }
  }
  return [...out.values()].sort((x, y) => x.compare(y));
}

/** Whether `e` divides (`/` or `%`) or rounds anywhere. */
export function divides(e: Expr): boolean {
  if (e.kind === 'bin') return e.op === '/' || e.op === '%' || divides(e.left) || divides(e.right);
  if (e.kind === 'neg') return divides(e.arg);
  return false;
}

/** The expressions of one scope: its variables by name, their types by name and by index. */
export class ScopeExpressions {
  constructor(
    readonly index: ReadonlyMap<string, number>,
    readonly types: ScopeTypes,
    readonly flags: readonly VarType[],
  ) {}

  /** The tree expression of `e` (APRON's `texpr`), each `/` and `%` with its rounding. */
  tree(e: Expr): TreeExpr {
    switch (e.kind) {
      case 'num':
      case 'decimal':
        return { op: 'const', value: e.value };
      case 'var':
        return { op: 'var', v: this.index.get(e.name) as number };
      case 'unknown':
      case 'index':
        return { op: 'interval', lo: null, hi: null };
      case 'neg':
        return { op: 'neg', arg: this.tree(e.arg) };
      case 'bin': {
        const round = roundingOf(e, this.types);
        const node = { op: e.op, left: this.tree(e.left), right: this.tree(e.right) };
        return round ? { ...node, round } : node;
      }
    }
  }

  /** The linear form of `e` (a real division by a constant included), or null where it is not linear. */
  lin(e: Expr): Lin | null {
    switch (e.kind) {
      case 'num':
      case 'decimal':
        return konst(e.value);
      case 'var': {
        const v = this.index.get(e.name);
        if (v === undefined) return null;
        return { coeffs: new Map([[v, Rational.ONE]]), constant: Rational.ZERO };
      }
      case 'unknown':
      case 'index':
        return null;
      case 'neg': {
        const a = this.lin(e.arg);
        return a && scale(a, -1n);
      }
      case 'bin': {
        const a = this.lin(e.left);
        const b = this.lin(e.right);
        if (!a || !b) return null;
        if (e.op === '%' || e.op === '/' || e.round) {
          // a real division by a non-zero constant is linear; the others round
          const real = roundingOf(e, this.types)?.type === 'real';
          if (e.op === '/' && real && b.coeffs.size === 0 && b.constant.num !== 0n)
            return scale(a, Rational.ONE.div(b.constant));
          return null;
        }
        if (e.op === '+') return add(a, b);
        if (e.op === '-') return add(a, scale(b, -1n));
        if (a.coeffs.size === 0) return scale(b, a.constant);
        if (b.coeffs.size === 0) return scale(a, b.constant);
        return null;
      }
    }
  }

  /** Interval of a (non-linear) expression on the box of `s`. */
  interval(e: Expr, s: Oct): { lo: bigint | null; hi: bigint | null } {
    const top = { lo: null, hi: null };
    switch (e.kind) {
      case 'num':
        return { lo: e.value, hi: e.value };
      case 'decimal':
        return { lo: ratFloor(e.value), hi: e.value.ceil().num };
      case 'var': {
        const b = s.bound(this.index.get(e.name) as number);
        if (!b) return top;
        return { lo: b.lo ? ratFloor(b.lo) : null, hi: b.hi ? b.hi.ceil().num : null };
      }
      case 'unknown':
      case 'index':
        return top;
      case 'neg': {
        const a = this.interval(e.arg, s);
        return { lo: a.hi === null ? null : -a.hi, hi: a.lo === null ? null : -a.lo };
      }
      case 'bin': {
        const a = this.interval(e.left, s);
        const b = this.interval(e.right, s);
        if (e.op === '+')
          return {
            lo: a.lo !== null && b.lo !== null ? a.lo + b.lo : null,
            hi: a.hi !== null && b.hi !== null ? a.hi + b.hi : null,
          };
        if (e.op === '-')
          return {
            lo: a.lo !== null && b.hi !== null ? a.lo - b.hi : null,
            hi: a.hi !== null && b.lo !== null ? a.hi - b.lo : null,
          };
        return multiply(a, b); // `*` (the expressions with `/` or `%` take the tree)
      }
    }
  }

  /** Whether `c` holds everywhere in `s` (closed), by the bounds of each comparison's `left − right`. */
  holds(c: Cond, s: Oct): boolean {
    switch (c.kind) {
      case 'const':
        return c.value;
      case 'unknown':
        return false;
      case 'and':
        return this.holds(c.left, s) && this.holds(c.right, s);
      case 'or':
        return this.holds(c.left, s) || this.holds(c.right, s);
      case 'not':
        return this.holds(negate(c.arg), s);
      case 'rel': {
        const l = this.lin(c.left);
        const r = this.lin(c.right);
        const b: Interval | null =
          l && r
            ? boundLinear(s, toLinear(add(l, scale(r, -1n))))
            : boundTree(s, { op: '-', left: this.tree(c.left), right: this.tree(c.right) });
        if (b === null) return true; // unreachable
        const below = b.hi !== null && b.hi.num <= 0n; // left − right ≤ 0 everywhere
        const above = b.lo !== null && b.lo.num >= 0n;
        const ops = {
          '<=': below,
          '<': b.hi !== null && b.hi.num < 0n,
          '>=': above,
          '>': b.lo !== null && b.lo.num > 0n,
          '==': below && above,
          '!=': (b.hi !== null && b.hi.num < 0n) || (b.lo !== null && b.lo.num > 0n),
        };
        return ops[c.op];
      }
    }
  }
}
