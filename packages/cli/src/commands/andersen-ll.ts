import { readFile } from 'node:fs/promises';
import {
  type AliasReport,
  type AndersenEngine,
  analyzeModule,
  countByKind,
  LlvmParseError,
  type ModuleAnalysis,
} from '@gpumorph/andersen';
import { EXIT_FAILURE } from '../errors';

import { type CliIo, colorsFor } from '../io';

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

/** What `gpumorph andersen ll --json` prints (`aliasReport` only with `--alias-report`). */
export interface AndersenLlReport {
  readonly file: string;
  readonly engine: string;
  readonly irBytes: number;
  readonly functions: number;
  readonly definedFunctions: number;
  readonly globals: number;
  readonly instructions: number;
  readonly heapSites: number;
  readonly nodes: number;
  readonly constraints: {
    readonly total: number;
    readonly addressOf: number;
    readonly copy: number;
    readonly load: number;
    readonly store: number;
    readonly offset: number;
  };
  readonly indirectCalls: number;
  readonly unknownExternalCalls: number;
  readonly parseMs: number;
  readonly solveMs: number;
  readonly pointsToEdges: number;
  /** Caller → callees with indirect calls resolved. */
  readonly callGraph: Record<string, string[]>;
  readonly checks?: AliasReport['checks'];
  readonly passed?: number;
  readonly failed?: number;
}

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
  const analysis = await analyzeModule(text, {
    file: options.file,
    engine: options.engine,
    allocators: options.allocators,
  });
  const totalMs = performance.now() - start;
  const { extracted, result } = analysis;
  const solveMs = result.statistics.solveMs;
  const [addressOf, copy, load, store, offset] = countByKind(extracted.program.constraints);
  const report: AndersenLlReport = {
    file: options.file,
    engine: analysis.engine,
    irBytes: text.length,
    ...extracted.statistics,
    nodes: extracted.program.nodeCount,
    constraints: { total: extracted.program.constraints.length, addressOf, copy, load, store, offset },
    parseMs: totalMs - solveMs,
    solveMs,
    pointsToEdges: result.pointsToEdges,
    callGraph: Object.fromEntries(analysis.callGraph()),
    ...(options.aliasReport ? analysis.aliasReport() : {}),
  };
  if (options.json) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    io.stdout.write(
      `${c.bold(options.file)}: ${count(report.definedFunctions)} functions, ${count(report.instructions)} instructions → ` +
        `${count(report.nodes)} nodes, ${count(report.constraints.total)} constraints; ` +
        `solved on ${report.engine} in ${solveMs.toFixed(1)} ms, ${count(report.pointsToEdges)} points-to edges\n`,
    );
    printCallGraph(analysis, io);
    if (options.print) printPointsTo(analysis, io);
    if (report.checks !== undefined) {
      for (const check of report.checks) {
        const verdict = check.pass ? c.green('pass') : c.red('FAIL');
        io.stdout.write(
          `  ${verdict} ${check.kind} in ${check.function} at line ${check.line}: ${check.result}-alias\n`,
        );
      }
      const summary = `${report.passed} passed, ${report.failed} failed`;
      io.stdout.write(`${report.failed === 0 ? c.green(summary) : c.red(summary)}\n`);
    }
  }
  return report.failed !== undefined && report.failed > 0 ? EXIT_FAILURE : 0;
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
