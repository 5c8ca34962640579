/** A range of key bits `[start, end)`, 0 ≤ start ≤ end ≤ 32. */
export interface SortBits {
  readonly start: number;
  readonly end: number;
}

/** Throws a `RangeError` unless `bits` is a valid bit range; returns it (default `[0, 32)`). */
export function checkSortBits(bits: SortBits | undefined): SortBits {
  const b = bits ?? { start: 0, end: 32 };
  if (!Number.isInteger(b.start) || !Number.isInteger(b.end) || b.start < 0 || b.end > 32 || b.start > b.end)
    throw new RangeError(`bad sort bit range [${b.start}, ${b.end}): need integers 0 ≤ start ≤ end ≤ 32`);
  return b;
}

/**
 * Stable sort of u32 `keys` (and the `values` moved with them) by key bits `[bits.start, bits.end)`
 * on the CPU: keys that agree on those bits keep their input order. The inputs are not modified.
 * The oracle the GPU sort is tested against.
 *
 * @example
 * ```ts
 * radixSortReference(new Uint32Array([3, 1, 2]), new Uint32Array([0, 1, 2]));
 * // { keys: [1, 2, 3], values: [1, 2, 0] }
 * radixSortReference(new Uint32Array([0x12, 0x01]), undefined, { start: 4, end: 8 }).keys; // [0x01, 0x12]
 * ```
 */
export function radixSortReference(
  keys: Uint32Array,
  values?: Uint32Array,
  bits?: SortBits,
): { keys: Uint32Array; values?: Uint32Array } {
  const { start, end } = checkSortBits(bits);
  if (values && values.length !== keys.length)
    throw new RangeError(`radixSortReference: ${keys.length} keys but ${values.length} values`);
  const n = keys.length;
  // LSD counting sort by 8-bit digits: each pass is stable, so the whole sort is. Keys (and
  // values) move with every pass, so reads stay sequential and only the writes scatter.
  let sortedKeys = keys.slice();
  let spareKeys = new Uint32Array(n);
  let sortedValues = values?.slice();
  let spareValues = values ? new Uint32Array(n) : undefined;
  const counts = new Uint32Array(257);
  for (let shift = start; shift < end; shift += 8) {
    const mask = (1 << Math.min(8, end - shift)) - 1;
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const d = ((sortedKeys[i] as number) >>> shift) & mask;
      counts[d + 1] = (counts[d + 1] as number) + 1;
    }
    for (let d = 0; d < 256; d++) counts[d + 1] = (counts[d + 1] as number) + (counts[d] as number);
    for (let i = 0; i < n; i++) {
      const key = sortedKeys[i] as number;
      const d = (key >>> shift) & mask;
      const at = counts[d] as number;
      counts[d] = at + 1;
      spareKeys[at] = key;
      if (sortedValues && spareValues) spareValues[at] = sortedValues[i] as number;
    }
    [sortedKeys, spareKeys] = [spareKeys, sortedKeys];
    if (sortedValues && spareValues) [sortedValues, spareValues] = [spareValues, sortedValues];
  }
  return sortedValues ? { keys: sortedKeys, values: sortedValues } : { keys: sortedKeys };
}
