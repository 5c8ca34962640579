import fc from 'fast-check';
import loadHighs from 'highs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createOctagonDomain,
  matPos,
  type OctagonKind,
  type OctConstraint,
  type Rational,
  toRational,
} from '../src/index';
import { constraintsArb } from './arbitraries';

type Highs = Awaited<ReturnType<typeof loadHighs>>;
let highs: Highs;
beforeAll(async () => {
  highs = await loadHighs();
});

const N = 3;

/** V_j − V_i as LP text (coefficients combined: V_{2k} = x_k, V_{2k+1} = −x_k). */
function objective(i: number, j: number): string {
  const coef = new Map<number, number>();
  coef.set(j >> 1, (coef.get(j >> 1) ?? 0) + (j & 1 ? -1 : 1));
  coef.set(i >> 1, (coef.get(i >> 1) ?? 0) - (i & 1 ? -1 : 1));
  const terms = [...coef]
    .filter(([, a]) => a !== 0)
    .map(([v, a]) => `${a > 0 ? '+' : '-'} ${Math.abs(a)} x${v}`);
  return terms.length > 0 ? terms.join(' ') : '0 x0';
}

/** max of V_j − V_i subject to the constraints, by HiGHS (MIP for integers); null when unbounded. */
function lpMax(cons: readonly OctConstraint[], i: number, j: number, kind: OctagonKind): number | null {
  const term = (s: number, v: number) => `${s > 0 ? '+' : '-'} x${v}`;
  const rows = cons.map((c, k) => {
    const rhs = toRational(c.c).toNumber();
    const lhs =
      c.j !== undefined && c.sj !== undefined ? `${term(c.si, c.i)} ${term(c.sj, c.j)}` : term(c.si, c.i);
    return ` c${k}: ${lhs} <= ${rhs}`;
  });
  const vars = Array.from({ length: N }, (_, v) => `x${v}`);
  const problem = `Maximize\n obj: ${objective(i, j)}\nSubject To\n${rows.join('\n')}\nBounds\n${vars.map((v) => ` ${v} free`).join('\n')}\n${kind === 'int' ? `Generals\n ${vars.join(' ')}\n` : ''}End`;
  const r = highs.solve(problem, { output_flag: false } as never);
  if (r.Status === 'Unbounded' || r.Status === 'Primal infeasible or unbounded') return null;
  if (r.Status === 'Infeasible') return Number.NaN;
  if (r.Status !== 'Optimal') throw new Error(`HiGHS: ${r.Status}`);
  return r.ObjectiveValue;
}

describe.each(['real', 'int'] as const)(
  'closure is tight: every finite bound is attained (HiGHS, %s)',
  (kind) => {
    it('each closed cell equals the LP (or MIP) optimum of the same constraints', () => {
      const D = createOctagonDomain({ engine: 'exact', kind });
      fc.assert(
        fc.property(constraintsArb(N, 6, -1, 8), (cons) => {
          const c = D.fromConstraints(N, cons).closedMatrix();
          const first = lpMax(cons, 0, 0, kind);
          if (!c) {
            expect(Number.isNaN(first)).toBe(true);
            return;
          }
          for (let i = 0; i < 2 * N; i++) {
            for (let j = 0; j < 2 * N; j++) {
              if (i === j) continue;
              const bound = c[matPos(i, j)] as Rational;
              const opt = lpMax(cons, i, j, kind);
              if (bound.isInf) expect(opt).toBeNull();
              else expect(opt !== null && Math.abs(opt - bound.toNumber()) < 1e-9).toBe(true);
            }
          }
        }),
        { numRuns: 25 },
      );
    });
  },
);
