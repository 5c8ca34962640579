import { BufferUsage, type GpuContext, measureGpu, median, type PassTimer } from '@gpumorph/gpu-allocator';
import {
  closeF64,
  createClosureThreads,
  createOctagonGpu,
  decodeBound,
  encodeBound,
  formatOf,
  GpuDbm,
  type OctagonKind,
  rowStart,
} from '@gpumorph/octagon';
import { fmt, type OctagonContext, randomHalf, timeCpu } from './octagon-common';
import { anchorNotes, cpuClosureRows, cpuOperatorRows } from './octagon-cpu';
import type { BenchOptions, BenchReport, BenchSuite } from './types';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/**
 * Banterle & Giacobazzi (SAS'07), Table 1: milliseconds for 20 runs (CPU: Pentium 4 D 3.2 GHz; GPU: GeForce
 * 7950 GTX), by variable count. Divided by 20 below for one run.
 */
const PAPER: Record<string, { cpu: Record<number, number>; gpu: Record<number, number> }> = {
  closure: {
    cpu: { 128: 40.42, 256: 348.79, 512: 2949.9, 1024: 2.4863e4, 2048: 1.9902e5, 4096: 2.172e6 },
    gpu: { 128: 6.4472, 256: 58.346, 512: 206.1, 1024: 1804, 2048: 1.447e4, 4096: 2.3951e4 },
  },
  union: {
    cpu: { 128: 0.095516, 256: 0.36542, 512: 1.5013, 1024: 6.8319, 2048: 24.402, 4096: 73.212 },
    gpu: { 128: 0.08497, 256: 0.097702, 512: 0.104, 1024: 0.1093, 2048: 0.11889, 4096: 0.18231 },
  },
  assignment: {
    cpu: { 128: 0.0069554, 256: 0.030791, 512: 0.081164, 1024: 0.22949, 2048: 0.31771, 4096: 0.47234 },
    gpu: { 128: 0.010033, 256: 0.010693, 512: 0.02383, 1024: 0.022384, 2048: 0.0289, 4096: 0.044535 },
  },
  guard: {
    cpu: { 128: 0.0001233, 256: 0.0002158, 512: 0.0002226, 1024: 0.001927, 2048: 0.0001477, 4096: 0.0001477 },
    gpu: { 128: 0.073362, 256: 0.076067, 512: 0.0782, 1024: 0.080448, 2048: 0.086864, 4096: 0.10735 },
  },
  widening: {
    cpu: { 128: 0.10912, 256: 0.43517, 512: 1.7894, 1024: 7.3287, 2048: 28.997, 4096: 103.17 },
    gpu: { 128: 0.099478, 256: 0.093238, 512: 0.10923, 1024: 0.1288, 2048: 0.13345, 4096: 0.15447 },
  },
  emptiness: {
    cpu: { 128: 43.73, 256: 342.1, 512: 2716.42, 1024: 1.9501e4, 2048: 1.5683e5, 4096: 1.2546e6 },
    gpu: { 128: 95.947, 256: 632.03, 512: 1019.1, 1024: 4880.9, 2048: 1.9912e4, 4096: 1.4934e5 },
  },
};

/** Nominal H100 SXM5 arithmetic roofs (non-tensor): 67 TFLOP/s fp32, 33.5 TOP/s int32. */
const ROOF_TOPS: Record<'i32' | 'f32', number> = { i32: 33.5, f32: 67 };

function halfToDense(
  half: Float64Array,
  n: number,
  stride: number,
  kind: OctagonKind,
): Int32Array | Float32Array {
  const format = formatOf(kind);
  const out = format === 'i32' ? new Int32Array(stride * stride) : new Float32Array(stride * stride);
  out.fill(encodeBound(Number.POSITIVE_INFINITY, format));
  for (let i = 0; i < stride; i++) out[i * stride + i] = 0;
  const N = 2 * n;
  for (let i = 0; i < N; i++) {
    const base = rowStart(i);
    for (let j = 0; j <= (i | 1); j++) {
      const v = encodeBound(half[base + j] as number, format);
      out[i * stride + j] = v;
      out[(j ^ 1) * stride + (i ^ 1)] = v;
    }
  }
  return out;
}

async function timeGpu(
  ctx: GpuContext,
  label: string,
  encode: (encoder: GPUCommandEncoder, timer: PassTimer) => void,
  trials: number,
  warmMs: number,
): Promise<{ ms: number; runs: number; method: string }> {
  const once = () => measureGpu(ctx, encode, { label, maxPasses: 8 });
  const warmEnd = performance.now() + warmMs;
  do await once();
  while (performance.now() < warmEnd);
  const times: number[] = [];
  let method = 'wall-clock';
  for (let t = 0; t < trials; t++) {
    const timing = await once();
    method = timing.method;
    times.push(timing.totalMs);
  }
  return { ms: median(times), runs: trials, method };
}

/** Compares a GPU dense result with a CPU half matrix: `equal`, `above` (GPU ⊒ CPU, sound) or `BELOW` (unsound). */
function agreement(
  dense: Int32Array | Float32Array,
  stride: number,
  half: Float64Array,
  n: number,
  kind: OctagonKind,
): string {
  const format = formatOf(kind);
  let above = 0;
  let below = 0;
  const N = 2 * n;
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      const raw = dense[i * stride + j] as number;
      const g = decodeBound(raw, format);
      const ii = j > (i | 1) ? j ^ 1 : i;
      const jj = j > (i | 1) ? i ^ 1 : j;
      const c = half[rowStart(ii) + jj] as number;
      if (g > c) above++;
      else if (g < c) below++;
    }
  }
  if (below > 0) return `BELOW the CPU in ${below} cells (unsound)`;
  return above === 0
    ? 'equal to the CPU f64 engine'
    : `above the CPU in ${above} cells (sound, less precise)`;
}

/** The buffers of one size and kind on the GPU: the input, the matrix worked on, a second operand. */
interface GpuOperands {
  readonly n: number;
  readonly kind: OctagonKind;
  readonly format: 'i32' | 'f32';
  readonly stride: number;
  /** Bytes of one dense matrix. */
  readonly size: number;
  readonly src: GPUBuffer;
  readonly work: GpuDbm;
  readonly other: GPUBuffer;
  /** The row's engine column, `webgpu i32` or `webgpu f32`. */
  readonly engine: string;
}

/** Every GPU operator on dense octagons of `n` variables, for integer (i32) and real (f32) ones. */
async function gpuOperatorRows(
  c: OctagonContext,
  n: number,
  half: Float64Array,
  cpuClosed: Float64Array | null,
): Promise<void> {
  const gpu = c.gpu;
  if (!gpu) return;
  if (n > gpu.engine.maxDenseDim()) {
    c.notes.push(
      `${n} vars: a dense matrix does not fit one binding of this device (max ${gpu.engine.maxDenseDim()} vars).`,
    );
    return;
  }
  for (const kind of ['int', 'real'] as const) {
    const format = formatOf(kind);
    const stride = gpu.engine.strideFor(n);
    c.log(`octagon: webgpu ${format} operators, ${n} variables (stride ${stride})`);
    const host = halfToDense(half, n, stride, kind);
    const size = stride * stride * 4;
    const src = await gpu.ctx.createBuffer({ label: 'bench octagon src', size, usage: STORAGE });
    const workBuffer = await gpu.ctx.createBuffer({ label: 'bench octagon work', size, usage: STORAGE });
    const work = new GpuDbm(workBuffer, n, kind, stride);
    const other = await gpu.ctx.createBuffer({ label: 'bench octagon other', size, usage: STORAGE });
    const o: GpuOperands = { n, kind, format, stride, size, src, work, other, engine: `webgpu ${format}` };
    try {
      await gpu.ctx.writeBuffer(src, 0, host);
      await gpu.engine.prepareClose(format);
      await gpu.engine.prepareFor(work);
      const dense = await gpuClosureRow(c, gpu, o, half, cpuClosed);
      await gpuEmptinessRow(c, gpu, o);
      await gpu.ctx.writeBuffer(other, 0, dense);
      await gpuElementwiseRows(c, gpu, o);
      await gpuTransferRows(c, gpu, o);
    } finally {
      src.destroy();
      work.destroy();
      other.destroy();
    }
  }
}

/** The GPU closure, timed and checked (against the CPU engine, else for idempotence); returns it. */
async function gpuClosureRow(
  c: OctagonContext,
  gpu: NonNullable<OctagonContext['gpu']>,
  o: GpuOperands,
  half: Float64Array,
  cpuClosed: Float64Array | null,
): Promise<Int32Array | Float32Array> {
  const { n, kind, format, stride, size, src, work, engine } = o;
  const closure = await timeGpu(
    gpu.ctx,
    'bench octagon closure',
    (encoder, timer) => {
      encoder.copyBufferToBuffer(src, 0, work.buffer, 0, size);
      gpu.engine.encodeResetFlags(encoder);
      gpu.engine.encodeClose(encoder, work, timer);
    },
    n >= 4096 ? Math.min(c.trials, 3) : c.trials,
    c.warmMs,
  );
  // Relaxations the coherent blocked closure executes: per round the diagonal tile, the
  // NB − 1 stored panels and the lower-triangle tiles outside them, T³ each.
  const nb = stride / gpu.engine.tile;
  const executed = ((nb * nb * (nb + 1)) / 2) * gpu.engine.tile ** 3;
  const gops = (2 * executed) / (closure.ms * 1e6);
  const N = 2 * n;
  c.rows.push({
    case: `closure (${kind === 'int' ? 'int, tight' : 'real, strong'})`,
    size: `${n} vars`,
    engine,
    medianMs: closure.ms,
    runs: closure.runs,
    method: closure.method,
    metrics: {
      'Grelax/s': (N * N * N) / (closure.ms * 1e6),
      '% of roof': (100 * gops) / (ROOF_TOPS[format] * 1e3),
      'exec Grelax/s': executed / (closure.ms * 1e6),
    },
  });
  const closed = new Uint8Array(await gpu.ctx.readBuffer(work.buffer, 0, size));
  const empty = new Uint32Array(await gpu.ctx.readBuffer(gpu.engine.flagsBuffer as GPUBuffer, 0, 4))[0] !== 0;
  const dense = format === 'i32' ? new Int32Array(closed.buffer) : new Float32Array(closed.buffer);
  let verdict: string;
  if (cpuClosed && c.cpu && n <= c.cpuMax) {
    const ref = kind === 'int' ? cpuClosed : Float64Array.from(half);
    if (kind === 'real') closeF64(ref, n, false);
    verdict = `${empty ? 'EMPTY (wrong); ' : ''}${agreement(dense, stride, ref, n, kind)}`;
  } else {
    // Idempotence: closing the closed matrix again changes nothing.
    await gpu.ctx.writeBuffer(work.buffer, 0, dense);
    await gpu.engine.closeDbm(work);
    const again = new Uint8Array(await gpu.ctx.readBuffer(work.buffer, 0, size));
    let diff = 0;
    for (let p = 0; p < again.length; p++) if (again[p] !== closed[p]) diff++;
    verdict = `${empty ? 'EMPTY (wrong); ' : ''}${diff === 0 ? 'idempotent (a second GPU closure changes nothing)' : `NOT idempotent (${diff} bytes change)`}; no CPU reference at this size`;
  }
  c.notes.push(`closure of ${n} vars on ${engine}: ${verdict}.`);
  return dense;
}

/** Emptiness: closure plus the negative-cycle flag, read back (wall clock, end to end). */
async function gpuEmptinessRow(
  c: OctagonContext,
  gpu: NonNullable<OctagonContext['gpu']>,
  o: GpuOperands,
): Promise<void> {
  const et: number[] = [];
  for (let t = 0; t < Math.min(c.trials, 3); t++) {
    const encoder = gpu.ctx.device.createCommandEncoder();
    encoder.copyBufferToBuffer(o.src, 0, o.work.buffer, 0, o.size);
    gpu.engine.encodeResetFlags(encoder);
    await gpu.ctx.idle();
    const start = performance.now();
    gpu.engine.encodeClose(encoder, o.work);
    gpu.ctx.queue.submit([encoder.finish()]);
    await gpu.ctx.readBuffer(gpu.engine.flagsBuffer as GPUBuffer, 0, 4);
    et.push(performance.now() - start);
  }
  c.rows.push({
    case: 'emptiness (closure + flag readback)',
    size: `${o.n} vars`,
    engine: o.engine,
    medianMs: median(et),
    runs: et.length,
    method: 'wall-clock',
    metrics: {},
  });
}

/** Elementwise: union and widening of two closed matrices. */
async function gpuElementwiseRows(
  c: OctagonContext,
  gpu: NonNullable<OctagonContext['gpu']>,
  o: GpuOperands,
): Promise<void> {
  for (const op of ['join', 'widen'] as const) {
    await gpu.engine.prepareElementwise(o.format, op);
    const t = await timeGpu(
      gpu.ctx,
      `bench octagon ${op}`,
      (encoder, timer) =>
        gpu.engine.encodeElementwise(
          encoder,
          op,
          o.format,
          o.src,
          o.other,
          o.work.buffer,
          o.stride * o.stride,
          timer,
        ),
      c.trials,
      c.warmMs,
    );
    c.rows.push({
      case: op === 'join' ? 'union' : 'widening',
      size: `${o.n} vars`,
      engine: o.engine,
      medianMs: t.ms,
      runs: t.runs,
      method: t.method,
      metrics: { 'GB/s': (3 * o.size) / (t.ms * 1e6) },
    });
  }
}

/** Transfer functions on the closed matrix: an assignment and a guard. */
async function gpuTransferRows(
  c: OctagonContext,
  gpu: NonNullable<OctagonContext['gpu']>,
  o: GpuOperands,
): Promise<void> {
  await gpu.engine.prepareTransfer(o.format, 'shift');
  await gpu.engine.prepareTransfer(o.format, 'guard');
  const transfers: [string, string, (encoder: GPUCommandEncoder, timer: PassTimer) => void][] = [
    [
      'assignment x := x + 1',
      'bench octagon assignment',
      (encoder, timer) => gpu.engine.encodeShift(encoder, o.work, o.n >> 1, 1, timer),
    ],
    [
      'guard x0 − x1 ≤ 5',
      'bench octagon guard',
      (encoder, timer) => gpu.engine.encodeGuard(encoder, o.work, { i: 0, si: 1, j: 1, sj: -1, c: 5 }, timer),
    ],
  ];
  for (const [name, label, encode] of transfers) {
    const t = await timeGpu(gpu.ctx, label, encode, c.trials, c.warmMs);
    c.rows.push({
      case: name,
      size: `${o.n} vars`,
      engine: o.engine,
      medianMs: t.ms,
      runs: t.runs,
      method: t.method,
      metrics: {},
    });
  }
}

/** Batches of small octagons closed in one dispatch (closures per second), the first 64 checked. */
async function gpuBatchRows(
  c: OctagonContext,
  batchHalf: readonly Float64Array[],
  batchCount: number,
): Promise<void> {
  const gpu = c.gpu;
  if (!gpu) return;
  const batchDim = BATCH_DIM;
  for (const kind of ['int', 'real'] as const) {
    const format = formatOf(kind);
    c.log(`octagon: webgpu ${format} batched closure, ${batchCount} × ${batchDim} variables`);
    const N = 2 * batchDim;
    const one = batchHalf.map((h) => halfToDense(h, batchDim, N, kind));
    const data = format === 'i32' ? new Int32Array(batchCount * N * N) : new Float32Array(batchCount * N * N);
    for (let k = 0; k < batchCount; k++)
      data.set(one[k % one.length] as Int32Array & Float32Array, k * N * N);
    const src = await gpu.ctx.createBuffer({
      label: 'bench batch src',
      size: data.byteLength,
      usage: STORAGE,
    });
    const work = await gpu.ctx.createBuffer({
      label: 'bench batch work',
      size: data.byteLength,
      usage: STORAGE,
    });
    const flags = await gpu.ctx.createBuffer({
      label: 'bench batch flags',
      size: batchCount * 4,
      usage: STORAGE,
    });
    try {
      await gpu.ctx.writeBuffer(src, 0, data);
      await gpu.engine.prepareBatch(batchDim, format);
      const t = await timeGpu(
        gpu.ctx,
        'bench octagon batch',
        (encoder, timer) => {
          encoder.copyBufferToBuffer(src, 0, work, 0, data.byteLength);
          encoder.clearBuffer(flags);
          gpu.engine.encodeBatchClose(encoder, work, flags, batchDim, format, batchCount, timer);
        },
        c.trials,
        c.warmMs,
      );
      c.rows.push({
        case: `batched closure (${kind})`,
        size: `${batchCount} × ${batchDim} vars`,
        engine: `webgpu ${format}`,
        medianMs: t.ms,
        runs: t.runs,
        method: t.method,
        metrics: { 'closures/s': batchCount / (t.ms / 1e3) },
      });
      const out = new Uint8Array(
        await gpu.ctx.readBuffer(work, 0, Math.min(data.byteLength, one.length * N * N * 4)),
      );
      const got = format === 'i32' ? new Int32Array(out.buffer) : new Float32Array(out.buffer);
      const verdicts = new Set<string>();
      for (let k = 0; k < Math.min(one.length, batchCount); k++) {
        const ref = Float64Array.from(batchHalf[k] as Float64Array);
        closeF64(ref, batchDim, kind === 'int');
        verdicts.add(agreement(got.subarray(k * N * N, (k + 1) * N * N), N, ref, batchDim, kind));
      }
      c.notes.push(
        `batched closure (${format}), first ${Math.min(one.length, batchCount)} octagons: ${[...verdicts].join('; ')}.`,
      );
    } finally {
      src.destroy();
      work.destroy();
      flags.destroy();
    }
  }
}

/** The f64 engine closing small octagons one after the other, for the batches' comparison. */
function cpuBatchRow(c: OctagonContext, batchHalf: readonly Float64Array[]): void {
  const count = c.quick ? 64 : 2000;
  const t = timeCpu(
    () => {
      for (let k = 0; k < count; k++)
        closeF64(Float64Array.from(batchHalf[k % batchHalf.length] as Float64Array), BATCH_DIM, true);
    },
    c.trials,
    true,
  );
  c.rows.push({
    case: 'batched closure (int)',
    size: `${count} × ${BATCH_DIM} vars`,
    engine: 'cpu f64',
    medianMs: t.ms,
    runs: t.runs,
    method: 'cpu',
    metrics: { 'closures/s': count / (t.ms / 1e3) },
  });
}

/** Variables of each octagon of the batches. */
const BATCH_DIM = 32;

/** The notes every report ends with: the SAS'07 figures at the sizes run, the inputs, the anchors. */
function closingNotes(sizes: readonly number[]): string[] {
  const notes: string[] = [];
  for (const [op, p] of Object.entries(PAPER)) {
    const cells = sizes
      .filter((n) => p.cpu[n] !== undefined)
      .map((n) => `${n}: CPU ${fmt((p.cpu[n] as number) / 20)}, GPU ${fmt((p.gpu[n] as number) / 20)}`);
    if (cells.length > 0) notes.push(`SAS'07 ${op} (ms per run) — ${cells.join('; ')}.`);
  }
  notes.push(
    'Inputs: dense random octagons, every cell an integer in [1, 1000) (non-empty; the worst case for the closure). GPU times are the compute passes (timestamp queries when available) after a warm-up; the input copy is outside the timed pass.',
    '"Grelax/s": (2n)³ relaxations of plain Floyd–Warshall over the 2n nodes per closure, for every engine (the CPU engine, sweeping the half matrix with the two nodes of a variable as one pivot, does about a quarter of them; the coherent blocked closure of the GPU about half: "exec Grelax/s" counts those it executes on the padded matrix). "% of roof": 2 integer/float operations (add, min) per executed relaxation, against the nominal H100 SXM5 roofs of 33.5 TOP/s int32 and 67 TFLOP/s fp32.',
    'CPU anchors (dense strong closure of random octagons, 2-core machine, from the issue): ELINA AVX 57 ms at 512 vars, 705 ms at 1,024, 15.6 s at 2,048; ELINA scalar 807 ms at 512, 7.3 s at 1,024; APRON (doubles) 2.6 s at 512, 21 s at 1,024.',
    "CPU anchors of a second measurement (same generator, loaded 2-core machine, medians): dense closure ELINA AVX 116 ms at 512 vars and 1.25 s at 1,024, ELINA scalar 1.80 s / 15.7 s, APRON doubles 3.96 s / 33.3 s; dense join/meet at 512 vars ELINA AVX 0.15 ms; blocks of related variables: ELINA's decomposed closure (no absolute figure given).",
    "SAS'07 figures: Table 1 divided by its 20 runs and read as milliseconds, as the issue reads them (4,096-variable GPU closure ≈ 1.2 s; the paper's text says seconds, and its O(1)–O(n²) columns are implausibly small in either unit); its GPU is a GeForce 7950 GTX (512 MB), its CPU a Pentium 4 D at 3.2 GHz.",
    'The plain CPU f64 union/intersection/widening allocate their result (octagons are immutable values); the "into a pool matrix" rows write into a matrix of a pool (createMatrixPool) whose arguments lie in the same WebAssembly memory: no allocation, SIMD in place; "N threads": the pool memory shared with the closure worker threads, the cells of each operator split among them (from 2^17 cells). "GB/s": three matrices of 8-byte cells read or written. "x" in the anchor lines: ELINA time / gpumorph time (above 1: gpumorph faster).',
  );
  return notes;
}

/**
 * `gpumorph bench octagon`: closure, union (join), widening, emptiness, assignment `x := x + c` and
 * the guard `x − y ≤ c` on dense random octagons at the paper's sizes (128 … 4,096 variables) and at
 * 8,192, on the WebGPU engine (i32 for integer octagons, f32 for real ones) and the f64 CPU engine
 * side by side, with the SAS'07 figures (one run) beside; then batches of 32-variable octagons
 * closed in one dispatch (closures per second). Each GPU result is checked against the CPU
 * engine where that ran, else for idempotence.
 *
 * @example
 * ```ts
 * const report = await octagonBench.run({ ctx, engines: ['webgpu', 'cpu'], quick: true, log: console.error });
 * ```
 */
export const octagonBench: BenchSuite = {
  name: 'octagon',
  description:
    'octagon domain: closure, join, widening, emptiness, assignment, guard (dense), batched closures',
  async run(options: BenchOptions): Promise<BenchReport> {
    const { ctx, quick, log } = options;
    const sizes = quick ? [16, 64] : [128, 256, 512, 1024, 2048, 4096, 8192];
    const gpuCtx = ctx && options.engines.includes('webgpu') ? ctx : null;
    const cpu = options.engines.includes('cpu');
    // the closure's worker threads: one per core the host reports, up to 16
    const os = (
      globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
    ).process?.getBuiltinModule?.('node:os') as { availableParallelism?: () => number } | undefined;
    const cores = Math.min(16, os?.availableParallelism?.() ?? 1);
    const c: OctagonContext = {
      quick,
      log,
      rows: [],
      notes: [],
      trials: quick ? 2 : 5,
      warmMs: quick ? 0 : 300,
      cpuMax: quick ? 64 : 2048,
      cpu,
      gpu: gpuCtx ? { engine: createOctagonGpu(gpuCtx), ctx: gpuCtx } : null,
      threads: cpu && cores > 1 ? createClosureThreads({ threads: cores }) : undefined,
      anchors: new Map(),
    };
    try {
      for (const n of sizes) {
        const half = randomHalf(n, 0x5eed + n);
        const cpuClosed = cpu && n <= c.cpuMax ? cpuClosureRows(c, n, half) : null;
        await gpuOperatorRows(c, n, half, cpuClosed);
        if (cpu && n <= c.cpuMax) cpuOperatorRows(c, n, half, cpuClosed);
      }
      const batchCount = quick ? 256 : 65_536;
      const batchHalf = Array.from({ length: Math.min(batchCount, 64) }, (_, k) =>
        randomHalf(BATCH_DIM, 77 + k),
      );
      await gpuBatchRows(c, batchHalf, batchCount);
      if (cpu) cpuBatchRow(c, batchHalf);
    } finally {
      c.gpu?.engine.destroy();
      c.threads?.destroy();
    }
    const notes = [...c.notes, ...anchorNotes(c), ...closingNotes(sizes)];
    return {
      suite: 'octagon',
      adapter: gpuCtx ? String(gpuCtx) : 'none (CPU engine only)',
      rows: c.rows,
      notes,
    };
  },
};
