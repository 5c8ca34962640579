import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { BenchReport, BenchSuite } from '@gpumorph/bench';
import { acquireGpu, type GpuAdapterReport, type GpuContext } from '@gpumorph/gpu-allocator';
import { gpuOptionsFromEnvironment } from '../environment';
import { formatNumber, renderTable } from '../format';
import { type CliIo, type Colors, colorsFor } from '../io';
import { progressFor } from '../progress';

/** Engines a suite can be asked to run. */
export const BENCH_ENGINES = ['webgpu', 'cpu'] as const;

/** Options of `gpumorph bench`. */
export interface BenchCommandOptions {
  /** The suites to run, in order. */
  readonly suites: readonly BenchSuite[];
  /** Engines to run (a subset of {@link BENCH_ENGINES}). */
  readonly engines: readonly string[];
  /** Smaller sizes and fewer runs. */
  readonly quick: boolean;
  /** Also write every report to this JSON file. */
  readonly json?: string | undefined;
}

/** What `gpumorph bench --json <file>` writes. */
export interface BenchFile {
  /** ISO 8601 time the run started. */
  readonly date: string;
  /** The adapter the WebGPU rows ran on, or null when none did. */
  readonly adapter: GpuAdapterReport | null;
  /** `process.version` of the run. */
  readonly node: string;
  readonly reports: readonly BenchReport[];
}

/**
 * `gpumorph bench`: acquires the GPU once (when `webgpu` is among the engines; without an adapter
 * the suites run their CPU rows only), runs each suite, prints one table per report on stdout and
 * writes them all to the `json` file when one is given. Progress goes to stderr.
 *
 * @example
 * ```ts
 * await runBench({ suites: [allocatorBench], engines: ['webgpu', 'cpu'], quick: true }, processIo());
 * ```
 */
export async function runBench(options: BenchCommandOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  const log = (line: string) => io.stderr.write(`${c.dim(line)}\n`);
  const date = new Date().toISOString();
  let ctx: GpuContext | null = null;
  if (options.engines.includes('webgpu')) {
    log('bench: looking for a WebGPU adapter…');
    ctx = await acquireGpu(gpuOptionsFromEnvironment());
    if (!ctx) log('bench: no WebGPU adapter; running the CPU rows only (see gpumorph doctor)');
  }
  const reports: BenchReport[] = [];
  const progress = progressFor(io, 'bench', options.suites.length);
  // The suites' own log lines would tear the bar: with a bar they wait until it is gone.
  const held: string[] = [];
  const suiteLog = progress.active ? (line: string) => held.push(line) : log;
  try {
    for (const [index, suite] of options.suites.entries()) {
      progress.update(index, `bench ${suite.name}`);
      suiteLog(`bench: ${suite.name} — ${suite.description}${options.quick ? ' (quick)' : ''}`);
      const report = await suite.run({ ctx, engines: options.engines, quick: options.quick, log: suiteLog });
      reports.push(report);
      io.stdout.write(`${reportText(report, c)}\n`);
      // Written after every suite, so a later failure does not lose what was measured.
      if (options.json)
        await writeReports(options.json, {
          date,
          adapter: ctx?.adapter ?? null,
          node: process.version,
          reports,
        });
    }
  } finally {
    progress.stop();
    for (const line of held) log(line);
    ctx?.destroy();
  }
  if (options.json) log(`bench: wrote ${resolve(options.json)}`);
  return 0;
}

async function writeReports(file: string, content: BenchFile): Promise<void> {
  const path = resolve(file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(content, null, 2)}\n`);
}

/**
 * One report as text: a title, the adapter line, the table (case, size, engine, median ms, runs,
 * method, then every metric any row has) and the notes.
 *
 * @example
 * ```ts
 * console.log(reportText(report, pc.createColors(false)));
 * ```
 */
export function reportText(report: BenchReport, c: Colors): string {
  const metrics: string[] = [];
  for (const row of report.rows)
    for (const key of Object.keys(row.metrics)) if (!metrics.includes(key)) metrics.push(key);
  const table = renderTable(
    [
      { header: 'case' },
      { header: 'size' },
      { header: 'engine' },
      { header: 'median ms', align: 'right' },
      { header: 'runs', align: 'right' },
      { header: 'method' },
      ...metrics.map((name) => ({ header: name, align: 'right' as const })),
    ],
    report.rows.map((row) => [
      row.case,
      row.size,
      row.engine === 'cpu' ? row.engine : c.cyan(row.engine),
      formatNumber(row.medianMs),
      String(row.runs),
      row.method,
      ...metrics.map((name) => {
        const value = row.metrics[name];
        return value === undefined ? '' : formatNumber(value);
      }),
    ]),
  );
  const lines = [c.bold(`${report.suite}`), c.dim(`adapter: ${report.adapter}`), table];
  if (report.rows.length === 0) lines.push(c.yellow('(no rows: no requested engine could run)'));
  for (const note of report.notes) lines.push(c.dim(`note: ${note}`));
  return `${lines.join('\n')}\n`;
}
