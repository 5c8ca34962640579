import type { AndersenResult } from '../result/result';
import { type SolveAndersenOptions, solveAndersen } from '../solve';
import { type AliasCheckKind, aliasCheckPasses } from './alias-checks';
import { constructedVtableBounds } from './constructed-vtables';
import { UnknownValueError } from './errors';
import {
  type CallSite,
  type ExtractedModule,
  type ExtractOptions,
  extractConstraints,
  type Refinement,
} from './extract';
import type { IrModule } from './ir';
import { linkModules } from './link';
import { parseLlvmModule } from './parser';
import { findAllocationWrappers } from './wrappers';

/** Options of {@link analyzeModule}. */
export interface AnalyzeModuleOptions extends ExtractOptions, Omit<SolveAndersenOptions, 'hcd'> {
  /** File name for error messages (default `<input>`). */
  readonly file?: string | undefined;
  /**
   * Whether to solve a second time with what the first solution allows (`refinementOf`: heap
   * objects per call site of allocation wrappers, type-tested vtables bounded by the class
   * hierarchy). Default true; false answers from the first solve alone (coarser, faster).
   */
  readonly refine?: boolean | undefined;
}

/** One aliasing-fact check of the module and how it fared. */
export interface AliasCheckResult {
  readonly kind: AliasCheckKind;
  /** The function that makes the check (`main`). */
  readonly function: string;
  /** Source line from debug info, else the line in the `.ll` file. */
  readonly line: number;
  /** Line in the `.ll` file. */
  readonly irLine: number;
  readonly result: 'may' | 'no';
  readonly pass: boolean;
}

/** The checks of a module, as `gpumorph andersen ll --alias-report --json` prints them. */
export interface AliasReport {
  /** Check functions the module declares or defines (`@MAYALIAS`, `@_Z7NOALIASPvS_`, …). */
  readonly checkFunctions: readonly string[];
  readonly checks: readonly AliasCheckResult[];
  readonly passed: number;
  readonly failed: number;
}

/** Name of the unknown object in results (the target of int-to-pointer casts and unknown calls). */
export const UNKNOWN_OBJECT = '<unknown>';

/**
 * Points-to facts of an LLVM module, named as in the IR. Values are `@global` (the address of a
 * global or function) and `%local in @function` (or `pointsTo('%local', '@function')`). Locations
 * are object names with a flattened field offset when it is not 0: `@s+1`, `%buf in @main`,
 * `malloc in @make at line 12`, `<unknown>`.
 *
 * @example
 * ```ts
 * const analysis = await analyzeModule(readFileSync('a.ll', 'utf8'), { file: 'a.ll' });
 * analysis.pointsTo('%p in @main'); // ['%x in @main']
 * analysis.mayAlias('%p in @main', '%q in @main'); // false
 * analysis.callGraph().get('@main'); // ['@helper', '@callback']
 * ```
 */
export class ModuleAnalysis {
  readonly extracted: ExtractedModule;
  readonly result: AndersenResult;
  readonly #objectBase: Uint32Array;

  constructor(extracted: ExtractedModule, result: AndersenResult) {
    this.extracted = extracted;
    this.result = result;
    // Base node of the object each node belongs to (for naming fields).
    const { objectSize, nodeCount } = extracted.program;
    this.#objectBase = new Uint32Array(nodeCount);
    for (let v = 0; v < nodeCount; v++) this.#objectBase[v] = v;
    for (const base of extracted.objectNames.keys()) {
      const size = objectSize[base] as number;
      for (let k = 1; k < size; k++) this.#objectBase[base + k] = base;
    }
  }

  /** The engine that solved the module. */
  get engine(): string {
    return (this.result as AndersenResult & { engine?: string }).engine ?? 'cpu';
  }

  /** The node of a value: `@g`, `%x in @f`, or `%x` with the function as second argument. */
  node(value: string, inFunction?: string): number | undefined {
    const key =
      inFunction === undefined
        ? value
        : `${value} in ${inFunction.startsWith('@') ? inFunction : `@${inFunction}`}`;
    if (this.extracted.valueNodes.has(key)) return this.extracted.valueNodes.get(key);
    if (this.#known(key)) return undefined; // a value that holds no pointer (a constant, an integer)
    throw new UnknownValueError(
      `no value named '${key}' in the module (values are '@global' or '%local in @function')`,
    );
  }

  #known(key: string): boolean {
    return this.extracted.locals.has(key) || this.extracted.functionObjects.has(key);
  }

  /** Name of a location node: its object's name, with `+k` for field k. */
  locationName(node: number): string {
    const base = this.#objectBase[node] as number;
    const name = this.extracted.objectNames.get(base) ?? `node ${base}`;
    return node === base ? name : `${name}+${node - base}`;
  }

  /** Locations the value may point to, sorted by node. */
  pointsTo(value: string, inFunction?: string): string[] {
    const node = this.node(value, inFunction);
    if (node === undefined) return [];
    return Array.from(this.result.pointsTo(node), (o) => this.locationName(o));
  }

  /** Whether a node's set holds a field of the unknown object. */
  holdsUnknown(node: number | undefined): boolean {
    if (node === undefined) return false;
    const { base, size } = this.extracted.unknownObject;
    for (const o of this.result.pointsTo(node)) if (o >= base && o < base + size) return true;
    return false;
  }

  /** May-alias by SVF's rule: the sets intersect, or either holds the unknown object. */
  mayAliasNodes(a: number | undefined, b: number | undefined): boolean {
    if (a === undefined || b === undefined) return false;
    return this.holdsUnknown(a) || this.holdsUnknown(b) || this.result.mayAlias(a, b);
  }

  /** Whether two values may point to the same location. */
  mayAlias(a: string, b: string, inFunction?: string): boolean {
    return this.mayAliasNodes(this.node(a, inFunction), this.node(b, inFunction));
  }

  /** Every call instruction, with its id for {@link callees}. */
  get callSites(): readonly CallSite[] {
    return this.extracted.callSites;
  }

  /** Functions a call may reach: the named one for a direct call; for an indirect call, every function its pointer may hold (and `<unknown>` when it may hold anything). */
  callees(callSite: number | CallSite): string[] {
    const id = typeof callSite === 'number' ? callSite : callSite.id;
    const site = this.extracted.callSites[id];
    if (site === undefined)
      throw new UnknownValueError(`no call site ${id} (the module has ${this.extracted.callSites.length})`);
    if (site.direct !== undefined) return [site.direct];
    if (site.pointerNode === undefined) return [];
    const { isFunction } = this.extracted.program;
    const names: string[] = [];
    for (const o of this.result.pointsTo(site.pointerNode)) {
      if (isFunction[o] === 1) names.push(this.extracted.objectNames.get(o) ?? `node ${o}`);
    }
    if (this.holdsUnknown(site.pointerNode)) names.push(UNKNOWN_OBJECT);
    return names;
  }

  /** Caller → callees (sorted, distinct) over every call of the module, indirect ones resolved. */
  callGraph(): Map<string, string[]> {
    const graph = new Map<string, Set<string>>();
    for (const site of this.extracted.callSites) {
      let callees = graph.get(site.caller);
      if (callees === undefined) {
        callees = new Set();
        graph.set(site.caller, callees);
      }
      for (const callee of this.callees(site)) callees.add(callee);
    }
    return new Map([...graph].map(([caller, callees]) => [caller, [...callees].sort()]));
  }

  /**
   * Points-to sets of the source variables (debug info: compile with `-g`): for each function,
   * variable name and declaration line, the locations the variable may point to, over every IR
   * value it is bound to (SSA values after `mem2reg`, the contents of its `alloca` before).
   * Variables that never hold a pointer are left out.
   *
   * @example
   * ```ts
   * analysis.sourceVariables(); // [{ function: '@main', name: 'p', line: 7, pointsTo: ['@x', '%y in @main'] }]
   * ```
   */
  sourceVariables(): { function: string; name: string; line: number | undefined; pointsTo: string[] }[] {
    const byVariable = new Map<
      string,
      { function: string; name: string; line: number | undefined; nodes: Set<number> }
    >();
    for (const v of this.extracted.sourceVariables) {
      const key = `${v.function} ${v.name} ${v.line}`;
      let entry = byVariable.get(key);
      if (entry === undefined) {
        entry = { function: v.function, name: v.name, line: v.line, nodes: new Set() };
        byVariable.set(key, entry);
      }
      const values = v.indirect ? Array.from(this.result.pointsTo(v.node)) : [v.node];
      for (const value of values) for (const o of this.result.pointsTo(value)) entry.nodes.add(o);
    }
    return [...byVariable.values()]
      .filter((entry) => entry.nodes.size > 0)
      .map(({ nodes, ...where }) => ({
        ...where,
        pointsTo: [...nodes].sort((a, b) => a - b).map((o) => this.locationName(o)),
      }));
  }

  /** Every aliasing-fact call of the module, answered and judged. */
  aliasReport(): AliasReport {
    const checks = this.extracted.checks.map((check): AliasCheckResult => {
      const may = this.mayAliasNodes(check.first, check.second);
      return {
        kind: check.kind,
        function: check.function,
        line: check.line ?? check.irLine,
        irLine: check.irLine,
        result: may ? 'may' : 'no',
        pass: aliasCheckPasses(check.kind, may),
      };
    });
    const passed = checks.filter((c) => c.pass).length;
    return { checkFunctions: this.extracted.checkFunctions, checks, passed, failed: checks.length - passed };
  }
}

/**
 * Parses textual LLVM IR, extracts constraints and solves them: the whole pipeline for a module.
 *
 * @throws {@link LlvmParseError} for IR it cannot read (with file:line:column).
 * @example
 * ```ts
 * const analysis = await analyzeModule(text, { file: 'prog.ll', allocators: ['xmalloc'], engine: 'cpu' });
 * for (const check of analysis.aliasReport().checks) if (!check.pass) console.log(check);
 * ```
 */
export async function analyzeModule(
  text: string,
  options: AnalyzeModuleOptions = {},
): Promise<ModuleAnalysis> {
  return analyzeIr(parseLlvmModule(text, options.file ?? '<input>'), options);
}

/**
 * Extracts and solves a parsed module, then sharpens what the solution allows and solves again
 * (each sharpening is sound whatever the other sites do, so any mix of them is):
 *
 * - a virtual call without a type test whose objects the program built gets the vtables the
 *   program stored into them, and what its overrides' bodies return (`constructed-vtables.ts`):
 *   only a constructor sets a vtable pointer, whatever unknown code does with the object;
 * - a type-tested virtual call whose vtable pointer holds more than the vtables of the tested
 *   class's subtree (the unknown object of an escaped object, unrelated vtables through an
 *   imprecise set) gets that subtree instead: clang's type test guarantees one of them;
 * - an allocation wrapper (`wrappers.ts`), called directly or through a pointer the first solve
 *   resolved to it, gives each call site a heap object of its own instead of one for its body's
 *   `malloc`: nothing but the caller ever sees the block.
 */
async function analyzeIr(module: IrModule, options: AnalyzeModuleOptions): Promise<ModuleAnalysis> {
  const extracted = extractConstraints(module, options);
  const result = await solveAndersen(extracted.program, options);
  const refinement = options.refine === false ? undefined : refinementOf(module, extracted, result);
  if (refinement === undefined) return new ModuleAnalysis(extracted, result);
  const refined = extractConstraints(module, options, refinement);
  return new ModuleAnalysis(refined, await solveAndersen(refined.program, options));
}

/**
 * What a solved extraction of a module lets a second extraction sharpen ({@link analyzeModule}
 * says what and why it is sound), or undefined when nothing.
 *
 * @example
 * ```ts
 * const refinement = refinementOf(module, extracted, await solveAndersen(extracted.program));
 * if (refinement) extractConstraints(module, {}, refinement);
 * ```
 */
export function refinementOf(
  module: IrModule,
  extracted: ExtractedModule,
  result: AndersenResult,
): Refinement | undefined {
  const first = new ModuleAnalysis(extracted, result);
  const hierarchyVtables = new Set<string>();
  for (const test of extracted.typeTests) {
    if (test.compatible.length === 0) continue;
    const compatible = new Set(test.compatible);
    if (result.pointsTo(test.node).some((location) => !compatible.has(location)))
      hierarchyVtables.add(test.vtable);
  }
  const indirect = new Map<string, CallSite>();
  for (const site of extracted.callSites)
    if (site.direct === undefined && site.pointerNode !== undefined)
      indirect.set(`${site.caller} ${site.irLine}`, site);
  const calleesOf = (caller: string, irLine: number) => {
    const site = indirect.get(`${caller} ${irLine}`);
    return site === undefined ? undefined : first.callees(site);
  };
  const allocationWrappers = findAllocationWrappers(module, calleesOf);
  const wrapperCalls = new Map<string, string>();
  for (const [key, site] of indirect) {
    const wrapper = first.callees(site).find((name) => allocationWrappers.has(name));
    if (wrapper !== undefined) wrapperCalls.set(key, wrapper);
  }
  const constructedVtables = constructedVtableBounds(module, extracted, result);
  if (hierarchyVtables.size === 0 && allocationWrappers.size === 0 && constructedVtables.size === 0)
    return undefined;
  return { hierarchyVtables, constructedVtables, allocationWrappers, wrapperCalls };
}

/** One module of a whole program: its file name (for messages) and its text. */
export interface ModuleSource {
  readonly file: string;
  readonly text: string;
}

/**
 * Parses several modules, links them by symbol ({@link linkModules}) and analyzes the whole
 * program: what `gpumorph andersen ll a.ll b.ll …` does.
 *
 * @throws {@link LlvmParseError} for IR it cannot read, or two definitions of one symbol.
 * @example
 * ```ts
 * const analysis = await analyzeModules([
 *   { file: 'main.ll', text: readFileSync('main.ll', 'utf8') },
 *   { file: 'util.ll', text: readFileSync('util.ll', 'utf8') },
 * ]);
 * analysis.callGraph().get('@main'); // ['@helper'] (defined in util.ll)
 * ```
 */
export async function analyzeModules(
  sources: readonly ModuleSource[],
  options: Omit<AnalyzeModuleOptions, 'file'> = {},
): Promise<ModuleAnalysis> {
  return analyzeIr(linkModules(sources.map((source) => parseLlvmModule(source.text, source.file))), options);
}
