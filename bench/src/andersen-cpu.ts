/**
 * The CPU row of the Andersen suite: the CPU engine's solves, their peak resident memory, the
 * check against the reference, the pipeline's columns and the paper's CPU-s figures.
 * @module
 */
import type { AndersenResult } from '@gpumorph/andersen';
import { solveAndersen } from '@gpumorph/andersen';
import { type PreparedProgram, pipelineMetrics } from './andersen-stages';
import { settleGarbage } from './gc';
import type { BenchOptions, BenchRow } from './types';

/** The paper's CPU-s column (offline ms, solve ms), Figure 11 of seeds/andersen-gpu-ppopp12. */
export const PAPER_CPU_S: Readonly<Record<string, { offlineMs: number; solveMs: number } | undefined>> = {
  gcc: { offlineMs: 340, solveMs: 1_000 },
  perl: { offlineMs: 160, solveMs: 1_990 },
  python: { offlineMs: 220, solveMs: 17_890 },
  php: { offlineMs: 620, solveMs: 44_670 },
  linux: { offlineMs: 1_210, solveMs: 120_340 },
};

/**
 * The CPU row of program `name` (median of 3 solves for ex, gcc and perl, 1 for the others or
 * with `quick`), with the result of its first solve.
 *
 * @example
 * ```ts
 * const { row, result } = await cpuRow('perl', prepared, options, verify);
 * ```
 */
export async function cpuRow(
  name: string,
  prepared: PreparedProgram,
  options: BenchOptions,
  verify: (result: AndersenResult) => boolean | undefined,
): Promise<{ result: AndersenResult; row: BenchRow }> {
  const runs = options.quick || name === 'php' || name === 'linux' || name === 'python' ? 1 : 3;
  const times: number[] = [];
  let peakRss = 0;
  let verified: boolean | undefined;
  let first: AndersenResult | undefined;
  for (let r = 0; r < runs; r++) {
    await settleGarbage();
    const result = await solveAndersen(prepared.input.program, {
      engine: 'cpu',
      hcd: prepared.hcd,
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
    options.log(`andersen: ${name} run ${r + 1}/${runs}: ${result.statistics.solveMs.toFixed(0)} ms`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const result = first as AndersenResult;
  const offlineMs = (prepared.hcdMs ?? 0) + prepared.hvnMs;
  const metrics: Record<string, number> = {
    ...pipelineMetrics(prepared, median),
    // Both offline passes, as the paper's offline column (read by the docs' report page).
    'offline ms': offlineMs,
    'HVN merged': prepared.hvnMerged,
    'peak RSS MiB': peakRss / 2 ** 20,
    rounds: result.statistics.rounds,
    'pts edges M': result.pointsToEdges / 1e6,
  };
  if (verified !== undefined) metrics['verified (1=exact)'] = verified ? 1 : 0;
  const paper = PAPER_CPU_S[name];
  if (paper) {
    metrics['paper offline ms'] = paper.offlineMs;
    metrics['paper solve ms'] = paper.solveMs;
    metrics['paper total / ours'] = (paper.offlineMs + paper.solveMs) / (offlineMs + median);
  }
  const { program } = prepared.input;
  return {
    result,
    row: {
      case: name,
      size: `${program.nodeCount} nodes, ${program.constraints.length} constraints`,
      engine: 'cpu',
      medianMs: median,
      runs,
      method: 'cpu',
      metrics,
    },
  };
}
