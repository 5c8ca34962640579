/**
 * `gpumorph bench andersen`: the CPU and WebGPU engines on the PPoPP'12 suite (ex, gcc, perl,
 * python, php, linux from `../shared/data/andersen/hardekopf`, or `$GPUMORPH_DATA/andersen/hardekopf`)
 * beside the paper's CPU-s column (Figure 11: offline + solve ms, 2012, a 2.7 GHz Opteron), its GPU
 * online times (a Tesla C2070) and the paper's CUDA code ported to CUDA 13 on an H100.
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AndersenResult, ConstraintProgram, HcdPairs, SolveAndersenOptions } from '@gpumorph/andersen';
import {
  appendOfflineMerges,
  applyOfflineMerges,
  computeHvn,
  computeOfflineHcd,
  createGpuSolver,
  HARDEKOPF_REFERENCE_CONVENTIONS,
  readHardekopf,
  solveAndersen,
  verifySolution,
} from '@gpumorph/andersen';
import { settleGarbage } from './gc';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';

/** The paper's CPU-s column (offline ms, solve ms), Figure 11 of seeds/andersen-gpu-ppopp12. */
export const PAPER_CPU_S: Readonly<Record<string, { offlineMs: number; solveMs: number } | undefined>> = {
  gcc: { offlineMs: 340, solveMs: 1_000 },
  perl: { offlineMs: 160, solveMs: 1_990 },
  python: { offlineMs: 220, solveMs: 17_890 },
  php: { offlineMs: 620, solveMs: 44_670 },
  linux: { offlineMs: 1_210, solveMs: 120_340 },
};

/** The paper's GPU online solve times (ms, Figure 11, a Tesla C2070). */
export const PAPER_GPU_MS: Readonly<Record<string, number | undefined>> = {
  ex: 80,
  gcc: 280,
  perl: 320,
  python: 1_230,
  php: 6_830,
  linux: 11_580,
};

/** The paper's own CUDA code ported to CUDA 13, on the same H100 (graph creation + rule solving, ms). */
export const PAPER_CUDA_H100_MS: Readonly<Record<string, number | undefined>> = {
  ex: 68,
  perl: 99,
  gcc: 142,
  python: 245,
  php: 900,
  linux: 1_600,
};

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

/** Untimed WebGPU solves before the timed ones: at least this many… */
const GPU_WARMUPS = 2;
/**
 * …and until they have taken this long together (at most {@link GPU_MAX_WARMUPS}): after the CPU
 * engine's runs, the H100 machine's first solves of a benchmark ran slower one after another
 * (perl: 117, 102, 92, 78 and 69 ms in the five timed runs after two warm-ups), so short solves
 * are warmed for a second, as long solves already are by their two.
 */
const GPU_WARMUP_MS = 1000;
const GPU_MAX_WARMUPS = 20;

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

async function run(options: BenchOptions): Promise<BenchReport> {
  const rows: BenchRow[] = [];
  const notes: string[] = [
    'CPU engine: wave propagation with difference propagation, cycle collapse, the shipped HCD table and HVN merges, on the _after_hcd constraints; every run with a reference solution is verified (node 1 per the Hardekopf convention, see the package README)',
    'WebGPU engine: the same program and HCD table (offline merges applied on the host, online pairs on the GPU); median ms = wall clock of solveAndersen (upload, all iterations, readback of the points-to pool, building the result) after untimed warm-up solves (at least two, the first of which compiles the kernels, and at least a second of them; at most 20), median of 5 runs (3 on php and linux), the WebGPU runs of a benchmark before its CPU runs (so that the CPU sets of php and linux, kept for the comparison, are not alive during them); "= cpu" counts nodes whose set differs from the CPU engine\'s in the same run (0 = identical)',
    'median ms = wall clock of the solve alone (CPU: median of 3 runs for ex, gcc and perl, 1 run for the others; --quick: ex only), on the _after_hcd constraints with the shipped HCD table, which the reference solution is for',
    "offline ms = our offline HCD pass (computeOfflineHcd + applyOfflineMerges) on the raw constraints, like the paper's offline column, plus HVN on the solved program; read ms = reading and parsing the _after_hcd files; paper total / ours = (paper offline + solve) / (our offline + solve)",
    "anchors: paper GPU ms = the PPoPP'12 GPU online time on a Tesla C2070; CUDA H100 ms = the paper's CUDA code ported to CUDA 13 on the same H100 (graph creation + rule solving)",
    'peak RSS = the largest resident set size of this process seen during that solve (sampled each round): an upper bound that includes everything loaded before',
    'GPUMORPH_ANDERSEN_BENCHMARKS=a,b picks benchmarks; GPUMORPH_ANDERSEN_CPU_BENCHMARKS=a,b restricts the CPU rows (the CPU takes minutes on php and linux); GPUMORPH_ANDERSEN_GPU_RUNS sets the timed WebGPU runs (default 5, 3 on php and linux)',
  ];
  const dir = hardekopfDataDirectory();
  const useGpu = options.engines.includes('webgpu') && options.ctx !== null;
  const useCpu = options.engines.includes('cpu');
  const adapter = useGpu ? String(options.ctx) : 'none (CPU engine only)';
  if (options.engines.includes('webgpu') && options.ctx === null) {
    notes.push('no WebGPU adapter: WebGPU rows skipped');
  }
  if (dir === undefined) {
    notes.push(
      "no benchmark data: put the PPoPP'12 files in ../shared/data/andersen/hardekopf or set GPUMORPH_DATA",
    );
    return { suite: 'andersen', adapter, rows, notes };
  }
  const only = listFromEnv('GPUMORPH_ANDERSEN_BENCHMARKS');
  const cpuOnly = listFromEnv('GPUMORPH_ANDERSEN_CPU_BENCHMARKS');
  const gpuRunsSet = process.env.GPUMORPH_ANDERSEN_GPU_RUNS;
  const chosen = options.quick
    ? BENCHMARKS.slice(0, 1)
    : BENCHMARKS.filter((name) => only === undefined || only.includes(name));
  for (const bench of chosen) {
    const readStart = performance.now();
    const input = await readHardekopf({ prefix: resolve(dir, bench) }, { nonObjectAddress: 'make-object' });
    const readMs = performance.now() - readStart;
    // The paper's offline column is its HCD pass over the raw constraints: time ours on the same
    // (skipped, and reported as 0, when the raw constraints are not there, e.g. on the GPU machine).
    let hcdMs = 0;
    if (
      existsSync(resolve(dir, `${bench}_constraints.txt.gz`)) ||
      existsSync(resolve(dir, `${bench}_constraints.txt`))
    ) {
      const raw = await readHardekopf(
        { prefix: resolve(dir, bench) },
        { constraints: 'raw', nonObjectAddress: 'make-object' },
      );
      const offlineStart = performance.now();
      const ours = computeOfflineHcd(raw.program);
      applyOfflineMerges(raw.program, ours.offlineMerges);
      hcdMs = performance.now() - offlineStart;
    }
    // HVN (exact: pointer-equivalent variables only) on the program that is solved below.
    const hvnStart = performance.now();
    const hvn = computeHvn(input.program);
    const hvnMs = performance.now() - hvnStart;
    const hcd = appendOfflineMerges(input.hcd, hvn.merges);
    const offlineMs = hcdMs + hvnMs;
    const size = `${input.program.nodeCount} nodes, ${input.program.constraints.length} constraints`;
    const verify = (result: AndersenResult): boolean | undefined => {
      if (!input.solution) return undefined;
      const report = verifySolution(result, input.solution, { ignore: HARDEKOPF_REFERENCE_CONVENTIONS });
      if (!report.exact)
        options.log(`andersen: ${bench}: ${report.differing} variables differ from the reference`);
      return report.exact;
    };
    // The WebGPU engine runs first, so that the CPU engine's result of a large benchmark
    // (gigabytes of sets, kept for the comparison) is not alive during its solves: with the CPU
    // runs first, linux's setup read 95–154 ms in two benches against 57–65 in A/B runs without
    // such a heap (the first bench in this order, on a slower host, read 108).
    let gpu: { result: AndersenResult; metrics: Record<string, number>; row: BenchRow } | undefined;
    if (useGpu && options.ctx) {
      const ctx = options.ctx;
      // A repeated solve's setting: each solve starts in the buffers the one before left on the
      // context, and reads large sets into memory that worker threads touched first.
      const gpuSolve = {
        engine: 'webgpu',
        gpu: ctx,
        hcd,
        keepBuffers: true,
        touchReadback: true,
      } satisfies SolveAndersenOptions;
      // Five timed runs where a solve takes well under a second, three on php and linux.
      const gpuRuns = Math.max(1, Number(gpuRunsSet ?? (bench === 'php' || bench === 'linux' ? 3 : 5)) || 3);
      // Warm-ups: the first compiles the kernels for this pool geometry; on the H100 the first
      // solve after it still ran about twice as long as the rest on ex (139 ms against 55–74 ms
      // in nine runs), so a second one runs untimed too.
      const warmupStarted = performance.now();
      for (
        let w = 0;
        w < GPU_WARMUPS || (w < GPU_MAX_WARMUPS && performance.now() - warmupStarted < GPU_WARMUP_MS);
        w++
      ) {
        await solveAndersen(input.program, gpuSolve);
      }
      const times: number[] = [];
      let last: Awaited<ReturnType<typeof solveAndersen>> | undefined;
      for (let r = 0; r < gpuRuns; r++) {
        last = undefined;
        // The last solve's native objects are released by callbacks the collection schedules:
        // run them before the timer starts, not inside this solve's setup.
        await settleGarbage();
        const started = performance.now();
        last = await solveAndersen(input.program, gpuSolve);
        times.push(performance.now() - started);
        options.log(
          `andersen: ${bench} webgpu run ${r + 1}/${gpuRuns}: ${(times.at(-1) ?? 0).toFixed(1)} ms`,
        );
      }
      // One more, profiled (a pass and a timestamp pair per kernel): the share of each phase.
      const profiled = await createGpuSolver(input.program, {
        gpu: ctx,
        hcd,
        profile: true,
        keepBuffers: true,
        touchReadback: true,
      });
      await profiled.solve();
      const phases = profiled.report?.phaseMs;
      const kernels = profiled.report?.kernelMs;
      profiled.destroy();
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)] as number;
      const result = last as NonNullable<typeof last>;
      const report = result.gpu;
      const metrics: Record<string, number> = {
        rounds: result.statistics.rounds,
        'pts edges M': result.pointsToEdges / 1e6,
        'GPU MiB': (report?.gpuBytes ?? 0) / 2 ** 20,
        'pts pool MiB': ((report?.pointsPool.capacity ?? 0) * 128) / 2 ** 20,
        'edge pool MiB': ((report?.edgePool.capacity ?? 0) * 128) / 2 ** 20,
        reruns: report?.reruns ?? 0,
        'setup ms': report?.setupMs ?? 0,
        'iterate ms': report?.iterateMs ?? 0,
        'transfer ms': report?.transferMs ?? 0,
        'of which read ms': report?.transferReadMs ?? 0,
        'readback MiB': (report?.readbackBytes ?? 0) / 2 ** 20,
        'live pts MiB': (result.statistics.pointsToElements * 128) / 2 ** 20,
        'extra pull chunks': report?.pullSplit.extraChunks ?? 0,
        'most pull chunks': report?.pullSplit.maxChunks ?? 0,
        'equal-ΔP pulls skipped': report?.pullSplit.skippedEqualDeltas ?? 0,
        'rules shared': report?.sharedRules ?? 0,
      };
      if (phases) {
        const total =
          phases.rules +
          phases.equivalence +
          phases.sort +
          phases.worklist +
          phases.update +
          phases.hcd +
          phases.transfer;
        metrics['GPU ms (profiled)'] = total;
        metrics['rules %'] = (100 * phases.rules) / Math.max(total, 1e-9);
        metrics['equivalence %'] = (100 * phases.equivalence) / Math.max(total, 1e-9);
        metrics['sort %'] = (100 * phases.sort) / Math.max(total, 1e-9);
        metrics['worklist %'] = (100 * phases.worklist) / Math.max(total, 1e-9);
        metrics['update %'] = (100 * phases.update) / Math.max(total, 1e-9);
        metrics['hcd %'] = (100 * phases.hcd) / Math.max(total, 1e-9);
        metrics['transfer %'] = (100 * phases.transfer) / Math.max(total, 1e-9);
      }
      const verified = verify(result);
      if (verified !== undefined) metrics['verified (1=exact)'] = verified ? 1 : 0;
      const paperGpu = PAPER_GPU_MS[bench];
      if (paperGpu !== undefined) {
        metrics['paper GPU ms'] = paperGpu;
        metrics['paper GPU / ours'] = paperGpu / median;
      }
      const cuda = PAPER_CUDA_H100_MS[bench];
      if (cuda !== undefined) {
        metrics['CUDA H100 ms'] = cuda;
        metrics['CUDA H100 / ours'] = cuda / median;
      }
      options.log(
        `andersen: ${bench} webgpu: median ${median.toFixed(1)} ms, ${result.statistics.rounds} rounds, ` +
          `verified ${String(verified)}, ` +
          `phases ${JSON.stringify(phases ?? {})}, kernels ${JSON.stringify(kernels ?? {})}, report ${JSON.stringify(report ?? {})}`,
      );
      gpu = {
        result,
        metrics,
        row: {
          case: bench,
          size,
          engine: 'webgpu',
          medianMs: median,
          runs: gpuRuns,
          method: 'wall-clock',
          metrics,
        },
      };
    }
    let cpuResult: AndersenResult | undefined;
    let cpuMedian: number | undefined;
    if (useCpu && (cpuOnly === undefined || cpuOnly.includes(bench))) {
      const row = await cpuRow(bench, input.program, hcd, options, verify);
      cpuResult = row.result;
      cpuMedian = row.medianMs;
      const paper = PAPER_CPU_S[bench];
      const metrics: Record<string, number> = {
        'offline ms': offlineMs,
        'HVN merged': hvn.statistics.mergedVariables,
        'read ms': readMs,
        ...row.metrics,
      };
      if (paper) {
        metrics['paper offline ms'] = paper.offlineMs;
        metrics['paper solve ms'] = paper.solveMs;
        metrics['paper total / ours'] = (paper.offlineMs + paper.solveMs) / (offlineMs + row.medianMs);
      }
      rows.push({
        case: bench,
        size,
        engine: 'cpu',
        medianMs: row.medianMs,
        runs: row.runs,
        method: 'cpu',
        metrics,
      });
    }
    if (gpu) {
      const { metrics } = gpu;
      if (cpuResult) {
        metrics['nodes differing from cpu'] = countDifferences(gpu.result, cpuResult);
        if (cpuMedian !== undefined) metrics['cpu / webgpu'] = cpuMedian / gpu.row.medianMs;
      }
      options.log(
        `andersen: ${bench} webgpu against cpu: ${metrics['nodes differing from cpu'] ?? 'n/a'} nodes differ`,
      );
      rows.push(gpu.row);
    }
  }
  return { suite: 'andersen', adapter, rows, notes };
}

async function cpuRow(
  bench: string,
  program: ConstraintProgram,
  hcd: HcdPairs,
  options: BenchOptions,
  verify: (result: AndersenResult) => boolean | undefined,
): Promise<{ result: AndersenResult; medianMs: number; runs: number; metrics: Record<string, number> }> {
  const runs = options.quick || bench === 'php' || bench === 'linux' || bench === 'python' ? 1 : 3;
  const times: number[] = [];
  let peakRss = 0;
  let verified: boolean | undefined;
  let first: AndersenResult | undefined;
  for (let r = 0; r < runs; r++) {
    await settleGarbage();
    const result = await solveAndersen(program, {
      engine: 'cpu',
      hcd,
      onIteration: () => {
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
      },
    });
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    times.push(result.statistics.solveMs);
    if (r === 0) {
      first = result;
      verified = verify(result);
    }
    options.log(`andersen: ${bench} run ${r + 1}/${runs}: ${result.statistics.solveMs.toFixed(0)} ms`);
  }
  times.sort((a, b) => a - b);
  const result = first as AndersenResult;
  const metrics: Record<string, number> = {
    'peak RSS MiB': peakRss / 2 ** 20,
    rounds: result.statistics.rounds,
    'pts edges M': result.pointsToEdges / 1e6,
  };
  if (verified !== undefined) metrics['verified (1=exact)'] = verified ? 1 : 0;
  return { result, medianMs: times[Math.floor(times.length / 2)] as number, runs, metrics };
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
