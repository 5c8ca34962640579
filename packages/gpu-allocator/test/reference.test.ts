import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateTeamsReference, CpuElementPool, INVALID_ELEMENT, PoolCapacityError } from '../src/index';

describe('CpuElementPool', () => {
  it('hands out consecutive zeroed elements after the reserved ones, growing and keeping contents', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.nat(5),
        fc.integer({ min: 0, max: 200 }),
        (capacity, reserved, n) => {
          const pool = new CpuElementPool({ capacity, reserved, elementWords: 4 });
          const got: number[] = [];
          for (let k = 0; k < n; k++) {
            const e = pool.alloc();
            expect([...pool.words.subarray(e * 4, e * 4 + 4)]).toEqual([0, 0, 0, 0]);
            pool.words.set([k, k + 1, k + 2, k + 3], e * 4);
            got.push(e);
          }
          expect(got).toEqual(Array.from({ length: n }, (_, k) => reserved + k));
          expect(got.map((e) => pool.words[e * 4 + 3])).toEqual(got.map((_, k) => k + 3));
          expect(pool.allocated).toBe(reserved + n);
          pool.reset();
          expect(pool.allocated).toBe(reserved);
          expect(pool.words.every((w) => w === 0)).toBe(true);
        },
      ),
    );
  });

  it('throws PoolCapacityError past maxCapacity', () => {
    const pool = new CpuElementPool({ capacity: 1, maxCapacity: 2 });
    pool.alloc();
    pool.alloc();
    expect(() => pool.alloc()).toThrow(PoolCapacityError);
  });
});

describe('allocateTeamsReference', () => {
  it('gives distinct in-range indices, flags exhaustion, and counts the whole demand', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.boolean(), { maxLength: 32 }), { maxLength: 20 }),
        fc.nat(200),
        fc.nat(10),
        (teams, capacity, next) => {
          const outcome = allocateTeamsReference(teams, { next, capacity });
          const demand = teams.flat().filter(Boolean).length;
          expect(outcome.next).toBe(next + demand);
          expect(outcome.exhausted).toBe(next + demand > capacity && demand > 0);
          const valid = outcome.indices.flat().filter((i) => i !== INVALID_ELEMENT);
          expect(new Set(valid).size).toBe(valid.length);
          expect(valid.length).toBe(Math.max(0, Math.min(demand, capacity - next)));
          const unwanted = teams.flatMap((wants, t) =>
            wants.flatMap((want, l) => (want ? [] : [outcome.indices[t]?.[l]])),
          );
          expect(unwanted.every((index) => index === INVALID_ELEMENT)).toBe(true);
        },
      ),
    );
  });
});
