import { readFile } from 'node:fs/promises';
import {
  type AliasReport,
  type AndersenEngine,
  analyzeModules,
  countByKind,
  LlvmParseError,
  type ModuleAnalysis,
  type ModuleSource,
  type SolvedAndersen,
  UnknownValueError,
} from '@gpumorph/andersen';
import { InvalidArgumentError } from 'commander';
import { EXIT_FAILURE } from '../errors';
import { gpuForEngine, withCpuFallback } from '../gpu';

import { type CliIo, colorsFor } from '../io';
import { progressFor } from '../progress';
import { type AnalysisReport, writeReport } from '../report';
import type { ConstraintCounts } from './andersen';

/** Options of `gpumorph andersen ll`. */
export interface AndersenLlOptions {
  /** The textual LLVM IR files (`.ll`): one module, or several linked by symbol. */
  readonly files: readonly string[];
  /** Alias queries `A,B` of two IR values (`%p in @main`, `@g`). */
  readonly aliases?: readonly string[] | undefined;
  /** Report the points-to set of every source variable (debug info). */
  readonly variables?: boolean | undefined;
  /** Print only the call graph, as Graphviz DOT or JSON. */
  readonly callGraph?: 'dot' | 'json' | undefined;
  readonly engine: AndersenEngine;
  readonly json: boolean;
  /** Check every MAYALIAS/NOALIAS/… call of the module and fail when one does not hold. */
  readonly aliasReport: boolean;
  /** Extra allocation functions (each call site a fresh heap object). */
  readonly allocators?: readonly string[] | undefined;
  /** Trust `llvm.public.type.test`: the class hierarchy is complete in the given modules. */
  readonly wholeProgramVtables?: boolean | undefined;
  /** Solve a second time with what the first solution allows (default true). */
  readonly refine?: boolean | undefined;
  /** Print every pointer value's points-to set (small modules). */
  readonly print?: boolean | undefined;
}

/** What `gpumorph andersen ll --json` prints (the common {@link AnalysisReport} shape; `checks`, `passed` and `failed` only with `--alias-report`). */
export type AndersenLlReport = AnalysisReport<
  { readonly file: string; readonly files: readonly string[] },
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
    readonly queries?: readonly AliasQueryResult[];
    /** With `--variables`: each source variable's points-to set. */
    readonly variables?: ReturnType<ModuleAnalysis['sourceVariables']>;
    readonly checkFunctions?: AliasReport['checkFunctions'];
    readonly checks?: AliasReport['checks'];
    readonly passed?: number;
    readonly failed?: number;
  }
>;

/** The answer to one `--alias A,B` query. */
export interface AliasQueryResult {
  readonly a: string;
  readonly b: string;
  readonly result: 'may' | 'no';
  readonly aPointsTo: readonly string[];
  readonly bPointsTo: readonly string[];
}

/**
 * `gpumorph andersen ll <file.ll…>`: points-to analysis of an LLVM module. Prints a summary and the
 * call graph (or `--json`); with `--alias-report`, judges every aliasing-fact call of the module
 * and returns 1 when one fails or when the module makes no check at all (a report that checked
 * nothing is not a pass).
 *
 * @example
 * ```ts
 * const status = await runAndersenLl({ file: 'prog.ll', engine: 'auto', json: true, aliasReport: true }, processIo());
 * ```
 */
export async function runAndersenLl(options: AndersenLlOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  const sources: ModuleSource[] = [];
  for (const file of options.files) {
    try {
      sources.push({ file, text: await readFile(file, 'utf8') });
    } catch (cause) {
      throw new LlvmParseError({ file, line: 1, column: 1 }, `cannot read the file: ${String(cause)}`, {
        cause,
      });
    }
  }
  const file = options.files.join(' ');
  const irBytes = sources.reduce((sum, source) => sum + source.text.length, 0);
  const start = performance.now();
  const progress = progressFor(io, 'andersen ll', 1);
  const gpu = await gpuForEngine(options.engine);
  const analyze = (engine: 'cpu' | 'webgpu') =>
    analyzeModules(sources, {
      engine,
      ...(gpu ? { gpu } : {}),
      allocators: options.allocators,
      wholeProgramVtables: options.wholeProgramVtables,
      refine: options.refine,
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
  const queries = options.aliases?.map((pair) => answerQuery(analysis, pair));
  const variables = options.variables ? analysis.sourceVariables() : undefined;
  if (options.callGraph !== undefined) {
    const graph = analysis.callGraph();
    io.stdout.write(
      options.callGraph === 'dot'
        ? callGraphDot(graph)
        : `${JSON.stringify(Object.fromEntries(graph), null, 2)}\n`,
    );
    return 0;
  }
  const report: AndersenLlReport = {
    command: 'andersen ll',
    input: { file, files: options.files },
    engine: analysis.engine,
    adapter: (result as Partial<SolvedAndersen>).gpu?.adapter ?? null,
    sizes: {
      irBytes,
      ...extracted.statistics,
      nodes: extracted.program.nodeCount,
      constraints: { total: extracted.program.constraints.length, addressOf, copy, load, store, offset },
    },
    timings: { parseMs: totalMs - solveMs, solveMs },
    result: {
      pointsToEdges: result.pointsToEdges,
      callGraph: Object.fromEntries(analysis.callGraph()),
      ...(queries === undefined ? {} : { queries }),
      ...(variables === undefined ? {} : { variables }),
      ...(aliasReport ?? {}),
    },
    // A report that checked nothing is not a pass.
    ok: aliasReport === undefined || (aliasReport.failed === 0 && aliasReport.checks.length > 0),
  };
  if (options.json) {
    writeReport(io, report);
  } else {
    io.stdout.write(
      `${c.bold(file)}: ${count(report.sizes.definedFunctions)} functions, ${count(report.sizes.instructions)} instructions → ` +
        `${count(report.sizes.nodes)} nodes, ${count(report.sizes.constraints.total)} constraints; ` +
        `solved on ${report.engine} in ${solveMs.toFixed(1)} ms, ${count(report.result.pointsToEdges)} points-to edges\n`,
    );
    printCallGraph(analysis, io);
    if (options.print) printPointsTo(analysis, io);
    for (const v of variables ?? []) {
      const where = v.line === undefined ? '' : ` (line ${v.line})`;
      io.stdout.write(`  ${v.function}: ${v.name}${where} → {${v.pointsTo.join(', ')}}\n`);
    }
    for (const query of queries ?? []) {
      io.stdout.write(
        `${query.result}-alias: ${query.a} → {${query.aPointsTo.join(', ')}}, ${query.b} → {${query.bPointsTo.join(', ')}}\n`,
      );
    }
    if (aliasReport !== undefined) {
      for (const check of aliasReport.checks) {
        const verdict = check.pass ? c.green('pass') : c.red('FAIL');
        io.stdout.write(
          `  ${verdict} ${check.kind} in ${check.function} at line ${check.line}: ${check.result}-alias\n`,
        );
      }
      const functions = aliasReport.checkFunctions;
      const found = `${aliasReport.checks.length} checks found (calls to ${functions.length === 0 ? 'no check function' : functions.join(', ')})`;
      if (aliasReport.checks.length === 0) {
        io.stdout.write(
          `${c.red(`no alias checks found: ${found}`)}; looked for calls to MAYALIAS, NOALIAS, MUSTALIAS, PARTIALALIAS, EXPECTEDFAIL_MAYALIAS, EXPECTEDFAIL_NOALIAS (plain or C++-mangled, declared or defined)\n`,
        );
      } else {
        const summary = `${found}: ${aliasReport.passed} passed, ${aliasReport.failed} failed`;
        io.stdout.write(`${aliasReport.failed === 0 ? c.green(summary) : c.red(summary)}\n`);
      }
    }
  }
  return report.ok ? 0 : EXIT_FAILURE;
}

function answerQuery(analysis: ModuleAnalysis, pair: string): AliasQueryResult {
  const parts = pair.split(',').map((part) => part.trim());
  if (parts.length !== 2 || parts.some((part) => part === ''))
    throw new InvalidArgumentError(`--alias takes 'A,B' (two IR values), got '${pair}'`);
  const [a, b] = parts as [string, string];
  try {
    return {
      a,
      b,
      result: analysis.mayAlias(a, b) ? 'may' : 'no',
      aPointsTo: analysis.pointsTo(a),
      bPointsTo: analysis.pointsTo(b),
    };
  } catch (error) {
    if (error instanceof UnknownValueError) throw new InvalidArgumentError(`--alias: ${error.message}`);
    throw error;
  }
}

/** The call graph in Graphviz DOT: one node per function, an edge per caller → callee. */
export function callGraphDot(graph: ReadonlyMap<string, readonly string[]>): string {
  const quote = (name: string) => JSON.stringify(name);
  const lines = ['digraph callgraph {'];
  for (const [caller, callees] of graph)
    for (const callee of callees) lines.push(`  ${quote(caller)} -> ${quote(callee)};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
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
