/**
 * A hybrid-cycle-detection table (Hardekopf & Lin, CGO'07): what the offline analysis found.
 * `offlineMerges` holds pairs `y, x` meaning "merge y into x before solving" (pointer-equivalent
 * variables); `online` holds pairs `y, x` meaning "every object x ever points to is
 * pointer-equivalent to y" (a cycle through `*x` the offline pass could see but not resolve).
 */
export interface HcdPairs {
  readonly offlineMerges: Uint32Array;
  readonly online: Uint32Array;
}

/**
 * `table` with more offline merges appended (pairs `y, x`; their order does not matter, the solver
 * unites them); `table` may be missing, and then the result has no online pairs.
 *
 * @example
 * ```ts
 * const hcd = appendOfflineMerges(input.hcd, computeHvn(input.program).merges);
 * ```
 */
export function appendOfflineMerges(table: HcdPairs | undefined, merges: Uint32Array | undefined): HcdPairs {
  const existing = table?.offlineMerges ?? new Uint32Array(0);
  const extra = merges ?? new Uint32Array(0);
  const offlineMerges = new Uint32Array(existing.length + extra.length);
  offlineMerges.set(existing);
  offlineMerges.set(extra, existing.length);
  return { offlineMerges, online: table?.online ?? new Uint32Array(0) };
}
