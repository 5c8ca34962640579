import { readFile } from 'node:fs/promises';
import type { GpuContext } from '@gpumorph/gpu-allocator';
import {
  type AnalysisResult,
  type AnalyzerEngine,
  type AnalyzerIterationEvent,
  analyzeProgram,
  OctagonParseError,
} from '@gpumorph/octagon';
import { EXIT_FAILURE } from '../errors';
import { gpuForEngine, withCpuFallback } from '../gpu';
import { type CliIo, colorsFor } from '../io';
import { progressFor } from '../progress';
import { type AnalysisReport, writeReport } from '../report';

/** Options of `gpumorph octagon <file>`. */
export interface OctagonCommandOptions {
  readonly file: string;
  /** `auto`: WebGPU when an adapter is found, else the f64 CPU engine. */
  readonly engine: 'auto' | AnalyzerEngine;
  readonly json: boolean;
  /** Print only the loop heads and the end, not the state before every statement. */
  readonly loopsOnly?: boolean | undefined;
}

/** What `gpumorph octagon --json` prints (the common {@link AnalysisReport} shape). */
export type OctagonReport = AnalysisReport<
  { readonly file: string },
  { readonly variables: number; readonly points: number; readonly checks: number },
  { readonly analyzeMs: number },
  Pick<AnalysisResult, 'variables' | 'points' | 'assertions'> & {
    readonly proved: number;
    readonly unproved: number;
  }
>;

/**
 * `gpumorph octagon <file>`: analyzes a program of the octagon package's tiny language over
 * octagons (mixed integer/real ones when it declares reals) and prints the invariant at each program point and which assertions (and
 * array-bound checks) were proved. Exit status 0 when every one was proved, 1 otherwise.
 *
 * @example
 * ```ts
 * const status = await runOctagon({ file: 'examples/octagon/count.oct', engine: 'f64', json: false }, processIo());
 * ```
 */
export async function runOctagon(options: OctagonCommandOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  let source: string;
  try {
    source = await readFile(options.file, 'utf8');
  } catch (cause) {
    throw new OctagonParseError(
      { file: options.file, line: 1, column: 1 },
      `cannot read the file: ${String(cause)}`,
      {
        cause,
      },
    );
  }
  let ctx: GpuContext | null = null;
  const engine: AnalyzerEngine = options.engine === 'auto' ? 'f64' : options.engine;
  // The bar shows finding the GPU (which compiles nothing yet), then the analysis (which compiles
  // the WGSL on first use) and its loop-head iterations, from the analyzer's `iteration` events.
  const progress = progressFor(io, 'octagon', 2);
  const onIteration = ({ round, loop }: AnalyzerIterationEvent) => {
    progress.setTotal(round + 2);
    progress.update(round + 1, `octagon: loop iteration ${round} (line ${loop.line})`);
  };
  try {
    if (options.engine === 'auto' || options.engine === 'webgpu') {
      progress.update(0, 'octagon: looking for a WebGPU adapter');
      ctx = await gpuForEngine(options.engine);
    }
    progress.update(1, `octagon: analyzing on ${ctx ? 'webgpu' : engine}`);
    const result = await withCpuFallback(
      options.engine,
      ctx,
      io,
      () => analyzeProgram(source, { engine: 'webgpu', gpu: ctx, file: options.file, onIteration }),
      () => analyzeProgram(source, { engine, file: options.file, onIteration }),
    ).finally(() => progress.stop());
    const failed = result.assertions.filter((a) => !a.proved).length;
    if (options.json) {
      const report: OctagonReport = {
        command: 'octagon',
        input: { file: options.file },
        engine: result.engine,
        adapter: result.engine === 'webgpu' && ctx ? String(ctx) : null,
        sizes: {
          variables: result.variables.length,
          points: result.points.length,
          checks: result.assertions.length,
        },
        timings: { analyzeMs: result.timeMs },
        result: {
          variables: result.variables,
          points: result.points,
          assertions: result.assertions,
          proved: result.assertions.length - failed,
          unproved: failed,
        },
        ok: failed === 0,
      };
      writeReport(io, report);
    } else {
      printResult(result, options, io);
      const summary = `${result.assertions.length - failed} of ${result.assertions.length} checks proved (${result.engine} engine, ${result.timeMs.toFixed(1)} ms)`;
      io.stdout.write(`${failed === 0 ? c.green(summary) : c.red(summary)}\n`);
    }
    return failed === 0 ? 0 : EXIT_FAILURE;
  } finally {
    ctx?.destroy();
  }
}

function printResult(result: AnalysisResult, options: OctagonCommandOptions, io: CliIo): void {
  const c = colorsFor(io);
  io.stdout.write(
    `${c.bold(result.file)}: ${result.variables.length} variables (${result.variables.join(', ')})\n`,
  );
  for (const p of result.points) {
    if (options.loopsOnly && !p.label.startsWith('loop head') && p.label !== 'end') continue;
    io.stdout.write(`${c.dim(`${p.pos.line}:${p.pos.column}`)} ${p.label}\n    ${p.invariant}\n`);
  }
  for (const a of result.assertions) {
    const verdict = a.proved ? c.green('proved') : c.red('NOT proved');
    io.stdout.write(
      `${verdict} ${a.kind === 'bounds' ? 'bounds check' : a.kind === 'division' ? 'division check' : 'assertion'} at ${a.pos.file}:${a.pos.line}:${a.pos.column}: ${a.text}\n`,
    );
  }
}
