import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { GpuContext } from '../src/context/context';
import {
  createGpuArray,
  defineBindings,
  dispatchItems,
  encodeDispatch,
  gridWgsl,
  linkWgsl,
} from '../src/index';
import { describeGpu } from '../src/testing/index';

const layout = defineBindings('cover', { hits: { kind: 'storage', type: 'array<atomic<u32>>' } });

/** Each invocation with a linear index below n adds 1 to hits[index]; returns the hits. */
async function cover(ctx: GpuContext, n: number, workgroupSize: number, maxPerDimension: number) {
  const code = linkWgsl(
    `${layout.wgsl()}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (i < ${n}u) { atomicAdd(&hits[i], 1u); }
}`,
    [gridWgsl],
  );
  const kernel = await ctx.kernels.get({ label: 'cover', code, layout });
  const hits = await createGpuArray(ctx, { label: 'hits', type: 'u32', length: n });
  const grid = dispatchItems(n, workgroupSize, maxPerDimension);
  await ctx.guard('cover', () => {
    const encoder = ctx.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(kernel.pipeline);
    pass.setBindGroup(0, kernel.bindGroup({ hits: hits.buffer }));
    encodeDispatch(pass, grid);
    pass.end();
    ctx.queue.submit([encoder.finish()]);
  });
  const result = await hits.read();
  hits.destroy();
  return { grid, result };
}

describeGpu('dispatch over a folded 2-D grid', (gpu) => {
  it('runs every item exactly once past 65,535 workgroups', async () => {
    const n = 70_001;
    const { grid, result } = await cover(gpu.ctx, n, 1, gpu.ctx.limits.maxComputeWorkgroupsPerDimension);
    expect(grid.y).toBeGreaterThan(1);
    expect(result.every((h) => h === 1)).toBe(true);
  });

  it('runs every item exactly once for any size and dimension limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3000 }),
        fc.constantFrom(1, 32, 64),
        fc.integer({ min: 2, max: 40 }),
        async (n, size, max) => {
          fc.pre(Math.ceil(n / size) <= max * max);
          const { result } = await cover(gpu.ctx, n, size, max);
          expect(result.every((h) => h === 1)).toBe(true);
        },
      ),
      { numRuns: 15 },
    );
  });
});
