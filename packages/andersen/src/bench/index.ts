/**
 * `gpumorph bench andersen`: the CPU engine on the PPoPP'12 suite (ex, gcc, perl, python, php,
 * linux from `../shared/data/andersen/hardekopf`, or `$GPUMORPH_DATA/andersen/hardekopf`) beside the
 * paper's CPU-s column (Figure 11: offline + solve ms, 2012, a 2.7 GHz Opteron).
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from '@gpumorph/gpu-allocator/bench';
import { readHardekopf } from '../io/read';
import { applyOfflineMerges, computeOfflineHcd } from '../offline/hcd';
import { appendOfflineMerges } from '../offline/hcd-pairs';
import { computeHvn } from '../offline/hvn';
import { solveAndersen } from '../solve';
import { HARDEKOPF_REFERENCE_CONVENTIONS, verifySolution } from '../verify';

/** The paper's CPU-s column (offline ms, solve ms), Figure 11 of seeds/andersen-gpu-ppopp12. */
export const PAPER_CPU_S: Readonly<Record<string, { offlineMs: number; solveMs: number } | undefined>> = {
  gcc: { offlineMs: 340, solveMs: 1_000 },
  perl: { offlineMs: 160, solveMs: 1_990 },
  python: { offlineMs: 220, solveMs: 17_890 },
  php: { offlineMs: 620, solveMs: 44_670 },
  linux: { offlineMs: 1_210, solveMs: 120_340 },
};

const BENCHMARKS = ['ex', 'gcc', 'perl', 'python', 'php', 'linux'] as const;

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
    'median ms = wall clock of the solve alone (median of 3 runs for ex, gcc and perl, 1 run for the others; --quick: ex only), on the _after_hcd constraints with the shipped HCD table, which the reference solution is for',
    "offline ms = our offline HCD pass (computeOfflineHcd + applyOfflineMerges) on the raw constraints, like the paper's offline column, plus HVN on the solved program; read ms = reading and parsing the _after_hcd files; paper total / ours = (paper offline + solve) / (our offline + solve)",
    'peak RSS = the largest resident set size of this process seen during that solve (sampled each round): an upper bound that includes everything loaded before',
  ];
  const dir = hardekopfDataDirectory();
  if (!options.engines.includes('cpu')) {
    notes.push('the WebGPU Andersen engine is not built yet; run with --engine cpu');
    return { suite: 'andersen', adapter: 'none (CPU engine only)', rows, notes };
  }
  if (dir === undefined) {
    notes.push(
      "no benchmark data: put the PPoPP'12 files in ../shared/data/andersen/hardekopf or set GPUMORPH_DATA",
    );
    return { suite: 'andersen', adapter: 'none (CPU engine only)', rows, notes };
  }
  // GPUMORPH_ANDERSEN_BENCHMARKS=gcc,perl runs a subset (e.g. to fit a time limit).
  const only = process.env.GPUMORPH_ANDERSEN_BENCHMARKS?.split(',').map((name) => name.trim());
  const chosen = options.quick
    ? BENCHMARKS.slice(0, 1)
    : BENCHMARKS.filter((name) => only === undefined || only.includes(name));
  for (const bench of chosen) {
    const readStart = performance.now();
    const input = await readHardekopf({ prefix: resolve(dir, bench) }, { nonObjectAddress: 'make-object' });
    const readMs = performance.now() - readStart;
    // The paper's offline column is its HCD pass over the raw constraints: time ours on the same.
    const raw = await readHardekopf(
      { prefix: resolve(dir, bench) },
      { constraints: 'raw', nonObjectAddress: 'make-object' },
    );
    const offlineStart = performance.now();
    const ours = computeOfflineHcd(raw.program);
    applyOfflineMerges(raw.program, ours.offlineMerges);
    const hcdMs = performance.now() - offlineStart;
    // HVN (exact: pointer-equivalent variables only) on the program that is solved below.
    const hvnStart = performance.now();
    const hvn = computeHvn(input.program);
    const hvnMs = performance.now() - hvnStart;
    const hcd = appendOfflineMerges(input.hcd, hvn.merges);
    const offlineMs = hcdMs + hvnMs;
    const runs = options.quick || bench === 'php' || bench === 'linux' || bench === 'python' ? 1 : 3;
    const times: number[] = [];
    let peakRss = 0;
    let verified: boolean | undefined;
    let rounds = 0;
    let edges = 0;
    for (let r = 0; r < runs; r++) {
      const result = await solveAndersen(input.program, {
        engine: 'cpu',
        hcd,
        onIteration: () => {
          peakRss = Math.max(peakRss, process.memoryUsage.rss());
        },
      });
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      times.push(result.statistics.solveMs);
      rounds = result.statistics.rounds;
      if (r === 0) {
        edges = result.pointsToEdges;
        if (input.solution) {
          const report = verifySolution(result, input.solution, { ignore: HARDEKOPF_REFERENCE_CONVENTIONS });
          verified = report.exact;
          if (!report.exact)
            options.log(`andersen: ${bench}: ${report.differing} variables differ from the reference`);
        }
      }
      options.log(`andersen: ${bench} run ${r + 1}/${runs}: ${result.statistics.solveMs.toFixed(0)} ms`);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    const paper = PAPER_CPU_S[bench];
    const metrics: Record<string, number> = {
      'offline ms': offlineMs,
      'HVN merged': hvn.statistics.mergedVariables,
      'read ms': readMs,
      'peak RSS MiB': peakRss / 2 ** 20,
      rounds,
      'pts edges M': edges / 1e6,
    };
    if (verified !== undefined) metrics['verified (1=exact)'] = verified ? 1 : 0;
    if (paper) {
      metrics['paper offline ms'] = paper.offlineMs;
      metrics['paper solve ms'] = paper.solveMs;
      metrics['paper total / ours'] = (paper.offlineMs + paper.solveMs) / (offlineMs + median);
    }
    rows.push({
      case: bench,
      size: `${input.program.nodeCount} nodes, ${input.program.constraints.length} constraints`,
      engine: 'cpu',
      medianMs: median,
      runs,
      method: 'cpu',
      metrics,
    });
  }
  return { suite: 'andersen', adapter: 'none (CPU engine only)', rows, notes };
}

/**
 * The `andersen` benchmark suite.
 *
 * @example
 * ```ts
 * const report = await andersenBench.run({ ctx: null, engines: ['cpu'], quick: false, log: console.error });
 * ```
 */
export const andersenBench: BenchSuite = {
  name: 'andersen',
  description: "Andersen points-to analysis on the PPoPP'12 suite, CPU engine beside the paper's CPU-s",
  run,
};
export { llvmBench, REAL_C_CODE_BASES, realCIrDirectory } from './llvm';
