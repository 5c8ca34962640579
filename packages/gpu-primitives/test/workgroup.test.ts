import { BufferUsage, defineBindings, type GpuContext, linkWgsl } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  laneBuiltins,
  opCombine,
  opIdentity,
  type ScanOp,
  subgroupLayoutIsLinear,
  workgroupReduceWgsl,
  workgroupScanWgsl,
} from '../src/index';

const layout = defineBindings('wg blocks', {
  input: { kind: 'storage', type: 'array<u32>', access: 'read' },
  scanned: { kind: 'storage', type: 'array<u32>' },
  totals: { kind: 'storage', type: 'array<u32>' },
});

/** Runs both building blocks over one workgroup's worth of values. */
async function runBlocks(ctx: GpuContext, op: ScanOp, size: number, values: Uint32Array) {
  const subgroups = await subgroupLayoutIsLinear(ctx);
  const lanes = laneBuiltins(subgroups);
  const code = linkWgsl(
    `${layout.wgsl()}
@compute @workgroup_size(${size})
fn main(@builtin(local_invocation_index) lid: u32${lanes.params ? `, ${lanes.params}` : ''}) {
  ${lanes.prelude}
  let scan = wg_scan(input[lid], lid, sg_lane, sg_size);
  let total = wg_reduce(input[lid], lid, sg_lane, sg_size);
  scanned[lid] = scan.x;
  totals[lid * 2u] = scan.y;
  totals[lid * 2u + 1u] = total;
}`,
    [
      workgroupScanWgsl({ name: 'wg_scan', op, workgroupSize: size, subgroups }),
      workgroupReduceWgsl({ name: 'wg_reduce', op, workgroupSize: size, subgroups }),
    ],
  );
  const kernel = await ctx.kernels.get({ label: `wg blocks ${op} ${size}`, code, layout });
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
  const input = await ctx.createBuffer({ label: 'input', size: size * 4, usage });
  const scanned = await ctx.createBuffer({ label: 'scanned', size: size * 4, usage });
  const totals = await ctx.createBuffer({ label: 'totals', size: size * 8, usage });
  await ctx.writeBuffer(input, 0, values);
  await ctx.guard('wg blocks', () => {
    const encoder = ctx.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(kernel.pipeline);
    pass.setBindGroup(0, kernel.bindGroup({ input, scanned, totals }));
    pass.dispatchWorkgroups(1);
    pass.end();
    ctx.queue.submit([encoder.finish()]);
  });
  const result = {
    scanned: new Uint32Array(await ctx.readBuffer(scanned)),
    totals: new Uint32Array(await ctx.readBuffer(totals)),
  };
  for (const b of [input, scanned, totals]) b.destroy();
  return result;
}

for (const subgroups of [true, false]) {
  describeGpu(
    'workgroup scan and reduce blocks',
    (gpu) => {
      it.each(['add', 'max', 'min', 'or'] as const)('match the CPU for %s', async (op) => {
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(32, 64, 256),
            fc.array(fc.nat({ max: 2 ** 32 - 1 }), { minLength: 256, maxLength: 256 }),
            async (size, raw) => {
              const values = Uint32Array.from(raw.slice(0, size));
              const { scanned, totals } = await runBlocks(gpu.ctx, op, size, values);
              const f = opCombine(op);
              let acc = opIdentity(op);
              const expected = values.map((v) => {
                acc = f(acc, v);
                return acc;
              });
              expect([...scanned]).toEqual([...expected]);
              for (let i = 0; i < size; i++) {
                expect(totals[2 * i]).toBe(acc);
                expect(totals[2 * i + 1]).toBe(acc);
              }
            },
          ),
          { numRuns: 6 },
        );
      });
    },
    { subgroups },
  );
}
