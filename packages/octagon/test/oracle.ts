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

/**
 * The maximum of `objective` subject to `rows` by HiGHS (LP over the reals, MIP over the integers
 * for `kind: 'int'`, every variable free): a number, `null` when unbounded, NaN when infeasible.
 * HiGHS's MIP presolve called feasible problems infeasible (see lp.test.ts): it is off.
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
  const text = [
    `Maximize\n obj: ${linear(objective)}`,
    'Subject To',
    ...rows.map((r, k) => ` r${k}: ${linear(r.terms)} ${r.op} ${r.rhs}`),
    ' z: 1 zero = 0',
    'Bounds',
    ...all.map((v) => ` ${v} free`),
    ...(integers.length > 0 ? ['Generals', ` ${integers.join(' ')}`] : []),
    'End',
  ].join('\n');
  const options = integers.length > 0 ? { output_flag: false, presolve: 'off' } : { output_flag: false };
  const r = highs.solve(text, options as never);
  const constant = Object.values(objective).every((a) => a === 0);
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
      const opt = maximize(cellForm(i, j, prefix), rows, vars, o.kind);
      if (opt === null) expect(cell.isInf).toBe(true);
      else if (mode === 'sound') expect(cell.isInf || cell.toNumber() >= opt - 1e-9).toBe(true);
      else expect(!cell.isInf && Math.abs(cell.toNumber() - opt) < 1e-9).toBe(true);
    }
  }
}
