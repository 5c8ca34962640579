import loadHighs from 'highs';
import { expect } from 'vitest';
import {
  matPos,
  type Octagon,
  type OctagonKind,
  type OctConstraint,
  type Rational,
  toRational,
} from '../src/index';

/** A linear row `Σ coef·var (op) rhs` over named variables. */
export interface Row {
  readonly terms: Readonly<Record<string, number>>;
  readonly op: '<=' | '>=' | '=';
  readonly rhs: number;
}

type Highs = Awaited<ReturnType<typeof loadHighs>>;
let highs: Highs | undefined;

/** Loads HiGHS once (call in `beforeAll`). */
export async function loadOracle(): Promise<void> {
  highs ??= await loadHighs();
}

/** The HiGHS instance `loadOracle()` loaded, for tests that write their own LP text. */
export function oracleHighs(): Highs {
  if (!highs) throw new Error('loadOracle() first');
  return highs;
}

/** The rows of octagonal constraints over variables `prefix0, prefix1, …`. */
export function octRows(cons: readonly OctConstraint[], prefix = 'x'): Row[] {
  return cons.map((c) => {
    const terms: Record<string, number> = {};
    terms[`${prefix}${c.i}`] = c.si;
    if (c.j !== undefined && c.sj !== undefined)
      terms[`${prefix}${c.j}`] = (terms[`${prefix}${c.j}`] ?? 0) + c.sj;
    return { terms, op: '<=', rhs: toRational(c.c).toNumber() };
  });
}

function linear(terms: Readonly<Record<string, number>>): string {
  const parts = Object.entries(terms)
    .filter(([, a]) => a !== 0)
    .map(([v, a]) => `${a > 0 ? '+' : '-'} ${Math.abs(a)} ${v}`);
  return parts.length > 0 ? parts.join(' ') : '0 zero';
}

type Solution = ReturnType<Highs['solve']>;

function lpText(
  objective: Readonly<Record<string, number>>,
  rows: readonly Row[],
  all: readonly string[],
  integers: readonly string[],
): string {
  return [
    `Maximize\n obj: ${linear(objective)}`,
    'Subject To',
    ...rows.map((r, k) => ` r${k}: ${linear(r.terms)} ${r.op} ${r.rhs}`),
    ' z: 1 zero = 0',
    'Bounds',
    ...all.map((v) => ` ${v} free`),
    ...(integers.length > 0 ? ['Generals', ` ${integers.join(' ')}`] : []),
    'End',
  ].join('\n');
}

/** `Σ coef·point[var]`, exact for the small dyadic values the tests use. */
function valueAt(terms: Readonly<Record<string, number>>, point: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const [v, a] of Object.entries(terms)) s += a * (point.get(v) ?? 0);
  return s;
}

/**
 * The LP optimum's point snapped to the grid (integers for `integers`, quarters for the others),
 * when it satisfies every row exactly there; null otherwise. The tests' rows have integer
 * coefficients and right-hand sides in halves, so every value below is exact in a double.
 */
function integerWitness(
  r: Solution,
  rows: readonly Row[],
  all: readonly string[],
  integers: ReadonlySet<string>,
): Map<string, number> | null {
  if (!('Columns' in r)) return null;
  const columns = r.Columns as Record<string, { Primal: number }>;
  const point = new Map<string, number>();
  for (const v of all) {
    const x = columns[v]?.Primal ?? Number.NaN;
    const snapped = integers.has(v) ? Math.round(x) : Math.round(4 * x) / 4;
    if (!(Math.abs(x - snapped) < 1e-7)) return null;
    point.set(v, snapped);
  }
  const holds = rows.every((row) => {
    const lhs = valueAt(row.terms, point);
    return row.op === '<=' ? lhs <= row.rhs : row.op === '>=' ? lhs >= row.rhs : lhs === row.rhs;
  });
  return holds ? point : null;
}

/**
 * The maximum of `objective` subject to `rows` by HiGHS (LP over the reals, MIP over the integers
 * for `kind: 'int'`, every variable free): a number, `null` when unbounded, NaN when infeasible.
 *
 * With integer variables the LP relaxation comes first: its optimum is an upper bound of the
 * integer one, so when its optimal vertex is an integer point that satisfies every row exactly
 * (checked here, not trusted to HiGHS), that point's value is the integer optimum; an infeasible
 * relaxation means no integer point; an unbounded one, with some integer point, an unbounded integer
 * problem (Meyer: the integer hull of a rational polyhedron has its recession cone). Only the other
 * cases run HiGHS's MIP, which is what the suite's time goes to. HiGHS's MIP presolve called
 * feasible problems infeasible (see lp.test.ts): it is off.
 */
export function maximize(
  objective: Readonly<Record<string, number>>,
  rows: readonly Row[],
  vars: readonly string[],
  kind: OctagonKind | { readonly integers: readonly string[] },
): number | null {
  if (!highs) throw new Error('loadOracle() first');
  const all = [...new Set([...vars, 'zero'])];
  const integers = kind === 'int' ? all : kind === 'real' ? [] : kind.integers;
  const constant = Object.values(objective).every((a) => a === 0);
  const lp = highs.solve(lpText(objective, rows, all, []), { output_flag: false } as never);
  if (integers.length > 0) {
    if (lp.Status === 'Infeasible') return Number.NaN;
    if (lp.Status === 'Optimal') {
      const point = integerWitness(lp, rows, all, new Set(integers));
      if (point && Math.abs(valueAt(objective, point) - lp.ObjectiveValue) < 1e-9)
        return valueAt(objective, point);
    }
    if (lp.Status === 'Unbounded' && !Number.isNaN(maximize({}, rows, vars, kind) as number)) return null;
  }
  const r =
    integers.length > 0
      ? highs.solve(lpText(objective, rows, all, integers), { output_flag: false, presolve: 'off' } as never)
      : lp;
  if (r.Status === 'Primal infeasible or unbounded') return constant ? Number.NaN : null;
  if (r.Status === 'Unbounded') return null;
  if (r.Status === 'Infeasible') return Number.NaN;
  if (r.Status !== 'Optimal') throw new Error(`HiGHS: ${r.Status}`);
  return r.ObjectiveValue;
}

/** The octagonal form of cell `(i, j)`, `V_j − V_i` (`V_2k = x_k`, `V_2k+1 = −x_k`), over `prefix` names. */
export function cellForm(i: number, j: number, prefix = 'x'): Record<string, number> {
  const t: Record<string, number> = {};
  const add = (node: number, s: number) => {
    const v = `${prefix}${node >> 1}`;
    t[v] = (t[v] ?? 0) + s * (node & 1 ? -1 : 1);
  };
  add(j, 1);
  add(i, -1);
  return t;
}

/**
 * Checks that `cell` is at or above the maximum of `objective` subject to `rows`, which must have
 * a point of `kind`: +∞ exactly when that maximum is unbounded. The maximum over the reals bounds
 * the integer one, and is unbounded exactly when the integer one is (Meyer), so the integer
 * problem is solved only when the cell lies below the real maximum.
 */
export function expectAtOrAbove(
  cell: Rational,
  objective: Readonly<Record<string, number>>,
  rows: readonly Row[],
  vars: readonly string[],
  kind: OctagonKind | { readonly integers: readonly string[] },
  tolerance = 1e-9,
): void {
  const real = maximize(objective, rows, vars, 'real');
  if (real === null) {
    expect(cell.isInf).toBe(true);
    return;
  }
  if (cell.isInf || cell.toNumber() >= real - tolerance) return;
  const opt = kind === 'real' ? real : maximize(objective, rows, vars, kind);
  expect(opt !== null && cell.toNumber() >= opt - tolerance).toBe(true);
}

/**
 * Checks the closed cells of `o` (its variables named `prefix0…`) against the maxima of their
 * forms subject to `rows` over `vars`: each at or above (`sound`), or equal (`tight`; +∞ exactly
 * when unbounded). An infeasible problem must give an empty octagon when `tight`.
 */
export function expectOracle(
  o: Octagon<Rational>,
  rows: readonly Row[],
  vars: readonly string[],
  mode: 'sound' | 'tight',
  prefix = 'y',
): void {
  const m = o.closedMatrix();
  const feasible = !Number.isNaN(maximize({}, rows, vars, o.kind));
  if (!m) {
    expect(feasible).toBe(false);
    return;
  }
  if (!feasible) {
    if (mode === 'tight') expect(m).toBeNull();
    return;
  }
  for (let i = 0; i < 2 * o.dim; i++) {
    for (let j = 0; j <= (i | 1); j++) {
      if (i === j) continue;
      const cell = m[matPos(i, j)] as Rational;
      if (mode === 'sound') expectAtOrAbove(cell, cellForm(i, j, prefix), rows, vars, o.kind);
      else {
        const opt = maximize(cellForm(i, j, prefix), rows, vars, o.kind);
        if (opt === null) expect(cell.isInf).toBe(true);
        else expect(!cell.isInf && Math.abs(cell.toNumber() - opt) < 1e-9).toBe(true);
      }
    }
  }
}
