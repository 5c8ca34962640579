/**
 * The Andersen suite run in several separate processes, one after the other, each after a
 * different history of the GPU, to see whether a program's speed depends on what ran before:
 * `cold` (the first process of the run), `after-gpu` (started the moment the process before it, a
 * GPU process, ended) and `idle` (started after the GPU idled some seconds). Each process runs the
 * whole suite (`gpumorph bench andersen --json`); the report gives per program and engine the
 * median of every process, and their spread (the largest median over the smallest), flagged past
 * {@link SPREAD_LIMIT}.
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions, BenchReport, BenchRow } from './types';

/** What ran on the GPU before a process of the suite started. */
export type WarmupHistory = 'cold' | 'after-gpu' | 'idle';

/** Spread of the per-process medians past which a program is flagged (the issue's 15%). */
export const SPREAD_LIMIT = 1.15;

/**
 * The history of each of `count` processes: the first `cold`, then `after-gpu` and `idle` in turn.
 *
 * @example
 * ```ts
 * warmupHistories(5); // ['cold', 'after-gpu', 'idle', 'after-gpu', 'idle']
 * ```
 */
export function warmupHistories(count: number): WarmupHistory[] {
  return Array.from({ length: count }, (_, k) => (k === 0 ? 'cold' : k % 2 === 1 ? 'after-gpu' : 'idle'));
}

/** The rows one process of the suite reported, and the history it started after. */
export interface ProcessRun {
  readonly history: WarmupHistory;
  readonly rows: readonly BenchRow[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * One row per program and engine from the runs of every process: the median of the processes'
 * medians; as metrics each process's solve and end-to-end medians (`solve ms p2 (after-gpu)`), the
 * spread of each (largest over smallest) and a 0/1 flag when it is past {@link SPREAD_LIMIT}, and
 * the median over the processes of each stage before the solve (`read ms (median)`). A
 * program that a process did not report is left out of that process's columns.
 *
 * @example
 * ```ts
 * const rows = spreadRows([{ history: 'cold', rows: first }, { history: 'after-gpu', rows: second }]);
 * rows[0].metrics['solve spread']; // e.g. 1.04
 * ```
 */
export function spreadRows(runs: readonly ProcessRun[]): BenchRow[] {
  const keys: string[] = [];
  const byKey = new Map<string, { row: BenchRow; process: number }[]>();
  runs.forEach((run, process) => {
    for (const row of run.rows) {
      const key = `${row.case}\u0000${row.engine}`;
      if (!byKey.has(key)) {
        keys.push(key);
        byKey.set(key, []);
      }
      byKey.get(key)?.push({ row, process });
    }
  });
  return keys.map((key) => {
    const seen = byKey.get(key) ?? [];
    const first = (seen[0] as { row: BenchRow }).row;
    const metrics: Record<string, number> = {};
    const solves: number[] = [];
    const ends: number[] = [];
    for (const { row, process } of seen) {
      const label = `p${process + 1} (${runs[process]?.history})`;
      metrics[`solve ms ${label}`] = row.medianMs;
      solves.push(row.medianMs);
      const end = row.metrics['end-to-end ms'];
      if (end !== undefined) {
        metrics[`end-to-end ms ${label}`] = end;
        ends.push(end);
      }
    }
    const spread = (values: number[]) => Math.max(...values) / Math.max(Math.min(...values), 1e-9);
    metrics['solve spread'] = spread(solves);
    metrics['solve spread > 15%'] = spread(solves) > SPREAD_LIMIT ? 1 : 0;
    // The stages before the solve: the median over the processes.
    for (const stage of ['read ms', 'HCD ms (raw)', 'HVN ms']) {
      const values = seen.flatMap(({ row }) => row.metrics[stage] ?? []);
      if (values.length > 0) metrics[`${stage} (median)`] = median(values);
    }
    if (ends.length > 0) {
      metrics['end-to-end median ms'] = median(ends);
      metrics['end-to-end spread'] = spread(ends);
      metrics['end-to-end spread > 15%'] = spread(ends) > SPREAD_LIMIT ? 1 : 0;
    }
    return { ...first, medianMs: median(solves), runs: solves.length, metrics };
  });
}

/** The command line that runs this CLI again: the same Node, its flags (tsx's loader) and entry. */
function selfCommand(): [string, string[]] {
  const entry = process.argv[1];
  if (entry === undefined)
    throw new Error('bench andersen: no CLI entry (process.argv[1]) to start the processes with');
  return [process.execPath, [...process.execArgv, entry]];
}

/** Runs the suite once in a child process; its progress lines go to `log`. */
async function runChild(
  options: BenchOptions,
  index: number,
  history: WarmupHistory,
  dir: string,
): Promise<ProcessRun> {
  const file = join(dir, `process-${index + 1}.json`);
  const [node, prefix] = selfCommand();
  const args = [...prefix, 'bench', 'andersen', '--engine', options.engines.join(','), '--json', file];
  if (options.quick) args.push('--quick');
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.GPUMORPH_ANDERSEN_PROCESSES;
  const tail: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(node, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let pending = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        options.log(`process ${index + 1} (${history}): ${line}`);
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    });
    child.on('error', reject);
    child.on('close', (status) => resolve(status));
  });
  if (code !== 0) {
    throw new Error(
      `bench andersen: process ${index + 1} (${history}) exited with ${code}:\n${tail.join('\n')}`,
    );
  }
  const written = JSON.parse(await readFile(file, 'utf8')) as { reports: BenchReport[] };
  const report = written.reports.find((r) => r.suite === 'andersen');
  return { history, rows: report?.rows ?? [] };
}

/**
 * Runs the suite in `count` processes one after the other (histories per {@link warmupHistories};
 * an `idle` process starts `idleSeconds` after the one before ended) and reports the spread.
 *
 * @example
 * ```ts
 * const report = await runInProcesses(5, 10, options, 'NVIDIA H100');
 * ```
 */
export async function runInProcesses(
  count: number,
  idleSeconds: number,
  options: BenchOptions,
  adapter: string,
): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'gpumorph-bench-processes-'));
  const runs: ProcessRun[] = [];
  try {
    for (const [index, history] of warmupHistories(count).entries()) {
      if (history === 'idle') await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      options.log(`andersen: process ${index + 1}/${count} (${history})`);
      runs.push(await runChild(options, index, history, dir));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const rows = spreadRows(runs);
  for (const row of rows) {
    if (row.metrics['solve spread > 15%'] === 1 || row.metrics['end-to-end spread > 15%'] === 1) {
      options.log(
        `andersen: ${row.case} ${row.engine}: the medians of the processes spread past 15% ` +
          `(solve ${row.metrics['solve spread']?.toFixed(2)}, end to end ${row.metrics['end-to-end spread']?.toFixed(2) ?? 'n/a'})`,
      );
    }
  }
  return {
    suite: 'andersen',
    adapter,
    rows,
    notes: [
      `${count} processes, one after the other, each running the whole suite: ${warmupHistories(count)
        .map((h, k) => `p${k + 1} ${h}`)
        .join(
          ', ',
        )}; cold = the first process of the run, after-gpu = started the moment the GPU process before it ended, idle = started ${idleSeconds} s after it ended`,
      'the parent process (gpumorph bench) holds the WebGPU device it acquired, idle, while the processes run',
      'median ms = the median of the processes\' medians of the solve; solve ms pN = process N\'s median; spread = the largest median over the smallest, "> 15%" = 1 past 1.15; end-to-end = read + HVN + solve in each process',
    ],
  };
}
