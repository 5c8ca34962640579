import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adoptVectors,
  adoptVectorTable,
  createGpuSparseBitVectors,
  type GpuSetOperation,
  type GpuSparseBitVectors,
  type GpuSparseBitVectorsOptions,
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
type UnionOptions = Pick<
  GpuSparseBitVectorsOptions,
  'unionTeamLanes' | 'unionAllocation' | 'unionWorkgroupSize'
>;
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
/** A (dst, src) pair that overlaps: src takes some of dst's members besides its own, near and far. */
const pairArb = fc
  .tuple(memberSets(), memberSets(), fc.array(fc.boolean()), fc.array(fc.integer({ min: -40, max: 40 })))
  .map(([dst, own, keep, nudge]) => {
    const shared = dst.filter((_, i) => keep[i % Math.max(1, keep.length)] ?? true);
    const near = dst.map((m, i) => m + (nudge[i] ?? 0)).filter((m) => m >= 0 && m <= MAX_MEMBER);
    return { dst, src: [...own, ...shared, ...near.slice(0, nudge.length)] };
  });
const caseArb = (ops: readonly Op[]): fc.Arbitrary<Case> =>
  fc
    .record({
      op: fc.constantFrom(...ops),
      pair: pairArb,
      offset: offsetArb,
      limit: limitArb,
      // Often a bound just around a shifted member, so it cuts inside a word.
      near: fc.option(fc.tuple(fc.nat(), fc.integer({ min: -3, max: 3 })), { nil: undefined }),
    })
    .map(({ op, pair, offset, limit, near }) => {
      const anchor = near && pair.src.length > 0 ? pair.src[near[0] % pair.src.length] : undefined;
      const bound = anchor === undefined ? limit : Math.max(0, anchor + offset + (near?.[1] ?? 0));
      return { op, ...pair, offset, limit: bound };
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

  /** The packed lists with their elements moved to shuffled places among garbage, as a bump pool leaves them. */
  const scatter = (packed: { words: Uint32Array; heads: Uint32Array }, order: number[], garbage: number) => {
    const count = packed.words.length / 32;
    const slots = count + garbage;
    // Element k goes to place[k]: a permutation of the slots, driven by `order`.
    const free = Array.from({ length: slots }, (_, i) => i);
    const place = Array.from(
      { length: count },
      (_, k) => free.splice((order[k] ?? 0) % free.length, 1)[0] as number,
    );
    const words = new Uint32Array(slots * 32).fill(0xdead_beef);
    for (let k = 0; k < count; k++) {
      words.set(packed.words.subarray(k * 32, k * 32 + 31), (place[k] as number) * 32);
      const next = packed.words[k * 32 + 31] as number;
      words[(place[k] as number) * 32 + 31] = next === 0xffff_ffff ? next : (place[next] as number);
    }
    const heads = packed.heads.map((h) => (h === 0xffff_ffff ? h : (place[h] as number)));
    return { words, heads };
  };

  it('unpacks scattered lists into a pool that already holds vectors, and adopts them in place', () => {
    fc.assert(
      fc.property(
        fc.array(memberSets(), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 64 }),
        fc.nat({ max: 5 }),
        (lists, order, garbage) => {
          const pool = new SparseBitVectorPool();
          const vectors = lists.map((l) => pool.fromArray(l));
          const { words, heads } = scatter(packVectors(vectors, 0), order, garbage);
          const target = new SparseBitVectorPool();
          const earlier = target.fromArray([3, 5000]);
          const back = unpackVectors(target, words, heads);
          const copy = words.slice();
          const table = adoptVectorTable(words.slice(), heads);
          expect(table.length).toBe(lists.length);
          expect(table.at(lists.length)).toBeUndefined();
          expect(table.at(-1)).toBeUndefined();
          // Asked for out of order, and twice: the same vector each time, holding its list.
          for (let i = lists.length - 1; i >= 0; i--) {
            expect([...(table.at(i) as SparseBitVector)]).toEqual(sorted(lists[i] as number[]));
            expect(table.at(i)).toBe(table.at(i));
          }
          const adopted = adoptVectors(copy, heads);
          // No copy: the pool's storage is the array handed over (when it holds an element).
          if (copy.length > 0) expect(adopted.pool.words.buffer).toBe(copy.buffer);
          expect([...earlier]).toEqual([3, 5000]);
          lists.forEach((l, i) => {
            expect([...(back[i] as SparseBitVector)]).toEqual(sorted(l));
            expect([...(adopted.vectors[i] as SparseBitVector)]).toEqual(sorted(l));
            expect(adopted.vectors[i]?.hash()).toBe(vectors[i]?.hash());
          });
          // Adopted vectors are ordinary vectors: they change and grow past the adopted storage.
          for (const v of adopted.vectors) {
            v.set(123_456_789);
            v.unionWith(earlier);
          }
          const fresh = adopted.pool.fromArray([7]);
          lists.forEach((l, i) => {
            expect([...(adopted.vectors[i] as SparseBitVector)]).toEqual(
              sorted([...l, 3, 5000, 123_456_789]),
            );
          });
          expect([...fresh]).toEqual([7]);
        },
      ),
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
    const top = packVectors([pool.fromArray([MAX_MEMBER])], 0);
    expect([...(unpackVectors(pool, top.words, top.heads)[0] as SparseBitVector)]).toEqual([MAX_MEMBER]);
    const beyond = top.words.slice();
    beyond[8] = 1;
    expect(() => unpackVectors(pool, beyond, top.heads)).toThrow(/past 2\^32/);
    expect(() => adoptVectors(cycle, heads)).toThrow(SparseBitVectorLayoutError);
    expect(() => adoptVectors(empty, heads)).toThrow(/empty/);
    expect(() => adoptVectors(words, Uint32Array.of(7))).toThrow(/past/);
    expect(() => adoptVectorTable(cycle, heads)).toThrow(SparseBitVectorLayoutError);
    expect(() => adoptVectorTable(empty, heads)).toThrow(/empty/);
    expect(adoptVectorTable(new Uint32Array(0), Uint32Array.of(NO_ELEMENT)).at(0)?.isEmpty()).toBe(true);
    // Lengths checked elsewhere: only that the lists lie in the words read is checked.
    const two = packVectors([pool.fromArray([1, 2000, 5000]), pool.fromArray([7])], 0);
    const lengths = Uint32Array.of(3, 1);
    const trusted = adoptVectorTable(two.words.slice(), two.heads, { checkedLengths: lengths });
    expect([...(trusted.at(0) as SparseBitVector)]).toEqual([1, 2000, 5000]);
    expect([...(trusted.at(1) as SparseBitVector)]).toEqual([7]);
    expect(() => adoptVectorTable(two.words, two.heads, { checkedLengths: Uint32Array.of(3, 2) })).toThrow(
      /do not lie/,
    );
    expect(() => adoptVectorTable(two.words, two.heads, { checkedLengths: Uint32Array.of(0, 1) })).toThrow(
      SparseBitVectorLayoutError,
    );
    expect(() => adoptVectorTable(two.words, two.heads, { checkedLengths: Uint32Array.of(3) })).toThrow(
      RangeError,
    );
    expect(adoptVectors(new Uint32Array(0), Uint32Array.of(NO_ELEMENT)).vectors[0]?.isEmpty()).toBe(true);
    // Laid out and checked by the writer: no lengths, and each head checked when first asked for.
    const laid = adoptVectorTable(two.words.slice(), Uint32Array.of(two.heads[0] as number, NO_ELEMENT, 4), {
      laidOut: true,
    });
    expect([...(laid.at(0) as SparseBitVector)]).toEqual([1, 2000, 5000]);
    expect(laid.at(1)?.isEmpty()).toBe(true);
    expect(() => laid.at(2)).toThrow(/head 4 does not lie in the 4 elements/);
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

      const allOps: readonly Op[] = ['union', 'difference', 'intersection', 'shiftedUnion'];
      it.each(allOps)('%s: GPU == CPU on random batches (one dispatch each, growing pool)', async (op) => {
        await assertBatches([op], 5, 6);
      });

      it('mixed batches: GPU == CPU, changed flags, equals and hash of the results', async () => {
        await assertBatches(allOps, 6, 10);
      });

      it('edge cases: 959/960/961, ids near 2^32 - 2, empty sets, long chains', async () => {
        await assertEdgeCases();
      });

      it('copies lists that earlier unions scattered into empty sets (runs of consecutive elements broken anywhere)', async () => {
        // Batch 1 unions `insert` into the uploaded (consecutive) list `base`, whose new elements
        // come from the end of the pool, so the list's runs break where they land; batch 2 unions
        // that list into an empty set, which the library copies a team's width of elements at a
        // time, gathering a run per round trip.
        const elementBases = fc.uniqueArray(fc.nat({ max: 200 }), { minLength: 1, maxLength: 70 });
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.tuple(elementBases, elementBases, fc.nat({ max: 959 })), {
              minLength: 1,
              maxLength: 4,
            }),
            async (lists) => {
              const k = lists.length;
              // The library's union: subgroup teams one union each, or the workgroup teams.
              const sets = await createGpuSparseBitVectors(gpu.ctx, {
                vectors: 3 * k,
                capacity: 1,
                ...(subgroups ? { unionTeamLanes: 0 } : {}),
              });
              try {
                const cpu = new SparseBitVectorPool();
                const bases = lists.map(([b, , bit]) => b.map((e) => e * 960 + bit));
                const inserts = lists.map(([, i, bit]) => i.map((e) => e * 960 + ((bit + 1) % 960)));
                await sets.upload([...bases, ...inserts].map((members) => cpu.fromArray(members)));
                await sets.apply(lists.map((_, i) => ({ op: 'union' as const, dst: i, src: k + i })));
                await sets.apply(lists.map((_, i) => ({ op: 'union' as const, dst: 2 * k + i, src: i })));
                const back = await sets.download(new SparseBitVectorPool());
                lists.forEach((_, i) => {
                  const want = [...new Set([...(bases[i] as number[]), ...(inserts[i] as number[])])].sort(
                    (a, b) => a - b,
                  );
                  expect([...(back[2 * k + i] as SparseBitVector)]).toEqual(want);
                  expect([...(back[i] as SparseBitVector)]).toEqual(want);
                });
              } finally {
                sets.destroy();
              }
            },
          ),
          { numRuns: 8 },
        );
      });

      // The batched union kernel with other team sizes (fewer than 8 lanes: several teams per
      // subgroup even on 8-lane subgroups) and with atomic allocation, and the library's
      // one-union-per-subgroup path it replaces.
      if (subgroups) {
        const variants: readonly UnionOptions[] = [
          { unionTeamLanes: 1 },
          { unionTeamLanes: 2 },
          { unionTeamLanes: 8 },
          { unionTeamLanes: 8, unionWorkgroupSize: 64 },
          { unionTeamLanes: 4, unionAllocation: 'atomic' },
          { unionTeamLanes: 8, unionAllocation: 'atomic' },
          { unionTeamLanes: 0 },
        ];
        describe.each(variants)('unions with %o', (variant) => {
          it('GPU == CPU on random union batches and mixed batches', async () => {
            await assertBatches(['union'], 12, 6, variant);
            await assertBatches(allOps, 8, 4, variant);
          });
          it('edge cases', async () => {
            await assertEdgeCases(variant);
          });
          it('grows the pool mid-batch', async () => {
            await assertGrowth(variant);
          });
        });
      }

      async function assertEdgeCases(extra: UnionOptions = {}) {
        const top = MAX_MEMBER - 1;
        const chain = Array.from({ length: 120 }, (_, k) => k * 960 + (k % 7));
        const chain2 = Array.from({ length: 90 }, (_, k) => k * 1920 + 959);
        const cases: Case[] = [
          { op: 'union', dst: [959], src: [960, 961], offset: 0, limit: undefined },
          { op: 'union', dst: [], src: [959, 960, 961], offset: 0, limit: undefined },
          { op: 'union', dst: [961, top], src: [], offset: 0, limit: undefined },
          { op: 'union', dst: [top - 960, top], src: [MAX_MEMBER, top - 1, 0], offset: 0, limit: undefined },
          { op: 'difference', dst: [959, 960, 961], src: [960], offset: 0, limit: undefined },
          { op: 'difference', dst: [959, 960, 961], src: [959, 960, 961], offset: 0, limit: undefined },
          { op: 'difference', dst: [], src: [1], offset: 0, limit: undefined },
          { op: 'intersection', dst: [959, 960, 961, top], src: [961, top], offset: 0, limit: undefined },
          { op: 'intersection', dst: [959, 960], src: [], offset: 0, limit: undefined },
          { op: 'shiftedUnion', dst: [], src: [959, 960, 961], offset: 1, limit: undefined },
          { op: 'shiftedUnion', dst: [5], src: [0, 959, 960], offset: 959, limit: 1920 },
          { op: 'shiftedUnion', dst: [], src: [0, 1, 100], offset: top - 1, limit: undefined },
          { op: 'shiftedUnion', dst: [], src: [0, 1, 2, 3], offset: top - 1, limit: MAX_MEMBER },
          { op: 'shiftedUnion', dst: [7], src: [7], offset: 0, limit: 0 },
          { op: 'union', dst: chain, src: chain2, offset: 0, limit: undefined },
          { op: 'intersection', dst: chain, src: chain2, offset: 0, limit: undefined },
          { op: 'difference', dst: chain2, src: chain, offset: 0, limit: undefined },
          { op: 'shiftedUnion', dst: chain, src: chain2, offset: 481, limit: 100_000 },
        ];
        const sets = await createGpuSparseBitVectors(gpu.ctx, {
          vectors: cases.length * 2,
          capacity: 1,
          ...extra,
        });
        try {
          const { applied, results } = await runBatch(sets, cases);
          const cpu = new SparseBitVectorPool();
          cases.forEach((c, i) => {
            const expected = cpuApply(cpu, c);
            expect([...(results[i] as SparseBitVector)], `case ${i} ${c.op}`).toEqual([...expected.result]);
            expect(applied.changed[i], `case ${i} ${c.op} changed`).toBe(expected.changed);
          });
        } finally {
          sets.destroy();
        }
      }

      it('works on a pool bound as several windows (growing across window boundaries)', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(caseArb(allOps), { minLength: 1, maxLength: 4 }), async (cases) => {
            const sets = await createGpuSparseBitVectors(gpu.ctx, {
              vectors: cases.length * 2,
              // 3 windows to start; growth goes to 5, then 8 (each window count is a new shader).
              capacity: 33,
              windowElements: 16,
            });
            try {
              const { results } = await runBatch(sets, cases);
              const cpu = new SparseBitVectorPool();
              cases.forEach((c, i) => {
                expect([...(results[i] as SparseBitVector)], `case ${i} (${c.op})`).toEqual([
                  ...cpuApply(cpu, c).result,
                ]);
              });
            } finally {
              sets.destroy();
            }
          }),
          { numRuns: 4 },
        );
      }, 180_000);

      it('grows the pool mid-batch and completes every union', async () => {
        await assertGrowth();
      });

      async function assertGrowth(extra: UnionOptions = {}) {
        const cases: Case[] = Array.from({ length: 24 }, (_, i) => ({
          op: 'union' as const,
          dst: [i],
          src: Array.from({ length: 6 }, (_, k) => (k + 1) * 960 * (i + 1)),
          offset: 0,
          limit: undefined,
        }));
        const sets = await createGpuSparseBitVectors(gpu.ctx, {
          vectors: cases.length * 2,
          capacity: 1,
          ...extra,
        });
        const grows: number[] = [];
        sets.pool.on('grow', ({ to }) => grows.push(to));
        try {
          const { applied, results } = await runBatch(sets, cases);
          expect(applied.attempts).toBeGreaterThan(1);
          expect(grows.length).toBeGreaterThan(1);
          cases.forEach((c, i) => {
            expect([...(results[i] as SparseBitVector)]).toEqual(sorted([...c.dst, ...c.src]));
            expect(applied.changed[i]).toBe(true);
          });
        } finally {
          sets.destroy();
        }
      }

      it('rejects a batch where a dst repeats or a src is written by another operation', async () => {
        const sets = await createGpuSparseBitVectors(gpu.ctx, { vectors: 4 });
        try {
          await expect(
            sets.apply([
              { op: 'union', dst: 0, src: 1 },
              { op: 'difference', dst: 0, src: 2 },
            ]),
          ).rejects.toThrow(TypeError);
          await expect(
            sets.apply([
              { op: 'union', dst: 0, src: 1 },
              { op: 'union', dst: 1, src: 2 },
            ]),
          ).rejects.toThrow(/reads vector 1/);
          await expect(sets.apply([{ op: 'shiftedUnion', dst: 3, src: 3, offset: 1 }])).rejects.toThrow(
            TypeError,
          );
          await expect(sets.apply([{ op: 'union', dst: 4, src: 1 }])).rejects.toThrow(RangeError);
          // The same vector on both sides of one operation is fine.
          const cpu = new SparseBitVectorPool();
          await sets.upload([cpu.fromArray([1, 961]), cpu.fromArray([2])]);
          const r = await sets.apply([
            { op: 'union', dst: 0, src: 0 },
            { op: 'difference', dst: 1, src: 1 },
          ]);
          expect(r.changed).toEqual([false, true]);
          const [a, b] = await sets.download(new SparseBitVectorPool(), { count: 2 });
          expect([...(a as SparseBitVector)]).toEqual([1, 961]);
          expect(b?.isEmpty()).toBe(true);
          expect((await sets.readHeads())[1]).toBe(NO_ELEMENT);
        } finally {
          sets.destroy();
        }
      });

      /** fast-check batches of cases, each batch in one dispatch on a pool that starts at 1 element. */
      async function assertBatches(
        ops: readonly Op[],
        maxBatch: number,
        numRuns: number,
        extra: UnionOptions = {},
      ) {
        await fc.assert(
          fc.asyncProperty(fc.array(caseArb(ops), { minLength: 1, maxLength: maxBatch }), async (cases) => {
            const sets = await createGpuSparseBitVectors(gpu.ctx, {
              vectors: cases.length * 2,
              capacity: 1,
              ...extra,
            });
            try {
              const { applied, results } = await runBatch(sets, cases);
              const cpu = new SparseBitVectorPool();
              const expected = cases.map((c) => cpuApply(cpu, c));
              cases.forEach((c, i) => {
                const want = expected[i] as { result: SparseBitVector; changed: boolean };
                expect([...(results[i] as SparseBitVector)], `case ${i} (${c.op})`).toEqual([...want.result]);
                expect(applied.changed[i], `case ${i} (${c.op}) changed`).toBe(want.changed);
              });
              expect(applied.anyChanged).toBe(expected.some((e) => e.changed));
              // Queries on the results: hash, and equality between neighbouring results.
              const dsts = cases.map((_, i) => 2 * i);
              const hashes = await sets.hash(dsts, 3);
              const cpuResults = expected.map((e) => e.result);
              expect([...hashes]).toEqual(cpuResults.map((v) => v.hash(3)));
              const pairs = dsts.flatMap((d, i) => (i + 1 < dsts.length ? [[d, d + 2] as const] : []));
              const eq = await sets.equals([...pairs, [0, 0]]);
              expect(eq.slice(0, -1)).toEqual(
                pairs.map(([a, b]) =>
                  (cpuResults[a / 2] as SparseBitVector).equals(cpuResults[b / 2] as SparseBitVector),
                ),
              );
              expect(eq.at(-1)).toBe(true);
            } finally {
              sets.destroy();
            }
          }),
          { numRuns },
        );
      }
    },
    { subgroups },
  );
}
