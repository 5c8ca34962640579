/**
 * APRON's `add_epsilon` on the GPU: two matrix-wide kernels over the dense (padded) matrix the
 * engine closed — the largest finite bound in magnitude (an atomic maximum), then every finite
 * cell off the diagonal raised by `ε` times it. The CPU reference is `addEpsilon` of
 * `dbm/apron/lattice.ts`.
 * @module
 */
import {
  BufferUsage,
  defineBindings,
  dispatchGrid,
  gridWgsl,
  type Kernel,
  linkWgsl,
} from '@gpumorph/gpu-allocator';
import { addEpsilon } from '../dbm/apron/lattice';
import { type NumberLike, toRational } from '../dbm/constraints';
import type { Octagon } from '../dbm/octagon';
import { Rational } from '../numbers/rational';
import { f32Up, formatOf, type OctagonGpu } from './engine';
import { numberWgsl } from './kernels/octagon.wgsl';
import type { GpuNumberFormat } from './layout';

const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);

type EpsKernel = Kernel<ReturnType<typeof epsilonLayout>['specs']>;

function epsilonLayout(format: GpuNumberFormat) {
  return defineBindings(`gm octagon epsilon ${format}`, {
    // n: the padded row length, count: the node count 2·dim, c / cf: the increment
    params: { kind: 'uniform', type: 'EpsParams' },
    m: { kind: 'storage', type: `array<${format}>`, access: 'read_write' },
    mx: { kind: 'storage', type: `array<atomic<${format === 'i32' ? 'i32' : 'u32'}>>`, access: 'read_write' },
  });
}

/**
 * The WGSL of the two kernels: `max` (atomic maximum of |m[k]| over the finite cells off the
 * diagonal; an f32 magnitude's bits order as the value) or `add` (each such cell raised by the
 * increment: saturating on i32, rounded up on f32).
 *
 * @example
 * ```ts
 * const code = epsilonWgsl('f32', 'max');
 * ```
 */
export function epsilonWgsl(format: GpuNumberFormat, step: 'max' | 'add'): string {
  const layout = epsilonLayout(format);
  const body =
    step === 'max'
      ? format === 'i32'
        ? 'atomicMax(&mx[0], abs(v));'
        : 'atomicMax(&mx[0], bitcast<u32>(abs(v)));'
      : `m[k] = add_const(v, ${format === 'i32' ? 'params.c' : 'params.cf'});`;
  return linkWgsl(
    /* wgsl */ `struct EpsParams { n: u32, count: u32, c: i32, cf: f32 }
${layout.wgsl()}
${numberWgsl(format)}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let k = gm_workgroup_index(wid, nwg) * 256u + lid.x;
  if (k >= params.n * params.n) { return; }
  let i = k / params.n;
  let j = k % params.n;
  if (i >= params.count || j >= params.count || i == j) { return; }
  let v = m[k];
  if (is_inf(v)) { return; }
  ${body}
}`,
    [gridWgsl],
  );
}

/**
 * `add_epsilon` of an octagon on the GPU: closed on the GPU, then raised by `ε · max |bound|`.
 * Integer octagons (i32) add `⌊ε · max⌋`: over integer variables `x − y ≤ c + d` and
 * `x − y ≤ c + ⌊d⌋` have the same points, so each cell is the CPU engine's floored (tested); real
 * octagons (f32) add the increment rounded up, so each cell is at or above the CPU's. Mixed
 * octagons run on the CPU. Not closed.
 *
 * @example
 * ```ts
 * const wider = await gpuAddEpsilon(createOctagonGpu(ctx), o, '1/10');
 * ```
 */
export async function gpuAddEpsilon(
  gpu: OctagonGpu,
  o: Octagon<number>,
  epsilon: NumberLike,
): Promise<Octagon<number>> {
  const eps = toRational(epsilon);
  if (eps.num < 0n) throw new RangeError(`add_epsilon: negative epsilon ${eps.toString()}`);
  const closed = await gpu.close(o);
  if (closed.isEmpty() || o.integers) return addEpsilon(closed, epsilon);
  const format = formatOf(o.kind);
  const layout = epsilonLayout(format);
  const ctx = gpu.ctx;
  const [maxKernel, addKernel] = (await Promise.all(
    (['max', 'add'] as const).map((step) =>
      ctx.kernels.get({
        label: `gm octagon epsilon ${step} ${format}`,
        code: epsilonWgsl(format, step),
        layout,
      }),
    ),
  )) as [EpsKernel, EpsKernel];
  const dbm = await gpu.upload(closed, 'closed');
  const mx = await ctx.createBuffer({
    label: 'gm octagon epsilon max',
    size: 4,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  const params = (c: number, cf: number) => {
    const words = new ArrayBuffer(16);
    new Uint32Array(words).set([dbm.stride, 2 * o.dim]);
    new Int32Array(words)[2] = c;
    new Float32Array(words)[3] = cf;
    const buffer = ctx.device.createBuffer({
      label: 'gm octagon epsilon params',
      size: 16,
      usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    });
    ctx.queue.writeBuffer(buffer, 0, words);
    return buffer;
  };
  const cells = dbm.stride * dbm.stride;
  const grid = dispatchGrid(Math.ceil(cells / 256), ctx.limits.maxComputeWorkgroupsPerDimension);
  const run = async (kernel: EpsKernel, uniform: GPUBuffer) =>
    ctx.guard('gm octagon add_epsilon', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'gm octagon add_epsilon' });
      const pass = encoder.beginComputePass({ label: 'gm octagon add_epsilon' });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup({ params: { buffer: uniform }, m: dbm.buffer, mx }));
      pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
  const uniforms: GPUBuffer[] = [];
  try {
    await ctx.writeBuffer(mx, 0, new Uint32Array(1));
    uniforms.push(params(0, 0));
    await run(maxKernel, uniforms[0] as GPUBuffer);
    const word = await ctx.readBuffer(mx, 0, 4);
    const max =
      format === 'i32' ? (new Int32Array(word)[0] as number) : (new Float32Array(word)[0] as number);
    // the increment: ⌊ε·max⌋ on integers (same points), ε·max rounded up to an f32 on reals
    const d = eps.mul(Rational.fromNumber(max));
    // (at most 2^29 on i32: a cell plus it cannot overflow, and any sum past LIM reads +∞)
    const c = format === 'i32' ? Number(bigMin(d.floor().num, 2n ** 29n)) : 0;
    const cf = format === 'f32' ? f32Up(d.toNumber('up')) : 0;
    uniforms.push(params(c, cf));
    await run(addKernel, uniforms[1] as GPUBuffer);
    return await gpu.download(dbm, false);
  } finally {
    dbm.destroy();
    mx.destroy();
    for (const u of uniforms) u.destroy();
  }
}
