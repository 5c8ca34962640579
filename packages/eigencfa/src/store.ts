/**
 * The fixpoint of an analysis: one sorted flow set per store row, in compressed-row form.
 * @module
 */

/**
 * An abstract store σ: row r's flow set is `data[offsets[r] … offsets[r+1])`, sorted, no duplicates.
 *
 * @example
 * ```ts
 * const store = storeFromRows([[0], [1], [0, 1]]);
 * store.row(2); // Uint32Array [0, 1]
 * store.toArrays(); // [[0], [1], [0, 1]]
 * ```
 */
export class CfaStore {
  readonly offsets: Uint32Array;
  readonly data: Uint32Array;
  constructor(offsets: Uint32Array, data: Uint32Array) {
    this.offsets = offsets;
    this.data = data;
  }
  /** Number of rows. */
  get rows(): number {
    return this.offsets.length - 1;
  }
  /** Total entries (Σ |σ(r)|). */
  get size(): number {
    return this.data.length;
  }
  /** The flow set of row `r` (a view, sorted). */
  row(r: number): Uint32Array {
    return this.data.subarray(this.offsets[r] as number, this.offsets[r + 1] as number);
  }
  /** Whether lambda `l` is in row `r`. */
  has(r: number, l: number): boolean {
    const row = this.row(r);
    let lo = 0;
    let hi = row.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const v = row[mid] as number;
      if (v === l) return true;
      if (v < l) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }
  /** Every row as a plain array (the `"store"` of `gpumorph cfa --json`). */
  toArrays(): number[][] {
    const out: number[][] = [];
    for (let r = 0; r < this.rows; r++) out.push(Array.from(this.row(r)));
    return out;
  }
  /** Whether both stores hold the same sets. */
  equals(other: CfaStore): boolean {
    return firstDifference(this, other) === undefined;
  }
  /** Rows with their sets, one per line (for debugging small programs). */
  dump(limit = 64): string {
    const lines: string[] = [];
    for (let r = 0; r < Math.min(this.rows, limit); r++)
      lines.push(`${r}: {${Array.from(this.row(r)).join(' ')}}`);
    if (this.rows > limit) lines.push(`… ${this.rows - limit} more rows`);
    return lines.join('\n');
  }
  toString(): string {
    return `CfaStore(${this.rows} rows, ${this.size} entries)`;
  }
}

/**
 * The first row where two stores differ, or undefined when they are equal.
 *
 * @example
 * ```ts
 * firstDifference(storeFromRows([[0], [1]]), storeFromRows([[0], []])); // { row: 1, left: [1], right: [] }
 * ```
 */
export function firstDifference(
  a: CfaStore,
  b: CfaStore,
): { row: number; left: number[]; right: number[] } | undefined {
  const rows = Math.max(a.rows, b.rows);
  for (let r = 0; r < rows; r++) {
    const x = r < a.rows ? a.row(r) : new Uint32Array(0);
    const y = r < b.rows ? b.row(r) : new Uint32Array(0);
    let same = x.length === y.length;
    for (let i = 0; same && i < x.length; i++) same = x[i] === y[i];
    if (!same) return { row: r, left: Array.from(x), right: Array.from(y) };
  }
  return undefined;
}

/**
 * Builds a store from arrays of lambda ids (sorted and deduplicated here).
 *
 * @example
 * ```ts
 * storeFromRows([[2, 1, 1]]).row(0); // Uint32Array [1, 2]
 * ```
 */
export function storeFromRows(rows: readonly (readonly number[] | Uint32Array | undefined)[]): CfaStore {
  const offsets = new Uint32Array(rows.length + 1);
  const sorted: Uint32Array[] = [];
  let total = 0;
  rows.forEach((row, r) => {
    const s = Uint32Array.from(new Set(row ?? [])).sort();
    sorted.push(s);
    total += s.length;
    offsets[r + 1] = total;
  });
  const data = new Uint32Array(total);
  sorted.forEach((s, r) => {
    data.set(s, offsets[r] as number);
  });
  return new CfaStore(offsets, data);
}
