import { opCombine, opIdentity } from '../common/ops';
import type { ReduceOperator } from './reduce';

/**
 * The reduction on the CPU with the GPU's u32 semantics (add wraps modulo 2^32); the operator's
 * identity (0, or 0xffffffff for `min`) for an empty input.
 *
 * @example
 * ```ts
 * reduceReference(Uint32Array.of(3, 1, 4), 'add'); // 8
 * reduceReference(new Uint32Array(0), 'min'); // 4294967295
 * ```
 */
export function reduceReference(input: Uint32Array, op: ReduceOperator): number {
  const f = opCombine(op);
  let acc = opIdentity(op);
  for (let i = 0; i < input.length; i++) acc = f(acc, input[i] as number);
  return acc;
}
