/**
 * The soundness check: every fact a concrete run records must be in the analysis' result.
 */
import {
  type CompileOptions,
  compileScheme,
  type SourceResults,
  solveCpuSparse,
  sourceResults,
} from '../../src/index';
import { type ConcreteFacts, Interpreter } from './interpreter';

export interface SoundnessReport {
  readonly facts: ConcreteFacts;
  /** Facts of the run that the analysis does not contain. */
  readonly missed: string[];
  readonly results: SourceResults;
}

/** Runs `text` concretely (at most `budget` steps) and analyzes it; lists the missed facts. */
export function checkSoundness(
  text: string,
  file: string,
  budget = 200_000,
  options: CompileOptions = {},
): SoundnessReport {
  const facts = new Interpreter(budget).run(text, file);
  const compiled = compileScheme(text, { ...options, file });
  const results = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
  const callees = new Map<string, Set<string>>();
  for (const s of results.callSites) {
    let set = callees.get(s.pos);
    if (!set) {
      set = new Set();
      callees.set(s.pos, set);
    }
    for (const c of s.callees) if (c.kind === 'lambda') set.add(c.pos);
  }
  const flows = new Map<string, Set<string>>();
  for (const v of results.variables) {
    const key = `${v.name}@${v.pos}`;
    let set = flows.get(key);
    if (!set) {
      set = new Set();
      flows.set(key, set);
    }
    for (const c of v.flow) {
      if (c.kind === 'lambda') set.add(c.pos);
      if (c.kind === 'basic' || c.kind === 'true' || c.kind === 'false') set.add('data');
    }
  }
  const missed: string[] = [];
  for (const fact of facts.calls) {
    const [site, lambda] = fact.split(' → ') as [string, string];
    if (!callees.get(site)?.has(lambda)) missed.push(`call ${fact}`);
  }
  for (const fact of facts.flows) {
    const [variable, lambda] = fact.split(' ← ') as [string, string];
    if (!flows.get(variable)?.has(lambda)) missed.push(`flow ${fact}`);
  }
  return { facts, missed, results };
}
