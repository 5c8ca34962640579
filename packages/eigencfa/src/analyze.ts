/**
 * Scheme source → flow sets by source variable and callees by source call site.
 * @module
 */
import {
  type CompiledScheme,
  type CompileOptions,
  compileScheme,
  type SourceResults,
  sourceResults,
} from './frontend/compile';
import { type CfaResult, type CfaSolveOptions, type CfaSolver, createCfaSolver } from './solve';

/** Options of {@link analyzeScheme}. */
export interface AnalyzeSchemeOptions extends CfaSolveOptions, CompileOptions {
  /** Called with the solver before it runs (to listen to its events). */
  readonly onSolver?: (solver: CfaSolver) => void;
}

/** The result of {@link analyzeScheme}. */
export interface SchemeAnalysis extends CfaResult {
  readonly compiled: CompiledScheme;
  readonly source: SourceResults;
  /** Time of the front end (read, expand, CPS, numbering), ms. */
  readonly compileMs: number;
}

/**
 * Compiles and analyzes a Scheme program.
 *
 * @example
 * ```ts
 * const a = await analyzeScheme('(define (twice f x) (f (f x))) (twice (lambda (n) n) 1)');
 * a.source.callSites.map((s) => `${s.operator}@${s.pos} → ${s.callees.map(flowValueText)}`);
 * ```
 */
export async function analyzeScheme(
  text: string,
  options: AnalyzeSchemeOptions = {},
): Promise<SchemeAnalysis> {
  const start = performance.now();
  const compiled = compileScheme(text, options);
  const compileMs = performance.now() - start;
  const solver = createCfaSolver(compiled.matrices, options);
  options.onSolver?.(solver);
  const result = await solver.solve();
  return { ...result, compiled, source: sourceResults(compiled, result.store), compileMs };
}
