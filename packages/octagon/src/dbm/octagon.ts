import { OctagonDimensionError } from '../errors';
import { type BoundStore, type Bounds, boundsOf, type NumberEngine } from '../numbers/bounds';
import { Rational } from '../numbers/rational';
import { closeDense, closeMatrix, incrementalCloseGeneric } from './closure';
import {
  formatConstraint,
  type Interval,
  type LinearExpr,
  linearConstant,
  linearTerms,
  type NumberLike,
  type OctagonKind,
  type OctConstraint,
  type Sign,
  signedNode,
  toRational,
} from './constraints';
import {
  cellsEq,
  cellsLe,
  type IntoOptions,
  maxCells,
  minCells,
  narrowCells,
  target,
  widenCells,
} from './elementwise';
import { guardLinearForm } from './guard-linear';
import { halfSize, matPos } from './layout';
import {
  blockLists,
  type ClosedBlock,
  closeBlocks,
  fillBetweenBlocks,
  isDecomposed,
  isolate,
  joinPartition,
  joinWithinBlocks,
  mergeBlocks,
  type Partition,
  unionPartitions,
  writeBlocks,
} from './partition';
import { formBounds, keepCells, matrixConstraints, permuteCells, shiftCells, varBounds } from './transfer';

export type { IntoOptions } from './elementwise';
/** How {@link Octagon.widen} and {@link Octagon.narrow} read their arguments. */
export interface WideningOptions {
  /** `closed` (default, APRON): the left argument is closed first; `raw`: used as built (Miné; chains stabilise). */
  readonly left?: 'closed' | 'raw';
  /** `cell` (default, APRON): a threshold bounds the stored cell (`2·x` for a unary one); `bound`: the bound of `±x±y` or `x`. */
  readonly thresholds?: 'cell' | 'bound';
}

/**
 * An octagon over `dim` variables: a coherent DBM in half-matrix storage with bounds in an exact
 * or outward-rounded f64 number system (see {@link Bounds}). Values are immutable: every operator
 * returns a new octagon. The strong (tight for `int`) closure is computed lazily and cached beside
 * the matrix as built, so operators that Miné defines on closed arguments (join, inclusion,
 * forget, assignment, bounds…) close them.
 *
 * Create through {@link createOctagonDomain}.
 *
 * @example
 * ```ts
 * const D = createOctagonDomain({ engine: 'exact', kind: 'int' });
 * const a = D.fromConstraints(2, [{ i: 0, si: 1, c: 3 }, { i: 1, si: 1, j: 0, sj: -1, c: 0 }]);
 * a.bound(1)?.hi?.toString(); // "3"  (x1 ≤ x0 ≤ 3)
 * a.toString(['x', 'y']); // "{ x <= 3, x + y <= 6, -x + y <= 0, y <= 3 }"
 * ```
 */
export class Octagon<T> {
  readonly dim: number;
  readonly kind: OctagonKind;
  readonly bounds: Bounds<T>;
  /**
   * For a `real` octagon, one flag per variable, 1 for an integer variable (a mixed octagon, as
   * APRON's `intdim`: the closure tightens those variables' bounds and binary cells between two
   * of them are floored); null when no variable is an integer. Always null for `int` octagons.
   */
  readonly integers: Uint8Array | null;
  /** The matrix as built; null when known empty. */
  readonly #raw: BoundStore<T> | null;
  /** The closed matrix: undefined until computed, null when empty. */
  #closed: BoundStore<T> | null | undefined;
  /** A decomposed octagon's partition (`dbm/partition.ts`): cells of `#raw` between blocks +∞; else null. */
  #blocks: Partition | null = null;
  /** A decomposed octagon's closure, block by block: undefined until computed, null when empty. */
  #closedBlocks: ClosedBlock<T>[] | null | undefined;
  /** A decomposed octagon's matrix closed within its blocks: undefined until computed, null when empty. */
  #blockClosed: BoundStore<T> | null | undefined;

  /**
   * @internal Use the domain's factories. With `blocks` (a partition of which every cell of `raw`
   * between two blocks is +∞) the octagon is decomposed, and `closed` means closed within blocks.
   */
  constructor(
    bounds: Bounds<T>,
    kind: OctagonKind,
    dim: number,
    raw: BoundStore<T> | null,
    closed: boolean,
    integers: Uint8Array | null = null,
    blocks: Partition | null = null,
  ) {
    this.bounds = bounds;
    this.kind = kind;
    this.dim = dim;
    if (integers !== null && (kind === 'int' || integers.length !== dim))
      throw new OctagonDimensionError(
        `integer flags of ${integers.length} variables for a ${kind} octagon of ${dim}`,
      );
    this.integers = integers !== null && integers.some((f) => f === 1) ? integers : null;
    this.#raw = raw;
    if (blocks !== null && raw !== null && isDecomposed(blocks)) {
      this.#blocks = blocks;
      this.#blockClosed = closed ? raw : undefined;
    } else this.#closed = raw === null ? null : closed ? raw : undefined;
  }

  /** A decomposed octagon's blocks (sorted; unrelated beyond their bounds), kept by its operators; null if dense. */
  get blocks(): number[][] | null {
    return this.#blocks && blockLists(this.#blocks);
  }

  /** A decomposed octagon's closure block by block (null when empty): O(Σ kᵢ³), the matrix untouched. */
  #closeBlocks(blocks: Partition): ClosedBlock<T>[] | null {
    if (this.#closedBlocks === undefined) {
      const close = (s: BoundStore<T>, k: number, t: boolean | ArrayLike<number>) =>
        closeDense(s, k, this.bounds, t);
      const raw = this.#raw as BoundStore<T>;
      this.#closedBlocks = closeBlocks(raw, this.dim, this.bounds, blocks, this.#tightness(), close);
    }
    return this.#closedBlocks;
  }

  /** The matrix closed within blocks of a decomposed octagon (null when empty). */
  #closedWithinBlocks(blocks: Partition): BoundStore<T> | null {
    if (this.#blockClosed === undefined) {
      const closed = this.#closeBlocks(blocks);
      const m = closed && this.bounds.copy(this.#raw as BoundStore<T>);
      if (m && closed) writeBlocks(m, closed);
      this.#blockClosed = m;
    }
    return this.#blockClosed;
  }

  /** A decomposed result (a dense one when `blocks` is not decomposed: then `m` must be valid dense). */
  #makeBlocks(m: BoundStore<T> | null, blocks: Partition, closedWithin: boolean): Octagon<T> {
    return new Octagon(this.bounds, this.kind, this.dim, m, closedWithin, this.integers, blocks);
  }

  /** Number engine of the bounds. */
  get engine(): NumberEngine {
    return this.bounds.engine;
  }

  /**
   * This `real` octagon with the variables `vars` ranging over the integers too (a mixed
   * octagon: its points whose coordinates `vars` are integers). Not closed.
   *
   * @example
   * ```ts
   * const R = createOctagonDomain({ engine: 'exact', kind: 'real' });
   * R.fromBox([{ lo: 0, hi: '5/2' }]).withIntegerVars([0]).bound(0)?.hi?.toString(); // "2"
   * ```
   */
  withIntegerVars(vars: readonly number[]): Octagon<T> {
    for (const v of vars) this.#var(v);
    if (this.kind === 'int') return this;
    const flags = this.integers ? Uint8Array.from(this.integers) : new Uint8Array(this.dim);
    for (const v of vars) flags[v] = 1;
    return this.#withIntegers(this, flags);
  }

  /** Whether variable `v` ranges over the integers (every variable of an `int` octagon). */
  isIntegerVar(v: number): boolean {
    return this.kind === 'int' || this.integers?.[v] === 1;
  }

  /** True when the matrix as built is known to be closed (or empty). */
  get isClosed(): boolean {
    return this.#closed !== undefined;
  }

  /** The half matrix as built (do not modify); null when known empty. */
  rawMatrix(): BoundStore<T> | null {
    return this.#raw;
  }

  /** The strongly (tightly) closed half matrix (do not modify); null when empty. */
  closedMatrix(): BoundStore<T> | null {
    if (this.#closed === undefined && this.#blocks) {
      let m = this.#blockClosed && this.bounds.copy(this.#blockClosed);
      if (this.#blockClosed === undefined) {
        // one copy: the blocks written into a copy of the matrix as built, then the rest
        const closed = this.#closeBlocks(this.#blocks);
        m = closed && this.bounds.copy(this.#raw as BoundStore<T>);
        if (m && closed) writeBlocks(m, closed);
      }
      if (m) fillBetweenBlocks(m, this.dim, this.bounds, this.#blocks, this.#tightness());
      this.#closed = m;
    }
    if (this.#closed === undefined) {
      const m = this.bounds.copy(this.#raw as BoundStore<T>);
      this.#closed = closeMatrix(m, this.dim, this.bounds, this.#tightness()) ? m : null;
    }
    return this.#closed;
  }

  /**
   * This octagon with the matrix as built declared closed — for matrices closed elsewhere (the
   * GPU engine). Operators then use it without closing again; soundness does not depend on it.
   */
  markClosed(): Octagon<T> {
    return this.#make(this.#raw, true);
  }

  /** This octagon with its matrix closed (the same set of points). */
  close(): Octagon<T> {
    const c = this.closedMatrix();
    return this.#make(c, true);
  }

  /** Whether the octagon has no point (closes it). */
  isEmpty(): boolean {
    if (this.#blocks && this.#blockClosed !== undefined) return this.#blockClosed === null;
    if (this.#blocks) return this.#closeBlocks(this.#blocks) === null;
    return this.closedMatrix() === null;
  }

  /** Whether every cell of the closed matrix is +∞ (besides the diagonal). */
  isTop(): boolean {
    const m = this.closedMatrix();
    return m !== null && matrixConstraints(this.bounds, this.dim, m).length === 0;
  }

  /** Cell `(i, j)`: the bound of `V_j − V_i` of the closed matrix (`closed`, default) or as built. */
  cell(i: number, j: number, which: 'closed' | 'raw' = 'closed'): T | null {
    const m = which === 'closed' ? this.closedMatrix() : this.#raw;
    return m ? (m[matPos(i, j)] as T) : null;
  }

  /** The full 2n×2n matrix, row-major (closed by default); null when empty. */
  toDense(which: 'closed' | 'raw' = 'closed'): T[] | null {
    const m = which === 'closed' ? this.closedMatrix() : this.#raw;
    return (
      m &&
      Array.from({ length: 4 * this.dim ** 2 }, (_, p) => {
        const N = 2 * this.dim;
        return m[matPos(Math.floor(p / N), p % N)] as T;
      })
    );
  }

  // ---------------------------------------------------------------- predicates

  /** `this ⊑ other`: closes `this` only (Miné's inclusion test). */
  includedIn(other: Octagon<T>): boolean {
    this.#same(other, 'inclusion');
    const m = this.closedMatrix();
    if (!m) return true;
    const o = other.#raw;
    if (!o) return false;
    return cellsLe(this.bounds, m, o);
  }

  /** Same set of points: both closed and compared. */
  equals(other: Octagon<T>): boolean {
    this.#same(other, 'equality');
    const a = this.closedMatrix();
    const b = other.closedMatrix();
    if (!a || !b) return a === b;
    return cellsEq(this.bounds, a, b);
  }

  // ---------------------------------------------------------------- lattice

  /**
   * Least upper bound: max of the closed matrices (the result is closed — within its blocks for
   * decomposed octagons), into `options.into` when given ({@link IntoOptions}).
   *
   * @example
   * ```ts
   * const pool = createMatrixPool(a.dim);
   * const j = a.join(b, { into: pool.acquire() }); // no allocation; SIMD in place when a and b are closed in the pool
   * ```
   */
  join(other: Octagon<T>, options: IntoOptions<T> = {}): Octagon<T> {
    this.#same(other, 'join');
    const [pa, pb] = [this.#blocks, other.#blocks];
    if (pa && pb) {
      const wa = this.#closedWithinBlocks(pa);
      const wb = other.#closedWithinBlocks(pb);
      if (!wa) return wb ? other.#makeBlocks(wb, pb, true) : other.toBottom();
      if (!wb) return this.#makeBlocks(wa, pa, true);
      const r = joinPartition(this.bounds, this.dim, wa, pa, wb, pb);
      if (isDecomposed(r)) {
        const into = options.into && target(this.bounds, wa.length, options.into);
        const m = joinWithinBlocks(this.bounds, this.dim, wa, pa, wb, pb, r, this.#tightness(), into);
        return this.#makeBlocks(m, r, true);
      }
    }
    const a = this.closedMatrix();
    const b = other.closedMatrix();
    if (!a) return other.close();
    if (!b) return this.close();
    return this.#make(maxCells(this.bounds, a, b, options.into), true);
  }

  /** Greatest lower bound: min of the matrices as built (not closed), into `options.into` when given. */
  meet(other: Octagon<T>, options: IntoOptions<T> = {}): Octagon<T> {
    this.#same(other, 'meet');
    const a = this.#raw;
    const b = other.#raw;
    if (!a || !b) return this.#make(null, true);
    if (this.#blocks && other.#blocks) {
      const p = unionPartitions(this.#blocks, other.#blocks);
      if (isDecomposed(p)) return this.#makeBlocks(minCells(this.bounds, a, b, options.into), p, false);
    }
    return this.#make(minCells(this.bounds, a, b, options.into), false);
  }

  /**
   * Widening `this ∇ other` (Miné 2006 Def. 11, APRON's `oct_widening`): a cell of the right
   * argument (closed) above the left one's goes to the least threshold at or above it, else +∞.
   * By default (APRON's semantics) the left argument is closed first and the thresholds are compared
   * with the stored cells (a unary cell stores `2·x`, so `t` bounds `x` by `t/2`). `left: 'raw'`
   * uses the left argument as built — Miné's condition for chains to stabilise: closing a widened
   * iterate can bring a +∞ cell back to a finite value — and `thresholds: 'bound'` compares them
   * with the bounds of `±x±y` and of `x` (a unary cell uses `2·t`). An empty left argument (in
   * either mode its emptiness is decided by its closure) gives the right one closed. `into`: as
   * {@link IntoOptions}.
   *
   * @example
   * ```ts
   * const D = createOctagonDomain({ engine: 'exact' });
   * const a = D.fromBox([{ lo: 0, hi: 1 }]);
   * const b = D.fromBox([{ lo: 0, hi: 2 }]);
   * a.widen(b, [10]).bound(0)?.hi?.toString(); // "5": the cell 2·x ≤ 10 (APRON)
   * a.widen(b, [10], { thresholds: 'bound', left: 'raw' }).bound(0)?.hi?.toString(); // "10"
   * ```
   */
  widen(
    other: Octagon<T>,
    thresholds: readonly NumberLike[] = [],
    options: WideningOptions & IntoOptions<T> = {},
  ): Octagon<T> {
    this.#same(other, 'widening');
    if (this.isEmpty()) return other.close();
    const a = (options.left === 'raw' ? this.#raw : this.closedMatrix()) as BoundStore<T>;
    const b = other.closedMatrix();
    if (!b) return options.left === 'raw' ? this : this.close();
    const B = this.bounds;
    // Integer octagons take ⌊t⌋ (an integer variable below t is below ⌊t⌋), keeping every cell integral.
    const ts = thresholds
      .map((t) => B.fromRational(this.kind === 'int' ? toRational(t).floor() : toRational(t)))
      .sort((x, y) => (B.lt(x, y) ? -1 : 1));
    const m = widenCells(B, a, b, this.dim, ts, options.thresholds === 'bound', options.into);
    return this.#make(m, false);
  }

  /**
   * Narrowing `this Δ other` (Miné 2006 Def. 12): the +∞ cells of the left argument take the
   * right's (closed). The left argument is closed first by default (APRON), or used as built with
   * `left: 'raw'`. `into`: as {@link IntoOptions}.
   */
  narrow(other: Octagon<T>, options: Pick<WideningOptions, 'left'> & IntoOptions<T> = {}): Octagon<T> {
    this.#same(other, 'narrowing');
    const a = options.left === 'raw' ? this.#raw : this.closedMatrix();
    const b = other.closedMatrix();
    if (!a || !b) return this.#make(null, true);
    return this.#make(narrowCells(this.bounds, a, b, options.into), false);
  }

  // ---------------------------------------------------------------- dimensions

  /** Forgets the variables (projection then unconstrained); closes first, the result is closed. */
  forget(vars: readonly number[]): Octagon<T> {
    for (const v of vars) this.#var(v);
    const c = this.#blocks ? this.#closedWithinBlocks(this.#blocks) : this.closedMatrix();
    if (!c) return this.#make(null, true);
    const m = this.bounds.copy(c);
    for (const v of vars) this.#forgetInPlace(m, v);
    return this.#blocks ? this.#makeBlocks(m, isolate(this.#blocks, vars), true) : this.#make(m, true);
  }

  /**
   * Appends `count` unconstrained variables (indices `dim … dim+count−1`); in a `real` octagon
   * they are integers with `integer: true` (a mixed octagon).
   */
  addDimensions(count: number, options: { readonly integer?: boolean } = {}): Octagon<T> {
    if (options.integer && this.kind === 'real' && count > 0) {
      const flags = new Uint8Array(this.dim + count);
      if (this.integers) flags.set(this.integers);
      flags.fill(1, this.dim);
      return this.#withIntegers(this.addDimensions(count), flags);
    }
    const n = this.dim + count;
    const make = (src: BoundStore<T> | null) => {
      if (!src) return null;
      const m = this.bounds.alloc(halfSize(n));
      for (let p = 0; p < src.length; p++) m[p] = src[p] as T; // rows of old nodes come first
      for (let i = 2 * this.dim; i < 2 * n; i++) m[matPos(i, i)] = this.bounds.zero;
      return m;
    };
    const flags = this.integers && Uint8Array.from({ length: n }, (_, v) => this.integers?.[v] ?? 0);
    const blocks = this.#blocks && Int32Array.from({ length: n }, (_, v) => this.#blocks?.[v] ?? v);
    const out = new Octagon(this.bounds, this.kind, n, make(this.#raw), false, flags, blocks);
    if (this.#closed !== undefined) out.#closed = make(this.#closed);
    if (out.#blocks && this.#blockClosed !== undefined) out.#blockClosed = make(this.#blockClosed);
    return out;
  }

  /** Removes the variables (closes first); the others keep their order. */
  removeDimensions(vars: readonly number[]): Octagon<T> {
    for (const v of vars) this.#var(v);
    const gone = new Set(vars);
    const keep = [...Array(this.dim).keys()].filter((v) => !gone.has(v));
    const c = this.closedMatrix();
    const n = keep.length;
    const flags = this.integers && Uint8Array.from(keep, (v) => this.integers?.[v] ?? 0);
    if (!c) return new Octagon(this.bounds, this.kind, n, null, true, flags);
    return new Octagon(this.bounds, this.kind, n, keepCells(this.bounds, c, keep), true, flags);
  }

  /** Renames variable `v` to `perm[v]` (a permutation of `0 … dim−1`). */
  permute(perm: readonly number[]): Octagon<T> {
    if (
      perm.length !== this.dim ||
      new Set(perm).size !== this.dim ||
      perm.some((p) => p < 0 || p >= this.dim)
    ) {
      throw new OctagonDimensionError(
        `permute: [${perm.join(', ')}] is not a permutation of ${this.dim} variables`,
      );
    }
    const map = (src: BoundStore<T> | null) => src && permuteCells(this.bounds, this.dim, src, perm);
    let flags: Uint8Array | null = null;
    if (this.integers) {
      flags = new Uint8Array(this.dim);
      perm.forEach((to, v) => {
        (flags as Uint8Array)[to] = this.integers?.[v] ?? 0;
      });
    }
    const out = new Octagon(this.bounds, this.kind, this.dim, map(this.#raw), false, flags);
    if (this.#closed !== undefined) out.#closed = map(this.#closed);
    return out;
  }

  // ---------------------------------------------------------------- transfer functions

  /**
   * `x := s·y + c` (Miné 2006 §4.4.2): exact. With `y = x` it shifts/negates the two nodes of `x`
   * without closing; otherwise it closes, forgets `x`, adds `x − s·y = c` and closes incrementally.
   */
  assignVar(x: number, s: Sign, y: number, c: NumberLike = 0): Octagon<T> {
    this.#var(x);
    this.#var(y);
    const B = this.bounds;
    const cr = toRational(c);
    if (x === y) return this.#shift(x, s, cr, cr);
    const p = this.#blocks && mergeBlocks(isolate(this.#blocks, [x]), x, y);
    if (this.#blocks && p && isDecomposed(p)) {
      const c = this.#closedWithinBlocks(this.#blocks);
      if (!c) return this.#make(null, true);
      const m = B.copy(c);
      this.#forgetInPlace(m, x);
      this.#setConstraint(m, 1, x, -s as Sign, y, cr);
      this.#setConstraint(m, -1, x, s, y, cr.neg());
      return this.#makeBlocks(m, p, false);
    }
    const c0 = this.closedMatrix();
    if (!c0) return this.#make(null, true);
    const m = B.copy(c0);
    this.#forgetInPlace(m, x);
    // x − s·y ≤ c and s·y − x ≤ −c
    this.#setConstraint(m, 1, x, -s as Sign, y, cr);
    this.#setConstraint(m, -1, x, s, y, cr.neg());
    return this.#closeIncremental(m, x);
  }

  /**
   * `x := s·x + [lo, hi]` (`null`: an infinite end), exact. Only the rows and columns of x's two
   * nodes change: `V'_{2x} ∈ s·x + [lo, hi]` and `V'_{2x+1} ∈ −s·x − [lo, hi]`, so cell `(i, j)`
   * (`V_j − V_i`) grows by the most `V_j` can grow minus the least `V_i` can (the nodes of x swap
   * first when `s = −1`). A constant shift (`lo = hi`) is a bijection and shifts the matrix as
   * built; an interval one shifts the closed matrix — shifting a matrix that is not closed would
   * pay the width `hi − lo` once per passage of a path through x, losing the relations of x with
   * the others (from `x0 − x1 ≤ 0`, `x0 := x0 + [0, 1]` gives `x0 − x1 ≤ 1`, as APRON). A shifted
   * closed matrix stays strongly closed (each triangle gains `hi − lo ≥ 0`; tight for integral ends).
   */
  #shift(x: number, s: Sign, lo: Rational | null, hi: Rational | null): Octagon<T> {
    if (lo && hi?.lt(lo)) return this.#make(null, true);
    const constant = lo !== null && hi !== null && lo.eq(hi);
    const B = this.bounds;
    const apply = (src: BoundStore<T>) => shiftCells(B, this.dim, src, x, s, lo, hi);
    // Rounding (f64, fractional ends) or fractional ends of an integer octagon leave a shifted
    // closure off its tight/strong form: then the closure is recomputed when asked for.
    const integral = (lo === null || lo.isInteger) && (hi === null || hi.isInteger);
    const staysClosed = integral || (B.engine === 'exact' && !this.isIntegerVar(x));
    if (this.#blocks) {
      // +∞ cells stay +∞: the partition holds, and a shifted matrix closed within blocks stays so
      const within = constant ? this.#raw : this.#closedWithinBlocks(this.#blocks);
      if (!within) return this.#make(null, true);
      const out = this.#makeBlocks(apply(within), this.#blocks, !constant && staysClosed);
      if (constant && staysClosed && this.#blockClosed !== undefined)
        out.#blockClosed = this.#blockClosed && apply(this.#blockClosed);
      return out;
    }
    if (constant) {
      if (!this.#raw) return this;
      const out = this.#make(apply(this.#raw), false);
      if (this.#closed !== undefined && staysClosed) out.#closed = this.#closed && apply(this.#closed);
      return out;
    }
    const c = this.closedMatrix();
    if (!c) return this.#make(null, true);
    return this.#make(apply(c), staysClosed);
  }

  /** `x := [lo, hi]` (`null` ends unbounded): closes, forgets `x`, bounds it, closes incrementally. */
  assignInterval(x: number, lo: NumberLike | null, hi: NumberLike | null): Octagon<T> {
    this.#var(x);
    const c0 = this.#blocks ? this.#closedWithinBlocks(this.#blocks) : this.closedMatrix();
    if (!c0) return this.#make(null, true);
    const m = this.bounds.copy(c0);
    this.#forgetInPlace(m, x);
    if (hi !== null) this.#setConstraint(m, 1, x, undefined, undefined, toRational(hi));
    if (lo !== null) this.#setConstraint(m, -1, x, undefined, undefined, toRational(lo).neg());
    if (lo !== null && hi !== null && toRational(hi).lt(toRational(lo))) return this.#make(null, true);
    if (this.#blocks) return this.#makeBlocks(m, isolate(this.#blocks, [x]), false);
    return this.#closeIncremental(m, x);
  }

  /**
   * `x := Σ aᵢ·xᵢ + [c_lo, c_hi]`: exact for `±y + c`, `±x + [c_lo, c_hi]` and intervals; otherwise Miné's interval
   * linear form assignment (2006 §4.4.4): `x` is forgotten and bounded, and for every other `y`,
   * `x − y` and `x + y` get the interval bounds of `e − y` and `e + y` on the closed argument.
   */
  assignLinear(x: number, e: LinearExpr): Octagon<T> {
    this.#var(x);
    const terms = linearTerms(e, this.dim);
    const [clo, chi] = linearConstant(e);
    if (terms.length === 0) return this.assignInterval(x, clo, chi);
    if (terms.length === 1) {
      const [v, a] = terms[0] as [number, Rational];
      const unit = a.eq(Rational.ONE) || a.eq(Rational.ONE.neg());
      if (unit && v === x) return this.#shift(x, a.num > 0n ? 1 : -1, clo, chi);
      if (unit && clo !== null && chi !== null && clo.eq(chi))
        return this.assignVar(x, a.num > 0n ? 1 : -1, v, clo);
    }
    const c0 = this.closedMatrix();
    if (!c0) return this.#make(null, true);
    const B = this.bounds;
    const iv = varBounds(B, this.dim, c0);
    const m = B.copy(c0);
    this.#forgetInPlace(m, x);
    const whole = formBounds(B, terms, clo, chi, iv, -1, 0);
    this.#setBound(m, 2 * x + 1, 2 * x, B.double(whole.up));
    this.#setBound(m, 2 * x, 2 * x + 1, B.double(whole.down));
    for (let y = 0; y < this.dim; y++) {
      if (y === x) continue;
      const minus = formBounds(B, terms, clo, chi, iv, y, -1); // e − y
      const plus = formBounds(B, terms, clo, chi, iv, y, 1); // e + y
      // x − y ≤ up(e − y): cell (2y, 2x); y − x ≤ down(e − y): cell (2x, 2y)
      this.#setBound(m, 2 * y, 2 * x, minus.up);
      this.#setBound(m, 2 * x, 2 * y, minus.down);
      // x + y ≤ up(e + y): cell (2y+1, 2x); −x − y ≤ down(e + y): cell (2x, 2y+1)
      this.#setBound(m, 2 * y + 1, 2 * x, plus.up);
      this.#setBound(m, 2 * x, 2 * y + 1, plus.down);
    }
    return this.#closeIncremental(m, x);
  }

  /**
   * Guard `si·x_i + sj·x_j ≤ c` (exact). On a closed octagon the result is closed incrementally in
   * O(n²); otherwise the cell is lowered and the result is left unclosed.
   */
  guard(con: OctConstraint): Octagon<T> {
    this.#var(con.i);
    if (con.j !== undefined) this.#var(con.j);
    if (!this.#raw) return this;
    const c = toRational(con.c);
    if (con.j === con.i && con.j !== undefined && con.sj !== con.si) {
      return c.num < 0n ? this.#make(null, true) : this;
    }
    const p = this.#blocks && (con.j === undefined ? this.#blocks : mergeBlocks(this.#blocks, con.i, con.j));
    if (p && isDecomposed(p)) {
      if (this.#blockClosed === null) return this.#make(null, true);
      // on the matrix closed within blocks when known: its next closure has less to do
      const m = this.bounds.copy(this.#blockClosed ?? this.#raw);
      if (!this.#setConstraint(m, con.si, con.i, con.sj, con.j, c)) return this;
      return this.#makeBlocks(m, p, false);
    }
    if (this.#closed) {
      const m = this.bounds.copy(this.#closed);
      if (!this.#setConstraint(m, con.si, con.i, con.sj, con.j, c)) return this;
      return this.#closeIncremental(m, con.i);
    }
    if (this.#closed === null) return this.#make(null, true);
    const m = this.bounds.copy(this.#raw);
    if (!this.#setConstraint(m, con.si, con.i, con.sj, con.j, c)) return this;
    return this.#make(m, false);
  }

  /** Conjunction of octagonal constraints (each as {@link guard}). */
  guardAll(cons: readonly OctConstraint[]): Octagon<T> {
    let o: Octagon<T> = this;
    for (const c of cons) o = o.guard(c);
    return o;
  }

  /**
   * Guard `e ≤ 0` for a linear form (Miné 2006 §4.4.3): exact when `e` is octagonal, otherwise
   * each unit-coefficient variable and pair is bounded by the interval of the rest of `e` on the
   * closed argument, and other variables by division ({@link guardLinearForm}).
   */
  guardLinear(e: LinearExpr): Octagon<T> {
    return guardLinearForm(this, e);
  }

  /** The empty octagon over the same variables. */
  toBottom(): Octagon<T> {
    return this.#make(null, true);
  }

  // ---------------------------------------------------------------- queries

  /** The interval of `x` (closes). Empty octagons give `null`. */
  bound(x: number): Interval | null {
    this.#var(x);
    let [m, k] = [this.#blockClosed, x];
    if (!this.#blocks || m === undefined) {
      // a decomposed octagon reads x's block alone (no copy of the matrix)
      const block = this.#blocks && this.#closeBlocks(this.#blocks)?.find((b) => b.vars.includes(x));
      [m, k] = block ? [block.cells, block.vars.indexOf(x)] : [this.closedMatrix(), x];
    }
    if (!m || this.isEmpty()) return null;
    const B = this.bounds;
    const hi = m[matPos(2 * k + 1, 2 * k)] as T;
    const nlo = m[matPos(2 * k, 2 * k + 1)] as T;
    return {
      lo: B.isInf(nlo) ? null : B.toRational(nlo).half().neg(),
      hi: B.isInf(hi) ? null : B.toRational(hi).half(),
    };
  }

  /** The least upper bound of `si·x_i + sj·x_j` (or of `si·x_i`), `null` for +∞ (closes). */
  upperBound(si: Sign, i: number, sj?: Sign, j?: number): Rational | null {
    this.#var(i);
    const m = this.closedMatrix();
    if (!m) return null;
    const B = this.bounds;
    const q = signedNode(si, i);
    if (j === undefined || sj === undefined) {
      const v = m[matPos(q ^ 1, q)] as T;
      return B.isInf(v) ? null : B.toRational(v).half();
    }
    this.#var(j);
    if (i === j) {
      if (si !== sj) return Rational.ZERO;
      const v = m[matPos(q ^ 1, q)] as T;
      return B.isInf(v) ? null : B.toRational(v);
    }
    const v = m[matPos(signedNode(-sj as Sign, j), q)] as T;
    return B.isInf(v) ? null : B.toRational(v);
  }

  /** The bounding box (closes); null when empty. */
  toBox(): Interval[] | null {
    if (this.isEmpty()) return null;
    return [...Array(this.dim).keys()].map((v) => this.bound(v) as Interval);
  }

  /**
   * The finite constraints of the closed matrix (or of the matrix as built), each once;
   * null when empty.
   */
  toConstraints(which: 'closed' | 'raw' = 'closed'): OctConstraint[] | null {
    const m = which === 'closed' ? this.closedMatrix() : this.#raw;
    return m && matrixConstraints(this.bounds, this.dim, m);
  }

  /** `{ x <= 3, x - y <= 1, … }`, `⊥` or `⊤` (closed constraints; names default to x0, x1, …). */
  toString(names?: readonly string[]): string {
    const cons = this.toConstraints();
    if (!cons) return '⊥';
    if (cons.length === 0) return '⊤';
    return `{ ${cons.map((c) => formatConstraint(c, names)).join(', ')} }`;
  }

  /** This octagon with exact rational bounds (the values of the bounds, unchanged). */
  toExact(): Octagon<Rational> {
    const conv = (src: BoundStore<T> | null) => {
      if (!src) return null;
      const m = new Array<Rational>(src.length);
      for (let p = 0; p < src.length; p++) m[p] = this.bounds.toRational(src[p] as T);
      return m;
    };
    const out = new Octagon<Rational>(
      boundsOf('exact'),
      this.kind,
      this.dim,
      conv(this.#raw),
      false,
      this.integers,
    );
    if (this.#closed !== undefined) out.#closed = conv(this.#closed);
    return out;
  }

  // ---------------------------------------------------------------- internals

  #make(m: BoundStore<T> | null, closed: boolean): Octagon<T> {
    return new Octagon(this.bounds, this.kind, this.dim, m, closed, this.integers);
  }

  #withIntegers(o: Octagon<T>, flags: Uint8Array): Octagon<T> {
    return new Octagon(o.bounds, o.kind, o.dim, o.#raw, false, flags);
  }

  #tightness(): boolean | Uint8Array {
    return this.kind === 'int' ? true : (this.integers ?? false);
  }

  #same(other: Octagon<T>, what: string): void {
    if (
      other.dim !== this.dim ||
      other.kind !== this.kind ||
      other.bounds.engine !== this.bounds.engine ||
      String(other.integers) !== String(this.integers)
    ) {
      throw new OctagonDimensionError(
        `${what} of octagons over ${this.dim} ${this.kind} (${this.engine}) and ${other.dim} ${other.kind} (${other.engine}) variables`,
      );
    }
  }

  #var(v: number): void {
    if (!Number.isInteger(v) || v < 0 || v >= this.dim) {
      throw new OctagonDimensionError(`variable ${v} out of range 0…${this.dim - 1}`);
    }
  }

  #forgetInPlace(m: BoundStore<T>, v: number): void {
    const B = this.bounds;
    const N = 2 * this.dim;
    for (const a of [2 * v, 2 * v + 1]) {
      for (let j = 0; j < N; j++) {
        m[matPos(a, j)] = B.inf;
      }
    }
    m[matPos(2 * v, 2 * v)] = B.zero;
    m[matPos(2 * v + 1, 2 * v + 1)] = B.zero;
  }

  /** Lowers the cell of `si·x_i + sj·x_j ≤ c`; returns whether it changed. */
  #setConstraint(
    m: BoundStore<T>,
    si: Sign,
    i: number,
    sj: Sign | undefined,
    j: number | undefined,
    c: Rational,
  ): boolean {
    const q = signedNode(si, i);
    if (j === undefined || sj === undefined) return this.#setBound(m, q ^ 1, q, this.#cellValue(c.double()));
    if (j === i) {
      // 2·si·x ≤ c
      return this.#setBound(m, q ^ 1, q, this.#cellValue(c));
    }
    return this.#setBound(m, signedNode(-sj as Sign, j), q, this.#cellValue(c));
  }

  /** A cell value for an exact bound: integers floor it (integer variables), reals round it up. */
  #cellValue(c: Rational): T {
    return this.bounds.fromRational(this.kind === 'int' ? c.floor() : c);
  }

  #setBound(m: BoundStore<T>, i: number, j: number, v: T): boolean {
    const B = this.bounds;
    let value = v;
    if (this.isIntegerVar(i >> 1) && this.isIntegerVar(j >> 1) && !B.isInf(value)) value = B.floor(value);
    const p = matPos(i, j);
    if (B.lt(value, m[p] as T)) {
      m[p] = value;
      return true;
    }
    return false;
  }

  #closeIncremental(m: BoundStore<T>, v: number): Octagon<T> {
    const ok = incrementalCloseGeneric(m, this.dim, this.bounds, v, this.#tightness());
    return this.#make(ok ? m : null, true);
  }
}
