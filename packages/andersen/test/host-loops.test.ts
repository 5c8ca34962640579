import { NO_ELEMENT } from '@gpumorph/sparse-bitvector';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compositeKeysInto, liveLayout, sharedSetCounts } from '../src/gpu/host-loops';

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

  it('lays live sets out one after another, empty sets headless', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }), (sizes) => {
        const lengths = Uint32Array.from(sizes);
        // Stale words in the outputs must all be overwritten.
        const offsets = new Uint32Array(sizes.length).fill(99);
        const heads = new Uint32Array(sizes.length).fill(99);
        const live = liveLayout(lengths, offsets, heads);
        let at = 0;
        sizes.forEach((size, v) => {
          expect(heads[v]).toBe(size > 0 ? at : NO_ELEMENT);
          expect(offsets[v]).toBe(size > 0 ? at : 0);
          at += size;
        });
        expect(live).toBe(at);
      }),
    );
  });

  it("counts each representative's elements through its leader, and the shared sets", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 9 })), { maxLength: 30 }),
        (rows) => {
          const n = rows.length;
          const parent = Uint32Array.from(rows, ([p], v) => (p % 3 === 0 ? v : p % n));
          const leaderOf = Uint32Array.from(rows, ([, l], v) => (l % 2 === 0 ? v : l % n));
          const lengths = Uint32Array.from(rows, ([, , size]) => size);
          let elements = 0;
          let shared = 0;
          for (let v = 0; v < n; v++) {
            if (parent[v] !== v) continue;
            elements += lengths[leaderOf[v] as number] as number;
            if (leaderOf[v] !== v) shared++;
          }
          expect(sharedSetCounts(parent, leaderOf, lengths)).toEqual({ elements, shared });
        },
      ),
    );
  });
});
