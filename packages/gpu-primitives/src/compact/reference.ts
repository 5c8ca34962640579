/**
 * Stream compaction on the CPU: the elements for which `keep(x, i)` holds, in their order.
 *
 * @example
 * ```ts
 * compactReference(Uint32Array.of(5, 0, 7, 0), (x) => x !== 0); // [5, 7]
 * ```
 */
export function compactReference(input: Uint32Array, keep: (x: number, i: number) => boolean): Uint32Array {
  const out: number[] = [];
  for (let i = 0; i < input.length; i++) {
    const x = input[i] as number;
    if (keep(x, i)) out.push(x);
  }
  return Uint32Array.from(out);
}
