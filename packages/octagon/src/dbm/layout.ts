/**
 * Half-matrix storage of a coherent DBM (Miné 2006, APRON's `oct`): over the 2n nodes
 * `V_{2k} = +x_k` and `V_{2k+1} = −x_k`, entry `m[i][j]` bounds `V_j − V_i`. Coherence
 * (`m[i][j] = m[j^1][i^1]`) makes half of the matrix redundant: only the cells with
 * `j ≤ (i | 1)` are stored, `2n(n+1)` in all, row after row.
 * @module
 */

/**
 * Number of stored cells of a half matrix over `n` variables.
 *
 * @example
 * ```ts
 * halfSize(3); // 24 cells for 3 variables (a full 6×6 matrix has 36)
 * ```
 */
export function halfSize(n: number): number {
  return 2 * n * (n + 1);
}

/**
 * Position of cell `(i, j)` in the half matrix (coherence maps the cells above the half to their
 * twins).
 *
 * @example
 * ```ts
 * matPos(0, 1); // 1: the bound of −2·x0, i.e. of −x0 twice
 * matPos(1, 2) === matPos(3, 0); // true: V2 − V1 = V0 − V3 = x1 + x0
 * ```
 */
export function matPos(i: number, j: number): number {
  if (j > (i | 1)) {
    const ii = j ^ 1;
    return (i ^ 1) + (((ii + 1) * (ii + 1)) >> 1);
  }
  return j + (((i + 1) * (i + 1)) >> 1);
}

/**
 * Start of row `i` of the half matrix (its cells `0 … (i | 1)` follow).
 *
 * @example
 * ```ts
 * rowStart(2); // 4: row 2 holds cells 4…7 (j = 0…3)
 * ```
 */
export function rowStart(i: number): number {
  return ((i + 1) * (i + 1)) >> 1;
}
