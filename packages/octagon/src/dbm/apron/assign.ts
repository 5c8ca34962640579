/**
 * APRON's parallel assignment (`assign_linexpr_array`) and substitution — backward assignment —
 * (`substitute_linexpr`, `substitute_linexpr_array`) on octagons.
 * @module
 */
import { OctagonDimensionError } from '../../errors';
import type { LinearExpr } from '../constraints';
import { linearConstant, linearTerms } from '../constraints';
import type { Octagon } from '../octagon';

function checkTargets<T>(
  o: Octagon<T>,
  xs: readonly number[],
  es: readonly LinearExpr[],
  what: string,
): void {
  if (xs.length !== es.length)
    throw new OctagonDimensionError(`${what}: ${xs.length} variables and ${es.length} expressions`);
  if (new Set(xs).size !== xs.length)
    throw new OctagonDimensionError(`${what}: a variable is assigned twice in [${xs.join(', ')}]`);
  for (const x of xs)
    if (!Number.isInteger(x) || x < 0 || x >= o.dim)
      throw new OctagonDimensionError(`variable ${x} out of range 0…${o.dim - 1}`);
  for (const e of es) linearTerms(e, o.dim);
}

/**
 * Parallel assignment `x₁, …, x_k := e₁, …, e_k` (APRON's `assign_linexpr_array`): every
 * expression reads the values before the assignment. Each `eᵢ` is assigned to a fresh variable
 * ({@link Octagon.assignLinear}: exact for `±y + c` and `±x + [a, b]`), the targets then take
 * their fresh copies (exact) and the copies are removed. The result is closed.
 *
 * @example
 * ```ts
 * const o = createOctagonDomain({ engine: 'exact' }).fromBox([{ lo: 1, hi: 1 }, { lo: 2, hi: 2 }]);
 * parallelAssign(o, [0, 1], [{ terms: [[1, 1]] }, { terms: [[0, 1]] }]).toBox(); // swap: x0 = 2, x1 = 1
 * ```
 */
export function parallelAssign<T>(
  o: Octagon<T>,
  xs: readonly number[],
  es: readonly LinearExpr[],
): Octagon<T> {
  checkTargets(o, xs, es, 'parallel assignment');
  const n = o.dim;
  let out = o.addDimensions(xs.length);
  es.forEach((e, t) => {
    out = out.assignLinear(n + t, e);
  });
  xs.forEach((x, t) => {
    out = out.assignVar(x, 1, n + t, 0);
  });
  return out.removeDimensions(xs.map((_, t) => n + t));
}

/**
 * Substitution `x₁, …, x_k ← e₁, …, e_k` (APRON's `substitute_linexpr_array`; backward
 * assignment): the points whose image by the parallel assignment lies in the octagon,
 * `{ v | v[xᵢ ↦ eᵢ(v)] ∈ o }`. The targets are renamed to fresh variables, the equalities
 * `x'ᵢ = eᵢ(v)` added as two linear guards ({@link Octagon.guardLinear}) and the fresh variables
 * projected away. Exact when every `eᵢ` is `±y + [a, b]` or an interval (the guards are then
 * octagonal); otherwise a sound superset. The result is closed.
 *
 * @example
 * ```ts
 * const o = createOctagonDomain({ engine: 'exact' }).fromBox([{ lo: 0, hi: 10 }]);
 * substitute(o, [0], [{ terms: [[0, 1]], constant: 1 }]).bound(0); // { lo: −1, hi: 9 }: x0 + 1 ∈ [0, 10]
 * ```
 */
export function substitute<T>(o: Octagon<T>, xs: readonly number[], es: readonly LinearExpr[]): Octagon<T> {
  checkTargets(o, xs, es, 'substitution');
  const n = o.dim;
  // fresh copies x'ᵢ take the constraints of the targets; the targets become unconstrained
  let out = o.addDimensions(xs.length);
  xs.forEach((x, t) => {
    out = out.assignVar(n + t, 1, x, 0);
  });
  out = out.forget(xs);
  es.forEach((e, t) => {
    const terms = linearTerms(e, n);
    const [clo, chi] = linearConstant(e);
    // x' = Σ aᵢxᵢ + c, c ∈ [clo, chi]:  x' − Σ − chi ≤ 0  and  Σ + clo − x' ≤ 0
    if (chi !== null)
      out = out.guardLinear({
        terms: [[n + t, 1], ...terms.map(([v, a]) => [v, a.neg()] as const)],
        constant: chi.neg(),
      });
    if (clo !== null) out = out.guardLinear({ terms: [[n + t, -1], ...terms], constant: clo });
  });
  return out.removeDimensions(xs.map((_, t) => n + t));
}
