/**
 * Reading the GPU store back as sorted rows, shared by both WebGPU engines: one kernel counts the
 * members of every block of 32 words of every variable row, an exclusive scan (gpu-primitives)
 * turns the counts into places in the output, and a second kernel writes each block's members in
 * ascending order at its place (see {@link ./kernels/readback.wgsl}).
 * @module
 */
import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { createScan } from '@gpumorph/gpu-primitives';
import { CfaStore } from '../store';
import { countBlocksWgsl, readbackBlocks, writeBlocksWgsl } from './kernels/readback.wgsl';
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
    ctx.kernels.get({ label: 'eigencfa count blocks', code: countBlocksWgsl(rb.wgsl(), g), layout: rb }),
    ctx.kernels.get({ label: 'eigencfa write blocks', code: writeBlocksWgsl(rb.wgsl(), g), layout: rb }),
  ]);
  const storeResources = Object.fromEntries(stores.map((b, k) => [`store${k}`, b]));
  const V = 2 * g.lams;
  const blockCount = V * readbackBlocks(g.words);
  const counts = await buffer('eigencfa block counts', blockCount * 4, S);
  const places = await buffer('eigencfa block places', blockCount * 4, S);
  const rowStarts = await buffer('eigencfa row starts', V * 4, S);
  const groups = Math.ceil(blockCount / WORKGROUP);
  const grid = groups <= 65_535 ? [groups, 1] : [65_535, Math.ceil(groups / 65_535)];
  const run = async (kernel: typeof count, resources: Record<string, GPUBuffer>) => {
    const command = await ctx.guard('eigencfa readback', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa readback' });
      const pass = encoder.beginComputePass({ label: 'eigencfa readback' });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup({ ...resources, ...storeResources } as never));
      pass.dispatchWorkgroups(grid[0] as number, grid[1] as number);
      pass.end();
      return encoder.finish();
    });
    await ctx.submit('eigencfa readback', [command]);
  };
  // Pass 1 writes only the counts; its other writable bindings must still be distinct buffers.
  const dummy = await buffer('eigencfa readback dummy', 16, S);
  await run(count, { blocks: counts, rowStarts, out: dummy });
  const scan = createScan(ctx);
  try {
    await scan.run({ input: counts, output: places, count: blockCount, kind: 'exclusive', op: 'add' });
  } finally {
    scan.destroy();
  }
  const last = (blockCount - 1) * 4;
  const [lastCount, lastPlace] = await Promise.all([
    ctx.readBuffer(counts, last, 4).then((b) => new Uint32Array(b)[0] as number),
    ctx.readBuffer(places, last, 4).then((b) => new Uint32Array(b)[0] as number),
  ]);
  const members = lastPlace + lastCount;
  const total = g.lams + members;
  const offsets = new Uint32Array(3 * g.lams + 1);
  for (let r = 0; r < g.lams; r++) offsets[r + 1] = r + 1;
  const data = new Uint32Array(total);
  for (let r = 0; r < g.lams; r++) data[r] = r;
  if (members > 0) {
    const out = await buffer('eigencfa rows out', members * 4, S);
    await run(write, { blocks: places, rowStarts, out });
    const [starts, rows] = await Promise.all([
      ctx.readBuffer(rowStarts, 0, V * 4).then((b) => new Uint32Array(b)),
      ctx.readBuffer(out, 0, members * 4).then((b) => new Uint32Array(b)),
    ]);
    for (let v = 0; v < V; v++) offsets[g.lams + v] = g.lams + (starts[v] as number);
    data.set(rows, g.lams);
  } else {
    offsets.fill(g.lams, g.lams);
  }
  offsets[3 * g.lams] = total;
  return new CfaStore(offsets, data);
}
