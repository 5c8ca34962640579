/**
 * The WebGPU row of the Andersen suite: untimed warm-up solves, the timed solves, one profiled
 * solve for the share of each phase, and the row's metrics.
 * @module
 */
import type { AndersenResult, SolveAndersenOptions } from '@gpumorph/andersen';
import { createGpuSolver, solveAndersen } from '@gpumorph/andersen';
import type { GpuContext } from '@gpumorph/gpu-allocator';
import { type PreparedProgram, pipelineMetrics } from './andersen-stages';
import { settleGarbage } from './gc';
import type { BenchOptions, BenchRow } from './types';
import { type WarmUpReport, warmUntilSteady } from './warm-up';

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

/** What `solveAndersen` gives with the WebGPU engine: a result with the engine's report. */
type GpuResult = Awaited<ReturnType<typeof solveAndersen>>;

/** A WebGPU row, with the result of its last timed solve (for the comparison with the CPU's). */
export interface GpuRow {
  readonly result: AndersenResult;
  readonly metrics: Record<string, number>;
  readonly row: BenchRow;
}

/** Timed WebGPU solves of `name` (5 where a solve takes well under a second, 3 on php and linux). */
function timedRuns(name: string): number {
  const set = process.env.GPUMORPH_ANDERSEN_GPU_RUNS;
  return Math.max(1, Number(set ?? (name === 'php' || name === 'linux' ? 3 : 5)) || 3);
}

/** The warm-up solves, then the timed ones: their times and the last result. */
async function solveTimed(
  name: string,
  prepared: PreparedProgram,
  solve: SolveAndersenOptions,
  runs: number,
  options: BenchOptions,
): Promise<{ times: number[]; result: GpuResult; warm: WarmUpReport }> {
  // Untimed solves until the GPU runs at its working clock (bench/src/warm-up.ts); the first also
  // compiles the kernels for this pool geometry.
  const warm = await warmUntilSteady(async () => {
    await settleGarbage();
    const started = performance.now();
    await solveAndersen(prepared.input.program, solve);
    return performance.now() - started;
  });
  if (!warm.steady) {
    options.log(
      `andersen: ${name} webgpu warm-up not steady after ${warm.runs} solves: ${warm.lastRunsMs.map((ms) => ms.toFixed(1)).join(', ')} ms`,
    );
  }
  const times: number[] = [];
  let last: GpuResult | undefined;
  for (let r = 0; r < runs; r++) {
    last = undefined;
    // The last solve's native objects are released by callbacks the collection schedules:
    // run them before the timer starts, not inside this solve's setup.
    await settleGarbage();
    const started = performance.now();
    last = await solveAndersen(prepared.input.program, solve);
    times.push(performance.now() - started);
    options.log(`andersen: ${name} webgpu run ${r + 1}/${runs}: ${(times.at(-1) ?? 0).toFixed(1)} ms`);
  }
  return { times, result: last as GpuResult, warm };
}

/** One more solve, profiled (a pass and a timestamp pair per kernel): the share of each phase. */
async function profiledShares(
  prepared: PreparedProgram,
  ctx: GpuContext,
): Promise<{ metrics: Record<string, number>; log: string }> {
  const profiled = await createGpuSolver(prepared.input.program, {
    gpu: ctx,
    hcd: prepared.hcd,
    profile: true,
    keepBuffers: true,
    touchReadback: true,
  });
  await profiled.solve();
  const phases = profiled.report?.phaseMs;
  const kernels = profiled.report?.kernelMs;
  profiled.destroy();
  const metrics: Record<string, number> = {};
  if (phases) {
    const parts = ['rules', 'equivalence', 'sort', 'worklist', 'update', 'hcd', 'transfer'] as const;
    const total = parts.reduce((sum, part) => sum + phases[part], 0);
    metrics['GPU ms (profiled)'] = total;
    for (const part of parts) metrics[`${part} %`] = (100 * phases[part]) / Math.max(total, 1e-9);
  }
  return { metrics, log: `phases ${JSON.stringify(phases ?? {})}, kernels ${JSON.stringify(kernels ?? {})}` };
}

/** The engine's report of a solve as metrics. */
function reportMetrics(result: GpuResult): Record<string, number> {
  const report = result.gpu;
  return {
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
}

/**
 * The WebGPU row of program `name`: median wall clock of `solveAndersen` after the warm-ups, the
 * pipeline's columns, the engine's report, the phases' shares, the check against the reference
 * and the paper's figures.
 *
 * @example
 * ```ts
 * const gpu = await gpuRow('gcc', prepared, ctx, options, verify);
 * gpu.row.medianMs;
 * ```
 */
export async function gpuRow(
  name: string,
  prepared: PreparedProgram,
  ctx: GpuContext,
  options: BenchOptions,
  verify: (result: AndersenResult) => boolean | undefined,
): Promise<GpuRow> {
  // A repeated solve's setting: each solve starts in the buffers the one before left on the
  // context, and reads large sets into memory that worker threads touched first.
  const solve = {
    engine: 'webgpu',
    gpu: ctx,
    hcd: prepared.hcd,
    keepBuffers: true,
    touchReadback: true,
  } satisfies SolveAndersenOptions;
  const runs = timedRuns(name);
  const { times, result, warm } = await solveTimed(name, prepared, solve, runs, options);
  const profile = await profiledShares(prepared, ctx);
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const metrics: Record<string, number> = {
    ...pipelineMetrics(prepared, median),
    ...reportMetrics(result),
    ...profile.metrics,
    'warm-up solves': warm.runs,
    'warm-up steady (1=yes)': warm.steady ? 1 : 0,
  };
  const verified = verify(result);
  if (verified !== undefined) metrics['verified (1=exact)'] = verified ? 1 : 0;
  const paperGpu = PAPER_GPU_MS[name];
  if (paperGpu !== undefined) {
    metrics['paper GPU ms'] = paperGpu;
    metrics['paper GPU / ours'] = paperGpu / median;
  }
  const cuda = PAPER_CUDA_H100_MS[name];
  if (cuda !== undefined) {
    metrics['CUDA H100 ms'] = cuda;
    metrics['CUDA H100 / ours'] = cuda / median;
    metrics['CUDA H100 / end-to-end'] = cuda / (metrics['end-to-end ms'] as number);
  }
  options.log(
    `andersen: ${name} webgpu: median ${median.toFixed(1)} ms, ${result.statistics.rounds} rounds, ` +
      `verified ${String(verified)}, ${profile.log}, report ${JSON.stringify(result.gpu ?? {})}`,
  );
  const size = `${prepared.input.program.nodeCount} nodes, ${prepared.input.program.constraints.length} constraints`;
  return {
    result,
    metrics,
    row: { case: name, size, engine: 'webgpu', medianMs: median, runs, method: 'wall-clock', metrics },
  };
}
