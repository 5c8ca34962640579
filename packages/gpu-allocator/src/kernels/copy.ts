import type { GpuContext } from '../context/context';
import type { Kernel } from './cache';
import { type DispatchGrid, dispatchItems } from './dispatch';
import { defineBindings } from './layout';
import { gridWgsl, linkWgsl } from './wgsl';

const WORKGROUP_SIZE = 256;

const copyLayout = defineBindings('gm copy', {
  copy_src: { kind: 'storage', type: 'array<vec4<u32>>', access: 'read' },
  copy_dst: { kind: 'storage', type: 'array<vec4<u32>>' },
});

/** WGSL of the copy kernel: one vec4 per invocation, the memory-bandwidth roof kernels are measured against. */
export function copyKernelWgsl(): string {
  return linkWgsl(
    /* wgsl */ `
${copyLayout.wgsl()}
@compute @workgroup_size(${WORKGROUP_SIZE})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = gm_workgroup_index(wid, nwg) * ${WORKGROUP_SIZE}u + lid;
  if (i < arrayLength(&copy_dst)) { copy_dst[i] = copy_src[i]; }
}`,
    [gridWgsl],
  );
}

/** A compiled copy kernel for buffers of `vec4<u32>`. */
export interface CopyKernel {
  readonly kernel: Kernel<typeof copyLayout.specs>;
  /** Records a copy of `bytes` (a multiple of 16) from `source` to `target` into `pass`. */
  encode(pass: GPUComputePassEncoder, source: GPUBuffer, target: GPUBuffer, bytes: number): void;
  /** Grid used for `bytes`. */
  grid(bytes: number): DispatchGrid;
}

/**
 * The WGSL copy kernel (vec4 loads and stores), used to measure an adapter's memory bandwidth.
 *
 * @example
 * ```ts
 * const copy = await copyKernel(ctx);
 * const pass = encoder.beginComputePass();
 * copy.encode(pass, a, b, a.size);
 * pass.end();
 * ```
 */
export async function copyKernel(ctx: GpuContext): Promise<CopyKernel> {
  const kernel = await ctx.kernels.get({ label: 'gm copy', code: copyKernelWgsl(), layout: copyLayout });
  const grid = (bytes: number) =>
    dispatchItems(bytes / 16, WORKGROUP_SIZE, ctx.limits.maxComputeWorkgroupsPerDimension);
  return {
    kernel,
    grid,
    encode(pass, source, target, bytes) {
      if (bytes % 16 !== 0) throw new RangeError(`copy of ${bytes} bytes: not a multiple of 16`);
      const g = grid(bytes);
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(
        0,
        kernel.bindGroup({
          copy_src: { buffer: source, size: bytes },
          copy_dst: { buffer: target, size: bytes },
        }),
      );
      pass.dispatchWorkgroups(g.x, g.y, g.z);
    },
  };
}
