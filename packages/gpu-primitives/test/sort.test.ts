import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRadixSort,
  type RadixSort,
  type RadixSortOptions,
  radixSortReference,
  type SortBits,
} from '../src/sort/index';
import { expectSameArray, randomKeys, sorterPerContext } from './sort-helpers';

const USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** Sorts `keys` (and `values`) with `sort` on the GPU and reads the results back. */
async function gpuSort(
  ctx: GpuContext,
  sort: RadixSort,
  keys: Uint32Array,
  values: Uint32Array | undefined,
  bits?: SortBits,
): Promise<{ keys: Uint32Array; values?: Uint32Array }> {
  const size = Math.max(4, keys.byteLength);
  const k = await ctx.createBuffer({ label: 'test keys', size, usage: USAGE });
  const v = values ? await ctx.createBuffer({ label: 'test values', size, usage: USAGE }) : undefined;
  try {
    if (keys.length) await ctx.writeBuffer(k, 0, keys);
    if (v && values?.length) await ctx.writeBuffer(v, 0, values);
    await sort.run({ keys: k, values: v, count: keys.length, bits });
    const read = async (b: GPUBuffer) =>
      keys.length ? new Uint32Array(await ctx.readBuffer(b, 0, keys.byteLength)) : new Uint32Array();
    const outKeys = await read(k);
    return v ? { keys: outKeys, values: await read(v) } : { keys: outKeys };
  } finally {
    k.destroy();
    v?.destroy();
  }
}

/** One RadixSort per (context, options), so pipelines compile once per suite. */
const sorterFor = sorterPerContext(createRadixSort);
function sorter(ctx: GpuContext, options: RadixSortOptions = {}): RadixSort {
  return sorterFor(ctx, options);
}

function iota(n: number): Uint32Array {
  return Uint32Array.from({ length: n }, (_, i) => i);
}

/** Checks a key–value result against the reference and checks stability directly. */
function expectSortedPairs(
  keys: Uint32Array,
  got: { keys: Uint32Array; values?: Uint32Array },
  bits: SortBits = { start: 0, end: 32 },
): void {
  const want = radixSortReference(keys, iota(keys.length), bits);
  expectSameArray(got.keys, want.keys, 'keys');
  expectSameArray(got.values, want.values, 'values');
  // Independent of the reference: values are the original indices of the keys, in order per sort key.
  const width = bits.end - bits.start;
  const mask = width === 32 ? 0xffffffff : (1 << width) - 1;
  const sortKey = (k: number) => ((k >>> bits.start) & mask) >>> 0;
  const values = got.values as Uint32Array;
  for (let i = 0; i < keys.length; i++) {
    if (got.keys[i] !== keys[values[i] as number]) throw new Error(`key ${i} does not match its index`);
    if (i > 0) {
      const a = sortKey(got.keys[i - 1] as number);
      const b = sortKey(got.keys[i] as number);
      if (a > b || (a === b && (values[i - 1] as number) >= (values[i] as number)))
        throw new Error(`not sorted stably at ${i}: keys ${a} ${b}, indices ${values[i - 1]} ${values[i]}`);
    }
  }
}

describe('radixSortReference', () => {
  it('matches Array.prototype.sort and is stable', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 0xffffffff }), { maxLength: 300 }), (raw) => {
        const keys = Uint32Array.from(raw);
        const got = radixSortReference(keys, iota(keys.length));
        expect([...got.keys]).toEqual([...raw].sort((a, b) => a - b));
        const byKeyThenIndex = [...iota(keys.length)].sort(
          (a, b) => (keys[a] as number) - (keys[b] as number) || a - b,
        );
        expect([...(got.values as Uint32Array)]).toEqual(byKeyThenIndex);
      }),
    );
  });

  it('compares only the bit range', () => {
    const keys = Uint32Array.from([0x1f2, 0x0f1, 0x2f0, 0x0f2]);
    expect([...(radixSortReference(keys, iota(4), { start: 0, end: 4 }).values ?? [])]).toEqual([2, 1, 0, 3]);
    expect([...(radixSortReference(keys, iota(4), { start: 8, end: 12 }).values ?? [])]).toEqual([
      1, 3, 0, 2,
    ]);
    expect(() => radixSortReference(keys, undefined, { start: 5, end: 33 })).toThrow(RangeError);
  });
});

const u32 = fc.oneof(
  fc.nat({ max: 0xffffffff }),
  fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe),
  fc.nat({ max: 15 }),
);

for (const subgroups of [true, false]) {
  describeGpu(
    'radix sort',
    (gpu) => {
      it('chooses the expected ranking path', async () => {
        const sort = sorter(gpu.ctx);
        await sort.prepare({ count: 2, withValues: false });
        expect(sort.config?.subgroups).toBe(subgroups && gpu.ctx.features.subgroups);
        expect(`${sort}`).toMatch(/RadixSort/);
      });

      it.each([0, 1, 2, 7, 255, 4095, 4096, 4097, 10_001])(
        'sorts %i keys like Array.prototype.sort',
        async (n) => {
          const keys = randomKeys(n, n + 11);
          const got = await gpuSort(gpu.ctx, sorter(gpu.ctx), keys, undefined);
          expect(got.values).toBeUndefined();
          expect([...got.keys]).toEqual([...keys].sort((a, b) => a - b));
        },
      );

      it.each([0, 1, 3, 4097, 9_000])('sorts %i pairs stably', async (n) => {
        const keys = randomKeys(n, n + 5, 0xff00f00f); // many equal keys
        expectSortedPairs(keys, await gpuSort(gpu.ctx, sorter(gpu.ctx), keys, iota(n)));
      });

      const patterns: [string, (n: number) => Uint32Array][] = [
        ['all equal', (n) => new Uint32Array(n).fill(0x80000000)],
        ['already sorted', (n) => iota(n).map((i) => i * 977)],
        ['reversed', (n) => iota(n).map((i) => 0xffffffff - i * 31)],
        [
          'all 32 bits',
          (n) => randomKeys(n, 3).map((k, i) => (i % 5 === 0 ? 0xffffffff : i % 7 === 0 ? 0x80000000 : k)),
        ],
        ['two values', (n) => iota(n).map((i) => (i % 3 === 0 ? 0 : 0xffffffff))],
      ];
      it.each(patterns)('sorts %s pairs', async (_, make) => {
        const keys = make(6_001);
        expectSortedPairs(keys, await gpuSort(gpu.ctx, sorter(gpu.ctx), keys, iota(keys.length)));
      });

      it('matches the reference on random pairs (property)', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(u32, { maxLength: 5000, size: 'max' }), async (raw) => {
            const keys = Uint32Array.from(raw);
            expectSortedPairs(keys, await gpuSort(gpu.ctx, sorter(gpu.ctx), keys, iota(keys.length)));
          }),
          { numRuns: 8 },
        );
      });

      it.each([
        [0, 8],
        [4, 13],
        [24, 32],
        [0, 32],
        [3, 32],
        [5, 6],
        [7, 7],
        [0, 17],
      ])('sorts by bits [%i, %i) only, carrying the others', async (start, end) => {
        const keys = randomKeys(5_003, start * 33 + end);
        const bits = { start, end };
        expectSortedPairs(keys, await gpuSort(gpu.ctx, sorter(gpu.ctx), keys, iota(keys.length), bits), bits);
      });

      it.each([
        ['3 windows, one scatter group', 3_000],
        ['5 windows, two scatter groups', 5_000],
        ['9 windows, three scatter groups', 8_300],
      ])('sorts across binding windows of 4096 bytes: %s', async (_, n) => {
        const options = { maxBindingBytes: 4096, tuning: { itemsPerThread: 1 } };
        const sort = sorter(gpu.ctx, options);
        const keys = randomKeys(n, n, 0xfff0ffff);
        const got = await gpuSort(gpu.ctx, sort, keys, iota(n));
        expect(sort.config?.windowKeys).toBe(1024);
        expectSortedPairs(keys, got);
        const keysOnly = await gpuSort(gpu.ctx, sort, keys, undefined, { start: 4, end: 13 });
        expect(keysOnly.keys).toEqual(radixSortReference(keys, undefined, { start: 4, end: 13 }).keys);
      });

      it('folds grids into two dimensions and scans the table in three levels', async () => {
        const options = {
          tuning: {
            itemsPerThread: 1,
            maxWorkgroupsPerDimension: 26,
            scanWorkgroupSize: 32,
            scanItemsPerThread: 1,
          },
        };
        const keys = randomKeys(20_000, 99);
        expectSortedPairs(keys, await gpuSort(gpu.ctx, sorter(gpu.ctx, options), keys, iota(keys.length)));
      });

      it('dispatches more than 65,535 workgroups', async () => {
        // Tiles of 16 keys with 4-bit digits: 65,540 tiles per histogram and scatter dispatch.
        const options = { tuning: { radixBits: 4, workgroupSize: 16, itemsPerThread: 1 } };
        const n = 65_540 * 16 - 3;
        const keys = randomKeys(n, 5);
        const bits = { start: 8, end: 12 };
        const sort = sorter(gpu.ctx, options);
        const got = await gpuSort(gpu.ctx, sort, keys, iota(n), bits);
        expect(Math.ceil(n / (sort.config?.tile ?? 0))).toBeGreaterThan(65_535);
        const want = radixSortReference(keys, iota(n), bits);
        expectSameArray(got.keys, want.keys, 'keys');
        expectSameArray(got.values, want.values, 'values');
      });

      it('reuses one sorter for growing sizes and encodes two sorts in one command buffer', async () => {
        const ctx = gpu.ctx;
        const sort = createRadixSort(ctx);
        try {
          for (const n of [100, 5_000, 300, 12_000]) {
            const keys = randomKeys(n, n);
            expectSortedPairs(keys, await gpuSort(ctx, sort, keys, iota(n)));
          }
          const a = randomKeys(3_000, 1);
          const b = randomKeys(7_000, 2);
          const ka = await ctx.createBuffer({ label: 'a', size: a.byteLength, usage: USAGE });
          const kb = await ctx.createBuffer({ label: 'b', size: b.byteLength, usage: USAGE });
          await ctx.writeBuffer(ka, 0, a);
          await ctx.writeBuffer(kb, 0, b);
          await sort.prepare({ count: a.length, withValues: false, bits: { start: 0, end: 24 } });
          await sort.prepare({ count: b.length, withValues: false });
          const encoder = ctx.device.createCommandEncoder();
          sort.encode(encoder, { keys: ka, count: a.length, bits: { start: 0, end: 24 } });
          sort.encode(encoder, { keys: kb, count: b.length });
          await ctx.submit('two sorts', [encoder.finish()]);
          const ra = new Uint32Array(await ctx.readBuffer(ka));
          const rb = new Uint32Array(await ctx.readBuffer(kb));
          expect(ra).toEqual(radixSortReference(a, undefined, { start: 0, end: 24 }).keys);
          expect(rb).toEqual(radixSortReference(b).keys);
          ka.destroy();
          kb.destroy();
        } finally {
          sort.destroy();
        }
      });

      it('sorts right after more sizes than it keeps plans for, at sizes it evicted, and at cached sizes', async () => {
        const ctx = gpu.ctx;
        const sort = createRadixSort(ctx);
        try {
          // 70 sizes (a worklist's count changes every round): the first ones are evicted and
          // rebuilt; the last ones are cached and meet new buffers (their bind groups must not be reused).
          const sizes = Array.from({ length: 70 }, (_, i) => 50 + 13 * i);
          for (const n of [...sizes, ...sizes.slice(0, 3), ...sizes.slice(-3)]) {
            const keys = randomKeys(n, n + 1);
            expectSortedPairs(keys, await gpuSort(ctx, sort, keys, iota(n)));
          }
          // The same buffers at the same size, new data each time (cached bind groups reused).
          const n = 1_000;
          const k = await ctx.createBuffer({ label: 'same keys', size: n * 4, usage: USAGE });
          const v = await ctx.createBuffer({ label: 'same values', size: n * 4, usage: USAGE });
          try {
            for (let round = 0; round < 3; round++) {
              const keys = randomKeys(n, 100 + round);
              await ctx.writeBuffer(k, 0, keys);
              await ctx.writeBuffer(v, 0, iota(n));
              await sort.run({ keys: k, values: v, count: n });
              expectSortedPairs(keys, {
                keys: new Uint32Array(await ctx.readBuffer(k)),
                values: new Uint32Array(await ctx.readBuffer(v)),
              });
            }
          } finally {
            k.destroy();
            v.destroy();
          }
        } finally {
          sort.destroy();
        }
      });

      it('sorts the count it reads on the GPU when the commands run, and leaves the keys past it alone (property)', async () => {
        const ctx = gpu.ctx;
        // Tiles of 256 keys, so a capacity of a few thousand has whole tiles past the count; 1, 2, 3
        // and 4 passes (odd ones go through the second scratch array); one window or several.
        const small = sorter(ctx, { tuning: { itemsPerThread: 1 } });
        const windowed = sorter(ctx, { maxBindingBytes: 4096, tuning: { itemsPerThread: 1 } });
        const bitChoices: SortBits[] = [
          { start: 0, end: 8 },
          { start: 0, end: 16 },
          { start: 0, end: 17 },
          { start: 3, end: 32 },
        ];
        await fc.assert(
          fc.asyncProperty(
            fc
              .integer({ min: 2, max: 3_000 })
              .chain((capacity) => fc.tuple(fc.constant(capacity), fc.integer({ min: 0, max: capacity }))),
            fc.constantFrom(...bitChoices),
            fc.boolean(),
            fc.boolean(),
            fc.integer({ min: 1, max: 2 ** 31 }),
            async ([capacity, count], bits, withValues, useWindows, seed) => {
              const sort = useWindows ? windowed : small;
              const keys = randomKeys(capacity, seed, 0x1ff00ff);
              const values = iota(capacity).map((i) => i + 7);
              const k = await ctx.createBuffer({ label: 'gpu-count keys', size: capacity * 4, usage: USAGE });
              const v = await ctx.createBuffer({
                label: 'gpu-count values',
                size: capacity * 4,
                usage: USAGE,
              });
              // The counter holds the capacity when the sort is recorded; a copy recorded before the
              // sort (as a kernel would) puts the real count there.
              const counter = await ctx.createBuffer({ label: 'counter', size: 8, usage: USAGE });
              const real = await ctx.createBuffer({ label: 'real count', size: 4, usage: USAGE });
              try {
                await ctx.writeBuffer(k, 0, keys);
                await ctx.writeBuffer(v, 0, values);
                await ctx.writeBuffer(counter, 0, Uint32Array.of(0xdead, capacity));
                await ctx.writeBuffer(real, 0, Uint32Array.of(count));
                await sort.prepare({ count: capacity, withValues, bits, countFromGpu: true });
                const encoder = ctx.device.createCommandEncoder();
                encoder.copyBufferToBuffer(real, 0, counter, 4, 4);
                sort.encode(encoder, {
                  keys: k,
                  values: withValues ? v : undefined,
                  count: capacity,
                  bits,
                  countFrom: { buffer: counter, offset: 4 },
                });
                await ctx.submit('gpu-count sort', [encoder.finish()]);
                const gotKeys = new Uint32Array(await ctx.readBuffer(k));
                const gotValues = new Uint32Array(await ctx.readBuffer(v));
                const want = radixSortReference(keys.subarray(0, count), values.subarray(0, count), bits);
                expectSameArray(gotKeys.subarray(0, count), want.keys, 'keys');
                expectSameArray(gotKeys.subarray(count), keys.subarray(count), 'keys past the count');
                if (withValues) {
                  expectSameArray(gotValues.subarray(0, count), want.values, 'values');
                  expectSameArray(gotValues.subarray(count), values.subarray(count), 'values past the count');
                } else {
                  expectSameArray(gotValues, values, 'values (not sorted)');
                }
                // A host-counted sort of the full capacity right after: its plan is not the one
                // whose counts the GPU wrote.
                await ctx.writeBuffer(k, 0, keys);
                await ctx.writeBuffer(v, 0, values);
                await sort.run({ keys: k, values: v, count: capacity, bits });
                const full = radixSortReference(keys, values, bits);
                expectSameArray(new Uint32Array(await ctx.readBuffer(k)), full.keys, 'host-counted keys');
                expectSameArray(new Uint32Array(await ctx.readBuffer(v)), full.values, 'host-counted values');
              } finally {
                for (const b of [k, v, counter, real]) b.destroy();
              }
            },
          ),
          { numRuns: 24 },
        );
      });

      it('rejects a countFrom word that is not a 4-aligned word of a COPY_SRC buffer, and one-pass arrays it cannot copy', async () => {
        const ctx = gpu.ctx;
        const sort = sorter(ctx);
        const k = await ctx.createBuffer({ label: 'keys', size: 64, usage: USAGE });
        try {
          await sort.prepare({ count: 16, withValues: false, countFromGpu: true });
          const encoder = ctx.device.createCommandEncoder();
          expect(() =>
            sort.encode(encoder, { keys: k, count: 16, countFrom: { buffer: k, offset: 2 } }),
          ).toThrow(/countFrom offset 2/);
          expect(() =>
            sort.encode(encoder, { keys: k, count: 16, countFrom: { buffer: k, offset: 64 } }),
          ).toThrow(RangeError);
          const storageOnly = await ctx.createBuffer({
            label: 'storage only',
            size: 64,
            usage: BufferUsage.STORAGE,
          });
          try {
            expect(() =>
              sort.encode(encoder, { keys: k, count: 16, countFrom: { buffer: storageOnly, offset: 0 } }),
            ).toThrow(/'storage only' lacks COPY_SRC/);
            await sort.prepare({
              count: 16,
              withValues: false,
              bits: { start: 0, end: 8 },
              countFromGpu: true,
            });
            expect(() =>
              sort.encode(encoder, {
                keys: storageOnly,
                count: 16,
                bits: { start: 0, end: 8 },
                countFrom: { buffer: k, offset: 0 },
              }),
            ).toThrow(/one-pass sort with countFrom/);
          } finally {
            storageOnly.destroy();
          }
        } finally {
          k.destroy();
        }
      });

      it('rejects bad arguments', async () => {
        const ctx = gpu.ctx;
        const fresh = createRadixSort(ctx);
        const k = await ctx.createBuffer({ label: 'small', size: 16, usage: USAGE });
        try {
          expect(() => fresh.encode(ctx.device.createCommandEncoder(), { keys: k, count: 4 })).toThrow(
            /prepare/,
          );
          await expect(fresh.run({ keys: k, count: 5 })).rejects.toThrow(RangeError);
          await expect(fresh.run({ keys: k, count: 4, bits: { start: 9, end: 8 } })).rejects.toThrow(
            RangeError,
          );
        } finally {
          k.destroy();
          fresh.destroy();
        }
        expect(() => fresh.encode(ctx.device.createCommandEncoder(), { keys: k, count: 4 })).toThrow(
          /destroy/,
        );
      });
    },
    { subgroups },
  );
}
