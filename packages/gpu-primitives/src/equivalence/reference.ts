import { assertRecords, type HostRecords } from '../hash/reference';

/**
 * CPU reference of the equivalence classes of records: for each record, the smallest index of a
 * record with the same words. Independent of hashing (records are compared as strings of words).
 *
 * @example
 * ```ts
 * // ΔP(x) = {a, c}, ΔP(y) = {b}, ΔP(z) = {a, c}  →  [0, 1, 0]   (Figure 10 of the PPoPP'12 paper)
 * equivalenceClassesReference({ offsets: Uint32Array.of(0, 2, 3, 5), words: Uint32Array.of(0, 2, 1, 0, 2) });
 * ```
 */
export function equivalenceClassesReference(records: HostRecords): Uint32Array {
  const { offsets, words } = records;
  assertRecords(offsets, words.length);
  const count = Math.max(0, offsets.length - 1);
  const first = new Map<string, number>();
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const key = words.subarray(offsets[i] as number, offsets[i + 1] as number).join(',');
    const known = first.get(key);
    if (known === undefined) first.set(key, i);
    out[i] = known ?? i;
  }
  return out;
}
