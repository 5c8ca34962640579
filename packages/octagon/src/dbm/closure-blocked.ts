import type { ClosureThreads } from './closure-threads';
import { matPos, rowStart } from './layout';
import { type ClosureSweep, createClosureSweep } from './wasm/simd';

/** Variables per pivot block of {@link shortestPathsBlocked}: 32 pivot nodes, a panel of 32 rows. */
export const PIVOT_BLOCK = 16;

/** Where the blocked closure keeps its arrays in one WebAssembly memory (offsets in doubles). */
export interface BlockedLayout {
  /** Nodes (2n) and stored cells of the matrix, which starts at offset 0. */
  readonly nodes: number;
  readonly cells: number;
  /** C: `nodes` rows of up to 32 paths into the pivot block. */
  readonly cOff: number;
  /** The closed pivot block, packed as a panel. */
  readonly dOff: number;
  /** The row panel `R[k][j] = C[j̄][k̄]`, packed by chunks of 8 columns. */
  readonly panelOff: number;
  /** Columns of the row panel: `nodes` rounded up to a multiple of 8. */
  readonly columns: number;
  /** Doubles in all. */
  readonly total: number;
}

/**
 * The arrays of {@link shortestPathsBlocked} for `n` variables.
 *
 * @example
 * ```ts
 * blockedLayout(512).total; // doubles of the WebAssembly memory the closure needs
 * ```
 */
export function blockedLayout(n: number): BlockedLayout {
  const nodes = 2 * n;
  const cells = 2 * n * (n + 1);
  const P = 2 * PIVOT_BLOCK;
  const columns = 8 * Math.ceil(nodes / 8);
  const cOff = cells;
  const dOff = cOff + nodes * P;
  const panelOff = dOff + P * P;
  return { nodes, cells, cOff, dOff, panelOff, columns, total: panelOff + P * columns };
}

/**
 * Rows `from … to − 1` of C, the shortest paths of each node into the pivot block through it:
 * `C[i][k] = min(m[i][k], min_l C[i][l] + D[l][k])`. Reading `C[i][l]` as it is lowered is
 * sound and gives the same minimum (D is closed: every candidate is a path through the block).
 */
export function pathsIntoBlock(
  view: Float64Array,
  kernel: ClosureSweep,
  L: BlockedLayout,
  p0: number,
  kp: number,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const row = L.cOff + i * kp;
    for (let l = 0; l < kp; l++) view[row + l] = view[matPos(i, p0 + l)] as number;
    kernel.minplus(8 * row, kp, 8 * row, 8 * L.dOff, kp);
  }
}

/** Rows `from … to − 1` of the matrix take the paths through the pivot block (one min-plus each). */
export function sweepRows(
  kernel: ClosureSweep,
  L: BlockedLayout,
  kp: number,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++)
    kernel.minplus(8 * rowStart(i), (i | 1) + 1, 8 * (L.cOff + i * kp), 8 * L.panelOff, kp);
}

/**
 * Closes the pivot block's nodes among themselves (Floyd–Warshall over them) and packs the result
 * as the panel of {@link pathsIntoBlock}; false on a negative cycle.
 */
function closePivotBlock(
  view: Float64Array,
  D: Float64Array,
  L: BlockedLayout,
  p0: number,
  kp: number,
): boolean {
  for (let l = 0; l < kp; l++)
    for (let k = 0; k < kp; k++) D[l * kp + k] = view[matPos(p0 + l, p0 + k)] as number;
  for (let q = 0; q < kp; q++) {
    for (let l = 0; l < kp; l++) {
      const dlq = D[l * kp + q] as number;
      if (dlq === Number.POSITIVE_INFINITY) continue;
      for (let k = 0; k < kp; k++) {
        const t = dlq + (D[q * kp + k] as number);
        if (t < (D[l * kp + k] as number)) D[l * kp + k] = t;
      }
    }
  }
  for (let l = 0; l < kp; l++) if ((D[l * kp + l] as number) < 0) return false;
  for (let l = 0; l < kp; l++)
    for (let k = 0; k < kp; k++) view[L.dOff + (k >> 3) * 8 * kp + l * 8 + (k & 7)] = D[l * kp + k] as number;
  return true;
}

/** The row panel `R[k][j] = C[j̄][k̄]`, packed by chunks of 8 columns, +∞ past the last node. */
function packRowPanel(view: Float64Array, L: BlockedLayout, kp: number): void {
  for (let j = 0; j < L.columns; j++) {
    const out = L.panelOff + (j >> 3) * 8 * kp + (j & 7);
    if (j >= L.nodes) {
      for (let k = 0; k < kp; k++) view[out + 8 * k] = Number.POSITIVE_INFINITY;
      continue;
    }
    const c = L.cOff + (j ^ 1) * kp;
    for (let k = 0; k < kp; k++) view[out + 8 * k] = view[c + (k ^ 1)] as number;
  }
}

/**
 * The shortest-path part of the f64 closure on the exact grid, blocked for the cache
 * (Venkataraman et al.'s blocked Floyd–Warshall on the half matrix), in WebAssembly SIMD.
 *
 * The pivots go in blocks of {@link PIVOT_BLOCK} variables (their 2·16 nodes P, closed under
 * `k ↦ k̄`). For each block: the P×P cells are closed by Floyd–Warshall over P alone (D); every
 * node's shortest paths into P through P are `C[i][k] = min(m[i][k], min_l m[i][l] + D[l][k])`;
 * then every stored cell takes the paths through P, `m[i][j] = min(m[i][j], min_k C[i][k] +
 * C[j̄][k̄])` (the path `k → j` is the twin of `j̄ → k̄`, so one panel serves rows and columns, and
 * the update keeps the matrix coherent). A row of the matrix is read and written once per block
 * rather than once per pivot, and the 32 candidates of each cell come from a panel that stays in
 * the cache. Without a negative cycle the result is the all-pairs shortest paths, whatever the
 * order of the pivots, and every sum is exact on the grid, so it equals the pivot-by-pivot sweep
 * cell for cell (tested). A negative diagonal is checked after each block.
 *
 * With `threads` ({@link createClosureThreads}) the rows of C and of the matrix are split among
 * the worker threads and the calling thread, which meet after each of the two phases of a block.
 *
 * Returns false when empty, undefined where WebAssembly SIMD (or, with `threads`, shared
 * WebAssembly memory) is unavailable: nothing is written then.
 *
 * @example
 * ```ts
 * const ok = shortestPathsBlocked(m, n); // then strengthenF64(m, n, tight, true)
 * ```
 */
export function shortestPathsBlocked(
  m: Float64Array,
  n: number,
  threads?: ClosureThreads,
): boolean | undefined {
  const L = blockedLayout(n);
  const run = threads?.begin(L);
  const kernel = run ? run.kernel : createClosureSweep(8 * L.total);
  if (!kernel) return undefined;
  const view = new Float64Array(kernel.memory.buffer, 0, L.total);
  view.set(m);
  const D = new Float64Array(4 * PIVOT_BLOCK * PIVOT_BLOCK);
  let ok = true;
  try {
    for (let first = 0; first < n && ok; first += PIVOT_BLOCK) {
      const kp = 2 * Math.min(PIVOT_BLOCK, n - first);
      const p0 = 2 * first;
      ok = closePivotBlock(view, D, L, p0, kp);
      if (!ok) break;
      const paths = (from: number, to: number) => pathsIntoBlock(view, kernel, L, p0, kp, from, to);
      if (run) run.phase('paths', p0, kp, paths);
      else paths(0, L.nodes);
      packRowPanel(view, L, kp);
      const sweep = (from: number, to: number) => sweepRows(kernel, L, kp, from, to);
      if (run) run.phase('sweep', p0, kp, sweep);
      else sweep(0, L.nodes);
      for (let i = 0; i < L.nodes && ok; i++) ok = (view[rowStart(i) + i] as number) >= 0;
    }
  } finally {
    run?.end();
  }
  m.set(view.subarray(0, L.cells));
  return ok;
}
