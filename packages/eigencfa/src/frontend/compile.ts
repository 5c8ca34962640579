/**
 * The front end in one call: Scheme text → look-up vectors plus the map from store rows back to
 * source variables, source lambdas and source call sites.
 * @module
 */
import { formatPos, type SourcePos } from '../errors';
import { arityAccepts, type CfaMatrices } from '../matrix/program';
import type { CfaStore } from '../store';
import type { OutsideModel } from './core';
import { type CpsLam, type CpsOptions, type CpsOrigin, convertToCps, numberProgram } from './cps';
import { expandProgram, type SourceCallSite, type SourceVar } from './expand';
import type { LibraryResolver } from './libraries';

/** A source variable and the store row that holds its flow set. */
export interface SourceVariableRow {
  readonly variable: SourceVar;
  readonly row: number;
}

/** A source call site and the binary-CPS call where its operator is applied. */
export interface SourceCallRow {
  readonly site: SourceCallSite;
  /** The call number; its function's store row is `matrices.fun[call]`. */
  readonly call: number;
}

/** What {@link compileScheme} returns. */
export interface CompiledScheme {
  readonly file: string;
  readonly matrices: CfaMatrices;
  /** Origin of every lambda, by number. */
  readonly origins: readonly CpsOrigin[];
  readonly variables: readonly SourceVariableRow[];
  readonly callSites: readonly SourceCallRow[];
  /** Uses of what the analysis does not model (`eval`, `load`, …): flows may be missing. */
  readonly unknown: readonly OutsideModel[];
}

/** Options of {@link compileScheme}. */
export interface CompileOptions extends CpsOptions {
  /** Named in positions and errors. */
  readonly file?: string;
  /** Finds user libraries that `import` names and files that `include` names (none by default). */
  readonly resolveLibrary?: LibraryResolver;
}

/**
 * Compiles a Scheme program to EigenCFA's look-up vectors.
 *
 * @example
 * ```ts
 * const compiled = compileScheme('(define (id x) x) (id id)', { file: 'id.scm' });
 * compiled.matrices.lams; // number of binary-CPS lambdas
 * compiled.variables.map((v) => v.variable.name); // ['id', 'x']
 * ```
 */
export function compileScheme(text: string, options: CompileOptions = {}): CompiledScheme {
  const file = options.file ?? '<input>';
  const expanded = expandProgram(
    text,
    file,
    options.resolveLibrary ? { resolveLibrary: options.resolveLibrary } : {},
  );
  const cps = convertToCps(expanded.body, options);
  const numbered = numberProgram(cps);
  const L = numbered.matrices.lams;
  const variables: SourceVariableRow[] = [];
  for (const v of expanded.variables) {
    if (v.kind === 'synthetic') continue;
    const c = cps.sourceVars.get(v);
    if (!c || c.binder === null || c.binder.id < 0) continue; // bound but never used in the output
    variables.push({ variable: v, row: (c.index === 0 ? L : 2 * L) + c.binder.id });
  }
  const callSites: SourceCallRow[] = [];
  for (const c of numbered.calls) if (c.site) callSites.push({ site: c.site, call: c.id });
  callSites.sort((a, b) => a.site.id - b.site.id);
  return {
    file,
    matrices: numbered.matrices,
    origins: numbered.lambdas.map((l: CpsLam) => l.origin),
    variables,
    callSites,
    unknown: expanded.unknown,
  };
}

/** One abstract value in a source-level flow set. */
export type FlowValue =
  | { readonly kind: 'lambda'; readonly lambda: number; readonly pos: string; readonly name?: string }
  | { readonly kind: 'primitive'; readonly lambda: number; readonly name: string }
  | { readonly kind: 'true' | 'false'; readonly lambda: number; readonly pos: string }
  | { readonly kind: 'basic'; readonly lambda: number }
  | { readonly kind: 'continuation'; readonly lambda: number; readonly pos: string }
  | { readonly kind: 'internal'; readonly lambda: number; readonly origin: string };

/**
 * Names a lambda by its origin: a source lambda, a Church boolean, the basic value, a reified
 * continuation, a primitive, or an internal lambda of the encodings.
 *
 * @example
 * ```ts
 * describeLambda(compiled.origins, 11); // { kind: 'lambda', lambda: 11, pos: 'id.scm:1:17' }
 * ```
 */
export function describeLambda(origins: readonly CpsOrigin[], l: number): FlowValue {
  const o = origins[l];
  if (o === undefined) return { kind: 'internal', lambda: l, origin: 'unknown' };
  switch (o.kind) {
    case 'lambda':
      return o.name !== undefined
        ? { kind: 'lambda', lambda: l, pos: formatPos(o.pos), name: o.name }
        : { kind: 'lambda', lambda: l, pos: formatPos(o.pos) };
    case 'primitive':
      return { kind: 'primitive', lambda: l, name: o.name };
    case 'true':
    case 'false':
      return { kind: o.kind, lambda: l, pos: formatPos(o.pos) };
    case 'basic':
      return { kind: 'basic', lambda: l };
    case 'continuation':
      return { kind: 'continuation', lambda: l, pos: formatPos(o.pos) };
    case 'curried':
      return {
        kind: 'internal',
        lambda: l,
        origin: `curried ${o.of.kind === 'lambda' ? formatPos(o.of.pos) : o.of.kind}`,
      };
    default:
      return { kind: 'internal', lambda: l, origin: o.kind };
  }
}

/**
 * Short text of a flow value: `λ(fact)@f.scm:3:5`, `#t@f.scm:1:2`, `basic`, `k@…`, `prim car`.
 *
 * @example
 * ```ts
 * flowValueText({ kind: 'lambda', lambda: 3, pos: 'f.scm:3:5', name: 'fact' }); // 'λ(fact)@f.scm:3:5'
 * ```
 */
export function flowValueText(v: FlowValue): string {
  switch (v.kind) {
    case 'lambda':
      return `λ${v.name !== undefined ? `(${v.name})` : ''}@${v.pos}`;
    case 'primitive':
      return `prim ${v.name}`;
    case 'true':
      return `#t@${v.pos}`;
    case 'false':
      return `#f@${v.pos}`;
    case 'basic':
      return 'basic';
    case 'continuation':
      return `k@${v.pos}`;
    case 'internal':
      return `λ${v.lambda}(${v.origin})`;
  }
}

/** The source-level results of an analysis. */
export interface SourceResults {
  readonly variables: readonly {
    readonly name: string;
    readonly pos: string;
    readonly row: number;
    readonly flow: readonly FlowValue[];
  }[];
  readonly callSites: readonly {
    readonly operator: string;
    readonly pos: string;
    readonly call: number;
    readonly callees: readonly FlowValue[];
  }[];
  /**
   * Empty when the result is complete; else each use of a procedure outside the model
   * (`eval at f.scm:3:1`), after which any call site and variable may miss flows.
   */
  readonly unknown: readonly string[];
}

/**
 * The values once each: a procedure with a rest list is two binary-CPS lambdas of one origin (its
 * body step and its absorbing step), listed once.
 */
function distinct(values: FlowValue[]): FlowValue[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const text = flowValueText(v);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/**
 * Maps a fixpoint back to the source: the flow set of every source variable and the callees of
 * every source call site (internal lambdas of the encodings are left out of callees).
 *
 * @example
 * ```ts
 * const compiled = compileScheme('(define (id x) x) (id id)');
 * const { store } = solveCpuSparse(compiled.matrices);
 * sourceResults(compiled, store).variables[1].flow; // x ← [λ(id)@…]
 * ```
 */
export function sourceResults(compiled: CompiledScheme, store: CfaStore): SourceResults {
  const describe = (l: number) => describeLambda(compiled.origins, l);
  const pos = (p: SourcePos) => formatPos(p);
  const arity = compiled.matrices.arity;
  return {
    variables: compiled.variables.map(({ variable, row }) => ({
      name: variable.name,
      pos: pos(variable.pos),
      row,
      flow: distinct(Array.from(store.row(row), describe)),
    })),
    callSites: compiled.callSites.map(({ site, call }) => ({
      operator: site.operator,
      pos: pos(site.pos),
      call,
      // With arity-aware flows, a lambda whose arity the call does not accept is not applied there.
      callees: distinct(
        Array.from(store.row(compiled.matrices.fun[call] as number))
          .filter((l) => !arity || arityAccepts(arity.lambdas[l] as number, arity.calls[call] as number))
          .map(describe)
          .filter((v) => v.kind !== 'internal'),
      ),
    })),
    unknown: compiled.unknown.map((u) => `${u.name} at ${pos(u.pos)}`),
  };
}
