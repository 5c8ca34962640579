import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { allocatorBench, collectGarbage } from '../src/index';

describeGpu('allocator bench (quick, smoke)', (gpu) => {
  it('measures the copy kernel, both allocators and the CPU bump pointer', async () => {
    const report = await allocatorBench.run({
      ctx: gpu.ctx,
      engines: ['webgpu', 'cpu'],
      quick: true,
      log: () => {},
    });
    expect(report.suite).toBe('allocator');
    const cases = report.rows.map((r) => `${r.engine}: ${r.case}`);
    expect(cases).toContain('webgpu: copy kernel (read + write)');
    expect(cases.filter((c) => c.startsWith('webgpu: alloc one atomic per invocation'))).toHaveLength(2);
    expect(cases.filter((c) => c.startsWith('webgpu: alloc one atomic per workgroup'))).toHaveLength(2);
    if (gpu.ctx.features.subgroups) {
      expect(cases.filter((c) => c.startsWith('webgpu: alloc one atomic per subgroup'))).toHaveLength(2);
    }
    expect(cases.filter((c) => c.startsWith('cpu: alloc bump pointer'))).toHaveLength(2);
    for (const row of report.rows) {
      expect(row.medianMs).toBeGreaterThan(0);
      for (const value of Object.values(row.metrics)) expect(value).toBeGreaterThan(0);
    }
  });
});

describe('collectGarbage', () => {
  it('collects an object nothing refers to any more', async () => {
    let target: number[] | undefined = new Array(1000).fill(1);
    const ref = new WeakRef(target);
    target = undefined;
    // A WeakRef keeps its target alive until the current job ends.
    await new Promise((done) => setTimeout(done, 0));
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
    collectGarbage();
  });
});
