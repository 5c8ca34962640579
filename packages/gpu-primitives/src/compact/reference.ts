/**
 * Stream compaction on the CPU: the elements for which `keep(x, i)` holds, in their order.
 *
 * @example
 * ```ts
 * compactReference(Uint32Array.of(5, 0, 7, 0), (x) => x !== 0); // [5, 7]
 * ```
 */
export function compactReference(input: Uint32Array, keep: (x: number, i: number) => boolean): Uint32Array {
  // A typed array, not a growing JS array: inputs of 2^28 elements exceed V8's array limits.
  const out = new Uint32Array(input.length);
  let kept = 0;
  for (let i = 0; i < input.length; i++) {
    const x = input[i] as number;
    if (keep(x, i)) out[kept++] = x;
  }
  return out.slice(0, kept);
}
