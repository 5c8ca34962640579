import { BufferUsage, type GpuContext, measureGpu, median, type PassTimer } from '@gpumorph/gpu-allocator';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from '@gpumorph/gpu-allocator/bench';
import { closeF64, closeMatrix } from '../dbm/closure';
import { createClosureThreads } from '../dbm/closure-threads';
import type { OctagonKind } from '../dbm/constraints';
import { createOctagonDomain } from '../dbm/domain';
import { halfSize, rowStart } from '../dbm/layout';
import { createMatrixPool } from '../dbm/matrix-pool';
import { Octagon } from '../dbm/octagon';
import { createOctagonGpu, encodeBound, formatOf, GpuDbm, type OctagonGpu } from '../gpu/engine';
import { F32_INF_THRESHOLD, I32_LIM } from '../gpu/layout';
import { f64Bounds } from '../numbers/bounds';

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

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toPrecision(3);
}

/** Nominal H100 SXM5 arithmetic roofs (non-tensor): 67 TFLOP/s fp32, 33.5 TOP/s int32. */
const ROOF_TOPS: Record<'i32' | 'f32', number> = { i32: 33.5, f32: 67 };

/** Deterministic xorshift32 stream. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/**
 * A dense random coherent half matrix over `n` variables: every cell a random integer in
 * [1, 1000) (so the octagon is non-empty and every cell finite — the worst case of the closure),
 * the diagonal 0. Integral values keep the f64 engine on its exact path and f32 on its exact grid.
 *
 * @example
 * ```ts
 * const m = randomHalf(512, 1); // 2·512·513 cells
 * ```
 */
export function randomHalf(n: number, seed: number): Float64Array {
  const next = rng(seed);
  const m = new Float64Array(halfSize(n));
  const N = 2 * n;
  for (let i = 0; i < N; i++) {
    const base = rowStart(i);
    for (let j = 0; j <= (i | 1); j++) m[base + j] = i === j ? 0 : 1 + (next() % 999);
  }
  return m;
}

/**
 * A random octagon of independent blocks of `size` related variables (the sparse generator the
 * decomposed closure is for): every cell between two variables of one block an integer in
 * [1, 1000), every other cell +∞ (and the diagonal 0).
 *
 * @example
 * ```ts
 * const m = randomBlockHalf(512, 8, 1); // 64 blocks of 8 variables
 * ```
 */
export function randomBlockHalf(n: number, size: number, seed: number): Float64Array {
  const next = rng(seed);
  const m = new Float64Array(halfSize(n)).fill(Number.POSITIVE_INFINITY);
  const N = 2 * n;
  for (let i = 0; i < N; i++) {
    const base = rowStart(i);
    const first = 2 * size * Math.floor((i >> 1) / size);
    for (let j = first; j <= (i | 1); j++) m[base + j] = i === j ? 0 : 1 + (next() % 999);
  }
  return m;
}

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

function timeCpu(work: () => void, trials: number, warm: boolean): { ms: number; runs: number } {
  if (warm) work();
  const times: number[] = [];
  for (let t = 0; t < trials; t++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return { ms: median(times), runs: trials };
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
      const g =
        format === 'i32' ? (raw > I32_LIM ? Infinity : raw) : raw >= F32_INF_THRESHOLD ? Infinity : raw;
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
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    const sizes = quick ? [16, 64] : [128, 256, 512, 1024, 2048, 4096, 8192];
    const cpuMax = quick ? 64 : 2048;
    const trials = quick ? 2 : 5;
    // the dense CPU closure takes about a second at 1,024 variables: 3 runs there, 1 beyond
    const cpuTrials = (n: number) => (n >= 2048 ? 1 : n >= 1024 ? Math.min(trials, 3) : trials);
    const anchors = new Map<number, Map<string, number>>();
    const anchor = (n: number, what: string, ms: number) => {
      if (!anchors.has(n)) anchors.set(n, new Map());
      anchors.get(n)?.set(what, ms);
    };
    const warmMs = quick ? 0 : 300;
    const gpuCtx = ctx && options.engines.includes('webgpu') ? ctx : null;
    const cpu = options.engines.includes('cpu');
    const gpu: OctagonGpu | null = gpuCtx ? createOctagonGpu(gpuCtx) : null;
    // the closure's worker threads: one per core the host reports, up to 16
    const os = (
      globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
    ).process?.getBuiltinModule?.('node:os') as { availableParallelism?: () => number } | undefined;
    const cores = Math.min(16, os?.availableParallelism?.() ?? 1);
    const threads = cpu && cores > 1 ? createClosureThreads({ threads: cores }) : undefined;
    try {
      for (const n of sizes) {
        const N = 2 * n;
        const half = randomHalf(n, 0x5eed + n);
        const relaxations = N * N * N;
        let cpuClosed: Float64Array | null = null;
        // ---- closure (CPU)
        if (cpu && n <= cpuMax) {
          log(`octagon: f64 closure of ${n} variables`);
          const t = timeCpu(
            () => {
              const m = Float64Array.from(half);
              closeF64(m, n, true);
              cpuClosed = m;
            },
            cpuTrials(n),
            n < 1024,
          );
          rows.push({
            case: 'closure (int, tight)',
            size: `${n} vars`,
            engine: 'cpu f64',
            medianMs: t.ms,
            runs: t.runs,
            method: 'cpu',
            metrics: { 'Grelax/s': (8 * n * n * n) / (t.ms * 1e6) },
          });
          anchor(n, 'closure, 1 thread', t.ms);
          if (threads && n >= 256) {
            log(`octagon: f64 closure of ${n} variables on ${threads.threads} threads`);
            let threaded: Float64Array | null = null;
            const tt = timeCpu(
              () => {
                const m = Float64Array.from(half);
                closeF64(m, n, true, { threads });
                threaded = m;
              },
              cpuTrials(n),
              n < 1024,
            );
            rows.push({
              case: 'closure (int, tight)',
              size: `${n} vars`,
              engine: `cpu f64, ${threads.threads} threads`,
              medianMs: tt.ms,
              runs: tt.runs,
              method: 'cpu',
              metrics: { 'Grelax/s': (8 * n * n * n) / (tt.ms * 1e6) },
            });
            anchor(n, `closure, ${threads.threads} threads`, tt.ms);
            const same =
              threaded !== null && (threaded as Float64Array).every((v, p) => v === cpuClosed?.[p]);
            notes.push(
              `closure of ${n} vars on ${threads.threads} threads ${same ? 'equals' : 'DIFFERS FROM'} the single-threaded closure.`,
            );
          }
          const X = createOctagonDomain({ engine: 'exact', kind: 'int' });
          if (n <= 32) {
            const exact = new Octagon(
              X.bounds,
              'int',
              n,
              Array.from(half, (v) => X.bounds.fromRational(f64Bounds.toRational(v))),
              false,
            ).closedMatrix();
            const same =
              exact !== null &&
              cpuClosed !== null &&
              Array.from(cpuClosed as Float64Array).every((v, p) =>
                f64Bounds.toRational(v).eq(exact[p] as never),
              );
            notes.push(
              `closure of ${n} vars: the f64 engine ${same ? 'equals' : 'DIFFERS FROM'} the exact engine.`,
            );
          }
        }
        // ---- GPU operators
        if (gpu && gpuCtx && n <= gpu.maxDenseDim()) {
          for (const kind of ['int', 'real'] as const) {
            const format = formatOf(kind);
            const stride = gpu.strideFor(n);
            log(`octagon: webgpu ${format} operators, ${n} variables (stride ${stride})`);
            const host = halfToDense(half, n, stride, kind);
            const size = stride * stride * 4;
            const src = await gpuCtx.createBuffer({ label: 'bench octagon src', size, usage: STORAGE });
            const work = new GpuDbm(
              await gpuCtx.createBuffer({ label: 'bench octagon work', size, usage: STORAGE }),
              n,
              kind,
              stride,
            );
            const other = await gpuCtx.createBuffer({ label: 'bench octagon other', size, usage: STORAGE });
            try {
              await gpuCtx.writeBuffer(src, 0, host);
              await gpu.prepareClose(format);
              await gpu.prepareFor(work);
              const engine = `webgpu ${format}`;
              const closure = await timeGpu(
                gpuCtx,
                'bench octagon closure',
                (encoder, timer) => {
                  encoder.copyBufferToBuffer(src, 0, work.buffer, 0, size);
                  gpu.encodeResetFlags(encoder);
                  gpu.encodeClose(encoder, work, timer);
                },
                n >= 4096 ? Math.min(trials, 3) : trials,
                warmMs,
              );
              // Relaxations the coherent blocked closure executes: per round the diagonal tile, the
              // NB − 1 stored panels and the lower-triangle tiles outside them, T³ each.
              const nb = stride / gpu.tile;
              const executed = ((nb * nb * (nb + 1)) / 2) * gpu.tile ** 3;
              const gops = (2 * executed) / (closure.ms * 1e6);
              rows.push({
                case: `closure (${kind === 'int' ? 'int, tight' : 'real, strong'})`,
                size: `${n} vars`,
                engine,
                medianMs: closure.ms,
                runs: closure.runs,
                method: closure.method,
                metrics: {
                  'Grelax/s': relaxations / (closure.ms * 1e6),
                  '% of roof': (100 * gops) / (ROOF_TOPS[format] * 1e3),
                  'exec Grelax/s': executed / (closure.ms * 1e6),
                },
              });
              const closed = new Uint8Array(await gpuCtx.readBuffer(work.buffer, 0, size));
              const empty =
                new Uint32Array(await gpuCtx.readBuffer(gpu.flagsBuffer as GPUBuffer, 0, 4))[0] !== 0;
              const dense =
                format === 'i32' ? new Int32Array(closed.buffer) : new Float32Array(closed.buffer);
              let verdict: string;
              if (cpuClosed && cpu && n <= cpuMax) {
                const ref = kind === 'int' ? (cpuClosed as Float64Array) : Float64Array.from(half);
                if (kind === 'real') closeF64(ref, n, false);
                verdict = `${empty ? 'EMPTY (wrong); ' : ''}${agreement(dense, stride, ref, n, kind)}`;
              } else {
                // Idempotence: closing the closed matrix again changes nothing.
                await gpuCtx.writeBuffer(work.buffer, 0, dense);
                await gpu.closeDbm(work);
                const again = new Uint8Array(await gpuCtx.readBuffer(work.buffer, 0, size));
                let diff = 0;
                for (let p = 0; p < again.length; p++) if (again[p] !== closed[p]) diff++;
                verdict = `${empty ? 'EMPTY (wrong); ' : ''}${diff === 0 ? 'idempotent (a second GPU closure changes nothing)' : `NOT idempotent (${diff} bytes change)`}; no CPU reference at this size`;
              }
              notes.push(`closure of ${n} vars on ${engine}: ${verdict}.`);

              // Emptiness: closure plus the negative-cycle flag, read back (wall clock, end to end).
              const et: number[] = [];
              for (let t = 0; t < Math.min(trials, 3); t++) {
                const encoder = gpuCtx.device.createCommandEncoder();
                encoder.copyBufferToBuffer(src, 0, work.buffer, 0, size);
                gpu.encodeResetFlags(encoder);
                await gpuCtx.idle();
                const start = performance.now();
                gpu.encodeClose(encoder, work);
                gpuCtx.queue.submit([encoder.finish()]);
                await gpuCtx.readBuffer(gpu.flagsBuffer as GPUBuffer, 0, 4);
                et.push(performance.now() - start);
              }
              rows.push({
                case: 'emptiness (closure + flag readback)',
                size: `${n} vars`,
                engine,
                medianMs: median(et),
                runs: et.length,
                method: 'wall-clock',
                metrics: {},
              });

              // Elementwise: union and widening of two closed matrices.
              await gpuCtx.writeBuffer(other, 0, dense);
              for (const op of ['join', 'widen'] as const) {
                await gpu.prepareElementwise(format, op);
                const t = await timeGpu(
                  gpuCtx,
                  `bench octagon ${op}`,
                  (encoder, timer) =>
                    gpu.encodeElementwise(
                      encoder,
                      op,
                      format,
                      src,
                      other,
                      work.buffer,
                      stride * stride,
                      timer,
                    ),
                  trials,
                  warmMs,
                );
                rows.push({
                  case: op === 'join' ? 'union' : 'widening',
                  size: `${n} vars`,
                  engine,
                  medianMs: t.ms,
                  runs: t.runs,
                  method: t.method,
                  metrics: { 'GB/s': (3 * size) / (t.ms * 1e6) },
                });
              }
              // Transfer functions on the closed matrix.
              await gpu.prepareTransfer(format, 'shift');
              await gpu.prepareTransfer(format, 'guard');
              const shift = await timeGpu(
                gpuCtx,
                'bench octagon assignment',
                (encoder, timer) => gpu.encodeShift(encoder, work, n >> 1, 1, timer),
                trials,
                warmMs,
              );
              rows.push({
                case: 'assignment x := x + 1',
                size: `${n} vars`,
                engine,
                medianMs: shift.ms,
                runs: shift.runs,
                method: shift.method,
                metrics: {},
              });
              const guard = await timeGpu(
                gpuCtx,
                'bench octagon guard',
                (encoder, timer) =>
                  gpu.encodeGuard(encoder, work, { i: 0, si: 1, j: 1, sj: -1, c: 5 }, timer),
                trials,
                warmMs,
              );
              rows.push({
                case: 'guard x0 − x1 ≤ 5',
                size: `${n} vars`,
                engine,
                medianMs: guard.ms,
                runs: guard.runs,
                method: guard.method,
                metrics: {},
              });
            } finally {
              src.destroy();
              work.destroy();
              other.destroy();
            }
          }
        } else if (gpu && n > gpu.maxDenseDim()) {
          notes.push(
            `${n} vars: a dense matrix does not fit one binding of this device (max ${gpu.maxDenseDim()} vars).`,
          );
        }
        // ---- CPU operators besides closure
        if (cpu && n <= cpuMax) {
          const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
          const closedHalf = cpuClosed ?? Float64Array.from(half);
          const a = new Octagon(F.bounds, 'int', n, closedHalf, true);
          const b = new Octagon(
            F.bounds,
            'int',
            n,
            Float64Array.from(closedHalf, (v) => (v === 0 ? 0 : v + 1)),
            true,
          );
          // The same operators writing into matrices of a pool (its arguments' matrices in it too):
          // no allocation, the SIMD kernels in place.
          const pool = createMatrixPool(n, { capacity: 3 });
          const pa = a.join(a, { into: pool.acquire() });
          const pb = b.join(b, { into: pool.acquire() });
          const dst = pool.acquire();
          const ops: [string, string | null, () => unknown][] = [
            ['union', 'join', () => a.join(b)],
            ['union into a pool matrix', 'join into', () => pa.join(pb, { into: dst })],
            ['intersection', 'meet', () => a.meet(b)],
            ['intersection into a pool matrix', 'meet into', () => pa.meet(pb, { into: dst })],
            ['widening', null, () => a.widen(b)],
            ['widening into a pool matrix', null, () => pa.widen(pb, [], { into: dst })],
            ['assignment x := x + 1', null, () => a.assignVar(n >> 1, 1, n >> 1, 1)],
            ['guard x0 − x1 ≤ 5', null, () => a.meet(a).guard({ i: 0, si: 1, j: 1, sj: -1, c: 5 })],
          ];
          for (const [name, key, work] of ops) {
            const t = timeCpu(work, n >= 1024 ? Math.max(trials, 9) : trials, true);
            rows.push({
              case: name,
              size: `${n} vars`,
              engine: 'cpu f64',
              medianMs: t.ms,
              runs: t.runs,
              method: 'cpu',
              metrics:
                name.startsWith('assign') || name.startsWith('guard')
                  ? {}
                  : { 'GB/s': (24 * halfSize(n)) / (t.ms * 1e6) },
            });
            if (key) anchor(n, key, t.ms);
          }
          const joined = a.join(b);
          const pooledJoin = pa.join(pb, { into: dst });
          notes.push(
            `union of ${n} vars into a pool matrix ${pooledJoin.equals(joined) && pooledJoin.rawMatrix() === dst ? 'equals' : 'DIFFERS FROM'} the plain union.`,
          );
          // Sparse: blocks of 8 related variables. A decomposed octagon knows its blocks (its
          // operators keep them): its closure closes each block alone. The whole-matrix row adds
          // the cells between blocks (what a dense reader gets); the scan row is the closure of a
          // matrix whose blocks are unknown (found by a scan, then the dense strengthening).
          const blocks = randomBlockHalf(n, 8, 0xb10c + n);
          const partition = Int32Array.from({ length: n }, (_, v) => v - (v % 8));
          const decomposed = () => new Octagon(f64Bounds, 'int', n, blocks, false, null, partition);
          const sparse: [string, () => unknown][] = [
            ['closure, blocks of 8 (int, decomposed octagon)', () => decomposed().isEmpty()],
            ['closure, blocks of 8, whole matrix written', () => decomposed().closedMatrix()],
            [
              'closure, blocks of 8, blocks found by a scan',
              () => closeMatrix(Float64Array.from(blocks), n, f64Bounds, true),
            ],
          ];
          for (const [name, work] of sparse) {
            const tb = timeCpu(work, n >= 1024 ? Math.max(trials, 9) : trials, true);
            if (name.includes('decomposed')) anchor(n, 'sparse closure (blocks of 8)', tb.ms);
            rows.push({
              case: name,
              size: `${n} vars`,
              engine: 'cpu f64',
              medianMs: tb.ms,
              runs: tb.runs,
              method: 'cpu',
              metrics: {},
            });
          }
          if (n <= 512) {
            const dense = Float64Array.from(blocks);
            const nonEmpty = closeF64(dense, n, true);
            const whole = decomposed().closedMatrix() as Float64Array | null;
            const same = nonEmpty && whole?.every((v, p) => v === dense[p]) === true;
            notes.push(
              `closure of ${n} vars in blocks of 8: the decomposed octagon's closure (whole matrix) ${same ? 'equals' : 'DIFFERS FROM'} the dense closure.`,
            );
          }
          if (n < 2048) {
            // (At 2,048 and above the emptiness test is the closure row: not timed twice.)
            const e = timeCpu(
              () => new Octagon(F.bounds, 'int', n, Float64Array.from(half), false).isEmpty(),
              n >= 1024 ? 1 : trials,
              false,
            );
            rows.push({
              case: 'emptiness (closure)',
              size: `${n} vars`,
              engine: 'cpu f64',
              medianMs: e.ms,
              runs: e.runs,
              method: 'cpu',
              metrics: {},
            });
          }
        }
      }

      // ---- batches of small octagons
      const batchDim = 32;
      const batchCount = quick ? 256 : 65_536;
      const batchHalf = Array.from({ length: Math.min(batchCount, 64) }, (_, k) =>
        randomHalf(batchDim, 77 + k),
      );
      if (gpu && gpuCtx) {
        for (const kind of ['int', 'real'] as const) {
          const format = formatOf(kind);
          log(`octagon: webgpu ${format} batched closure, ${batchCount} × ${batchDim} variables`);
          const N = 2 * batchDim;
          const one = batchHalf.map((h) => halfToDense(h, batchDim, N, kind));
          const data =
            format === 'i32' ? new Int32Array(batchCount * N * N) : new Float32Array(batchCount * N * N);
          for (let k = 0; k < batchCount; k++)
            data.set(one[k % one.length] as Int32Array & Float32Array, k * N * N);
          const src = await gpuCtx.createBuffer({
            label: 'bench batch src',
            size: data.byteLength,
            usage: STORAGE,
          });
          const work = await gpuCtx.createBuffer({
            label: 'bench batch work',
            size: data.byteLength,
            usage: STORAGE,
          });
          const flags = await gpuCtx.createBuffer({
            label: 'bench batch flags',
            size: batchCount * 4,
            usage: STORAGE,
          });
          try {
            await gpuCtx.writeBuffer(src, 0, data);
            await gpu.prepareBatch(batchDim, format);
            const t = await timeGpu(
              gpuCtx,
              'bench octagon batch',
              (encoder, timer) => {
                encoder.copyBufferToBuffer(src, 0, work, 0, data.byteLength);
                encoder.clearBuffer(flags);
                gpu.encodeBatchClose(encoder, work, flags, batchDim, format, batchCount, timer);
              },
              trials,
              warmMs,
            );
            rows.push({
              case: `batched closure (${kind})`,
              size: `${batchCount} × ${batchDim} vars`,
              engine: `webgpu ${format}`,
              medianMs: t.ms,
              runs: t.runs,
              method: t.method,
              metrics: { 'closures/s': batchCount / (t.ms / 1e3) },
            });
            const out = new Uint8Array(
              await gpuCtx.readBuffer(work, 0, Math.min(data.byteLength, one.length * N * N * 4)),
            );
            const got = format === 'i32' ? new Int32Array(out.buffer) : new Float32Array(out.buffer);
            let verdicts = new Set<string>();
            for (let k = 0; k < Math.min(one.length, batchCount); k++) {
              const ref = Float64Array.from(batchHalf[k] as Float64Array);
              closeF64(ref, batchDim, kind === 'int');
              verdicts.add(agreement(got.subarray(k * N * N, (k + 1) * N * N), N, ref, batchDim, kind));
            }
            notes.push(
              `batched closure (${format}), first ${Math.min(one.length, batchCount)} octagons: ${[...verdicts].join('; ')}.`,
            );
            verdicts = new Set();
          } finally {
            src.destroy();
            work.destroy();
            flags.destroy();
          }
        }
      }
      if (cpu) {
        const count = quick ? 64 : 2000;
        const t = timeCpu(
          () => {
            for (let k = 0; k < count; k++)
              closeF64(Float64Array.from(batchHalf[k % batchHalf.length] as Float64Array), batchDim, true);
          },
          trials,
          true,
        );
        rows.push({
          case: 'batched closure (int)',
          size: `${count} × ${batchDim} vars`,
          engine: 'cpu f64',
          medianMs: t.ms,
          runs: t.runs,
          method: 'cpu',
          metrics: { 'closures/s': count / (t.ms / 1e3) },
        });
      }
    } finally {
      gpu?.destroy();
      threads?.destroy();
    }
    // One line per size with the figures the issue's ELINA anchors line up with (same generator).
    const ELINA_AVX: Record<number, Record<string, number>> = {
      512: { closure: 116, join: 0.15, meet: 0.15 },
      1024: { closure: 1250 },
    };
    for (const [n, figures] of anchors) {
      const elina = ELINA_AVX[n] ?? {};
      const cells = [...figures].map(([what, ms]) => {
        const ref = elina[what.split(/[ ,]/)[0] as string];
        const ratio =
          ref !== undefined && !what.startsWith('sparse')
            ? ` (ELINA AVX ${fmt(ref)} ms: ${(ref / ms).toFixed(2)}x)`
            : '';
        return `${what} ${fmt(ms)} ms${ratio}`;
      });
      notes.push(`gpumorph CPU f64 at ${n} vars, for the anchors — ${cells.join('; ')}.`);
    }
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
      'The plain CPU f64 union/intersection/widening allocate their result (octagons are immutable values); the "into a pool matrix" rows write into a matrix of a pool (createMatrixPool) whose arguments lie in the same WebAssembly memory: no allocation, SIMD in place. "GB/s": three matrices of 8-byte cells read or written. "x" in the anchor lines: ELINA time / gpumorph time (above 1: gpumorph faster).',
    );
    return { suite: 'octagon', adapter: gpuCtx ? String(gpuCtx) : 'none (CPU engine only)', rows, notes };
  },
};
