/**
 * Online decomposition (as ELINA's octagons, Singh, Püschel & Vechev, POPL'15): a partition of
 * the variables into blocks such that every cell of the matrix between two variables of different
 * blocks is +∞. The operators of a decomposed octagon keep the partition (a guard on `x − y`
 * merges the blocks of x and y, forgetting x isolates it, a join links blocks only where the
 * joined octagon relates them); the closure then runs on each block alone — O(Σ kᵢ³), no scan,
 * nothing spent on the rest of the matrix — and the cells between blocks stay +∞ (**closed
 * within blocks**). Those cells of the closed
 * octagon are implied by the unary bounds: {@link fillBetweenBlocks} writes them (the dense
 * closure's strengthening, `(m[i][ī] + m[j̄][j]) / 2`) when a reader needs the whole matrix, so
 * the result is the dense closure's matrix, cell for cell.
 * @module
 */
import type { BoundStore, Bounds } from '../numbers/bounds';
import { addUp, halfUp } from '../numbers/rational';
import type { Tightness } from './closure';
import { halfSize, matPos } from './layout';

/**
 * A partition of the variables: for each variable the least variable of its block (a block's
 * label), so two partitions are equal exactly when their arrays are.
 */
export type Partition = Int32Array;

/** Every variable alone. */
export function singletons(n: number): Partition {
  return Int32Array.from({ length: n }, (_, v) => v);
}

/** Relabels each block by its least variable (in place; returns `p`). */
function canonical(p: Partition): Partition {
  const least = new Map<number, number>();
  for (let v = 0; v < p.length; v++) if (!least.has(p[v] as number)) least.set(p[v] as number, v);
  for (let v = 0; v < p.length; v++) p[v] = least.get(p[v] as number) as number;
  return p;
}

/**
 * The blocks of `u` and `v` made one.
 *
 * @example
 * ```ts
 * mergeBlocks(singletons(3), 0, 2); // Int32Array [0, 1, 0]
 * ```
 */
export function mergeBlocks(p: Partition, u: number, v: number): Partition {
  const a = p[u] as number;
  const b = p[v] as number;
  if (a === b) return p;
  const [keep, gone] = a < b ? [a, b] : [b, a];
  return p.map((l) => (l === gone ? keep : l));
}

/** Each variable of `vars` alone, the other blocks kept. */
export function isolate(p: Partition, vars: readonly number[]): Partition {
  const gone = new Set(vars);
  const out = Int32Array.from(p, (l, v) => (gone.has(v) ? -1 - v : l));
  return canonical(out);
}

/** The finest partition coarser than both (two variables together when they are in either). */
export function unionPartitions(p: Partition, q: Partition): Partition {
  const parent = Int32Array.from(p);
  const find = (v: number): number => {
    let r = v;
    while (parent[r] !== r) r = parent[r] as number;
    return r;
  };
  for (let v = 0; v < q.length; v++) {
    const a = find(v);
    const b = find(q[v] as number);
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  }
  return canonical(Int32Array.from({ length: p.length }, (_, v) => find(v)));
}

/** The blocks, each sorted, in the order of their least variables. */
export function blockLists(p: Partition): number[][] {
  const lists = new Map<number, number[]>();
  for (let v = 0; v < p.length; v++) {
    const l = p[v] as number;
    const list = lists.get(l);
    if (list) list.push(v);
    else lists.set(l, [v]);
  }
  return [...lists.values()];
}

/** Whether every block holds at most half of the variables (then the octagon stays decomposed). */
export function isDecomposed(p: Partition): boolean {
  const size = new Map<number, number>();
  for (const l of p) {
    const s = (size.get(l) ?? 0) + 1;
    if (2 * s > p.length) return false;
    size.set(l, s);
  }
  return true;
}

/** The per-variable integer flags of a block. */
function blockTightness(tight: Tightness, vs: readonly number[]): Tightness {
  return typeof tight === 'boolean' ? tight : vs.map((v) => tight[v] ?? 0);
}

/** One block of a decomposed octagon's closure: its variables (sorted) and their closed half matrix. */
export interface ClosedBlock<T> {
  readonly vars: readonly number[];
  readonly cells: BoundStore<T>;
}

/**
 * The closure of `m` within the blocks of `p`, block by block: each block of two or more
 * variables is copied out and closed densely by `closeBlock` (strong or tight closure with its
 * strengthening), a lone variable's two unary cells tightened and checked; `m` is not modified
 * and nothing is spent on the cells between blocks — O(Σ kᵢ³). Null when the octagon is empty.
 * {@link writeBlocks} puts the blocks back into a copy of `m`.
 *
 * @example
 * ```ts
 * const blocks = closeBlocks(m, n, f64Bounds, p, true, (s, k, t) => closeDense(s, k, f64Bounds, t));
 * ```
 */
export function closeBlocks<T>(
  m: BoundStore<T>,
  n: number,
  B: Bounds<T>,
  p: Partition,
  tight: Tightness,
  closeBlock: (sub: BoundStore<T>, k: number, tight: Tightness) => boolean,
): ClosedBlock<T>[] | null {
  const out: ClosedBlock<T>[] = [];
  for (const vs of blockLists(p)) {
    const k = vs.length;
    const sub = B.alloc(halfSize(k));
    if (k === 1) {
      // a lone variable: tighten its unary cells (integers), check them, zero the diagonal
      const v = vs[0] as number;
      let hi = m[matPos(2 * v + 1, 2 * v)] as T;
      let lo = m[matPos(2 * v, 2 * v + 1)] as T;
      if (isInt(tight, v)) {
        if (!B.isInf(hi)) hi = B.double(B.floor(B.half(hi)));
        if (!B.isInf(lo)) lo = B.double(B.floor(B.half(lo)));
      }
      if (!B.isInf(hi) && !B.isInf(lo) && B.lt(B.add(hi, lo), B.zero)) return null;
      if (B.lt(m[matPos(2 * v, 2 * v)] as T, B.zero) || B.lt(m[matPos(2 * v + 1, 2 * v + 1)] as T, B.zero))
        return null;
      sub[0] = B.zero;
      sub[1] = lo;
      sub[2] = hi;
      sub[3] = B.zero;
      out.push({ vars: vs, cells: sub });
      continue;
    }
    const node = (s: number) => 2 * (vs[s >> 1] as number) + (s & 1);
    for (let i = 0; i < 2 * k; i++) {
      const gi = node(i);
      for (let j = 0; j <= (i | 1); j++) sub[matPos(i, j)] = m[matPos(gi, node(j))] as T;
    }
    if (!closeBlock(sub, k, blockTightness(tight, vs))) return null;
    out.push({ vars: vs, cells: sub });
  }
  return out;
}

/** Writes closed blocks ({@link closeBlocks}) into `m` (in place; the cells between blocks are untouched). */
export function writeBlocks<T>(m: BoundStore<T>, blocks: readonly ClosedBlock<T>[]): void {
  for (const { vars, cells } of blocks) {
    const node = (s: number) => 2 * (vars[s >> 1] as number) + (s & 1);
    for (let i = 0; i < 2 * vars.length; i++) {
      const gi = node(i);
      for (let j = 0; j <= (i | 1); j++) m[matPos(gi, node(j))] = cells[matPos(i, j)] as T;
    }
  }
}

/** Whether variable `v` is an integer under `tight`. */
function isInt(tight: Tightness, v: number): boolean {
  return typeof tight === 'boolean' ? tight : (tight[v] ?? 0) !== 0;
}

/**
 * The strengthening value of cell `(i, j)` from the unary cells `t` (`t[i] = m[i][ī]`), as the
 * dense closure's strengthening computes it: `(t[i] + t[j̄]) / 2` rounded up, floored between two
 * integer variables (+∞ when either is).
 */
function strengthened<T>(B: Bounds<T>, t: readonly T[], i: number, j: number, tight: Tightness): T {
  const a = t[i] as T;
  const b = t[j ^ 1] as T;
  if (B.isInf(a) || B.isInf(b)) return B.inf;
  const s = B.half(B.add(a, b));
  return isInt(tight, i >> 1) && isInt(tight, j >> 1) ? B.floor(s) : s;
}

function unaryCells<T>(m: BoundStore<T>, n: number): T[] {
  return Array.from({ length: 2 * n }, (_, i) => m[matPos(i, i ^ 1)] as T);
}

/**
 * Writes the cells between blocks of a matrix closed within the blocks of `p` (in place): the
 * strengthening from its unary cells, which is what the dense closure leaves there. The result is
 * the dense closure's matrix.
 *
 * @example
 * ```ts
 * fillBetweenBlocks(m, n, f64Bounds, p, true); // after closeWithinBlocks(m, n, …, p, …)
 * ```
 */
export function fillBetweenBlocks<T>(
  m: BoundStore<T>,
  n: number,
  B: Bounds<T>,
  p: Partition,
  tight: Tightness,
): void {
  if (m instanceof Float64Array) {
    fillBetweenBlocksF64(m, n, p, tight);
    return;
  }
  const t = unaryCells(m, n);
  for (let i = 0; i < 2 * n; i++) {
    if (B.isInf(t[i] as T)) continue;
    const li = p[i >> 1];
    const base = matPos(i, 0);
    for (let j = 0; j <= (i | 1); j++) {
      if (p[j >> 1] !== li) m[base + j] = strengthened(B, t, i, j, tight);
    }
  }
}

/** {@link fillBetweenBlocks} on f64: the same values as `strengthenF64` computes (`halfUp(addUp(·))`). */
function fillBetweenBlocksF64(m: Float64Array, n: number, p: Partition, tight: Tightness): void {
  const N = 2 * n;
  const t = new Float64Array(N);
  const ints = new Uint8Array(n);
  for (let v = 0; v < n; v++) ints[v] = isInt(tight, v) ? 1 : 0;
  for (let i = 0; i < N; i++) t[i] = m[matPos(i, i ^ 1)] as number;
  for (let i = 0; i < N; i++) {
    const ti = t[i] as number;
    if (ti === Number.POSITIVE_INFINITY) continue;
    const li = p[i >> 1];
    const ii = ints[i >> 1];
    const base = ((i + 1) * (i + 1)) >> 1;
    for (let j = 0; j <= (i | 1); j++) {
      if (p[j >> 1] === li) continue;
      const tj = t[j ^ 1] as number;
      if (tj === Number.POSITIVE_INFINITY) continue;
      const s = halfUp(addUp(ti, tj));
      m[base + j] = ii && ints[j >> 1] ? Math.floor(s) : s;
    }
  }
}

/**
 * The partition of the join of two octagons closed within the blocks of `pa` and `pb`: their
 * union, plus a link between two blocks wherever the joined matrix relates them more tightly than
 * its unary bounds do. A cell between blocks of both is `max(sa, sb)` (each argument's
 * strengthening), and the join's own strengthening is `s(max(ta, tb))`: they differ only when some
 * node `i` of one block has `ta[i] > tb[i]` and some node `j̄` of the other `ta[j̄] < tb[j̄]` (or
 * the reverse), all four finite — for monotone rounding, when every node of a pair leans the same
 * way the two values are the same computation. So blocks with a node leaning one way are linked
 * to every other block with a node leaning the other way: O(n).
 *
 * @example
 * ```ts
 * joinPartition(B, n, a, pa, b, pb); // {x = 0, y = 0} ⊔ {x = 1, y = 1}: x and y linked (x − y = 0)
 * ```
 */
export function joinPartition<T>(
  B: Bounds<T>,
  n: number,
  a: BoundStore<T>,
  pa: Partition,
  b: BoundStore<T>,
  pb: Partition,
): Partition {
  let r = unionPartitions(pa, pb);
  const up = new Set<number>();
  const down = new Set<number>();
  for (let i = 0; i < 2 * n; i++) {
    const ta = a[matPos(i, i ^ 1)] as T;
    const tb = b[matPos(i, i ^ 1)] as T;
    if (B.isInf(ta) || B.isInf(tb)) continue;
    if (B.lt(tb, ta)) up.add(r[i >> 1] as number);
    else if (B.lt(ta, tb)) down.add(r[i >> 1] as number);
  }
  if (up.size === 0 || down.size === 0) return r;
  const x0 = up.values().next().value as number;
  const y0 = down.values().next().value as number;
  // every pair (X in up, Y in down, X ≠ Y) linked: X0 with each such Y, each such X with Y0
  for (const y of down) if (y !== x0) r = mergeBlocks(r, x0, y);
  for (const x of up) if (x !== y0) r = mergeBlocks(r, x, y0);
  return r;
}

/**
 * The join of two matrices closed within the blocks of `pa` and `pb`, closed within the blocks of
 * `r` ({@link joinPartition}): in each block of `r` the max of the two arguments' dense cells (a
 * cell between blocks of an argument is its strengthening), +∞ between blocks. Into `into` when
 * given.
 */
export function joinWithinBlocks<T>(
  B: Bounds<T>,
  n: number,
  a: BoundStore<T>,
  pa: Partition,
  b: BoundStore<T>,
  pb: Partition,
  r: Partition,
  tight: Tightness,
  into?: BoundStore<T>,
): BoundStore<T> {
  const m = into ?? B.alloc(halfSize(n));
  if (into) for (let q = 0; q < m.length; q++) m[q] = B.inf;
  const ta = unaryCells(a, n);
  const tb = unaryCells(b, n);
  for (const vs of blockLists(r)) {
    const nodes = vs.flatMap((v) => [2 * v, 2 * v + 1]);
    for (const i of nodes) {
      for (const j of nodes) {
        if (j > (i | 1)) break;
        const q = matPos(i, j);
        const va = pa[i >> 1] === pa[j >> 1] ? (a[q] as T) : strengthened(B, ta, i, j, tight);
        const vb = pb[i >> 1] === pb[j >> 1] ? (b[q] as T) : strengthened(B, tb, i, j, tight);
        m[q] = B.max(va, vb);
      }
    }
  }
  return m;
}
