import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compositeKeysInto } from '../src/gpu/host-loops';

describe('the WebGPU solver host loops', () => {
  it('builds composite sort keys: key above the source word group', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 16 - 1 }), fc.nat()), { maxLength: 50 }),
        fc.integer({ min: 0, max: 16 }),
        (pairs, bits) => {
          const keys = Uint32Array.from(pairs.map(([k]) => k));
          const sources = Uint32Array.from(pairs.map(([, s]) => s));
          const into = new Uint32Array(pairs.length + 1).fill(7);
          compositeKeysInto(into, keys, sources, pairs.length, bits, 5);
          pairs.forEach(([k, s], i) => {
            expect(into[i]).toBe(Number((BigInt(k) << BigInt(bits)) | BigInt(s >>> 5)) >>> 0);
          });
          // Past the count nothing is written.
          expect(into[pairs.length]).toBe(7);
        },
      ),
    );
  });
});
