/**
 * Reading the GPU store back as sorted rows, shared by both WebGPU engines: one kernel counts the
 * members of every block of 32 words of every variable row, an exclusive scan (gpu-primitives)
 * turns the counts into places in the output, and a second kernel writes each block's members in
 * ascending order at its place (see {@link ./kernels/readback.wgsl}), a slice of rows at a time
 * when the block counts of all rows would not fit one binding.
 * @module
 */
import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { createScan } from '@gpumorph/gpu-primitives';
import { CfaStore } from '../store';
import { countBlocksWgsl, readbackBlocks, writeBlocksWgsl } from './kernels/readback.wgsl';
import { storeBindingNames } from './kernels/store.wgsl';
import { readbackBindings, type StoreGeometry, WORKGROUP } from './layout';

/** Makes a buffer that the caller owns and destroys. */
export type BufferMaker = (
  label: string,
  size: number,
  usage: number,
  data?: Uint32Array,
) => Promise<GPUBuffer>;

/**
 * The store held in `stores` (variable rows as bitsets, dense or paged as `g` says, in the order of
 * `storeBindingNames(g)`) as a {@link CfaStore}.
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
  maxBindingBytes = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize),
): Promise<CfaStore> {
  const S = BufferUsage.STORAGE;
  const rb = readbackBindings(g);
  const [count, write] = await Promise.all([
    ctx.kernels.get({ label: 'eigencfa count blocks', code: countBlocksWgsl(rb.wgsl(), g), layout: rb }),
    ctx.kernels.get({ label: 'eigencfa write blocks', code: writeBlocksWgsl(rb.wgsl(), g), layout: rb }),
  ]);
  const names = storeBindingNames(g);
  const storeResources = Object.fromEntries(stores.map((b, k) => [names[k], b]));
  const V = 2 * g.lams;
  const rowBlocks = readbackBlocks(g.words);
  // Rows are read in slices whose block counts fit one binding.
  const sliceRows = Math.max(1, Math.min(V, Math.floor(maxBindingBytes / (4 * rowBlocks))));
  const counts = await buffer('eigencfa block counts', sliceRows * rowBlocks * 4, S);
  const places = await buffer('eigencfa block places', sliceRows * rowBlocks * 4, S);
  const rowStarts = await buffer('eigencfa row starts', sliceRows * 4, S);
  const slice = await buffer('eigencfa readback slice', 8, S);
  // Pass 1 writes only the counts; its other writable bindings must still be distinct buffers.
  const dummy = await buffer('eigencfa readback dummy', 16, S);
  const offsets = new Uint32Array(3 * g.lams + 1);
  for (let r = 0; r < g.lams; r++) offsets[r + 1] = r + 1;
  const parts: Uint32Array[] = [Uint32Array.from({ length: g.lams }, (_, r) => r)];
  let total = g.lams;
  const scan = createScan(ctx);
  try {
    for (let first = 0; first < V; first += sliceRows) {
      const rows = Math.min(sliceRows, V - first);
      const blockCount = rows * rowBlocks;
      await ctx.writeBuffer(slice, 0, Uint32Array.of(first, rows));
      const groups = Math.ceil(blockCount / WORKGROUP);
      const grid = groups <= 65_535 ? [groups, 1] : [65_535, Math.ceil(groups / 65_535)];
      const run = async (kernel: typeof count, resources: Record<string, GPUBuffer>) => {
        const command = await ctx.guard('eigencfa readback', () => {
          const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa readback' });
          const pass = encoder.beginComputePass({ label: 'eigencfa readback' });
          pass.setPipeline(kernel.pipeline);
          pass.setBindGroup(0, kernel.bindGroup({ ...resources, slice, ...storeResources } as never));
          pass.dispatchWorkgroups(grid[0] as number, grid[1] as number);
          pass.end();
          return encoder.finish();
        });
        await ctx.submit('eigencfa readback', [command]);
      };
      await run(count, { blocks: counts, rowStarts, out: dummy });
      await scan.run({ input: counts, output: places, count: blockCount, kind: 'exclusive', op: 'add' });
      const last = (blockCount - 1) * 4;
      const [lastCount, lastPlace] = await Promise.all([
        ctx.readBuffer(counts, last, 4).then((b) => new Uint32Array(b)[0] as number),
        ctx.readBuffer(places, last, 4).then((b) => new Uint32Array(b)[0] as number),
      ]);
      const members = lastPlace + lastCount;
      if (members === 0) {
        offsets.fill(total, g.lams + first, g.lams + first + rows);
        continue;
      }
      const out = await buffer('eigencfa rows out', members * 4, S);
      await run(write, { blocks: places, rowStarts, out });
      const [starts, data] = await Promise.all([
        ctx.readBuffer(rowStarts, 0, rows * 4).then((b) => new Uint32Array(b)),
        ctx.readBuffer(out, 0, members * 4).then((b) => new Uint32Array(b)),
      ]);
      for (let i = 0; i < rows; i++) offsets[g.lams + first + i] = total + (starts[i] as number);
      parts.push(data);
      total += members;
    }
  } finally {
    scan.destroy();
  }
  offsets[3 * g.lams] = total;
  const data = new Uint32Array(total);
  let at = 0;
  for (const part of parts) {
    data.set(part, at);
    at += part.length;
  }
  return new CfaStore(offsets, data);
}
