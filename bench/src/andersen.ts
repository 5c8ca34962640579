/**
 * `gpumorph bench andersen`: the CPU and WebGPU engines on the PPoPP'12 suite (ex, gcc, perl,
 * python, php, linux from `../shared/data/andersen/hardekopf`, or `$GPUMORPH_DATA/andersen/hardekopf`)
 * beside the paper's CPU-s column (Figure 11: offline + solve ms, 2012, a 2.7 GHz Opteron), its GPU
 * online times (a Tesla C2070) and the paper's CUDA code ported to CUDA 13 on an H100. Every row
 * shows the pipeline: reading, the offline passes and the solve, and their end-to-end sum.
 * With `GPUMORPH_ANDERSEN_PROCESSES=n` the suite runs in n separate processes and reports the
 * spread of their medians ({@link runInProcesses}).
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AndersenResult, ReaderThreads } from '@gpumorph/andersen';
import { createReaderThreads, HARDEKOPF_REFERENCE_CONVENTIONS, verifySolution } from '@gpumorph/andersen';
import { cpuRow } from './andersen-cpu';
import { type GpuRow, gpuRow } from './andersen-gpu';
import { runInProcesses } from './andersen-processes';
import { type PreparedProgram, prepareProgram } from './andersen-stages';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';

export { PAPER_CPU_S } from './andersen-cpu';
export { PAPER_CUDA_H100_MS, PAPER_GPU_MS } from './andersen-gpu';

const BENCHMARKS = ['ex', 'gcc', 'perl', 'python', 'php', 'linux'] as const;

/** Nodes whose points-to sets differ between two results (every node compared). */
function countDifferences(a: AndersenResult, b: AndersenResult): number {
  let differing = 0;
  for (let v = 0; v < a.nodeCount; v++) {
    const x = a.pointsTo(v);
    const y = b.pointsTo(v);
    if (x.length !== y.length || x.some((m, i) => m !== y[i])) differing++;
  }
  return differing;
}

function listFromEnv(name: string): string[] | undefined {
  return process.env[name]
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Where the suite's files are, or undefined when they are not on this machine. */
export function hardekopfDataDirectory(): string | undefined {
  const candidates = [
    process.env.GPUMORPH_DATA ? resolve(process.env.GPUMORPH_DATA, 'andersen/hardekopf') : undefined,
    resolve('../shared/data/andersen/hardekopf'),
    resolve('shared/data/andersen/hardekopf'),
  ];
  return candidates.find((dir) => dir !== undefined && existsSync(resolve(dir, 'ex_nodes.txt.gz')));
}

const NOTES = [
  'CPU engine: wave propagation with difference propagation, cycle collapse, the shipped HCD table and HVN merges, on the _after_hcd constraints; every run with a reference solution is verified (node 1 per the Hardekopf convention, see the package README)',
  'WebGPU engine: the same program and HCD table (offline merges applied on the host, online pairs on the GPU); median ms = wall clock of solveAndersen (upload, all iterations, readback of the points-to pool, building the result) after untimed warm-up solves until the GPU runs at its working clock (at least two solves and two seconds, then until the last three agree within 5%; at most 20 s; see docs/decisions/gpu-clock-warm-up.md), median of 5 runs (3 on php and linux), the WebGPU runs of a benchmark before its CPU runs (so that the CPU sets of php and linux, kept for the comparison, are not alive during them); "= cpu" counts nodes whose set differs from the CPU engine\'s in the same run (0 = identical)',
  'median ms = solve ms = wall clock of the solve alone (CPU: median of 3 runs for ex, gcc and perl, 1 run for the others; --quick: ex only), on the _after_hcd constraints with the shipped HCD table, which the reference solution is for',
  "the pipeline: read ms = reading the nodes, _after_hcd constraints and HCD table on 4 reader threads started once for the suite (median of 3; the reference solution is read apart, untimed), read ms (no threads) = the same on the calling thread; HVN ms = HVN on the read program (median of 3); end-to-end ms = read + HVN + solve, from the files to the result; HCD ms (raw) = our offline HCD pass (computeOfflineHcd + applyOfflineMerges) on the raw constraints, like the paper's offline column, shown beside (the _after_hcd files have its merges applied); offline ms (CPU rows) = HCD (raw) + HVN; paper total / ours = (paper offline + solve) / (our HCD + HVN + solve)",
  "anchors: paper GPU ms = the PPoPP'12 GPU online time on a Tesla C2070; CUDA H100 ms = the paper's CUDA code ported to CUDA 13 on the same H100 (graph creation + rule solving)",
  'peak RSS = the largest resident set size of this process seen during that solve (sampled each round): an upper bound that includes everything loaded before',
  'GPUMORPH_ANDERSEN_BENCHMARKS=a,b picks benchmarks; GPUMORPH_ANDERSEN_CPU_BENCHMARKS=a,b restricts the CPU rows (the CPU takes minutes on php and linux); GPUMORPH_ANDERSEN_GPU_RUNS sets the timed WebGPU runs (default 5, 3 on php and linux); GPUMORPH_ANDERSEN_PROCESSES=n runs the suite in n processes and reports the spread (GPUMORPH_ANDERSEN_IDLE_S: the idle pause, default 10 s)',
];

/** A positive whole number from the environment variable `name`, or `fallback`. */
function countFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

async function run(options: BenchOptions): Promise<BenchReport> {
  const useGpu = options.engines.includes('webgpu') && options.ctx !== null;
  const adapter = useGpu ? String(options.ctx) : 'none (CPU engine only)';
  const processes = countFromEnv('GPUMORPH_ANDERSEN_PROCESSES', 1);
  if (processes > 1) {
    return runInProcesses(processes, countFromEnv('GPUMORPH_ANDERSEN_IDLE_S', 10), options, adapter);
  }
  const rows: BenchRow[] = [];
  const notes = [...NOTES];
  if (options.engines.includes('webgpu') && options.ctx === null) {
    notes.push('no WebGPU adapter: WebGPU rows skipped');
  }
  const dir = hardekopfDataDirectory();
  if (dir === undefined) {
    notes.push(
      "no benchmark data: put the PPoPP'12 files in ../shared/data/andersen/hardekopf or set GPUMORPH_DATA",
    );
    return { suite: 'andersen', adapter, rows, notes };
  }
  const only = listFromEnv('GPUMORPH_ANDERSEN_BENCHMARKS');
  const chosen = options.quick
    ? BENCHMARKS.slice(0, 1)
    : BENCHMARKS.filter((name) => only === undefined || only.includes(name));
  // Started once for the suite (a few ms each), as a CLI reading many programs would.
  const threads = createReaderThreads({ threads: 4 });
  try {
    for (const name of chosen) rows.push(...(await programRows(dir, name, threads, options)));
  } finally {
    threads?.destroy();
  }
  return { suite: 'andersen', adapter, rows, notes };
}

/** The rows of one program: its WebGPU row (first), then its CPU row, compared with each other. */
async function programRows(
  dir: string,
  name: string,
  threads: ReaderThreads | undefined,
  options: BenchOptions,
): Promise<BenchRow[]> {
  const prepared = await prepareProgram(dir, name, threads);
  const verify = verifierOf(name, prepared, options);
  // The WebGPU engine runs first, so that the CPU engine's result of a large benchmark
  // (gigabytes of sets, kept for the comparison) is not alive during its solves: with the CPU
  // runs first, linux's setup took 95–154 ms against 57–65 ms in runs without such a heap.
  let gpu: GpuRow | undefined;
  if (options.engines.includes('webgpu') && options.ctx) {
    gpu = await gpuRow(name, prepared, options.ctx, options, verify);
  }
  const rows: BenchRow[] = [];
  const cpuOnly = listFromEnv('GPUMORPH_ANDERSEN_CPU_BENCHMARKS');
  let cpu: { result: AndersenResult; row: BenchRow } | undefined;
  if (options.engines.includes('cpu') && (cpuOnly === undefined || cpuOnly.includes(name))) {
    cpu = await cpuRow(name, prepared, options, verify);
    rows.push(cpu.row);
  }
  if (gpu) {
    if (cpu) {
      gpu.metrics['nodes differing from cpu'] = countDifferences(gpu.result, cpu.result);
      gpu.metrics['cpu / webgpu'] = cpu.row.medianMs / gpu.row.medianMs;
    }
    options.log(
      `andersen: ${name} webgpu against cpu: ${gpu.metrics['nodes differing from cpu'] ?? 'n/a'} nodes differ`,
    );
    rows.push(gpu.row);
  }
  return rows;
}

/** Checks a result against the program's reference solution, when it has one. */
function verifierOf(
  name: string,
  prepared: PreparedProgram,
  options: BenchOptions,
): (result: AndersenResult) => boolean | undefined {
  return (result) => {
    if (!prepared.solution) return undefined;
    const report = verifySolution(result, prepared.solution, { ignore: HARDEKOPF_REFERENCE_CONVENTIONS });
    if (!report.exact)
      options.log(`andersen: ${name}: ${report.differing} variables differ from the reference`);
    return report.exact;
  };
}

/**
 * The `andersen` benchmark suite.
 *
 * @example
 * ```ts
 * const report = await andersenBench.run({ ctx, engines: ['webgpu', 'cpu'], quick: false, log: console.error });
 * ```
 */
export const andersenBench: BenchSuite = {
  name: 'andersen',
  description:
    "Andersen points-to analysis on the PPoPP'12 suite, CPU and WebGPU engines beside the paper's CPU-s, its GPU times and its CUDA code on an H100",
  run,
};
