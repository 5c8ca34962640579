import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { breaksConstraintRule } from '../src/io/validate';
import { type ConstraintProgram, checkConstraint, largestObjectSize } from '../src/model/program';

/** One constraint of any kind, ids and offset (valid or not) over nodes of random object sizes. */
const oneConstraint = fc
  .tuple(
    fc.array(fc.nat(4), { minLength: 1, maxLength: 6 }),
    fc.nat(6),
    fc.nat(8),
    fc.nat(8),
    fc.oneof(fc.constant(0), fc.nat(6)),
  )
  .map(
    ([sizes, kind, dst, src, offset]): ConstraintProgram => ({
      nodeCount: sizes.length,
      objectSize: Uint32Array.from(sizes),
      isFunction: new Uint8Array(sizes.length),
      constraints: {
        length: 1,
        kind: Uint8Array.of(kind),
        dst: Uint32Array.of(dst),
        src: Uint32Array.of(src),
        offset: Uint32Array.of(offset),
      },
    }),
  );

describe('the readers’ fast rule check', () => {
  it('finds a break exactly when the model’s checkConstraint throws', () => {
    fc.assert(
      fc.property(oneConstraint, (program) => {
        const largest = largestObjectSize(program);
        let throws = false;
        try {
          checkConstraint(program, 0, largest);
        } catch {
          throws = true;
        }
        expect(breaksConstraintRule(program, 0, largest)).toBe(throws);
      }),
      { numRuns: 2000 },
    );
  });
});
