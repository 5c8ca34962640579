import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CreateCompactionOptions, compactReference, createCompaction } from '../src/compact/index';

const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
// Small tiles (32 × 2 vec4s = 256 elements): many tiles from a few thousand elements, fast to compile on lavapipe.
const small: CreateCompactionOptions = { workgroupSize: 32, vectorsPerInvocation: 2 };

async function upload(ctx: GpuContext, label: string, data: Uint32Array): Promise<GPUBuffer> {
  const buffer = await ctx.createBuffer({ label, size: Math.max(16, data.byteLength), usage });
  if (data.length > 0) await ctx.writeBuffer(buffer, 0, data);
  return buffer;
}

async function gpuCompact(
  ctx: GpuContext,
  values: Uint32Array,
  keep: { flags: Uint32Array } | { predicate: string },
  options: CreateCompactionOptions = small,
): Promise<Uint32Array> {
  const compaction = createCompaction(ctx, options);
  const input = await upload(ctx, 'compact input', values);
  const output = await upload(ctx, 'compact output', new Uint32Array(values.length).fill(0xdead));
  const flags = 'flags' in keep ? await upload(ctx, 'compact flags', keep.flags) : undefined;
  try {
    const kept = await compaction.run({
      input,
      count: values.length,
      output,
      ...(flags ? { flags } : { predicate: (keep as { predicate: string }).predicate }),
    });
    if (kept === 0) return new Uint32Array(0);
    return new Uint32Array(await ctx.readBuffer(output, 0, kept * 4));
  } finally {
    compaction.destroy();
    for (const b of [input, output, flags]) b?.destroy();
  }
}

describe('compactReference', () => {
  it('keeps in order', () => {
    expect([...compactReference(Uint32Array.of(5, 0, 7, 0), (x) => x !== 0)]).toEqual([5, 7]);
    expect([...compactReference(Uint32Array.of(5, 0, 7, 0), (_, i) => i % 2 === 1)]).toEqual([0, 0]);
  });
});

for (const subgroups of [true, false]) {
  describeGpu(
    'compaction',
    (gpu) => {
      it('by flags matches the CPU (stable, any length)', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.tuple(fc.nat({ max: 0xffff_ffff }), fc.nat({ max: 3 })), { maxLength: 2500 }),
            async (pairs) => {
              const values = Uint32Array.from(pairs, ([v]) => v);
              const flags = Uint32Array.from(pairs, ([, f]) => (f === 0 ? 0 : f === 1 ? 0xffff_ffff : 1));
              const got = await gpuCompact(gpu.ctx, values, { flags });
              expect([...got]).toEqual([...compactReference(values, (_, i) => flags[i] !== 0)]);
            },
          ),
          { numRuns: 8 },
        );
      });

      it('by predicate over x and i matches the CPU', async () => {
        await fc.assert(
          fc.asyncProperty(fc.uint32Array({ maxLength: 2500 }), async (values) => {
            const got = await gpuCompact(gpu.ctx, values, { predicate: '(x & 3u) != 0u || i % 7u == 0u' });
            expect([...got]).toEqual([...compactReference(values, (x, i) => (x & 3) !== 0 || i % 7 === 0)]);
          }),
          { numRuns: 8 },
        );
      });

      it('handles empty input, one element, none kept and all kept', async () => {
        expect([...(await gpuCompact(gpu.ctx, new Uint32Array(0), { predicate: 'x != 0u' }))]).toEqual([]);
        expect([...(await gpuCompact(gpu.ctx, Uint32Array.of(9), { predicate: 'x != 0u' }))]).toEqual([9]);
        expect([...(await gpuCompact(gpu.ctx, Uint32Array.of(9), { predicate: 'x == 0u' }))]).toEqual([]);
        const all = Uint32Array.from({ length: 1000 }, (_, i) => i);
        expect([...(await gpuCompact(gpu.ctx, all, { predicate: 'x == x' }))]).toEqual([...all]);
        expect([...(await gpuCompact(gpu.ctx, all, { predicate: 'x > 5000u' }))]).toEqual([]);
      });

      it('encode writes the kept count to countOutput (0 for an empty input)', async () => {
        const ctx = gpu.ctx;
        const compaction = createCompaction(ctx, small);
        const values = Uint32Array.from({ length: 3001 }, (_, i) => (i * 2654435761) >>> 0);
        const input = await upload(ctx, 'compact input', values);
        const output = await upload(ctx, 'compact output', new Uint32Array(3001));
        const counts = await upload(ctx, 'compact counts', Uint32Array.of(77, 77, 77, 77));
        await compaction.prepare({ count: 3001, predicate: 'x < 0x80000000u' });
        await compaction.prepare({ count: 0, predicate: 'x < 0x80000000u' });
        await ctx.guard('compact encode', () => {
          const encoder = ctx.device.createCommandEncoder();
          compaction.encode(encoder, {
            input,
            count: 3001,
            output,
            predicate: 'x < 0x80000000u',
            countOutput: counts,
          });
          ctx.queue.submit([encoder.finish()]);
        });
        const expected = compactReference(values, (x) => x < 0x8000_0000);
        const kept = new Uint32Array(await ctx.readBuffer(counts, 0, 4))[0] as number;
        expect(kept).toBe(expected.length);
        expect([...new Uint32Array(await ctx.readBuffer(output, 0, kept * 4))]).toEqual([...expected]);
        await ctx.guard('compact encode empty', () => {
          const encoder = ctx.device.createCommandEncoder();
          compaction.encode(encoder, {
            input,
            count: 0,
            output,
            predicate: 'x < 0x80000000u',
            countOutput: counts,
          });
          ctx.queue.submit([encoder.finish()]);
        });
        expect(new Uint32Array(await ctx.readBuffer(counts, 0, 4))[0]).toBe(0);
        compaction.destroy();
        for (const b of [input, output, counts]) b.destroy();
      });

      it('compacts more than 65,535 tiles (tiles of 128) and with folded grids', async () => {
        const values = new Uint32Array(65_536 * 128 + 9);
        for (let i = 0; i < values.length; i++) values[i] = (i * 2654435761) >>> 0;
        const o = { workgroupSize: 32, vectorsPerInvocation: 1 };
        const got = await gpuCompact(gpu.ctx, values, { predicate: '(x & 1u) == 0u' }, o);
        const expected = compactReference(values, (x) => (x & 1) === 0);
        expect(got.length).toBe(expected.length);
        expect(got.every((v, i) => v === expected[i])).toBe(true);
        const few = values.subarray(0, 5000);
        const folded = await gpuCompact(
          gpu.ctx,
          few,
          { predicate: '(x & 1u) == 0u' },
          { ...small, maxWorkgroupsPerDimension: 5 },
        );
        expect([...folded]).toEqual([...compactReference(few, (x) => (x & 1) === 0)]);
      });

      it('compacts with the default tiles (256 × 16 elements)', async () => {
        const values = Uint32Array.from({ length: 3 * 4096 + 11 }, (_, i) => (i * 2654435761) >>> 0);
        const got = await gpuCompact(gpu.ctx, values, { predicate: '(x & 1u) != 0u' }, {});
        expect([...got]).toEqual([...compactReference(values, (x) => (x & 1) !== 0)]);
      });

      it('rejects bad arguments with typed errors', async () => {
        const compaction = createCompaction(gpu.ctx, { ...small, maxBindingBytes: 4096 });
        const buffer = await upload(gpu.ctx, 'compact input', new Uint32Array(2000));
        const other = await upload(gpu.ctx, 'compact output', new Uint32Array(2000));
        await expect(
          compaction.run({ input: buffer, output: other, count: 2000, predicate: 'true' }),
        ).rejects.toThrow(RangeError);
        await expect(compaction.run({ input: buffer, output: other, count: 10 })).rejects.toThrow(TypeError);
        compaction.destroy();
        buffer.destroy();
        other.destroy();
      });
    },
    { subgroups },
  );
}
