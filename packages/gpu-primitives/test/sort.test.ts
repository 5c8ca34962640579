import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createRadixSort, type RadixSortOptions, radixSortReference, type SortBits } from '../src/sort/index';

const USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** Sorts on the GPU with a fresh RadixSort and returns the results. */
async function gpuSort(
  ctx: GpuContext,
  keys: Uint32Array,
  values: Uint32Array | undefined,
  bits?: SortBits,
  options: RadixSortOptions = {},
): Promise<{ keys: Uint32Array; values?: Uint32Array }> {
  const sort = createRadixSort(ctx, options);
  const size = Math.max(4, keys.byteLength);
  const k = await ctx.createBuffer({ label: 'test keys', size, usage: USAGE });
  const v = values ? await ctx.createBuffer({ label: 'test values', size, usage: USAGE }) : undefined;
  try {
    if (keys.length) await ctx.writeBuffer(k, 0, keys);
    if (v && values?.length) await ctx.writeBuffer(v, 0, values);
    await sort.run({ keys: k, values: v, count: keys.length, bits });
    const outKeys = keys.length ? new Uint32Array(await ctx.readBuffer(k, 0, keys.byteLength)) : new Uint32Array();
    if (!v) return { keys: outKeys };
    const outValues = keys.length ? new Uint32Array(await ctx.readBuffer(v, 0, keys.byteLength)) : new Uint32Array();
    return { keys: outKeys, values: outValues };
  } finally {
    k.destroy();
    v?.destroy();
    sort.destroy();
  }
}

function iota(n: number): Uint32Array {
  return Uint32Array.from({ length: n }, (_, i) => i);
}

function randomKeys(n: number, seed: number, mask = 0xffffffff): Uint32Array {
  let x = seed >>> 0 || 1;
  return Uint32Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) & mask;
  });
}

describeGpu('radix sort smoke', (gpu) => {
  it('sorts pairs', async () => {
    const keys = randomKeys(10_000, 7);
    const values = iota(keys.length);
    const t0 = performance.now();
    const got = await gpuSort(gpu.ctx, keys, values);
    console.log('ms', performance.now() - t0);
    const want = radixSortReference(keys, values);
    expect(got.keys).toEqual(want.keys);
    expect(got.values).toEqual(want.values);
  });
});
