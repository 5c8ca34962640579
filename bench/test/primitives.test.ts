import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { expect, it } from 'vitest';
import { primitivesBench } from '../src/index';

describeGpu('primitives bench: pair sorts', (gpu) => {
  it('times the radix and merge sorts of worklist-sized pairs, with the host time to record each, and checks the merge sort', async () => {
    const report = await primitivesBench.run({
      ctx: gpu.ctx,
      engines: ['webgpu'],
      quick: true,
      log: () => {},
    });
    const merge = report.rows.filter((r) => r.case === 'merge sort (key, value)');
    expect(merge.map((r) => r.size)).toEqual(['2^12 pairs', '2^14 pairs']);
    for (const row of merge) {
      expect(row.medianMs).toBeGreaterThan(0);
      expect(row.metrics?.['host µs to record']).toBeGreaterThan(0);
    }
    expect(report.notes).toContain('merge sort of 2^14 pairs: keys and values equal the CPU reference.');
  }, 120_000);
});
