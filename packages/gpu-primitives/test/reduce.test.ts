import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CreateReduceOptions,
  createReduce,
  type ReduceOperator,
  reduceReference,
} from '../src/reduce/index';

const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const ops = ['add', 'min', 'max', 'or'] as const;
// Small tiles (32 × 2 vec4s = 256 elements): several levels from a few thousand elements, fast to compile on lavapipe.
const small: CreateReduceOptions = { workgroupSize: 32, vectorsPerInvocation: 2 };

async function gpuReduce(
  ctx: GpuContext,
  values: Uint32Array,
  op: ReduceOperator,
  options: CreateReduceOptions = small,
): Promise<number> {
  const reduce = createReduce(ctx, options);
  const input = await ctx.createBuffer({
    label: 'reduce input',
    size: Math.max(16, values.byteLength),
    usage,
  });
  try {
    if (values.length > 0) await ctx.writeBuffer(input, 0, values);
    return await reduce.run({ input, count: values.length, op });
  } finally {
    reduce.destroy();
    input.destroy();
  }
}

describe('reduceReference', () => {
  it('folds with u32 semantics and returns the identity when empty', () => {
    expect(reduceReference(Uint32Array.of(3, 1, 4), 'add')).toBe(8);
    expect(reduceReference(Uint32Array.of(0xffff_ffff, 2), 'add')).toBe(1);
    expect(reduceReference(Uint32Array.of(5, 0x8000_0000), 'or')).toBe(0x8000_0005);
    expect(reduceReference(new Uint32Array(0), 'min')).toBe(0xffff_ffff);
    expect(reduceReference(new Uint32Array(0), 'max')).toBe(0);
  });
});

for (const subgroups of [true, false]) {
  describeGpu(
    'reduce',
    (gpu) => {
      it.each(ops)('%s matches the CPU (any length, all 32 bits)', async (op) => {
        await fc.assert(
          fc.asyncProperty(fc.uint32Array({ maxLength: 3000 }), async (values) => {
            expect(await gpuReduce(gpu.ctx, values, op)).toBe(reduceReference(values, op));
          }),
          { numRuns: 8 },
        );
      });

      it.each(ops)('%s: empty, one element, all equal, wrap-around', async (op) => {
        expect(await gpuReduce(gpu.ctx, new Uint32Array(0), op)).toBe(
          reduceReference(new Uint32Array(0), op),
        );
        expect(await gpuReduce(gpu.ctx, Uint32Array.of(0xdead_beef), op)).toBe(0xdead_beef);
        const same = new Uint32Array(1001).fill(0xffff_fff7);
        expect(await gpuReduce(gpu.ctx, same, op)).toBe(reduceReference(same, op));
      });

      it('writes the identity for a count of 0 through encode, and honours resultOffset', async () => {
        const ctx = gpu.ctx;
        const reduce = createReduce(ctx, small);
        const input = await ctx.createBuffer({ label: 'reduce input', size: 4096, usage });
        const result = await ctx.createBuffer({ label: 'reduce result', size: 1024, usage });
        const values = Uint32Array.from({ length: 1024 }, (_, i) => (i * 2654435761) >>> 0);
        await ctx.writeBuffer(input, 0, values);
        await reduce.prepare({ count: 0, op: 'min' });
        await reduce.prepare({ count: 1024, op: 'max' });
        await ctx.guard('reduce encode', () => {
          const encoder = ctx.device.createCommandEncoder();
          reduce.encode(encoder, { input, count: 0, op: 'min', result, resultOffset: 0 });
          reduce.encode(encoder, { input, count: 1024, op: 'max', result, resultOffset: 260 });
          ctx.queue.submit([encoder.finish()]);
        });
        const out = new Uint32Array(await ctx.readBuffer(result));
        expect(out[0]).toBe(0xffff_ffff);
        expect(out[65]).toBe(reduceReference(values, 'max'));
        expect(out[64]).toBe(0);
        reduce.destroy();
        input.destroy();
        result.destroy();
      });

      it('carries the total across binding windows and folded grids', async () => {
        const values = Uint32Array.from({ length: 7000 }, (_, i) => (i * 2654435761) >>> 0);
        for (const op of ops) {
          const o = { ...small, maxBindingBytes: 4096, maxWorkgroupsPerDimension: 3 };
          expect(await gpuReduce(gpu.ctx, values, op, o)).toBe(reduceReference(values, op));
        }
      });

      it('reduces more than 65,535 tiles (tiles of 128) and three levels', async () => {
        const values = new Uint32Array(65_536 * 128 + 3);
        for (let i = 0; i < values.length; i++) values[i] = (i * 2654435761) >>> 0;
        const o = { workgroupSize: 32, vectorsPerInvocation: 1 };
        expect(await gpuReduce(gpu.ctx, values, 'add', o)).toBe(reduceReference(values, 'add'));
        expect(await gpuReduce(gpu.ctx, values, 'min', o)).toBe(reduceReference(values, 'min'));
      });

      it('reduces with the default tiles (256 × 16 elements)', async () => {
        const values = Uint32Array.from({ length: 3 * 4096 + 5 }, (_, i) => (i * 2654435761) >>> 0);
        expect(await gpuReduce(gpu.ctx, values, 'add', {})).toBe(reduceReference(values, 'add'));
      });
    },
    { subgroups },
  );
}
