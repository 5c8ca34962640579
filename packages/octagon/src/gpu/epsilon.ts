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
import { addEpsilon, addEpsilonBin } from '../dbm/apron/lattice';
import { type NumberLike, toRational } from '../dbm/constraints';
import type { Octagon } from '../dbm/octagon';
import { Rational } from '../numbers/rational';
import { f32Up, formatOf, type OctagonGpu } from './engine';
import { numberWgsl } from './kernels/octagon.wgsl';
import type { GpuNumberFormat } from './layout';

const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);

type EpsKernel = Kernel<ReturnType<typeof epsilonLayout>['specs']>;

/** Bindings: the matrix `m`, and for `add_epsilon_bin` the right argument `other` (read only). */
function epsilonLayout(format: GpuNumberFormat, bin: boolean) {
  const atomic = `array<atomic<${format === 'i32' ? 'i32' : 'u32'}>>`;
  const specs = {
    // n: the padded row length, count: the node count 2·dim, c / cf: the increment
    params: { kind: 'uniform', type: 'EpsParams' },
    m: { kind: 'storage', type: `array<${format}>`, access: 'read_write' },
    ...(bin
      ? { other: { kind: 'storage' as const, type: `array<${format}>`, access: 'read' as const } }
      : {}),
    mx: { kind: 'storage', type: atomic, access: 'read_write' },
  } as const;
  return defineBindings(`gm octagon epsilon${bin ? ' bin' : ''} ${format}`, specs);
}

/** A step of the kernels: the maximum of `m` or of `other`, the increment of `m`, or `add_epsilon_bin`'s. */
export type EpsilonStep = 'max' | 'max other' | 'add' | 'bin';

/**
 * The WGSL of one step: `max` / `max other` (atomic maximum of the magnitudes of the finite cells
 * off the diagonal of m / other; an f32 magnitude's bits order as the value), `add` (each such
 * cell of m raised by the increment: saturating on i32, rounded up on f32) or `bin` (a cell of m
 * below other's takes other's plus the increment, +∞ staying +∞ — `add_epsilon_bin`).
 *
 * @example
 * ```ts
 * const code = epsilonWgsl('f32', 'max');
 * ```
 */
export function epsilonWgsl(format: GpuNumberFormat, step: EpsilonStep): string {
  const layout = epsilonLayout(format, step === 'max other' || step === 'bin');
  const inc = format === 'i32' ? 'params.c' : 'params.cf';
  const max = format === 'i32' ? 'atomicMax(&mx[0], abs(v));' : 'atomicMax(&mx[0], bitcast<u32>(abs(v)));';
  const body = {
    max,
    'max other': max,
    add: `m[k] = add_const(v, ${inc});`,
    bin: `if (m[k] < v) { m[k] = add_const(v, ${inc}); }`,
  }[step];
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
  let v = ${step === 'max other' || step === 'bin' ? 'other' : 'm'}[k];
  ${step === 'bin' ? '' : 'if (is_inf(v)) { return; }'}
  ${body}
}`,
    [gridWgsl],
  );
}

/**
 * `add_epsilon` of an octagon on the GPU: closed on the GPU, then every finite cell raised by
 * `ε · max |bound|`. Integer octagons (i32) add `⌊ε · max⌋`: over integer variables
 * `x − y ≤ c + d` and `x − y ≤ c + ⌊d⌋` have the same points, so each cell is the CPU engine's
 * floored (tested); real octagons (f32) add the increment rounded up, so each cell is at or above
 * the CPU's. Mixed octagons run on the CPU. Not closed.
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
  const closed = await gpu.close(o);
  if (closed.isEmpty() || o.integers) return addEpsilon(closed, checkEpsilon(epsilon));
  return run(gpu, closed, null, checkEpsilon(epsilon));
}

/**
 * `add_epsilon_bin` on the GPU (APRON's widening-like enlargement): both closed on the GPU; a
 * cell of `b` above `a`'s takes `b`'s plus `ε` times the largest finite bound of `b` in magnitude,
 * the others keep `a`'s — rounded as {@link gpuAddEpsilon}. Not closed.
 *
 * @example
 * ```ts
 * const wider = await gpuAddEpsilonBin(createOctagonGpu(ctx), a, b, '1/2');
 * ```
 */
export async function gpuAddEpsilonBin(
  gpu: OctagonGpu,
  a: Octagon<number>,
  b: Octagon<number>,
  epsilon: NumberLike,
): Promise<Octagon<number>> {
  const eps = checkEpsilon(epsilon);
  const [ca, cb] = [await gpu.close(a), await gpu.close(b)];
  if (ca.isEmpty() || cb.isEmpty() || a.integers || b.integers) return addEpsilonBin(ca, cb, eps);
  return run(gpu, ca, cb, eps);
}

function checkEpsilon(epsilon: NumberLike): Rational {
  const eps = toRational(epsilon);
  if (eps.num < 0n) throw new RangeError(`add_epsilon: negative epsilon ${eps.toString()}`);
  return eps;
}

/** The two dispatches on closed octagons: the maximum (of `b`, else `a`), then the increment. */
async function run(
  gpu: OctagonGpu,
  a: Octagon<number>,
  b: Octagon<number> | null,
  eps: Rational,
): Promise<Octagon<number>> {
  const format = formatOf(a.kind);
  const ctx = gpu.ctx;
  const steps: EpsilonStep[] = b ? ['max other', 'bin'] : ['max', 'add'];
  const [maxKernel, addKernel] = (await Promise.all(
    steps.map((step) =>
      ctx.kernels.get({
        label: `gm octagon epsilon ${step} ${format}`,
        code: epsilonWgsl(format, step),
        layout: epsilonLayout(format, b !== null),
      }),
    ),
  )) as unknown as [EpsKernel, EpsKernel];
  const dbm = await gpu.upload(a, 'closed');
  const other = b && (await gpu.upload(b, 'closed'));
  const mx = await ctx.createBuffer({
    label: 'gm octagon epsilon max',
    size: 4,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  const uniforms: GPUBuffer[] = [];
  const params = (c: number, cf: number) => {
    const words = new ArrayBuffer(16);
    new Uint32Array(words).set([dbm.stride, 2 * a.dim]);
    new Int32Array(words)[2] = c;
    new Float32Array(words)[3] = cf;
    const buffer = ctx.device.createBuffer({
      label: 'gm octagon epsilon params',
      size: 16,
      usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    });
    ctx.queue.writeBuffer(buffer, 0, words);
    uniforms.push(buffer);
    return buffer;
  };
  const grid = dispatchGrid(
    Math.ceil((dbm.stride * dbm.stride) / 256),
    ctx.limits.maxComputeWorkgroupsPerDimension,
  );
  const dispatch = async (kernel: EpsKernel, uniform: GPUBuffer) =>
    ctx.guard('gm octagon add_epsilon', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'gm octagon add_epsilon' });
      const pass = encoder.beginComputePass({ label: 'gm octagon add_epsilon' });
      pass.setPipeline(kernel.pipeline);
      const resources = {
        params: { buffer: uniform },
        m: dbm.buffer,
        mx,
        ...(other ? { other: other.buffer } : {}),
      };
      pass.setBindGroup(0, kernel.bindGroup(resources as never));
      pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
  try {
    await ctx.writeBuffer(mx, 0, new Uint32Array(1));
    await dispatch(maxKernel, params(0, 0));
    const word = await ctx.readBuffer(mx, 0, 4);
    const max =
      format === 'i32' ? (new Int32Array(word)[0] as number) : (new Float32Array(word)[0] as number);
    // the increment: ⌊ε·max⌋ on integers (same points), ε·max rounded up to an f32 on reals;
    // at most 2^29 on i32, so a cell plus it cannot overflow (any sum past LIM reads +∞)
    const d = eps.mul(Rational.fromNumber(max));
    const c = format === 'i32' ? Number(bigMin(d.floor().num, 2n ** 29n)) : 0;
    const cf = format === 'f32' ? f32Up(d.toNumber('up')) : 0;
    await dispatch(addKernel, params(c, cf));
    return await gpu.download(dbm, false);
  } finally {
    dbm.destroy();
    other?.destroy();
    mx.destroy();
    for (const u of uniforms) u.destroy();
  }
}
