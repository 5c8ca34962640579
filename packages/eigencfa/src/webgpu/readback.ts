/**
 * Reading the GPU store back as sorted rows, shared by both WebGPU engines: one kernel counts the
 * members of every variable row, the host turns the counts into offsets, and a second kernel writes
 * each row's members in ascending order at its offset.
 * @module
 */
import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { CfaStore } from '../store';
import { countRowsWgsl, writeRowsWgsl } from './kernels/rounds.wgsl';
import { readbackBindings, type StoreGeometry, WORKGROUP } from './layout';

/** Makes a buffer that the caller owns and destroys. */
export type BufferMaker = (
  label: string,
  size: number,
  usage: number,
  data?: Uint32Array,
) => Promise<GPUBuffer>;

/**
 * The store held in `stores` (variable rows as bitsets, chunked as `g` says) as a {@link CfaStore}.
 *
 * @example
 * ```ts
 * const store = await readStoreRows(ctx, geometry, storeBuffers, makeBuffer);
 * ```
 */
export async function readStoreRows(
  ctx: GpuContext,
  g: StoreGeometry,
  stores: readonly GPUBuffer[],
  buffer: BufferMaker,
): Promise<CfaStore> {
  const S = BufferUsage.STORAGE;
  const rb = readbackBindings(g);
  const [count, write] = await Promise.all([
    ctx.kernels.get({ label: 'eigencfa count rows', code: countRowsWgsl(rb.wgsl(), g), layout: rb }),
    ctx.kernels.get({ label: 'eigencfa write rows', code: writeRowsWgsl(rb.wgsl(), g), layout: rb }),
  ]);
  const storeResources = Object.fromEntries(stores.map((b, k) => [`store${k}`, b]));
  const V = 2 * g.lams;
  const offsetsBuffer = await buffer('eigencfa row offsets', V * 4, S);
  const rowGroups = Math.ceil(V / WORKGROUP);
  const rowGrid = rowGroups <= 65_535 ? [rowGroups, 1] : [65_535, Math.ceil(rowGroups / 65_535)];
  const run = async (kernel: typeof count, out: GPUBuffer) => {
    const command = await ctx.guard('eigencfa readback', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa readback' });
      const pass = encoder.beginComputePass({ label: 'eigencfa readback' });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup({ offsets: offsetsBuffer, out, ...storeResources } as never));
      pass.dispatchWorkgroups(rowGrid[0] as number, rowGrid[1] as number);
      pass.end();
      return encoder.finish();
    });
    await ctx.submit('eigencfa readback', [command]);
  };
  const dummy = await buffer('eigencfa readback dummy', 16, S);
  await run(count, dummy);
  const counts = new Uint32Array(await ctx.readBuffer(offsetsBuffer, 0, V * 4));
  const offsets = new Uint32Array(3 * g.lams + 1);
  for (let r = 0; r < g.lams; r++) offsets[r + 1] = r + 1;
  let total = g.lams;
  const starts = new Uint32Array(V);
  for (let v = 0; v < V; v++) {
    starts[v] = total - g.lams;
    total += counts[v] as number;
    offsets[g.lams + v + 1] = total;
  }
  const members = total - g.lams;
  const data = new Uint32Array(total);
  for (let r = 0; r < g.lams; r++) data[r] = r;
  if (members > 0) {
    await ctx.writeBuffer(offsetsBuffer, 0, starts);
    const out = await buffer('eigencfa rows out', members * 4, S);
    await run(write, out);
    data.set(new Uint32Array(await ctx.readBuffer(out, 0, members * 4)), g.lams);
  }
  return new CfaStore(offsets, data);
}
