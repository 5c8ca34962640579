import { matPos, rowStart } from './layout';
import { createClosureSweep } from './wasm/simd';

/** Variables per pivot block of {@link closeF64Blocked}: 32 pivot nodes, a panel of 32 rows. */
export const PIVOT_BLOCK = 16;

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
 * the cache: {@link minplus}. Without a negative cycle the result is the all-pairs shortest paths,
 * whatever the order of the pivots, and every sum is exact on the grid, so it equals the unblocked
 * sweep cell for cell (tested). A negative diagonal is checked after each block.
 *
 * Returns false when empty, undefined where WebAssembly SIMD is unavailable (nothing written).
 */
export function shortestPathsBlocked(m: Float64Array, n: number): boolean | undefined {
  const N = 2 * n;
  const cells = m.length;
  const P = 2 * PIVOT_BLOCK;
  const columns = 8 * Math.ceil(N / 8);
  // doubles: matrix | C (N rows of P) | D packed (P×P) | row panel packed (P rows × columns)
  const cOff = cells + (cells & 1);
  const dOff = cOff + N * P;
  const panelOff = dOff + P * P;
  const total = panelOff + P * columns;
  const kernel = createClosureSweep(8 * total);
  if (!kernel) return undefined;
  const view = new Float64Array(kernel.memory.buffer, 0, total);
  view.set(m);
  const D = new Float64Array(P * P);
  for (let first = 0; first < n; first += PIVOT_BLOCK) {
    const kp = 2 * Math.min(PIVOT_BLOCK, n - first);
    const p0 = 2 * first;
    // D: the pivot nodes among themselves, closed over P
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
    for (let l = 0; l < kp; l++) {
      if ((D[l * kp + l] as number) < 0) {
        m.set(view.subarray(0, cells));
        return false;
      }
    }
    for (let l = 0; l < kp; l++)
      for (let k = 0; k < kp; k++) view[dOff + (k >> 3) * 8 * kp + l * 8 + (k & 7)] = D[l * kp + k] as number;
    // C[i][·]: the paths of every node into P through P
    for (let i = 0; i < N; i++) {
      const row = cOff + i * kp;
      for (let l = 0; l < kp; l++) view[row + l] = view[matPos(i, p0 + l)] as number;
      view.copyWithin(panelOff, row, row + kp); // a scratch copy of the direct cells as the left factor
      kernel.minplus(8 * row, kp, 8 * panelOff, 8 * dOff, kp);
    }
    // the row panel R[k][j] = C[j̄][k̄], packed by chunks of 8 columns (+∞ past the last node)
    for (let j = 0; j < columns; j++) {
      const out = panelOff + (j >> 3) * 8 * kp + (j & 7);
      if (j >= N) {
        for (let k = 0; k < kp; k++) view[out + 8 * k] = Number.POSITIVE_INFINITY;
        continue;
      }
      const c = cOff + (j ^ 1) * kp;
      for (let k = 0; k < kp; k++) view[out + 8 * k] = view[c + (k ^ 1)] as number;
    }
    for (let i = 0; i < N; i++)
      kernel.minplus(8 * rowStart(i), (i | 1) + 1, 8 * (cOff + i * kp), 8 * panelOff, kp);
    for (let i = 0; i < N; i++) {
      if ((view[rowStart(i) + i] as number) < 0) {
        m.set(view.subarray(0, cells));
        return false;
      }
    }
  }
  m.set(view.subarray(0, cells));
  return true;
}
