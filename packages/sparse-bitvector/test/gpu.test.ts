import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createGpuSparseBitVectors,
  type GpuSetOperation,
  type GpuSparseBitVectors,
  MAX_MEMBER,
  NO_ELEMENT,
  packVectors,
  type SparseBitVector,
  SparseBitVectorLayoutError,
  SparseBitVectorPool,
  unpackVectors,
} from '../src/index';
import { memberSets } from '../src/testing/index';

const sorted = (s: Iterable<number>) => [...new Set(s)].sort((a, b) => a - b);

type Op = GpuSetOperation['op'];
interface Case {
  readonly op: Op;
  readonly dst: number[];
  readonly src: number[];
  readonly offset: number;
  readonly limit: number | undefined;
}

const offsetArb = fc.oneof(
  fc.integer({ min: 0, max: 3000 }),
  fc.constantFrom(0, 1, 31, 32, 959, 960, 961, 1919, 1920),
  fc.integer({ min: MAX_MEMBER - 5000, max: MAX_MEMBER }),
);
const limitArb = fc.option(
  fc.oneof(fc.integer({ min: 0, max: 300_000 }), fc.constantFrom(0, 960, 961, MAX_MEMBER, MAX_MEMBER + 1)),
  { nil: undefined },
);
const caseArb = (ops: readonly Op[]): fc.Arbitrary<Case> =>
  fc.record({
    op: fc.constantFrom(...ops),
    dst: memberSets(),
    src: memberSets(),
    offset: offsetArb,
    limit: limitArb,
  });

/** The CPU oracle: applies the case to CPU vectors. */
function cpuApply(pool: SparseBitVectorPool, c: Case): { result: SparseBitVector; changed: boolean } {
  const dst = pool.fromArray(c.dst);
  const src = pool.fromArray(c.src);
  let changed: boolean;
  switch (c.op) {
    case 'union':
      changed = dst.unionWith(src);
      break;
    case 'difference':
      changed = dst.subtract(src);
      break;
    case 'intersection':
      changed = dst.intersectWith(src);
      break;
    case 'shiftedUnion':
      changed = dst.unionWithShifted(src, c.offset, c.limit);
      break;
  }
  return { result: dst, changed };
}

function operation(c: Case, dst: number, src: number): GpuSetOperation {
  return c.op === 'shiftedUnion'
    ? { op: c.op, dst, src, offset: c.offset, ...(c.limit === undefined ? {} : { limit: c.limit }) }
    : { op: c.op, dst, src };
}

/** Runs a batch on the GPU: case i uses vectors 2i (dst) and 2i + 1 (src), all in one dispatch. */
async function runBatch(sets: GpuSparseBitVectors, cases: readonly Case[]) {
  const cpu = new SparseBitVectorPool();
  await sets.upload(cases.flatMap((c) => [cpu.fromArray(c.dst), cpu.fromArray(c.src)]));
  const applied = await sets.apply(cases.map((c, i) => operation(c, 2 * i, 2 * i + 1)));
  const out = new SparseBitVectorPool();
  const vectors = await sets.download(out);
  return { applied, results: cases.map((_, i) => vectors[2 * i] as SparseBitVector) };
}

describe('bulk transfer layout (CPU side)', () => {
  it('packs and unpacks vectors word for word', () => {
    fc.assert(
      fc.property(fc.array(memberSets(), { maxLength: 8 }), fc.nat({ max: 1000 }), (lists, first) => {
        const pool = new SparseBitVectorPool();
        const vectors = lists.map((l) => pool.fromArray(l));
        const packed = packVectors(vectors, first);
        // Element k of the packed words has index first + k: shift into a pool-sized array.
        const words = new Uint32Array((first + packed.words.length / 32) * 32);
        words.set(packed.words, first * 32);
        const back = unpackVectors(new SparseBitVectorPool(), words, packed.heads);
        back.forEach((v, i) => {
          expect([...v]).toEqual(sorted(lists[i] as number[]));
          expect(v.hash()).toBe(vectors[i]?.hash());
        });
      }),
    );
  });

  it('rejects lists that are not canonical', () => {
    const pool = new SparseBitVectorPool();
    const { words, heads } = packVectors([pool.fromArray([1, 2000])], 0);
    const cycle = words.slice();
    cycle[32 + 31] = 0;
    cycle[32 + 30] = 5;
    expect(() => unpackVectors(pool, cycle, heads)).toThrow(SparseBitVectorLayoutError);
    const unsorted = words.slice();
    unsorted[32 + 30] = 0;
    expect(() => unpackVectors(pool, unsorted, heads)).toThrow(/base 0 after base 0/);
    const empty = words.slice();
    empty.fill(0, 0, 30);
    expect(() => unpackVectors(pool, empty, heads)).toThrow(/empty/);
    expect(() => unpackVectors(pool, words, Uint32Array.of(7))).toThrow(/past/);
  });
});

for (const subgroups of [true, false]) {
  describeGpu(
    'GPU sparse bit vectors',
    (gpu) => {
      it('round-trips CPU vectors through the GPU (upload, download, decode, count, hash)', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(memberSets(), { minLength: 1, maxLength: 12 }), async (lists) => {
            const sets = await createGpuSparseBitVectors(gpu.ctx, { vectors: lists.length + 2, capacity: 1 });
            try {
              const cpu = new SparseBitVectorPool();
              const vectors = lists.map((l) => cpu.fromArray(l));
              await sets.upload(vectors, { first: 1 });
              const back = await sets.download(new SparseBitVectorPool());
              expect(back[0]?.isEmpty()).toBe(true);
              expect(back.at(-1)?.isEmpty()).toBe(true);
              const ids = lists.map((_, i) => i + 1);
              const [decoded, counts, hashes] = [
                await sets.decode(ids),
                await sets.count(ids),
                await sets.hash(ids, 7),
              ];
              lists.forEach((l, i) => {
                expect([...(back[i + 1] as SparseBitVector)]).toEqual(sorted(l));
                expect([...(decoded[i] as Uint32Array)]).toEqual(sorted(l));
                expect(counts[i]).toBe(sorted(l).length);
                expect(hashes[i]).toBe(vectors[i]?.hash(7));
              });
            } finally {
              sets.destroy();
            }
          }),
          { numRuns: 6 },
        );
      });
    },
    { subgroups },
  );
}
