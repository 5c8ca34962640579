/**
 * Sorts the pairs `(keys[i], values[i])` by key and then by value on the CPU; the inputs are not
 * modified. The oracle the GPU {@link MergeSort} is tested against (its order is total, so any
 * correct sort gives this result).
 *
 * @example
 * ```ts
 * mergeSortReference(new Uint32Array([2, 1, 2]), new Uint32Array([9, 5, 3]));
 * // { keys: [1, 2, 2], values: [5, 3, 9] }
 * ```
 */
export function mergeSortReference(
  keys: Uint32Array,
  values: Uint32Array,
): { keys: Uint32Array; values: Uint32Array } {
  if (keys.length !== values.length)
    throw new RangeError(`mergeSortReference: ${keys.length} keys but ${values.length} values`);
  // One 64-bit number per pair (key high, value low): a typed-array sort, no comparator calls.
  const pairs = new BigUint64Array(keys.length);
  for (let i = 0; i < keys.length; i++)
    pairs[i] = (BigInt(keys[i] as number) << 32n) | BigInt(values[i] as number);
  pairs.sort();
  const sortedKeys = new Uint32Array(keys.length);
  const sortedValues = new Uint32Array(keys.length);
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i] as bigint;
    sortedKeys[i] = Number(pair >> 32n);
    sortedValues[i] = Number(pair & 0xffff_ffffn);
  }
  return { keys: sortedKeys, values: sortedValues };
}
