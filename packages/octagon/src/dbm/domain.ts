/**
 * The octagon domain's factories over one number engine and kind.
 * @module
 */
import { type Bounds, boundsOf, type NumberEngine } from '../numbers/bounds';
import type { Rational } from '../numbers/rational';
import type { ClosureThreads } from './closure-threads';
import { type NumberLike, type OctagonKind, type OctConstraint, toRational } from './constraints';
import { halfSize, matPos } from './layout';
import { Octagon } from './octagon';
import { singletons } from './partition';

/** Options of {@link createOctagonDomain}. */
export interface OctagonDomainOptions<E extends NumberEngine = NumberEngine> {
  /** `exact` (BigInt rationals, the oracle) or `f64` (outward rounding; default). */
  readonly engine?: E;
  /** `int` (integer variables, tight closure; default) or `real` (strong closure). */
  readonly kind?: OctagonKind;
  /**
   * Worker threads ({@link createClosureThreads}) for the dense closures of the `f64` engine from
   * 256 variables; the caller owns them (`destroy()`). None by default: the closure runs on the
   * calling thread. Octagons of domains with and without threads combine.
   */
  readonly threads?: ClosureThreads | undefined;
}

/** Factories of octagons of one number engine and kind. */
export interface OctagonDomain<T> {
  readonly engine: NumberEngine;
  readonly kind: OctagonKind;
  readonly bounds: Bounds<T>;
  /** No constraint. */
  top(dim: number): Octagon<T>;
  /** The empty octagon. */
  bottom(dim: number): Octagon<T>;
  /** The conjunction of `constraints` (not closed). */
  fromConstraints(dim: number, constraints: readonly OctConstraint[]): Octagon<T>;
  /** The box `x_v ∈ box[v]` (closed). */
  fromBox(box: readonly { lo: NumberLike | null; hi: NumberLike | null }[]): Octagon<T>;
  /** An octagon from a full 2n×2n row-major matrix of bounds (coherence is enforced by taking the min of twin cells). */
  fromDense(dim: number, dense: ArrayLike<T>): Octagon<T>;
}

/**
 * The octagon domain over one number engine and kind.
 *
 * @example
 * ```ts
 * const D = createOctagonDomain({ engine: 'f64', kind: 'real' });
 * const o = D.fromBox([{ lo: 0, hi: 1 }, { lo: 0, hi: 2 }]);
 * o.assignLinear(0, { terms: [[0, 1], [1, 1]] }).bound(0); // { lo: 0, hi: 3 } (as Rationals)
 * ```
 */
export function createOctagonDomain(options: OctagonDomainOptions<'exact'>): OctagonDomain<Rational>;
export function createOctagonDomain(options?: OctagonDomainOptions<'f64'>): OctagonDomain<number>;
export function createOctagonDomain(
  options?: OctagonDomainOptions,
): OctagonDomain<Rational> | OctagonDomain<number>;
export function createOctagonDomain(
  options: OctagonDomainOptions = {},
): OctagonDomain<Rational> | OctagonDomain<number> {
  const kind = options.kind ?? 'int';
  if (options.engine === 'exact') return makeDomain(boundsOf('exact'), kind);
  const f64 = boundsOf('f64');
  return makeDomain(options.threads ? { ...f64, threads: options.threads } : f64, kind);
}

function makeDomain<T>(B: Bounds<T>, kind: OctagonKind): OctagonDomain<T> {
  const top = (dim: number) => {
    const m = B.alloc(halfSize(dim));
    for (let i = 0; i < 2 * dim; i++) m[matPos(i, i)] = B.zero;
    return m;
  };
  return {
    engine: B.engine,
    kind,
    bounds: B,
    top: (dim) => new Octagon(B, kind, dim, top(dim), true, null, singletons(dim)),
    bottom: (dim) => new Octagon(B, kind, dim, null, true),
    fromConstraints: (dim, constraints) =>
      new Octagon(B, kind, dim, top(dim), false, null, singletons(dim)).guardAll(constraints),
    fromBox: (box) => {
      let o = new Octagon(B, kind, box.length, top(box.length), true, null, singletons(box.length));
      box.forEach((b, v) => {
        if (b.hi !== null) o = o.guard({ i: v, si: 1, c: b.hi });
        if (b.lo !== null) o = o.guard({ i: v, si: -1, c: toRational(b.lo).neg() });
      });
      return o;
    },
    fromDense: (dim, dense) => {
      const m = B.alloc(halfSize(dim));
      const N = 2 * dim;
      for (let i = 0; i < N; i++) {
        for (let j = 0; j < N; j++) {
          const p = matPos(i, j);
          m[p] = B.min(m[p] as T, dense[i * N + j] as T);
        }
      }
      return new Octagon(B, kind, dim, m, false);
    },
  };
}
