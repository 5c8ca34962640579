import type { ScanKind, ScanOperator } from './scan';

/**
 * The scan on the CPU, with the GPU's u32 semantics (add wraps modulo 2^32). With `segmentHeads`,
 * an element whose head is nonzero starts a new segment: the running value restarts there (an
 * exclusive scan gives the identity, 0, at a head).
 *
 * @example
 * ```ts
 * scanReference(Uint32Array.of(1, 2, 3, 4), { kind: 'exclusive', op: 'add' }); // [0, 1, 3, 6]
 * scanReference(Uint32Array.of(1, 2, 3, 4), { kind: 'inclusive', op: 'add', segmentHeads: Uint32Array.of(0, 0, 1, 0) }); // [1, 3, 3, 7]
 * ```
 */
export function scanReference(
  input: Uint32Array,
  o: { kind: ScanKind; op: ScanOperator; segmentHeads?: Uint32Array },
): Uint32Array {
  const out = new Uint32Array(input.length);
  const add = o.op === 'add';
  let acc = 0;
  for (let i = 0; i < input.length; i++) {
    if (o.segmentHeads && (o.segmentHeads[i] ?? 0) !== 0) acc = 0;
    const x = input[i] as number;
    const next = add ? (acc + x) >>> 0 : Math.max(acc, x);
    out[i] = o.kind === 'exclusive' ? acc : next;
    acc = next;
  }
  return out;
}
