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
  // One spare element past the input: no write may land past the kept elements.
  const output = await upload(ctx, 'compact output', new Uint32Array(values.length + 1).fill(0xdead));
  const flags = 'flags' in keep ? await upload(ctx, 'compact flags', keep.flags) : undefined;
  try {
    const kept = await compaction.run({
      input,
      count: values.length,
      output,
      ...(flags ? { flags } : { predicate: (keep as { predicate: string }).predicate }),
    });
    const all = new Uint32Array(await ctx.readBuffer(output, 0, (values.length + 1) * 4));
    const untouched = all.subarray(kept).findIndex((v) => v !== 0xdead);
    if (untouched >= 0) throw new Error(`output[${kept + untouched}] past the ${kept} kept was written`);
    return all.slice(0, kept);
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
          compaction.run({ input: buffer, output: other, count: 2001, predicate: 'true' }),
        ).rejects.toThrow(RangeError);
        await expect(
          compaction.run({ input: buffer, output: other, count: 2 ** 32, predicate: 'true' }),
        ).rejects.toThrow(RangeError);
        await expect(compaction.run({ input: buffer, output: other, count: 10 })).rejects.toThrow(TypeError);
        expect(() => createCompaction(gpu.ctx, { outputWindowsPerDispatch: 1 })).toThrow(RangeError);
        compaction.destroy();
        buffer.destroy();
        other.destroy();
      });

      // Binding windows: maxBindingBytes 1280 gives windows of 320 elements (a full tile of 256
      // and a partial one), 1024 gives 256 (one tile), 4096 gives 1024 (four tiles); 2 output
      // windows per dispatch makes every window past the first use several output groups.
      const windowed = (bytes: number, rest: CreateCompactionOptions = {}): CreateCompactionOptions => ({
        ...small,
        maxBindingBytes: bytes,
        ...rest,
      });
      const spans = [
        { name: '1 window', bytes: 1280, count: 300 },
        { name: '1 full window', bytes: 1280, count: 320 },
        { name: '2 windows', bytes: 1280, count: 321 },
        { name: '2 full windows', bytes: 1024, count: 512 },
        { name: '5+ windows', bytes: 1280, count: 1700 },
        { name: '13 windows (two groups of the default 8 output windows)', bytes: 1024, count: 3100 },
        { name: '4 windows of 4 tiles', bytes: 4096, count: 4000 },
      ];
      const patterns = [
        { name: 'keep all', flag: (_x: number, _i: number, _w: number) => true, wgsl: 'x == x' },
        { name: 'keep none', flag: (_x: number, _i: number, _w: number) => false, wgsl: 'x != x' },
        {
          name: 'keep one per window (by i)',
          flag: (_x: number, i: number, w: number) => i % w === w - 3,
          wgsl: (w: number) => `i % ${w}u == ${w - 3}u`,
        },
        {
          name: 'keep by x and i',
          flag: (x: number, i: number, _w: number) => (x & 3) === 1 || i % 5 === 0,
          wgsl: '(x & 3u) == 1u || i % 5u == 0u',
        },
      ];
      const outputs = [
        { name: '', rest: {} },
        { name: ', 2 output windows per dispatch', rest: { outputWindowsPerDispatch: 2 } },
      ];
      for (const span of spans) {
        for (const pattern of patterns) {
          // Two output windows per dispatch differ from the default only past two windows.
          for (const out of span.count > (2 * span.bytes) / 4 ? outputs : outputs.slice(0, 1)) {
            it(`windows: ${span.name}, ${pattern.name}${out.name}, by flags and by predicate`, async () => {
              const w = Math.floor(span.bytes / 256) * 64;
              const values = Uint32Array.from(
                { length: span.count },
                (_, i) => (i * 2654435761 + 12345) >>> 0,
              );
              const keep = (x: number, i: number) => pattern.flag(x, i, w);
              const expected = [...compactReference(values, keep)];
              const options = windowed(span.bytes, out.rest);
              const flags = Uint32Array.from(values, (x, i) => (keep(x, i) ? 1 + (i % 3) : 0));
              expect([...(await gpuCompact(gpu.ctx, values, { flags }, options))]).toEqual(expected);
              const wgsl = typeof pattern.wgsl === 'string' ? pattern.wgsl : pattern.wgsl(w);
              expect([...(await gpuCompact(gpu.ctx, values, { predicate: wgsl }, options))]).toEqual(
                expected,
              );
            });
          }
        }
      }

      it('windows with tiles larger than a window, folded grids and encode into countOutput', async () => {
        const values = Uint32Array.from({ length: 2900 }, (_, i) => (i * 2654435761) >>> 0);
        const expected = [...compactReference(values, (x, i) => (x & 1) === 0 && i !== 1000)];
        const predicate = '(x & 1u) == 0u && i != 1000u';
        // Default tiles (4096 elements) over windows of 256.
        expect([...(await gpuCompact(gpu.ctx, values, { predicate }, { maxBindingBytes: 1024 }))]).toEqual(
          expected,
        );
        // Windows of 1024 elements (4 tiles each) on a grid folded at 3 workgroups per dimension.
        const folded = windowed(4096, { maxWorkgroupsPerDimension: 3, outputWindowsPerDispatch: 2 });
        expect([...(await gpuCompact(gpu.ctx, values, { predicate }, folded))]).toEqual(expected);
        // encode: one command buffer, the kept count written on the GPU.
        const ctx = gpu.ctx;
        const compaction = createCompaction(ctx, windowed(1024, { outputWindowsPerDispatch: 3 }));
        const input = await upload(ctx, 'compact input', values);
        const output = await upload(ctx, 'compact output', new Uint32Array(values.length));
        const counts = await upload(ctx, 'compact counts', Uint32Array.of(77, 77, 77, 77));
        await compaction.prepare({ count: values.length, predicate });
        await ctx.guard('compact encode windows', () => {
          const encoder = ctx.device.createCommandEncoder();
          compaction.encode(encoder, { input, count: values.length, output, predicate, countOutput: counts });
          ctx.queue.submit([encoder.finish()]);
        });
        expect(new Uint32Array(await ctx.readBuffer(counts, 0, 4))[0]).toBe(expected.length);
        expect([...new Uint32Array(await ctx.readBuffer(output, 0, expected.length * 4))]).toEqual(expected);
        compaction.destroy();
        for (const b of [input, output, counts]) b.destroy();
      });

      it('windows: by flags matches the CPU for any window size, output group size and density', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              bytes: fc.constantFrom(1024, 1280, 2048, 4096),
              perDispatch: fc.constantFrom(2, 3, 8),
              density: fc.constantFrom(0, 0.01, 0.5, 0.99, 1),
              values: fc.uint32Array({ maxLength: 3500 }),
              seed: fc.nat(),
            }),
            async ({ bytes, perDispatch, density, values, seed }) => {
              let state = seed | 1;
              const flags = Uint32Array.from(values, () => {
                state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
                return state / 2 ** 32 < density ? 1 : 0;
              });
              const got = await gpuCompact(
                gpu.ctx,
                values,
                { flags },
                windowed(bytes, { outputWindowsPerDispatch: perDispatch }),
              );
              expect([...got]).toEqual([...compactReference(values, (_, i) => flags[i] !== 0)]);
            },
          ),
          { numRuns: 12 },
        );
      });
    },
    { subgroups },
  );
}
