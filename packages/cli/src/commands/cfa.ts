import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  analyzeScheme,
  type CfaEngine,
  type CfaResult,
  type CfaStatistics,
  type FlowValue,
  flowValueText,
  type LibrarySource,
  readMatricesDir,
  SchemeSyntaxError,
  SchemeSyntaxErrors,
  type SourceResults,
  solveCfa,
} from '@gpumorph/eigencfa';
import { readInputFile } from '../errors';
import { formatNumber } from '../format';
import { gpuForEngine, withCpuFallback } from '../gpu';
import { type CliIo, colorsFor } from '../io';
import { progressFor } from '../progress';
import { type AnalysisReport, writeReport } from '../report';

/** Options of `gpumorph cfa`. */
export interface CfaOptions {
  /** A Scheme program (unless `matrices` is given). */
  readonly file?: string | undefined;
  /** A data-folder directory (`program-params.lst`, `Fun.mat`, `Arg1.mat`, `Arg2.mat`). */
  readonly matrices?: string | undefined;
  readonly engine: CfaEngine;
  readonly json: boolean;
  /** `#t`/`#f` as Church booleans (default, as the data folder) or as basic values. */
  readonly booleans?: 'church' | 'basic' | undefined;
}

/** What `gpumorph cfa --json` prints (the common {@link AnalysisReport} shape). */
export type CfaReport = AnalysisReport<
  { readonly kind: 'scheme' | 'matrices'; readonly path: string },
  {
    readonly lams: number;
    readonly vars: number;
    readonly calls: number;
    readonly terms: number;
    readonly storeEntries: number;
  },
  {
    /** The Scheme front end (null for matrices). */
    readonly compileMs: number | null;
    readonly setupMs: number;
    readonly solveMs: number;
    readonly readbackMs: number;
  },
  {
    readonly counters: Readonly<Record<string, number>>;
    /** The fixpoint: row r's lambda ids, sorted (rows in the data folder's numbering). */
    readonly store: number[][];
    /** Scheme input only: flow sets of source variables and callees of source call sites. */
    readonly variables?: { name: string; pos: string; row: number; flow: string[] }[];
    readonly callSites?: { operator: string; pos: string; call: number; callees: string[] }[];
    /** Uses of what the analysis does not model (`eval at f.scm:3:1`): flows may be missing. */
    readonly unknown?: readonly string[];
  }
>;

/**
 * User libraries and included files beside the file that names them: `(import (util lists))` reads
 * `util/lists.sld`, then `util/lists.scm`; `(include "x.scm")` reads `x.scm`.
 */
function resolveLibraryBeside(
  request: { readonly library: readonly string[] } | { readonly include: string },
  from: string,
): LibrarySource | undefined {
  const base = dirname(from);
  const candidates =
    'include' in request
      ? [join(base, request.include)]
      : ['.sld', '.scm'].map((ext) => `${join(base, ...request.library)}${ext}`);
  for (const file of candidates) {
    try {
      return { text: readFileSync(file, 'utf8'), file };
    } catch {
      // the next candidate
    }
  }
  return undefined;
}

/** `--json` for a program the front end rejected: `{"command": "cfa", "ok": false, "errors": […]}`. */
function writeSchemeErrors(io: CliIo, file: string, error: SchemeSyntaxError): void {
  const errors = error instanceof SchemeSyntaxErrors ? error.errors : [error];
  const report = {
    command: 'cfa',
    input: { kind: 'scheme', path: file },
    ok: false,
    errors: errors.map((e) => ({ ...e.pos, message: e.reason })),
  };
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

/**
 * `gpumorph cfa`: 0CFA of a Scheme program (flow sets by source variable, callees by call site)
 * or of a data-folder program given as matrices; `--json` prints the fixpoint as `"store"`.
 * Returns the exit status.
 *
 * @example
 * ```ts
 * await runCfa({ file: 'examples/eigencfa/church.scm', engine: 'cpu', json: true }, processIo());
 * ```
 */
export async function runCfa(options: CfaOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  const log = (line: string) => io.stderr.write(`${c.dim(line)}\n`);
  // Read before acquiring the GPU: a mistyped path should fail at once, as an input error.
  const text = options.file !== undefined ? await readInputFile(options.file) : undefined;
  const gpu = await gpuForEngine(options.engine);
  try {
    const progress = progressFor(io, 'cfa', 1);
    const hooks = {
      gpu,
      onSolver: (solver: { on(event: 'iteration', f: (e: { round: number }) => void): unknown }) => {
        solver.on('iteration', (e) => {
          progress.setTotal(e.round + 1);
          progress.update(e.round, `cfa ${e.round}`);
        });
      },
    };
    let result: CfaResult;
    let source: SourceResults | undefined;
    let compileMs: number | null = null;
    let input: CfaReport['input'];
    try {
      if (options.matrices !== undefined) {
        input = { kind: 'matrices', path: options.matrices };
        const m = await readMatricesDir(options.matrices);
        log(
          `cfa: ${m.lams.toLocaleString('en-US')} lambdas, ${m.calls.toLocaleString('en-US')} calls from ${options.matrices}`,
        );
        result = await withCpuFallback(
          options.engine,
          gpu,
          io,
          () => solveCfa(m, { engine: 'webgpu', gpu }),
          () => solveCfa(m, { engine: 'cpu' }),
        );
      } else {
        const file = options.file as string;
        input = { kind: 'scheme', path: file };
        const analyze = (engine: 'cpu' | 'webgpu') =>
          analyzeScheme(
            text as string,
            {
              ...hooks,
              engine,
              file,
              resolveLibrary: resolveLibraryBeside,
              ...(options.booleans ? { booleans: options.booleans } : {}),
            } as never,
          );
        const analysis = await withCpuFallback(
          options.engine,
          gpu,
          io,
          () => analyze('webgpu'),
          () => analyze('cpu'),
        ).catch((error: unknown) => {
          // With --json, a rejected program still prints one JSON object: its errors, all of them.
          if (options.json && error instanceof SchemeSyntaxError) writeSchemeErrors(io, file, error);
          throw error;
        });
        result = analysis;
        source = analysis.source;
        compileMs = analysis.compileMs;
      }
    } finally {
      progress.stop();
    }
    const s: CfaStatistics = result.statistics;
    if (source && source.unknown.length > 0)
      log(`cfa: outside the model, results may miss flows: ${source.unknown.join(', ')}`);
    if (s.fallback !== undefined)
      log(`cfa: the WebGPU engine cannot run this program here (${s.fallback}); the CPU engine ran`);
    const report: CfaReport = {
      command: 'cfa',
      input,
      engine: s.engine,
      adapter: s.engine === 'webgpu' && gpu ? String(gpu) : null,
      sizes: { lams: s.lams, vars: s.vars, calls: s.calls, terms: s.terms, storeEntries: s.storeEntries },
      timings: { compileMs, setupMs: s.setupMs, solveMs: s.solveMs, readbackMs: s.readbackMs },
      result: {
        counters: s.counters,
        store: result.store.toArrays(),
        ...(source
          ? {
              variables: source.variables.map((v) => ({
                name: v.name,
                pos: v.pos,
                row: v.row,
                flow: v.flow.map(flowValueText),
              })),
              callSites: source.callSites.map((k) => ({
                operator: k.operator,
                pos: k.pos,
                call: k.call,
                callees: k.callees.map(flowValueText),
              })),
              unknown: source.unknown,
            }
          : {}),
      },
      ok: true,
    };
    if (options.json) {
      writeReport(io, report);
      return 0;
    }
    const lines = [
      `engine          ${report.engine}${report.adapter ? ` (${report.adapter})` : ''}`,
      `program         ${formatNumber(s.lams)} lambdas, ${formatNumber(s.vars)} variables, ${formatNumber(s.calls)} calls (${formatNumber(s.terms)} terms)`,
      `store           ${formatNumber(s.storeEntries)} entries`,
      `time            ${compileMs !== null ? `front end ${formatNumber(compileMs)} ms, ` : ''}solve ${formatNumber(s.solveMs)} ms` +
        (s.engine === 'webgpu'
          ? ` (+ setup ${formatNumber(s.setupMs)} ms, readback ${formatNumber(s.readbackMs)} ms)`
          : ''),
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    if (source) {
      const show = (vs: readonly FlowValue[]) => `{${vs.map(flowValueText).join(', ')}}`;
      io.stdout.write('\nflow sets of source variables:\n');
      for (const v of source.variables) io.stdout.write(`  ${v.name}@${v.pos} ← ${show(v.flow)}\n`);
      io.stdout.write('\ncallees of source call sites:\n');
      for (const k of source.callSites)
        io.stdout.write(`  (${k.operator} …)@${k.pos} → ${show(k.callees)}\n`);
    }
    return 0;
  } finally {
    gpu?.destroy();
  }
}
