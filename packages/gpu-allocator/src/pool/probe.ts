import type { GpuContext } from '../context/context';
import type { Kernel } from '../kernels/cache';
import { type DispatchGrid, dispatchItems } from '../kernels/dispatch';
import { type BindingSpecs, defineBindings } from '../kernels/layout';
import { gridWgsl, linkWgsl } from '../kernels/wgsl';
import { BufferUsage } from '../webgpu-constants';
import type { ElementPool } from './pool';

/**
 * `subgroup` / `workgroup`: `<name>_alloc` with that team (one atomic per team); `team`: the
 * context's default team (subgroup when available); `single`: one atomic per lane.
 */
export type ProbeMode = 'team' | 'subgroup' | 'workgroup' | 'single';

const WORKGROUP_SIZE = 256;

/**
 * The allocation probe: invocation `i` allocates `requests[i]` elements (at most `rounds`), one per
 * round, all lanes calling the allocator together each round, and writes each element's index to
 * `out[i * rounds + r]` and, when the pool's elements are bound, the value `i` into word 0 of the
 * element. `gpumorph doctor` runs it as a self-check, the tests as a property, the bench for speed.
 */
export function allocationProbeWgsl(
  pool: ElementPool,
  mode: ProbeMode,
  rounds: number,
  layoutWgsl: string,
): string {
  const p = pool.name;
  const alloc = mode === 'single' ? `${p}_alloc_single(want)` : `${p}_alloc(want, lid)`;
  return linkWgsl(
    /* wgsl */ `
${layoutWgsl}
@compute @workgroup_size(${WORKGROUP_SIZE})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = gm_workgroup_index(wid, nwg) * ${WORKGROUP_SIZE}u + lid;
  let n = arrayLength(&requests);
  var asked = 0u;
  if (i < n) { asked = requests[i]; }
  // Every lane runs every round so the team allocator is called in uniform control flow.
  for (var r = 0u; r < ${rounds}u; r++) {
    let want = r < asked;
    let element = ${alloc};
    if (i < n) {
      out[i * ${rounds}u + r] = element;
      if (element != GM_INVALID_ELEMENT) { ${p}_store(element, 0u, i); }
    }
  }
}`,
    [
      gridWgsl,
      mode === 'subgroup' || mode === 'workgroup' ? pool.allocWgsl(mode) : pool.allocWgsl(),
      pool.accessWgsl(),
    ],
  );
}

function probeLayout(pool: ElementPool) {
  return defineBindings(`alloc probe ${pool.name}`, {
    ...pool.bindingSpecs(),
    requests: { kind: 'storage', type: 'array<u32>', access: 'read' },
    out: { kind: 'storage', type: 'array<u32>' },
  } satisfies BindingSpecs);
}

/** A compiled probe, ready to be encoded (possibly many times) into a pass. */
export interface AllocationProbe {
  readonly kernel: Kernel;
  readonly grid: DispatchGrid;
  encode(pass: GPUComputePassEncoder): void;
}

/**
 * Compiles the probe for the pool's current geometry and binds `requests` and `out`
 * (`out` must hold `requests.length * rounds` words).
 */
export async function createAllocationProbe(
  ctx: GpuContext,
  pool: ElementPool,
  options: { mode: ProbeMode; rounds: number; requests: GPUBuffer; count: number; out: GPUBuffer },
): Promise<AllocationProbe> {
  const layout = probeLayout(pool);
  const kernel = await ctx.kernels.get({
    label: `alloc probe ${pool.name} ${options.mode}`,
    code: allocationProbeWgsl(pool, options.mode, options.rounds, layout.wgsl()),
    layout,
  });
  const bindGroup = kernel.bindGroup({
    ...pool.resources(),
    requests: { buffer: options.requests, size: Math.max(4, options.count * 4) },
    out: { buffer: options.out, size: Math.max(4, options.count * options.rounds * 4) },
  });
  const grid = dispatchItems(options.count, WORKGROUP_SIZE, ctx.limits.maxComputeWorkgroupsPerDimension);
  return {
    kernel: kernel as unknown as Kernel,
    grid,
    encode(pass) {
      if (grid.x === 0) return;
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
    },
  };
}

/**
 * Runs the probe once on `requests` (elements wanted per invocation) and returns, per invocation
 * and round, the element index or `INVALID_ELEMENT` where the pool ran out.
 */
export async function runAllocationProbe(
  ctx: GpuContext,
  pool: ElementPool,
  requests: Uint32Array,
  options: { mode?: ProbeMode; rounds?: number } = {},
): Promise<Uint32Array> {
  const mode = options.mode ?? 'team';
  const rounds = options.rounds ?? Math.max(1, ...requests);
  if (requests.some((r) => r > rounds)) throw new RangeError(`a request exceeds ${rounds} rounds`);
  const count = requests.length;
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
  const requestBuffer = await ctx.createBuffer({ label: 'probe requests', size: count * 4, usage });
  const outBuffer = await ctx.createBuffer({ label: 'probe out', size: count * rounds * 4, usage });
  try {
    await ctx.writeBuffer(requestBuffer, 0, requests);
    const probe = await createAllocationProbe(ctx, pool, {
      mode,
      rounds,
      requests: requestBuffer,
      count,
      out: outBuffer,
    });
    await ctx.guard('alloc probe', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'alloc probe' });
      const pass = encoder.beginComputePass({ label: 'alloc probe' });
      probe.encode(pass);
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
    return new Uint32Array(await ctx.readBuffer(outBuffer, 0, count * rounds * 4));
  } finally {
    requestBuffer.destroy();
    outBuffer.destroy();
  }
}
