import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createMergeSort,
  type MergeSort,
  type MergeSortCreateOptions,
  mergeSortReference,
} from '../src/merge-sort/index';
import { expectSameArray, randomKeys, sorterPerContext } from './sort-helpers';

const USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
/** Tiles of 4 × 2 pairs: a few dozen pairs already take several merge passes. */
const TINY: MergeSortCreateOptions = { tuning: { workgroupSize: 4, itemsPerThread: 2 } };

const sorterFor = sorterPerContext(createMergeSort);
function sorter(ctx: GpuContext, options: MergeSortCreateOptions = {}): MergeSort {
  return sorterFor(ctx, options);
}

/** Sorts the pairs on the GPU with `sort` (the host's count) and checks them against the reference. */
async function expectSorts(
  ctx: GpuContext,
  sort: MergeSort,
  keys: Uint32Array,
  values: Uint32Array,
): Promise<void> {
  const size = Math.max(4, keys.byteLength);
  const k = await ctx.createBuffer({ label: 'test keys', size, usage: USAGE });
  const v = await ctx.createBuffer({ label: 'test values', size, usage: USAGE });
  try {
    if (keys.length) {
      await ctx.writeBuffer(k, 0, keys);
      await ctx.writeBuffer(v, 0, values);
    }
    await sort.run({ keys: k, values: v, count: keys.length });
    const want = mergeSortReference(keys, values);
    if (keys.length) {
      expectSameArray(new Uint32Array(await ctx.readBuffer(k, 0, keys.byteLength)), want.keys, 'keys');
      expectSameArray(new Uint32Array(await ctx.readBuffer(v, 0, keys.byteLength)), want.values, 'values');
    }
  } finally {
    k.destroy();
    v.destroy();
  }
}

describe('mergeSortReference', () => {
  it('orders by key, then by value, like a comparator sort', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff })), { maxLength: 200 }),
        (pairs) => {
          const got = mergeSortReference(
            Uint32Array.from(pairs, (p) => p[0]),
            Uint32Array.from(pairs, (p) => p[1]),
          );
          const want = [...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          expect([...got.keys]).toEqual(want.map((p) => p[0]));
          expect([...got.values]).toEqual(want.map((p) => p[1]));
        },
      ),
    );
  });

  it('rejects arrays of different lengths', () => {
    expect(() => mergeSortReference(new Uint32Array(2), new Uint32Array(3))).toThrow(/2 keys but 3 values/);
  });
});

describeGpu('merge sort', (gpu) => {
  it.each([0, 1, 2, 3, 2047, 2048, 2049, 4096, 6_001, 20_000])(
    'sorts %i random pairs (tiles of 2,048)',
    async (n) => {
      const sort = sorter(gpu.ctx);
      await expectSorts(gpu.ctx, sort, randomKeys(n, n + 3), randomKeys(n, n + 7));
      if (n > 1) expect(sort.mergePassesFor(n)).toBe(Math.ceil(Math.log2(Math.ceil(n / (sort.tile ?? 1)))));
    },
  );

  // Tiles of 8: 1 to 7 merge passes, odd and even (the tiles sorted into the scratch or in place).
  it.each([5, 8, 9, 16, 17, 31, 64, 65, 100, 257, 1000])('sorts %i pairs in tiles of 8', async (n) => {
    await expectSorts(
      gpu.ctx,
      sorter(gpu.ctx, TINY),
      randomKeys(n, n + 1, 0xf000000f),
      randomKeys(n, n + 2, 0x3),
    );
  });

  const patterns: [string, (n: number) => [Uint32Array, Uint32Array]][] = [
    ['all equal', (n) => [new Uint32Array(n).fill(7), new Uint32Array(n).fill(9)]],
    [
      'equal keys, values reversed',
      (n) => [new Uint32Array(n).fill(1), Uint32Array.from({ length: n }, (_, i) => n - i)],
    ],
    [
      'already sorted',
      (n) => [
        Uint32Array.from({ length: n }, (_, i) => i >> 3),
        Uint32Array.from({ length: n }, (_, i) => i),
      ],
    ],
    ['reversed', (n) => [Uint32Array.from({ length: n }, (_, i) => 0xffffffff - i), new Uint32Array(n)]],
    [
      'the largest pair among them',
      (n) => [
        Uint32Array.from({ length: n }, (_, i) => (i % 3 ? 0xffffffff : i)),
        Uint32Array.from({ length: n }, (_, i) => (i % 2 ? 0xffffffff : i)),
      ],
    ],
  ];
  it.each(patterns)('sorts %s (tiles of 2,048 and of 8)', async (_, make) => {
    for (const [sort, n] of [
      [sorter(gpu.ctx), 5_000],
      [sorter(gpu.ctx, TINY), 300],
    ] as const) {
      const [keys, values] = make(n);
      await expectSorts(gpu.ctx, sort, keys, values);
    }
  });

  it('matches the reference on random pairs (property, tiles of 8)', async () => {
    const word = fc.oneof(fc.nat({ max: 0xffffffff }), fc.nat({ max: 5 }), fc.constantFrom(0, 0xffffffff));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(word, word), { maxLength: 600 }), async (pairs) => {
        await expectSorts(
          gpu.ctx,
          sorter(gpu.ctx, TINY),
          Uint32Array.from(pairs, (p) => p[0]),
          Uint32Array.from(pairs, (p) => p[1]),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('sorts the count it reads on the GPU when the commands run, and leaves the pairs past it alone (property)', async () => {
    const ctx = gpu.ctx;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 400 }),
        fc.nat({ max: 500 }),
        fc.nat(),
        fc.boolean(),
        async (capacity, rawCount, seed, tiny) => {
          // A count over the capacity is taken as the capacity.
          const count = rawCount > capacity + 50 ? capacity + 7 : Math.min(rawCount, capacity);
          const sorted = Math.min(count, capacity);
          const sort = sorter(ctx, tiny ? TINY : {});
          const keys = randomKeys(capacity, seed + 1, 0xff);
          const values = randomKeys(capacity, seed + 2);
          const k = await ctx.createBuffer({ label: 'keys', size: capacity * 4, usage: USAGE });
          const v = await ctx.createBuffer({ label: 'values', size: capacity * 4, usage: USAGE });
          const counter = await ctx.createBuffer({ label: 'counter', size: 16, usage: USAGE });
          try {
            await ctx.writeBuffer(k, 0, keys);
            await ctx.writeBuffer(v, 0, values);
            await ctx.writeBuffer(counter, 0, Uint32Array.of(0, 0, count, 0));
            await sort.prepare({ count: capacity });
            const encoder = ctx.device.createCommandEncoder();
            sort.encode(encoder, {
              keys: k,
              values: v,
              count: capacity,
              countFrom: { buffer: counter, offset: 8 },
            });
            await ctx.submit('gpu-count merge sort', [encoder.finish()]);
            const gotKeys = new Uint32Array(await ctx.readBuffer(k));
            const gotValues = new Uint32Array(await ctx.readBuffer(v));
            const want = mergeSortReference(keys.subarray(0, sorted), values.subarray(0, sorted));
            expectSameArray(gotKeys.subarray(0, sorted), want.keys, 'keys');
            expectSameArray(gotValues.subarray(0, sorted), want.values, 'values');
            expectSameArray(gotKeys.subarray(sorted), keys.subarray(sorted), 'keys past the count');
            expectSameArray(gotValues.subarray(sorted), values.subarray(sorted), 'values past the count');
          } finally {
            for (const b of [k, v, counter]) b.destroy();
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('records two sorts of different sizes and buffers into one command buffer, and reuses its groups', async () => {
    const ctx = gpu.ctx;
    const sort = createMergeSort(ctx, TINY);
    const sizes = [37, 300];
    const inputs = sizes.map((n, i) => [randomKeys(n, 40 + i), randomKeys(n, 50 + i)] as const);
    const buffers = await Promise.all(
      sizes.map(async (n) => [
        await ctx.createBuffer({ label: 'k', size: n * 4, usage: USAGE }),
        await ctx.createBuffer({ label: 'v', size: n * 4, usage: USAGE }),
      ]),
    );
    try {
      // Prepared for fewer pairs than it sorts: encode makes the scratch arrays it needs.
      await sort.prepare({ count: 20 });
      for (let round = 0; round < 2; round++) {
        const encoder = ctx.device.createCommandEncoder();
        for (const [i, n] of sizes.entries()) {
          const [keys, values] = inputs[i] as readonly [Uint32Array, Uint32Array];
          const [k, v] = buffers[i] as GPUBuffer[];
          await ctx.writeBuffer(k as GPUBuffer, 0, keys);
          await ctx.writeBuffer(v as GPUBuffer, 0, values);
          sort.encode(encoder, { keys: k as GPUBuffer, values: v as GPUBuffer, count: n });
        }
        await ctx.submit('two merge sorts', [encoder.finish()]);
        for (const [i] of sizes.entries()) {
          const [keys, values] = inputs[i] as readonly [Uint32Array, Uint32Array];
          const [k, v] = buffers[i] as GPUBuffer[];
          const want = mergeSortReference(keys, values);
          expectSameArray(new Uint32Array(await ctx.readBuffer(k as GPUBuffer)), want.keys, `keys ${i}`);
          expectSameArray(new Uint32Array(await ctx.readBuffer(v as GPUBuffer)), want.values, `values ${i}`);
        }
      }
      expect(sort.gpuBytes).toBeGreaterThanOrEqual(2 * 300 * 4);
      expect(`${sort}`).toMatch(/tiles of 4×2/);
    } finally {
      for (const b of buffers.flat()) b.destroy();
      sort.destroy();
    }
  });

  it('rejects bad arguments and use before prepare or after destroy', async () => {
    const ctx = gpu.ctx;
    const sort = createMergeSort(ctx);
    const k = await ctx.createBuffer({ label: 'keys', size: 64, usage: USAGE });
    const v = await ctx.createBuffer({ label: 'values', size: 64, usage: USAGE });
    try {
      const encoder = ctx.device.createCommandEncoder();
      expect(() => sort.encode(encoder, { keys: k, values: v, count: 16 })).toThrow(/before prepare/);
      await sort.prepare({ count: 16 });
      expect(() => sort.encode(encoder, { keys: k, values: v, count: 17 })).toThrow(/needs 68/);
      expect(() => sort.encode(encoder, { keys: k, values: k, count: 16 })).toThrow(/two buffers/);
      expect(() =>
        sort.encode(encoder, { keys: k, values: v, count: 16, countFrom: { buffer: k, offset: 2 } }),
      ).toThrow(/countFrom offset 2/);
      const copyOnly = await ctx.createBuffer({ label: 'copy only', size: 16, usage: BufferUsage.COPY_SRC });
      try {
        expect(() =>
          sort.encode(encoder, { keys: k, values: v, count: 16, countFrom: { buffer: copyOnly, offset: 0 } }),
        ).toThrow(/lacks STORAGE usage/);
      } finally {
        copyOnly.destroy();
      }
      expect(() => sort.encode(encoder, { keys: k, values: v, count: 1.5 })).toThrow(/bad count/);
      await expect(sort.prepare({ count: -1 })).rejects.toThrow(/bad count/);
      expect(() => createMergeSort(ctx, { tuning: { itemsPerThread: 3 } })).not.toThrow();
      await expect(
        createMergeSort(ctx, { tuning: { itemsPerThread: 3 } }).prepare({ count: 4 }),
      ).rejects.toThrow(/power of two/);
      sort.destroy();
      await expect(sort.prepare({ count: 4 })).rejects.toThrow(/after destroy/);
    } finally {
      k.destroy();
      v.destroy();
    }
  });
});
