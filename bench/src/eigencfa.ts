/**
 * `gpumorph bench eigencfa`: the CPU and WebGPU engines side by side on the Van Horn–Mairson
 * programs at the sizes of the paper's Table 1 (297 … 222,257 terms, from `../shared/data` or
 * `$GPUMORPH_DATA/eigencfa/vhm`) and beyond (n = 4096 and 8192 from our generator and front end),
 * with the paper's GPU(Sp) and CPU(Sp) times beside, and every row's store compared between the
 * engines (and with `expected-store.rkt` where shipped).
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type CfaMatrices,
  type CfaStore,
  compileScheme,
  createCfaBufferPool,
  firstDifference,
  parseExpectedStore,
  readMatricesDir,
  solveCpuSparse,
  solveWebGpu,
  termCount,
  vanHornMairson,
} from '@gpumorph/eigencfa';
import type { GpuContext } from '@gpumorph/gpu-allocator';
import { collectGarbage, settleGarbage } from './gc';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';
import { warmUntilSteady } from './warm-up';

/** Table 1 of seeds/eigencfa-popl11 (GTX-480 and a 2.79 GHz i7, 2011): terms → GPU(Sp), CPU(Sp) in ms. */
export const PAPER_TABLE_1: Readonly<Record<number, { readonly gpuSpMs: number; readonly cpuSpMs: number }>> =
  {
    297: { gpuSpMs: 0.4, cpuSpMs: 0.1 },
    545: { gpuSpMs: 0.7, cpuSpMs: 0.16 },
    1041: { gpuSpMs: 1.15, cpuSpMs: 0.33 },
    2033: { gpuSpMs: 2.27, cpuSpMs: 0.84 },
    4017: { gpuSpMs: 6.51, cpuSpMs: 4.2 },
    7985: { gpuSpMs: 24.01, cpuSpMs: 34.7 },
    15921: { gpuSpMs: 94.48, cpuSpMs: 400 },
    31793: { gpuSpMs: 400, cpuSpMs: 5_600 },
    63537: { gpuSpMs: 2_490, cpuSpMs: 84_000 },
    127025: { gpuSpMs: 21_300, cpuSpMs: 1_200_000 },
    222257: { gpuSpMs: 173_000, cpuSpMs: 12_600_000 },
  };

/**
 * Parses Table 1 out of the seed's text ("Terms GPU (Sp) CPU (Sp) …" rows such as
 * `222,257 2m 53s 3hr 30 m …`), for checking {@link PAPER_TABLE_1} against the source.
 *
 * @example
 * ```ts
 * parsePaperTable1(readFileSync('../shared/seeds/eigencfa-popl11.txt', 'utf8'))[297]; // { gpuSpMs: 0.4, cpuSpMs: 0.1 }
 * ```
 */
export function parsePaperTable1(text: string): Record<number, { gpuSpMs: number; cpuSpMs: number }> {
  const out: Record<number, { gpuSpMs: number; cpuSpMs: number }> = {};
  const duration = (s: string): number => {
    let ms = 0;
    const t = s.trim();
    const re = /([\d.]+)\s*(hr|min|m|s|ms)\b/g;
    let m: RegExpExecArray | null;
    for (;;) {
      m = re.exec(t);
      if (!m) break;
      const v = Number(m[1]);
      const unit = m[2];
      ms +=
        unit === 'hr'
          ? v * 3_600_000
          : unit === 'min' || unit === 'm'
            ? v * 60_000
            : unit === 's'
              ? v * 1000
              : v;
    }
    return ms;
  };
  for (const line of text.split('\n')) {
    const cells = line.split('\t');
    if (cells.length < 3 || !/^\d{1,3}(,\d{3})*$/.test((cells[0] as string).trim())) continue;
    const terms = Number((cells[0] as string).replace(/,/g, ''));
    out[terms] = { gpuSpMs: duration(cells[1] as string), cpuSpMs: duration(cells[2] as string) };
  }
  return out;
}

const TABLE_SIZES = ['2', '4', '8', '16', '32', '64', '128', '256', '512', '1024', '1792'];
const EXTRA_DATA = ['1536', '2048'];
const GENERATED = ['4096', '8192'];

/** Where the EigenCFA matrices are, or undefined. */
export function vhmDataDirectory(): string | undefined {
  const candidates = [
    process.env.GPUMORPH_DATA ? resolve(process.env.GPUMORPH_DATA, 'eigencfa/vhm') : undefined,
    resolve('../shared/data/eigencfa/vhm'),
    resolve('shared/data/eigencfa/vhm'),
  ];
  return candidates.find((dir) => dir !== undefined && existsSync(resolve(dir, 'smallest/Fun.mat')));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The paper's Table 1, read from the seed's text when it is here (else {@link PAPER_TABLE_1}). */
function paperTable(notes: string[]): Record<number, { gpuSpMs: number; cpuSpMs: number }> {
  const seed = [
    process.env.GPUMORPH_SEEDS ? resolve(process.env.GPUMORPH_SEEDS, 'eigencfa-popl11.txt') : undefined,
    resolve('../shared/seeds/eigencfa-popl11.txt'),
    resolve('shared/seeds/eigencfa-popl11.txt'),
  ].find((f) => f !== undefined && existsSync(f));
  if (!seed) {
    notes.push('paper figures: the transcription PAPER_TABLE_1 (seed text not found)');
    return { ...PAPER_TABLE_1 };
  }
  const parsed = parsePaperTable1(readFileSync(seed, 'utf8'));
  if (Object.keys(parsed).length < 11) return { ...PAPER_TABLE_1 };
  notes.push(`paper figures read from ${seed}`);
  return parsed;
}

/** One program of the suite: the data folder's matrices of size `n`, else generated. */
interface SuiteProgram {
  readonly n: string;
  readonly m: CfaMatrices;
  readonly expected: CfaStore | undefined;
  readonly terms: number;
  /** The row's size column. */
  readonly size: string;
  /** Front-end ms when generated, else 0. */
  readonly compileMs: number;
  readonly paper: { gpuSpMs: number; cpuSpMs: number } | undefined;
  /**
   * Up to n = 2048 (64 k lambdas) every engine runs several times: the H100 machine's times move
   * by up to 2x between runs, and a ratio of two single runs says little.
   */
  readonly big: boolean;
}

async function loadProgram(
  dir: string | undefined,
  n: string,
  table: Record<number, { gpuSpMs: number; cpuSpMs: number }>,
  log: (line: string) => void,
): Promise<SuiteProgram> {
  let m: CfaMatrices;
  let expected: CfaStore | undefined;
  let source = 'data';
  let compileMs = 0;
  const dataDir = dir ? resolve(dir, n) : undefined;
  if (dataDir && existsSync(resolve(dataDir, 'Fun.mat'))) {
    m = await readMatricesDir(dataDir);
    const e = resolve(dataDir, 'expected-store.rkt');
    if (existsSync(e)) expected = parseExpectedStore(readFileSync(e, 'utf8'), e, m.rows);
  } else {
    if (TABLE_SIZES.includes(n) || EXTRA_DATA.includes(n))
      log(`eigencfa: n = ${n}: no data folder, generating`);
    const t = performance.now();
    m = compileScheme(vanHornMairson(Number(n))).matrices;
    compileMs = performance.now() - t;
    source = 'generated';
  }
  const terms = termCount(m);
  const size = `n=${n}, ${terms.toLocaleString('en-US')} terms (${source})`;
  return { n, m, expected, terms, size, compileMs, paper: table[terms], big: m.lams > 70_000 };
}

/** The CPU engine's row of one program, and its store for the WebGPU row to compare with. */
function cpuRow(p: SuiteProgram, log: (line: string) => void): { row: BenchRow; store: CfaStore } {
  const runs = p.big ? 1 : 3;
  const times: number[] = [];
  let steps = 0;
  let store: CfaStore | undefined;
  for (let r = 0; r < runs; r++) {
    collectGarbage();
    const t = performance.now();
    const result = solveCpuSparse(p.m);
    times.push(performance.now() - t);
    store = result.store;
    steps = result.statistics.steps;
  }
  const cpuMs = median(times);
  const cpuStore = store as CfaStore;
  log(`eigencfa: n = ${p.n} cpu ${cpuMs.toFixed(1)} ms (${cpuStore.size} store entries)`);
  const metrics: Record<string, number> = {
    terms: p.terms,
    'store entries': cpuStore.size,
    'worklist steps': steps,
    'min ms': Math.min(...times),
    'max ms': Math.max(...times),
  };
  if (p.compileMs) metrics['front end ms'] = p.compileMs;
  if (p.expected) metrics['= expected'] = firstDifference(cpuStore, p.expected) ? 0 : 1;
  if (p.paper) {
    metrics['paper CPU(Sp) ms'] = p.paper.cpuSpMs;
    metrics['paper CPU(Sp) / ours'] = p.paper.cpuSpMs / cpuMs;
  }
  const row: BenchRow = {
    case: `vhm ${p.n}`,
    size: p.size,
    engine: 'cpu',
    medianMs: cpuMs,
    runs,
    method: 'cpu',
    metrics,
  };
  return { row, store: cpuStore };
}

/** Timed WebGPU solves of one program: their times, the last store and its statistics as metrics. */
async function timedGpuSolves(
  gpu: GpuContext,
  p: SuiteProgram,
  runs: number,
): Promise<{ times: number[]; store: CfaStore; metrics: Record<string, number> }> {
  // Every run of one size uses the same store (cleared on the GPU), as a caller analysing many
  // programs in a row would with a pool: allocated again each time, it made later runs slower.
  const bufferPool = createCfaBufferPool(gpu);
  try {
    // Untimed solves until the GPU runs at its working clock (bench/src/warm-up.ts): they also put
    // the store in the pool, and bring the GPU back to speed after idling through the CPU engine's
    // runs.
    await warmUntilSteady(async () => (await solveWebGpu(gpu, p.m, { bufferPool })).statistics.solveMs);
    const times: number[] = [];
    let store: CfaStore | undefined;
    let metrics: Record<string, number> = {};
    for (let r = 0; r < runs; r++) {
      store = undefined;
      await settleGarbage();
      const result = await solveWebGpu(gpu, p.m, { bufferPool });
      const s = result.statistics;
      times.push(s.solveMs);
      store = result.store;
      metrics = {
        rounds: s.rounds,
        batches: s.batches,
        'grid workgroups': s.gridWorkgroups,
        'peak items': s.peakItems,
        'setup ms': s.setupMs,
        'readback ms': s.readbackMs,
        'total ms': s.setupMs + s.solveMs + s.readbackMs,
        'store MiB': s.storeBytes / 2 ** 20,
        'GPU MiB': s.deviceBytes / 2 ** 20,
      };
    }
    return { times, store: store as CfaStore, metrics };
  } finally {
    bufferPool.destroy();
  }
}

/** The WebGPU engine's row of one program, or undefined (and a note) when the engine failed. */
async function gpuRow(
  gpu: GpuContext,
  p: SuiteProgram,
  cpu: { store: CfaStore; ms: number } | undefined,
  options: BenchOptions,
  notes: string[],
): Promise<BenchRow | undefined> {
  const runs = p.big ? 2 : 5;
  let solved: Awaited<ReturnType<typeof timedGpuSolves>>;
  try {
    solved = await timedGpuSolves(gpu, p, runs);
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    options.log(`eigencfa: n = ${p.n} webgpu failed: ${failure}`);
    notes.push(`n = ${p.n}: the WebGPU engine failed: ${failure}`);
    return undefined;
  }
  const { times, store } = solved;
  const gpuMs = median(times);
  let agree = 1;
  if (cpu && firstDifference(store, cpu.store)) agree = 0;
  if (p.expected && firstDifference(store, p.expected)) agree = 0;
  if (!cpu && !p.expected) agree = Number.NaN;
  options.log(
    `eigencfa: n = ${p.n} webgpu ${gpuMs.toFixed(1)} ms, ${solved.metrics.rounds} rounds, agree ${agree}`,
  );
  const metrics: Record<string, number> = {
    terms: p.terms,
    'store entries': store.size,
    'min ms': Math.min(...times),
    'max ms': Math.max(...times),
    ...solved.metrics,
  };
  if (!Number.isNaN(agree)) metrics.agree = agree;
  if (cpu) metrics['cpu / webgpu'] = cpu.ms / gpuMs;
  if (p.paper) {
    metrics['paper GPU(Sp) ms'] = p.paper.gpuSpMs;
    metrics['paper GPU(Sp) / ours'] = p.paper.gpuSpMs / gpuMs;
  }
  return {
    case: `vhm ${p.n}`,
    size: p.size,
    engine: 'webgpu',
    medianMs: gpuMs,
    runs,
    method: 'wall-clock',
    metrics,
  };
}

async function run(options: BenchOptions): Promise<BenchReport> {
  const rows: BenchRow[] = [];
  const dir = vhmDataDirectory();
  const gpu = options.engines.includes('webgpu') ? options.ctx : null;
  const cpuOn = options.engines.includes('cpu');
  const notes: string[] = [
    'programs: the Van Horn–Mairson family of the data folder (…/eigencfa/vhm/<n>/Fun|Arg1|Arg2.mat); n = 4096 and 8192 generated by vanHornMairson(n) and compiled by our front end (which reproduces the shipped matrices exactly for every n that has them)',
    'cpu: worklist with difference propagation over the look-up vectors (wall clock of solveCpuSparse, sorted rows included); webgpu: the delta engine (word-level difference propagation, function rows followed at once under a budget of 64 joins per invocation and round; one workgroup below 100k calls, grid mode above), wall clock from the first dispatch until the host sees no work left (one small state read per dispatch), after untimed solves of the same program until the GPU runs at its working clock (at least two solves and two seconds, then until three agree within 5%; the clocks of the GPU drop when it idles, e.g. while the CPU engine runs), every run of a size on the same store from a buffer pool (cleared on the GPU before each); medians of 3 CPU and 5 WebGPU runs up to 70k lambdas (n = 2048), of 1 and 2 above, with min and max, and a full garbage collection before every timed run; setup (index upload, pipeline) and readback (bitsets → sorted rows) are listed apart and in total ms',
    'paper columns: Table 1 of seeds/eigencfa-popl11 (GPU(Sp) on a GTX-480, CPU(Sp) in C on a 2.79 GHz i7, 2011); anchors from the issue: a C++ std::set worklist 0CFA takes 0.84 s at n = 1024 and 2.7 s at n = 1792 on a 2-core machine of the CI kind',
    'agree: 1 when the WebGPU store equals the CPU store row for row (and expected-store.rkt where shipped), else 0; --quick runs n ≤ 64 only',
  ];
  const table = paperTable(notes);
  const only = process.env.GPUMORPH_EIGENCFA_SIZES?.split(',').map((s) => s.trim());
  let sizes = options.quick
    ? ['2', '4', '8', '16', '32', '64']
    : [...TABLE_SIZES, ...EXTRA_DATA, ...GENERATED];
  if (only) sizes = sizes.filter((n) => only.includes(n)).concat(only.filter((n) => !sizes.includes(n)));
  if (gpu) {
    // Warm-up: compile the kernels of a small program.
    await solveWebGpu(gpu, compileScheme(vanHornMairson(2)).matrices);
  }
  for (const n of sizes) {
    const program = await loadProgram(dir, n, table, options.log);
    let cpu: { store: CfaStore; ms: number } | undefined;
    if (cpuOn) {
      const { row, store } = cpuRow(program, options.log);
      rows.push(row);
      cpu = { store, ms: row.medianMs };
    }
    if (gpu) {
      const row = await gpuRow(gpu, program, cpu, options, notes);
      if (row) rows.push(row);
    }
  }
  if (!dir)
    notes.push(
      'no data folder found (../shared/data/eigencfa/vhm or $GPUMORPH_DATA): every size was generated',
    );
  return { suite: 'eigencfa', adapter: gpu ? String(gpu) : 'none (CPU engine only)', rows, notes };
}

/**
 * The `eigencfa` benchmark suite.
 *
 * @example
 * ```ts
 * const report = await eigencfaBench.run({ ctx, engines: ['webgpu', 'cpu'], quick: false, log: console.error });
 * ```
 */
export const eigencfaBench: BenchSuite = {
  name: 'eigencfa',
  description:
    "EigenCFA 0CFA on the Van Horn–Mairson programs (Table 1 sizes and n = 4096, 8192), WebGPU beside CPU and the paper's GPU(Sp)/CPU(Sp)",
  run,
};
