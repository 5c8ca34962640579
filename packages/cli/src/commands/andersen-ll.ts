import { readFile } from 'node:fs/promises';
import {
  type AliasReport,
  type AndersenEngine,
  analyzeModule,
  countByKind,
  LlvmParseError,
  type ModuleAnalysis,
  type SolvedAndersen,
} from '@gpumorph/andersen';
import { EXIT_FAILURE } from '../errors';
import { gpuForEngine, withCpuFallback } from '../gpu';

import { type CliIo, colorsFor } from '../io';
import { progressFor } from '../progress';
import { type AnalysisReport, writeReport } from '../report';
import type { ConstraintCounts } from './andersen';

/** Options of `gpumorph andersen ll`. */
export interface AndersenLlOptions {
  /** The textual LLVM IR file (`.ll`). */
  readonly file: string;
  readonly engine: AndersenEngine;
  readonly json: boolean;
  /** Check every MAYALIAS/NOALIAS/… call of the module and fail when one does not hold. */
  readonly aliasReport: boolean;
  /** Extra allocation functions (each call site a fresh heap object). */
  readonly allocators?: readonly string[] | undefined;
  /** Print every pointer value's points-to set (small modules). */
  readonly print?: boolean | undefined;
}

/** What `gpumorph andersen ll --json` prints (the common {@link AnalysisReport} shape; `checks`, `passed` and `failed` only with `--alias-report`). */
export type AndersenLlReport = AnalysisReport<
  { readonly file: string },
  {
    readonly irBytes: number;
    readonly functions: number;
    readonly definedFunctions: number;
    readonly globals: number;
    readonly instructions: number;
    readonly heapSites: number;
    readonly indirectCalls: number;
    readonly unknownExternalCalls: number;
    readonly nodes: number;
    readonly constraints: ConstraintCounts;
  },
  { readonly parseMs: number; readonly solveMs: number },
  {
    readonly pointsToEdges: number;
    /** Caller → callees with indirect calls resolved. */
    readonly callGraph: Record<string, string[]>;
    readonly checks?: AliasReport['checks'];
    readonly passed?: number;
    readonly failed?: number;
  }
>;

/**
 * `gpumorph andersen ll <file.ll>`: points-to analysis of an LLVM module. Prints a summary and the
 * call graph (or `--json`); with `--alias-report`, judges every aliasing-fact call of the module
 * and returns 1 when one fails.
 *
 * @example
 * ```ts
 * const status = await runAndersenLl({ file: 'prog.ll', engine: 'auto', json: true, aliasReport: true }, processIo());
 * ```
 */
export async function runAndersenLl(options: AndersenLlOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  let text: string;
  try {
    text = await readFile(options.file, 'utf8');
  } catch (cause) {
    throw new LlvmParseError(
      { file: options.file, line: 1, column: 1 },
      `cannot read the file: ${String(cause)}`,
      {
        cause,
      },
    );
  }
  const start = performance.now();
  const progress = progressFor(io, 'andersen ll', 1);
  const gpu = await gpuForEngine(options.engine);
  const analyze = (engine: 'cpu' | 'webgpu') =>
    analyzeModule(text, {
      file: options.file,
      engine,
      ...(gpu ? { gpu } : {}),
      allocators: options.allocators,
      onIteration: (event) => {
        progress.setTotal(event.round + 1);
        progress.update(event.round, `round ${event.round}: ${count(event.propagated)} nodes propagated`);
      },
    });
  const analysis = await withCpuFallback(
    options.engine,
    gpu,
    io,
    () => analyze('webgpu'),
    () => analyze('cpu'),
  ).finally(() => {
    progress.stop();
    gpu?.destroy();
  });
  const totalMs = performance.now() - start;
  const { extracted, result } = analysis;
  const solveMs = result.statistics.solveMs;
  const [addressOf, copy, load, store, offset] = countByKind(extracted.program.constraints);
  const aliasReport = options.aliasReport ? analysis.aliasReport() : undefined;
  const report: AndersenLlReport = {
    command: 'andersen ll',
    input: { file: options.file },
    engine: analysis.engine,
    adapter: (result as Partial<SolvedAndersen>).gpu?.adapter ?? null,
    sizes: {
      irBytes: text.length,
      ...extracted.statistics,
      nodes: extracted.program.nodeCount,
      constraints: { total: extracted.program.constraints.length, addressOf, copy, load, store, offset },
    },
    timings: { parseMs: totalMs - solveMs, solveMs },
    result: {
      pointsToEdges: result.pointsToEdges,
      callGraph: Object.fromEntries(analysis.callGraph()),
      ...(aliasReport ?? {}),
    },
    ok: (aliasReport?.failed ?? 0) === 0,
  };
  if (options.json) {
    writeReport(io, report);
  } else {
    io.stdout.write(
      `${c.bold(options.file)}: ${count(report.sizes.definedFunctions)} functions, ${count(report.sizes.instructions)} instructions → ` +
        `${count(report.sizes.nodes)} nodes, ${count(report.sizes.constraints.total)} constraints; ` +
        `solved on ${report.engine} in ${solveMs.toFixed(1)} ms, ${count(report.result.pointsToEdges)} points-to edges\n`,
    );
    printCallGraph(analysis, io);
    if (options.print) printPointsTo(analysis, io);
    if (aliasReport !== undefined) {
      for (const check of aliasReport.checks) {
        const verdict = check.pass ? c.green('pass') : c.red('FAIL');
        io.stdout.write(
          `  ${verdict} ${check.kind} in ${check.function} at line ${check.line}: ${check.result}-alias\n`,
        );
      }
      const summary = `${aliasReport.passed} passed, ${aliasReport.failed} failed`;
      io.stdout.write(`${aliasReport.failed === 0 ? c.green(summary) : c.red(summary)}\n`);
    }
  }
  return report.ok ? 0 : EXIT_FAILURE;
}

function printCallGraph(analysis: ModuleAnalysis, io: CliIo): void {
  const indirect = analysis.callSites.filter((site) => site.direct === undefined);
  if (indirect.length === 0) return;
  io.stdout.write('indirect calls:\n');
  for (const site of indirect) {
    const where = site.line !== undefined ? `line ${site.line}` : `ir line ${site.irLine}`;
    io.stdout.write(`  ${site.caller} at ${where} → ${analysis.callees(site).join(', ') || '(none)'}\n`);
  }
}

function printPointsTo(analysis: ModuleAnalysis, io: CliIo): void {
  for (const [name, node] of analysis.extracted.valueNodes) {
    const targets = Array.from(analysis.result.pointsTo(node), (o) => analysis.locationName(o));
    if (targets.length > 0) io.stdout.write(`  ${name} → {${targets.join(', ')}}\n`);
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
