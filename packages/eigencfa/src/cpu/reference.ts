/**
 * The oracle: 0CFA straight from the abstract semantics of §2 over binary-CPS terms, independent of
 * the matrix encoding. The store maps variables (objects) to sets of lambda terms (objects); one
 * pass applies f̂_call for every call site (§2.5), passes repeat until the store stops changing.
 * Slow on purpose (sets of objects, full passes): for tests on small programs.
 * @module
 */
import { CfaAbortedError, MatrixFormatError } from '../errors';
import type { CpsCall, CpsExp, CpsLam, CpsVar } from '../frontend/cps';
import type { CfaMatrices } from '../matrix/program';
import { type CfaStore, storeFromRows } from '../store';

/** The abstract store σ̂ : Var → P(Lam). */
export type AbstractStore = Map<CpsVar, Set<CpsLam>>;

/**
 * Every call site of a program, in any order (each lambda's body once).
 *
 * @example
 * ```ts
 * collectCalls(convertToCps(expandProgram('((lambda (x) x) (lambda (y) y))').body).top).length; // 15
 * ```
 */
export function collectCalls(top: CpsCall): CpsCall[] {
  const calls: CpsCall[] = [];
  const seen = new Set<CpsLam>();
  const stack: (CpsExp | CpsCall)[] = [top];
  while (stack.length > 0) {
    const x = stack.pop() as CpsExp | CpsCall;
    if (x.t === 'call') {
      calls.push(x);
      stack.push(x.fn, x.a1, x.a2);
    } else if (x.t === 'lam' && !seen.has(x)) {
      seen.add(x);
      stack.push(x.body);
    }
  }
  return calls;
}

/**
 * Least fixpoint of F̂ = f̂_call1 ∘ … ∘ f̂_calln from ⊥ (§2.5), by full passes.
 *
 * @example
 * ```ts
 * const cps = convertToCps(expandProgram('((lambda (x) x) (lambda (y) y))').body);
 * const sigma = referenceCfa(cps.top); // Map from each formal to the lambdas bound to it
 * ```
 */
export function referenceCfa(top: CpsCall, signal?: AbortSignal): AbstractStore {
  const sigma: AbstractStore = new Map();
  const calls = collectCalls(top);
  const evaluate = (e: CpsExp): ReadonlySet<CpsLam> =>
    e.t === 'lam' ? new Set([e]) : (sigma.get(e.v) ?? new Set());
  const join = (v: CpsVar, values: ReadonlySet<CpsLam>): boolean => {
    let set = sigma.get(v);
    if (!set) {
      set = new Set();
      sigma.set(v, set);
    }
    let changed = false;
    for (const l of values) {
      if (!set.has(l)) {
        set.add(l);
        changed = true;
      }
    }
    return changed;
  };
  let changed = true;
  while (changed) {
    if (signal?.aborted) throw new CfaAbortedError('reference CFA cancelled', { cause: signal.reason });
    changed = false;
    for (const call of calls) {
      const l1 = evaluate(call.a1);
      const l2 = evaluate(call.a2);
      for (const lam of [...evaluate(call.fn)]) {
        // Arity-aware flows: a lambda is applied only at calls whose class its mask accepts.
        if (
          call.arityClass !== undefined &&
          lam.arityMask !== undefined &&
          !((lam.arityMask >>> call.arityClass) & 1)
        )
          continue;
        if (join(lam.v1, l1)) changed = true;
        if (join(lam.v2, l2)) changed = true;
      }
    }
  }
  return sigma;
}

/**
 * The oracle's store in the numbered rows of a program (lambdas must carry their numbers).
 *
 * @example
 * ```ts
 * const numbered = numberProgram(cps);
 * referenceStore(numbered.lambdas, referenceCfa(cps.top)).equals(solveCpuSparse(numbered.matrices).store); // true
 * ```
 */
export function referenceStore(lambdas: readonly CpsLam[], sigma: AbstractStore): CfaStore {
  const L = lambdas.length;
  const rows: number[][] = [];
  for (let l = 0; l < L; l++) rows.push([l]);
  for (const index of [0, 1] as const) {
    for (const lam of lambdas) {
      const v = index === 0 ? lam.v1 : lam.v2;
      rows.push([...(sigma.get(v) ?? [])].map((x) => x.id));
    }
  }
  return storeFromRows(rows);
}

/**
 * Rebuilds binary-CPS terms from look-up vectors numbered as the data folder and our front end do
 * (call 0 is the top call, call l+1 the body of λl), so the oracle can run on `.mat` inputs.
 *
 * @example
 * ```ts
 * const { top, lambdas } = decompileMatrices(await readMatricesDir('…/vhm/smallest'));
 * referenceStore(lambdas, referenceCfa(top));
 * ```
 */
export function decompileMatrices(m: CfaMatrices): { top: CpsCall; lambdas: CpsLam[] } {
  const L = m.lams;
  if (m.calls !== L + 1)
    throw new MatrixFormatError(
      '<matrices>',
      `cannot rebuild terms: ${m.calls} calls for ${L} lambdas (expected lams + 1)`,
    );
  const lambdas: CpsLam[] = [];
  const calls: CpsCall[] = [];
  for (let c = 0; c < m.calls; c++)
    calls.push({
      t: 'call',
      fn: null as unknown as CpsExp,
      a1: null as unknown as CpsExp,
      a2: null as unknown as CpsExp,
      id: c,
    });
  for (let l = 0; l < L; l++) {
    const lam = {
      t: 'lam',
      v1: { name: `a${l}`, binder: null, index: 0 },
      v2: { name: `b${l}`, binder: null, index: 1 },
      body: calls[l + 1] as CpsCall,
      origin: { kind: 'admin' },
      id: l,
    } as CpsLam;
    lam.v1.binder = lam;
    lam.v2.binder = lam;
    lambdas.push(lam);
  }
  const exp = (r: number): CpsExp => {
    if (r < L) return lambdas[r] as CpsLam;
    const lam = lambdas[r < 2 * L ? r - L : r - 2 * L] as CpsLam;
    return { t: 'ref', v: r < 2 * L ? lam.v1 : lam.v2 };
  };
  for (let c = 0; c < m.calls; c++) {
    const call = calls[c] as { fn: CpsExp; a1: CpsExp; a2: CpsExp };
    call.fn = exp(m.fun[c] as number);
    call.a1 = exp(m.arg1[c] as number);
    call.a2 = exp(m.arg2[c] as number);
    if (m.arity) (call as CpsCall).arityClass = m.arity.calls[c] as number;
  }
  if (m.arity) for (const lam of lambdas) lam.arityMask = m.arity.lambdas[lam.id] as number;
  return { top: calls[0] as CpsCall, lambdas };
}
