/**
 * APRON's dimension operators on octagons: adding dimensions at any position (`add_dimensions`
 * with a `dimchange`), forgetting with or without projection (`forget_array`), `expand` and `fold`.
 * @module
 */
import { OctagonDimensionError } from '../../errors';
import { halfSize, matPos } from '../layout';
import { Octagon } from '../octagon';

function checkVar<T>(o: Octagon<T>, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v >= o.dim)
    throw new OctagonDimensionError(`variable ${v} out of range 0…${o.dim - 1}`);
}

/**
 * Inserts one new variable before each of the `positions` (APRON's `dimchange`: indices in the
 * old numbering, `0 … dim`, sorted, repeats allowed — `[0, 0, 2]` inserts two variables before
 * x0 and one before x2). The new variables are unconstrained, or 0 with `project`; in a `real`
 * octagon they are integers with `integer: true`.
 *
 * @example
 * ```ts
 * const o = createOctagonDomain({ engine: 'exact' }).fromBox([{ lo: 1, hi: 1 }, { lo: 2, hi: 2 }]);
 * addDimensionsAt(o, [1]).bound(2); // { lo: 2, hi: 2 }: x1 moved to x2, a new x1 between them
 * ```
 */
export function addDimensionsAt<T>(
  o: Octagon<T>,
  positions: readonly number[],
  options: { readonly project?: boolean; readonly integer?: boolean } = {},
): Octagon<T> {
  positions.forEach((p, k) => {
    if (!Number.isInteger(p) || p < 0 || p > o.dim || (k > 0 && p < (positions[k - 1] as number)))
      throw new OctagonDimensionError(
        `add_dimensions: positions [${positions.join(', ')}] are not sorted indices in 0…${o.dim}`,
      );
  });
  const k = positions.length;
  // old variable v goes to v + #{positions ≤ v}; the t-th new one (appended at dim + t) to positions[t] + t
  const perm: number[] = [];
  let t = 0;
  for (let v = 0; v < o.dim; v++) {
    while (t < k && (positions[t] as number) <= v) t++;
    perm.push(v + t);
  }
  for (let u = 0; u < k; u++) perm.push((positions[u] as number) + u);
  let out = o.addDimensions(k, { integer: options.integer === true }).permute(perm);
  if (options.project) {
    for (let u = 0; u < k; u++) out = out.assignInterval((positions[u] as number) + u, 0, 0);
  }
  return out;
}

/**
 * Forgets the variables (APRON's `forget_array`): they become unconstrained (the projection of
 * the octagon on the other variables), or, with `project`, 0 (APRON's `project = true`). Closes
 * first; the result is closed.
 *
 * @example
 * ```ts
 * forgetVars(D.fromBox([{ lo: 1, hi: 2 }]), [0], { project: true }).bound(0); // { lo: 0, hi: 0 }
 * ```
 */
export function forgetVars<T>(
  o: Octagon<T>,
  vars: readonly number[],
  options: { readonly project?: boolean } = {},
): Octagon<T> {
  let out = o.forget(vars);
  if (options.project) for (const v of vars) out = out.assignInterval(v, 0, 0);
  return out;
}

/**
 * Adds `count` copies of variable `v` at the end (APRON's `expand`): each copy has the
 * constraints `v` has with the other variables and alone, none with `v` or the other copies
 * beyond what closure derives. Closes first; the result is not closed.
 *
 * @example
 * ```ts
 * expand(D.fromConstraints(2, [{ i: 0, si: 1, j: 1, sj: -1, c: 0 }]), 0, 1).upperBound(1, 2, -1, 1); // 0: x2 ≤ x1
 * ```
 */
export function expand<T>(o: Octagon<T>, v: number, count: number): Octagon<T> {
  checkVar(o, v);
  if (!Number.isInteger(count) || count < 0) throw new OctagonDimensionError(`expand: bad count ${count}`);
  const B = o.bounds;
  const n = o.dim + count;
  const c = o.closedMatrix();
  let flags: Uint8Array | null = null;
  if (o.integers) {
    flags = new Uint8Array(n);
    flags.set(o.integers);
    flags.fill(o.integers[v] ?? 0, o.dim);
  }
  if (!c) return new Octagon(B, o.kind, n, null, true, flags);
  const m = B.alloc(halfSize(n));
  for (let p = 0; p < c.length; p++) m[p] = c[p] as T; // old rows come first
  for (let u = o.dim; u < n; u++) {
    // the nodes of copy u play the roles of v's nodes
    for (let a = 0; a < 2; a++) {
      for (let w = 0; w < o.dim; w++) {
        if (w === v) continue;
        for (let b = 0; b < 2; b++) {
          m[matPos(2 * u + a, 2 * w + b)] = c[matPos(2 * v + a, 2 * w + b)] as T;
          m[matPos(2 * w + b, 2 * u + a)] = c[matPos(2 * w + b, 2 * v + a)] as T;
        }
      }
      m[matPos(2 * u + a, 2 * u + (a ^ 1))] = c[matPos(2 * v + a, 2 * v + (a ^ 1))] as T;
      m[matPos(2 * u + a, 2 * u + a)] = B.zero;
    }
  }
  return new Octagon(B, o.kind, n, m, false, flags);
}

/**
 * Folds the variables into the first of them (APRON's `fold`): `vars[0]` gets the join of the
 * constraints of each of `vars` (each projected alone and renamed), and the others are removed.
 * The result is closed.
 *
 * @example
 * ```ts
 * fold(D.fromBox([{ lo: 0, hi: 1 }, { lo: 5, hi: 6 }]), [0, 1]).bound(0); // { lo: 0, hi: 6 }
 * ```
 */
export function fold<T>(o: Octagon<T>, vars: readonly number[]): Octagon<T> {
  for (const v of vars) checkVar(o, v);
  if (new Set(vars).size !== vars.length || vars.length === 0)
    throw new OctagonDimensionError(`fold: [${vars.join(', ')}] must be distinct variables`);
  if (new Set(vars.map((v) => o.isIntegerVar(v))).size > 1)
    throw new OctagonDimensionError(`fold: [${vars.join(', ')}] mixes integer and real variables`);
  const [first] = vars as [number];
  let acc: Octagon<T> | null = null;
  for (const v of vars) {
    let one = o.forget(vars.filter((w) => w !== v));
    if (v !== first) {
      const perm = [...Array(o.dim).keys()];
      perm[v] = first;
      perm[first] = v;
      one = one.permute(perm);
    }
    acc = acc === null ? one : acc.join(one);
  }
  return (acc as Octagon<T>).removeDimensions(vars.slice(1));
}
