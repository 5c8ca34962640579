import { BufferUsage, defineBindings, type GpuContext } from '@gpumorph/gpu-allocator';

const WORKGROUP_SIZE = 256;
const layout = defineBindings('gm subgroup layout check', {
  verdict: { kind: 'storage', type: 'array<u32>' },
});

const verdicts = new WeakMap<GpuContext, Promise<boolean>>();

/**
 * Whether the primitives may use their subgroup paths on `ctx`: the device has `subgroups`, and
 * subgroups of a 256-invocation workgroup are the contiguous ranges of `local_invocation_index`
 * (WGSL does not promise this; every implementation seen does it). Checked once per context by a
 * small kernel; when it fails, the workgroup-memory paths are used, which are always correct.
 *
 * @example
 * ```ts
 * const subgroups = await subgroupLayoutIsLinear(ctx);
 * ```
 */
export function subgroupLayoutIsLinear(ctx: GpuContext): Promise<boolean> {
  let verdict = verdicts.get(ctx);
  if (!verdict) {
    verdict = ctx.features.subgroups ? check(ctx) : Promise.resolve(false);
    verdicts.set(ctx, verdict);
  }
  return verdict;
}

async function check(ctx: GpuContext): Promise<boolean> {
  const code = /* wgsl */ `
enable subgroups;
${layout.wgsl()}
@compute @workgroup_size(${WORKGROUP_SIZE})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
  let first_size = subgroupBroadcastFirst(size);
  let first_lid = subgroupBroadcastFirst(lid);
  let same_size = first_size == size;
  let linear = lane == lid % size && first_lid == lid - lane;
  let full = ${WORKGROUP_SIZE}u % size == 0u;
  verdict[lid] = select(0u, 1u, same_size && linear && full);
}`;
  const kernel = await ctx.kernels.get({ label: 'gm subgroup layout check', code, layout });
  const verdict = await ctx.createBuffer({
    label: 'gm subgroup layout verdict',
    size: WORKGROUP_SIZE * 4,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
  });
  try {
    await ctx.guard('gm subgroup layout check', () => {
      const encoder = ctx.device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup({ verdict }));
      pass.dispatchWorkgroups(1);
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
    const flags = new Uint32Array(await ctx.readBuffer(verdict));
    return flags.every((flag) => flag === 1);
  } finally {
    verdict.destroy();
  }
}
