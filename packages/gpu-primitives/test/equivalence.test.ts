import { BufferUsage, type GpuContext, type HostArray } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createEquivalenceClasses,
  type EquivalenceClasses,
  equivalenceClassesReference,
  type HostRecords,
} from '../src/index';
import { recordsArb, toHostRecords, uploadRecords } from './records';

describe('equivalenceClassesReference', () => {
  it('reproduces Figure 10 of the PPoPP paper', () => {
    // ΔP(x) = {a, c}, ΔP(y) = {b}, ΔP(z) = {a, c} with a, b, c = 0, 1, 2.
    expect([...equivalenceClassesReference(toHostRecords([[0, 2], [1], [0, 2]]))]).toEqual([0, 1, 0]);
  });

  it('tells records apart by length and by every word', () => {
    expect([...equivalenceClassesReference(toHostRecords([[], [0], [], [0, 0], [0], [1]]))]).toEqual([
      0, 1, 0, 3, 1, 5,
    ]);
  });
});

async function classesOnGpu(
  ctx: GpuContext,
  classes: EquivalenceClasses,
  records: HostRecords,
  hashBits?: number,
) {
  const buffers = await uploadRecords(ctx, records);
  const representatives = await ctx.createBuffer({
    label: 'representatives',
    size: Math.max(4, buffers.count * 4),
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
  });
  const result = await classes.run(buffers, representatives, hashBits === undefined ? {} : { hashBits });
  const got = new Uint32Array(
    await ctx.readBuffer(representatives, 0, buffers.count * 4),
  ) as HostArray<'u32'>;
  representatives.destroy();
  buffers.destroy();
  return { got, rounds: result.rounds };
}

for (const subgroups of [true, false]) {
  describeGpu(
    'equivalence classes (hash → sort → diff → max-scan → exact check)',
    (gpu) => {
      it('finds for every record the smallest index of an equal one', async () => {
        const classes = createEquivalenceClasses(gpu.ctx);
        await fc.assert(
          fc.asyncProperty(recordsArb(400), async (records) => {
            const { got } = await classesOnGpu(gpu.ctx, classes, records);
            expect([...got]).toEqual([...equivalenceClassesReference(records)]);
          }),
          { numRuns: 10 },
        );
        classes.destroy();
      });

      it.each([0, 1, 3])('stays exact when hashes are cut to %i bits and collide', async (hashBits) => {
        const classes = createEquivalenceClasses(gpu.ctx);
        await fc.assert(
          fc.asyncProperty(recordsArb(150, 4), async (records) => {
            const { got, rounds } = await classesOnGpu(gpu.ctx, classes, records, hashBits);
            const expected = equivalenceClassesReference(records);
            expect([...got]).toEqual([...expected]);
            // Each round resolves at least one class per colliding hash, so never more rounds than classes.
            expect(rounds).toBeLessThanOrEqual(Math.max(1, new Set(expected).size));
          }),
          { numRuns: 8 },
        );
        classes.destroy();
      });

      it('handles no records, one record, and a sort and scan working in windows smaller than the input', async () => {
        const classes = createEquivalenceClasses(gpu.ctx, { maxBindingBytes: 4096 });
        expect((await classesOnGpu(gpu.ctx, classes, toHostRecords([]))).rounds).toBe(0);
        expect([...(await classesOnGpu(gpu.ctx, classes, toHostRecords([[5, 6]]))).got]).toEqual([0]);
        const lists = Array.from({ length: 3000 }, (_, i) => [i % 7, (i * 31) % 5]);
        const records = toHostRecords(lists);
        expect([...(await classesOnGpu(gpu.ctx, classes, records)).got]).toEqual([
          ...equivalenceClassesReference(records),
        ]);
        classes.destroy();
      });
    },
    { subgroups },
  );
}
