/**
 * APRON's tree expressions on octagons (`ap_texpr0`): `+ − × / %`, negation and casts, each
 * operation rounded to an integer in a direction or kept real. A tree is linearised to an
 * interval linear form (APRON's quasi-linearisation, `ap_intlinearize_texpr0`): sums and products by
 * constants stay linear, a product of two non-constant subtrees keeps one linear and bounds the
 * other by its interval on the octagon, a rounding adds its error interval, and `%` is evaluated on
 * intervals (or is the identity when the dividend is smaller than the divisor). The transfer
 * functions then use the linear ones: sound, and exact where those are.
 * @module
 */
import { Rational } from '../../numbers/rational';
import { type Interval, type LinearExpr, linearTerms, type NumberLike, toRational } from '../constraints';
import type { Octagon } from '../octagon';
import { substitute } from './assign';
import { boundLinear, type ConstraintOp, satConstraint } from './queries';

/**
 * How the result of an operation is rounded: to an integer (`int`; `zero` truncates as C's
 * integer division, `nearest` breaks ties either way, `any` is an unknown direction) or not at all
 * (`real`).
 */
export interface Rounding {
  readonly type: 'int' | 'real';
  readonly dir?: 'nearest' | 'zero' | 'up' | 'down' | 'any';
}

/**
 * A tree expression over the variables of an octagon.
 *
 * @example
 * ```ts
 * // (x0 + 1) / 2, truncated as in C
 * const t: TreeExpr = { op: '/', left: { op: '+', left: { op: 'var', v: 0 }, right: { op: 'const', value: 1 } },
 *   right: { op: 'const', value: 2 }, round: { type: 'int', dir: 'zero' } };
 * ```
 */
export type TreeExpr =
  | { readonly op: 'const'; readonly value: NumberLike }
  | { readonly op: 'interval'; readonly lo: NumberLike | null; readonly hi: NumberLike | null }
  | { readonly op: 'var'; readonly v: number }
  | { readonly op: 'neg'; readonly arg: TreeExpr }
  | { readonly op: 'cast'; readonly arg: TreeExpr; readonly round: Rounding }
  | {
      readonly op: '+' | '-' | '*' | '/' | '%';
      readonly left: TreeExpr;
      readonly right: TreeExpr;
      readonly round?: Rounding;
    };

/**
 * An interval linear form: scalar coefficients, an interval constant (`null`: infinite end), and
 * whether its value is an integer at every point (not only within the constant's bounds).
 */
interface Form {
  readonly terms: Map<number, Rational>;
  readonly lo: Rational | null;
  readonly hi: Rational | null;
  readonly integral?: boolean;
}

const TOP: Form = { terms: new Map(), lo: null, hi: null };
const addEnd = (a: Rational | null, b: Rational | null) => (a === null || b === null ? null : a.add(b));

function constant(lo: Rational | null, hi: Rational | null): Form {
  return { terms: new Map(), lo, hi };
}

function toExpr(f: Form): LinearExpr {
  return { terms: [...f.terms], constant: { lo: f.lo, hi: f.hi } };
}

function addForms(a: Form, b: Form): Form {
  const terms = new Map(a.terms);
  for (const [v, c] of b.terms) terms.set(v, (terms.get(v) ?? Rational.ZERO).add(c));
  for (const [v, c] of terms) if (c.num === 0n) terms.delete(v);
  return {
    terms,
    lo: addEnd(a.lo, b.lo),
    hi: addEnd(a.hi, b.hi),
    integral: a.integral === true && b.integral === true,
  };
}

function negForm(a: Form): Form {
  return {
    terms: new Map([...a.terms].map(([v, c]) => [v, c.neg()])),
    lo: a.hi === null ? null : a.hi.neg(),
    hi: a.lo === null ? null : a.lo.neg(),
    integral: a.integral === true,
  };
}

/** The product of two intervals (`null` ends infinite; 0·∞ = 0, as the ends are limits of finite values). */
function mulIntervals(a: Interval, b: Interval): Interval {
  const ends: (Rational | 'inf' | '-inf')[] = [];
  const prod = (x: Rational | null, xs: 1 | -1, y: Rational | null, ys: 1 | -1) => {
    if (x !== null && y !== null) return x.mul(y);
    const sx = x === null ? xs : Math.sign(Number(x.num));
    const sy = y === null ? ys : Math.sign(Number(y.num));
    if (sx === 0 || sy === 0) return Rational.ZERO;
    return sx * sy > 0 ? ('inf' as const) : ('-inf' as const);
  };
  ends.push(
    prod(a.lo, -1, b.lo, -1),
    prod(a.lo, -1, b.hi, 1),
    prod(a.hi, 1, b.lo, -1),
    prod(a.hi, 1, b.hi, 1),
  );
  let lo: Rational | null | undefined;
  let hi: Rational | null | undefined;
  for (const e of ends) {
    if (e === '-inf') lo = null;
    else if (e === 'inf') hi = null;
    else {
      if (lo !== null && (lo === undefined || e.lt(lo))) lo = e;
      if (hi !== null && (hi === undefined || hi.lt(e))) hi = e;
    }
  }
  return { lo: lo ?? null, hi: hi ?? null };
}

/** `f · [l, h]`: exact for a point, else `f·mid + interval(f)·[−r, r]` (quasi-linearisation). */
function scale<T>(o: Octagon<T>, f: Form, k: Interval): Form {
  if (k.lo !== null && k.hi !== null && k.lo.eq(k.hi)) {
    const c = k.lo;
    if (c.num === 0n) return constant(Rational.ZERO, Rational.ZERO);
    const terms = new Map([...f.terms].map(([v, a]) => [v, a.mul(c)]));
    const ends = mulIntervals({ lo: f.lo, hi: f.hi }, k);
    return { terms, lo: ends.lo, hi: ends.hi, integral: f.integral === true && c.isInteger };
  }
  const fi = intervalOf(o, f);
  if (f.terms.size === 0 || k.lo === null || k.hi === null) {
    const p = mulIntervals(fi, k);
    return constant(p.lo, p.hi);
  }
  const mid = k.lo.add(k.hi).half();
  const r = k.hi.sub(k.lo).half();
  return addForms(scale(o, f, { lo: mid, hi: mid }), constantOf(mulIntervals(fi, { lo: r.neg(), hi: r })));
}

function constantOf(i: Interval): Form {
  return constant(i.lo, i.hi);
}

/** The interval of a form on the octagon (⊤ when the octagon is empty: any value is sound there). */
function intervalOf<T>(o: Octagon<T>, f: Form): Interval {
  if (f.terms.size === 0) return { lo: f.lo, hi: f.hi };
  return boundLinear(o, toExpr(f)) ?? { lo: null, hi: null };
}

function reciprocal(i: Interval): Interval | null {
  // 1 / [l, h] for 0 ∉ [l, h]
  if (i.lo !== null && i.lo.num > 0n)
    return { lo: i.hi === null ? Rational.ZERO : Rational.ONE.div(i.hi), hi: Rational.ONE.div(i.lo) };
  if (i.hi !== null && i.hi.num < 0n)
    return { lo: Rational.ONE.div(i.hi), hi: i.lo === null ? Rational.ZERO : Rational.ONE.div(i.lo) };
  return null;
}

/** `a % b` (the remainder of the division truncated towards zero: the sign of `a`, `|a % b| < |b|`). */
function remainder<T>(o: Octagon<T>, a: Form, b: Form): Form {
  const integer = a.integral === true && b.integral === true;
  const ai = intervalOf(o, a);
  const bi = intervalOf(o, b);
  if (reciprocal(bi) === null) return TOP; // the divisor may be 0
  const minAbs = bi.lo !== null && bi.lo.num > 0n ? bi.lo : (bi.hi as Rational).neg();
  const maxAbs = bi.lo === null || bi.hi === null ? null : bi.hi.num > 0n ? bi.hi : bi.lo.neg();
  // |a| < min |b|: a % b = a
  if (ai.lo !== null && ai.hi !== null && ai.hi.lt(minAbs) && ai.lo.neg().lt(minAbs)) return a;
  const m = maxAbs === null ? null : integer ? maxAbs.ceil().sub(Rational.ONE) : maxAbs;
  const lo =
    ai.lo !== null && ai.lo.num >= 0n
      ? Rational.ZERO
      : m === null
        ? ai.lo
        : ai.lo === null || ai.lo.lt(m.neg())
          ? m.neg()
          : ai.lo;
  const hi =
    ai.hi !== null && ai.hi.num <= 0n
      ? Rational.ZERO
      : m === null
        ? ai.hi
        : ai.hi === null || m.lt(ai.hi)
          ? m
          : ai.hi;
  return { ...constant(lo, hi), integral: integer };
}

/**
 * Adds the error of rounding to an integer; the identity where the form is integral on integer
 * points. `step` bounds the error of a directed rounding: 1, or `(g − 1)/g` for a value on the
 * grid of `1/g` (an integer divided by the integer `g`: `⌊7/3⌋ ≥ 7/3 − 2/3`). Rounding towards
 * zero rounds down where the value is known non-negative, up where non-positive.
 */
function round<T>(o: Octagon<T>, f: Form, r: Rounding | undefined, step = Rational.ONE): Form {
  if (!r || r.type === 'real') return f;
  if (f.integral) return f;
  let dir = r.dir ?? 'any';
  if (dir === 'zero') {
    const i = intervalOf(o, f);
    if (i.lo !== null && i.lo.num >= 0n) dir = 'down';
    else if (i.hi !== null && i.hi.num <= 0n) dir = 'up';
  }
  const half = Rational.of(1, 2);
  const near = step.lt(half) ? step : half;
  const err: Record<NonNullable<Rounding['dir']>, [Rational, Rational]> = {
    down: [step.neg(), Rational.ZERO],
    up: [Rational.ZERO, step],
    zero: [step.neg(), step],
    nearest: [near.neg(), near],
    any: [step.neg(), step],
  };
  const [lo, hi] = err[dir];
  // the rounded value is an integer: a constant's ends round inward
  const out = { ...addForms(f, constant(lo, hi)), integral: true };
  if (out.terms.size > 0) return out;
  return {
    ...constant(out.lo === null ? null : out.lo.ceil(), out.hi === null ? null : out.hi.floor()),
    integral: true,
  };
}

/**
 * The interval linear form of a tree on the octagon, as a {@link LinearExpr} (its constant an
 * interval): every value of the tree at a point of the octagon lies in the form's range there.
 */
export function linearForm<T>(o: Octagon<T>, t: TreeExpr): LinearExpr {
  return toExpr(linearize(o, t));
}

/** The interval linear form of a tree on the octagon (APRON's quasi-linearisation). */
export function linearize<T>(o: Octagon<T>, t: TreeExpr): Form {
  switch (t.op) {
    case 'const': {
      const c = toRational(t.value);
      return { ...constant(c, c), integral: c.isInteger };
    }
    case 'interval':
      return constant(t.lo === null ? null : toRational(t.lo), t.hi === null ? null : toRational(t.hi));
    case 'var':
      linearTerms({ terms: [[t.v, 1]] }, o.dim);
      return {
        terms: new Map([[t.v, Rational.ONE]]),
        lo: Rational.ZERO,
        hi: Rational.ZERO,
        integral: o.isIntegerVar(t.v),
      };
    case 'neg':
      return negForm(linearize(o, t.arg));
    case 'cast':
      return round(o, linearize(o, t.arg), t.round);
  }
  const a = linearize(o, t.left);
  const b = linearize(o, t.right);
  switch (t.op) {
    case '+':
      return round(o, addForms(a, b), t.round);
    case '-':
      return round(o, addForms(a, negForm(b)), t.round);
    case '*':
      return round(
        o,
        b.terms.size === 0 ? scale(o, a, intervalOf(o, b)) : scale(o, b, intervalOf(o, a)),
        t.round,
      );
    case '/': {
      const bi = intervalOf(o, b);
      const inv = reciprocal(bi);
      if (inv === null) return TOP;
      // an integer over a constant integer g lies on the grid of 1/g
      const g = bi.lo !== null && bi.hi !== null && bi.lo.eq(bi.hi) && bi.lo.isInteger ? bi.lo : null;
      const step =
        a.integral === true && g !== null
          ? Rational.ONE.sub(Rational.ONE.div(g.num < 0n ? g.neg() : g))
          : undefined;
      return round(o, scale(o, a, inv), t.round, step);
    }
    case '%':
      return round(o, remainder(o, a, b), t.round);
  }
}

/**
 * `x := t` for a tree expression (APRON's `assign_texpr`): the tree's interval linear form is
 * assigned ({@link Octagon.assignLinear}). Sound; exact when the form is `±y + c` or `±x + [a, b]`.
 *
 * @example
 * ```ts
 * const o = createOctagonDomain({ engine: 'exact' }).fromBox([{ lo: 0, hi: 9 }]);
 * assignTree(o, 0, { op: '/', left: { op: 'var', v: 0 }, right: { op: 'const', value: 2 }, round: { type: 'int', dir: 'zero' } }).bound(0); // [−1, 5]
 * ```
 */
export function assignTree<T>(o: Octagon<T>, x: number, t: TreeExpr): Octagon<T> {
  let out = o.assignLinear(x, toExpr(linearize(o, t)));
  const b = roundedBounds(o, t);
  if (b?.hi) out = out.guard({ i: x, si: 1, c: b.hi });
  if (b?.lo) out = out.guard({ i: x, si: -1, c: b.lo.neg() });
  return out;
}

/**
 * The bounds of a tree whose last operation rounds to an integer: the ends of its argument's
 * interval, rounded (each rounding is monotone), so `⌊x⌋` of `x ≤ 9.5` is at most 9 where the
 * linear form (`x` and an error in [−1, 0]) only says 9.5. Null for any other tree.
 */
function roundedBounds<T>(o: Octagon<T>, t: TreeExpr): Interval | null {
  if (t.op !== 'cast' && !('round' in t && t.round)) return null;
  const r = t.round as Rounding;
  if (r.type !== 'int') return null;
  const arg =
    t.op === 'cast' ? linearize(o, t.arg) : linearize(o, { ...t, round: { type: 'real' } } as TreeExpr);
  if (arg.integral) return null;
  const i = intervalOf(o, arg);
  const half = Rational.of(1, 2);
  const ends: Record<NonNullable<Rounding['dir']>, (v: Rational, high: boolean) => Rational> = {
    down: (v) => v.floor(),
    up: (v) => v.ceil(),
    zero: (v) => (v.num < 0n ? v.ceil() : v.floor()),
    nearest: (v, high) => (high ? v.add(half).floor() : v.sub(half).ceil()),
    any: (v, high) => (high ? v.ceil() : v.floor()),
  };
  const end = ends[r.dir ?? 'any'];
  return { lo: i.lo === null ? null : end(i.lo, false), hi: i.hi === null ? null : end(i.hi, true) };
}

/** `x ← t` backward (APRON's `substitute_texpr`), through the tree's interval linear form. Sound. */
export function substituteTree<T>(o: Octagon<T>, x: number, t: TreeExpr): Octagon<T> {
  return substitute(o, [x], [toExpr(linearize(o, t))]);
}

/**
 * The guard `t op 0` for `op` among `<=`, `<` (as `<=` on reals; `t ≤ −1` would need integral
 * values), `=`; `!=` keeps the octagon (APRON's `meet_tcons`). Sound.
 *
 * @example
 * ```ts
 * guardTree(o, { op: '-', left: { op: 'var', v: 0 }, right: { op: 'const', value: 3 } }, '<=').bound(0); // hi 3
 * ```
 */
export function guardTree<T>(o: Octagon<T>, t: TreeExpr, op: ConstraintOp): Octagon<T> {
  const f = linearize(o, t);
  const e = toExpr(f);
  if (op === '!=') return o;
  // t ≤ 0 for some value of the constant: Σ + lo ≤ 0 (guardLinear uses the low end)
  let out = o.guardLinear(e);
  if (op === '=')
    out = out.guardLinear({
      terms: [...f.terms].map(([v, a]) => [v, a.neg()]),
      constant: { lo: f.hi === null ? null : f.hi.neg(), hi: f.lo === null ? null : f.lo.neg() },
    });
  return out;
}

/** The interval of a tree expression on the octagon (APRON's `bound_texpr`); `null` when empty. Sound. */
export function boundTree<T>(o: Octagon<T>, t: TreeExpr): Interval | null {
  if (o.isEmpty()) return null;
  return intervalOf(o, linearize(o, t));
}

/** Whether `t op 0` holds everywhere in the octagon (APRON's `sat_tcons`): `true` is certain. */
export function satTree<T>(o: Octagon<T>, t: TreeExpr, op: ConstraintOp): boolean {
  return satConstraint(o, { expr: toExpr(linearize(o, t)), op });
}
