/**
 * Decomposed closure (as ELINA's octagons, Singh, Püschel & Vechev, POPL'15): the variables split
 * into independent blocks — two variables are related when a finite cell links them — found online
 * from the matrix at each closure. Shortest paths never leave a block (every edge between two
 * blocks is +∞), so the Floyd–Warshall step runs on each block alone, O(Σ kᵢ³) instead of O(n³);
 * then one strengthening over the whole matrix gives the cells between blocks (from the unary
 * bounds) exactly as the dense closure does: the result is the same matrix, cell for cell.
 * @module
 */
import type { BoundStore, Bounds } from '../numbers/bounds';
import type { Tightness } from './closure';
import { halfSize, matPos } from './layout';

/**
 * The blocks of related variables (each sorted; singletons included), by union–find over the
 * finite cells between two variables; `null` as soon as one block has more than `maxBlock`
 * variables (a dense octagon is not scanned to the end).
 *
 * @example
 * ```ts
 * variableBlocks(m, 4, f64Bounds); // [[0, 2], [1], [3]] when only x0 and x2 are related
 * ```
 */
export function variableBlocks<T>(
  m: BoundStore<T>,
  n: number,
  B: Bounds<T>,
  maxBlock = n,
): number[][] | null {
  const parent = Int32Array.from({ length: n }, (_, v) => v);
  const size = new Int32Array(n).fill(1);
  const find = (v: number): number => {
    let r = v;
    while (parent[r] !== r) r = parent[r] as number;
    let x = v;
    while (parent[x] !== r) {
      const next = parent[x] as number;
      parent[x] = r;
      x = next;
    }
    return r;
  };
  const f64 = m instanceof Float64Array ? m : null;
  for (let i = 2; i < 2 * n; i++) {
    const vi = i >> 1;
    const base = ((i + 1) * (i + 1)) >> 1;
    // cells (i, j) with j < 2·vi: another variable
    for (let j = 0; j < 2 * vi; j++) {
      if (f64 ? f64[base + j] === Number.POSITIVE_INFINITY : B.isInf(m[base + j] as T)) continue;
      const a = find(vi);
      const b = find(j >> 1);
      if (a === b) continue;
      parent[a] = b;
      size[b] = (size[b] as number) + (size[a] as number);
      if ((size[b] as number) > maxBlock) return null;
    }
  }
  const blocks = new Map<number, number[]>();
  for (let v = 0; v < n; v++) {
    const r = find(v);
    const list = blocks.get(r);
    if (list) list.push(v);
    else blocks.set(r, [v]);
  }
  return [...blocks.values()];
}

/**
 * Closes `m` block by block when its largest block has at most `maxShare` of the variables:
 * each block of two or more variables is copied out, closed by `closeBlock` (a dense strong or
 * tight closure of that many variables), copied back, then the whole matrix is strengthened by
 * `strengthen`. Returns `undefined` when the matrix is one big block (close it densely), else
 * whether it is non-empty.
 *
 * @example
 * ```ts
 * const ok = closeByBlocks(m, n, f64Bounds, true, (s, k) => closeF64(s, k, true), (s) => strengthenF64(s, n, true));
 * ```
 */
export function closeByBlocks<T>(
  m: BoundStore<T>,
  n: number,
  B: Bounds<T>,
  tight: Tightness,
  closeBlock: (sub: BoundStore<T>, k: number, tight: Tightness) => boolean,
  strengthen: (m: BoundStore<T>) => boolean,
  maxShare = 0.5,
): boolean | undefined {
  const blocks = variableBlocks(m, n, B, Math.floor(maxShare * n));
  if (blocks === null) return undefined;
  for (const vs of blocks) {
    if (vs.length < 2) continue; // a lone variable: the strengthening checks its two unary cells
    const k = vs.length;
    const sub = B.alloc(halfSize(k));
    const node = (s: number) => 2 * (vs[s >> 1] as number) + (s & 1);
    for (let i = 0; i < 2 * k; i++) {
      const gi = node(i);
      for (let j = 0; j <= (i | 1); j++) sub[matPos(i, j)] = m[matPos(gi, node(j))] as T;
    }
    const blockTight = typeof tight === 'boolean' ? tight : vs.map((v) => tight[v] ?? 0);
    if (!closeBlock(sub, k, blockTight)) return false;
    for (let i = 0; i < 2 * k; i++) {
      const gi = node(i);
      for (let j = 0; j <= (i | 1); j++) m[matPos(gi, node(j))] = sub[matPos(i, j)] as T;
    }
  }
  return strengthen(m);
}
