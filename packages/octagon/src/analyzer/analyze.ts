import { EventEmitter } from 'events';
// A namespace import: typed-emitter is CommonJS with `export default`, which a default import
// mistypes for users on `moduleResolution: node16/nodenext` (the interface sits under `.default`).
import type * as TypedEmitter from 'typed-emitter';
import { assignTree, guardTree, linearForm, type TreeExpr } from '../dbm/apron/tree';
import { toRational } from '../dbm/constraints';
import { createOctagonDomain, type OctagonDomain } from '../dbm/domain';
import type { Octagon, WideningOptions } from '../dbm/octagon';
import { OctagonAbortedError, OctagonParseError, type SourcePosition } from '../errors';
import { createOctagonGpu, type OctagonGpu } from '../gpu/engine';
import type { Rational } from '../numbers/rational';
import { backwardFrom, type ForwardFacts } from './backward';
import { divides, ScopeExpressions, TRUNCATE, thresholdsOf } from './expressions';
import { add, integral, konst, type Lin, negate, scale, show, toLinear } from './linear';
import {
  type Cond,
  type Expr,
  type Procedure,
  type Program,
  parseProgram,
  type Stmt,
  type VarType,
} from './parse';
import { type ProgramTypes, programTypes, type ScopeTypes, typeOf } from './typing';

/**
 * Widening and narrowing as Miné defines them: the left argument (the previous iterate) as built,
 * so the iterates stabilise, and thresholds that bound the program's values (`x ≤ t`, not `2·x ≤ t`).
 */
const MINE_WIDENING: WideningOptions = { left: 'raw', thresholds: 'bound' };

import type {
  AnalysisResult,
  AnalysisStatistics,
  AnalyzeOptions,
  AssertionResult,
  BackwardResult,
  ProcedureResult,
  ProgramAnalyzerEvents,
  ProgramPoint,
} from './types';

export type {
  AnalysisResult,
  AnalysisStatistics,
  AnalyzeOptions,
  AnalyzerEngine,
  AnalyzerIterationEvent,
  AnalyzerPhase,
  AssertionResult,
  BackwardResult,
  ProcedureResult,
  ProgramAnalyzerEvents,
  ProgramPoint,
} from './types';

type Oct = Octagon<unknown>;

interface Backend {
  readonly domain: OctagonDomain<unknown>;
  /** The octagon with its closure computed (on the GPU for `webgpu`). */
  closed(o: Oct): Promise<Oct>;
  join(a: Oct, b: Oct): Promise<Oct>;
}

/**
 * Analyzes a program of the tiny language over integer octagons (mixed integer/real ones when it
 * declares real variables): forward abstract interpretation with widening at loop heads (after
 * `wideningDelay` joins, with thresholds), then narrowing. Reports the invariant before each
 * statement, at each loop head and at the end, and which assertions and array-bound checks were
 * proved (an assertion is proved when the state meet its negation is empty, or when the bounds of
 * its comparisons on the state decide it).
 *
 * @example
 * ```ts
 * const r = await analyzeProgram('i = 0; while (i < 10) { i = i + 1; } assert(i == 10);', { engine: 'f64' });
 * r.assertions[0]?.proved; // true
 * ```
 */
export function analyzeProgram(
  source: string | Program,
  options: AnalyzeOptions & { file?: string } = {},
): Promise<AnalysisResult> {
  return createProgramAnalyzer(source, options).analyze();
}

/**
 * An analysis of one program as a typed event emitter (the events of every analysis: `phase`,
 * `iteration` per loop-head iteration, `done`); {@link analyzeProgram} in one call.
 *
 * @example
 * ```ts
 * const analyzer = createProgramAnalyzer('i = 0; while (i < 10) { i = i + 1; }');
 * analyzer.on('iteration', ({ round, loop }) => console.error(`${round}: loop at line ${loop.line}`));
 * const result = await analyzer.analyze();
 * ```
 */
export class ProgramAnalyzer extends (EventEmitter as new () => TypedEmitter.default<ProgramAnalyzerEvents>) {
  readonly #source: string | Program;
  readonly #options: AnalyzeOptions & { file?: string };
  #started = false;

  constructor(source: string | Program, options: AnalyzeOptions & { file?: string } = {}) {
    super();
    this.#source = source;
    this.#options = options;
    if (options.onPhase) this.on('phase', options.onPhase);
    if (options.onIteration) this.on('iteration', options.onIteration);
  }

  /** Runs the analysis; may be called once. Rejects with {@link OctagonAbortedError} when cancelled. */
  async analyze(): Promise<AnalysisResult> {
    if (this.#started)
      throw new Error('ProgramAnalyzer.analyze() may be called once; create another analyzer');
    this.#started = true;
    return runAnalysis(this.#source, this.#options, this);
  }
}

/**
 * A new {@link ProgramAnalyzer}.
 *
 * @example
 * ```ts
 * const { assertions } = await createProgramAnalyzer('x = 1; assert(x == 1);').analyze();
 * ```
 */
export function createProgramAnalyzer(
  source: string | Program,
  options: AnalyzeOptions & { file?: string } = {},
): ProgramAnalyzer {
  return new ProgramAnalyzer(source, options);
}

async function runAnalysis(
  source: string | Program,
  options: AnalyzeOptions & { file?: string },
  events: ProgramAnalyzer,
): Promise<AnalysisResult> {
  const start = performance.now();
  events.emit('phase', 'setup', 0);
  const program = typeof source === 'string' ? parseProgram(source, options.file ?? '<input>') : source;
  const types = programTypes(program);
  // integer octagons, or mixed ones (real octagons whose integer variables are flagged) with reals
  const kind = types.anyReal ? 'real' : 'int';
  const engine = options.engine ?? 'f64';
  let gpu: OctagonGpu | null = null;
  let backend: Backend;
  if (engine === 'webgpu') {
    const context = options.gpu ?? options.ctx;
    if (!context)
      throw new OctagonParseError(
        { file: program.file, line: 1, column: 1 },
        'the webgpu engine needs a GPU context',
      );
    const g = createOctagonGpu(context);
    gpu = g;
    backend = {
      domain: createOctagonDomain({ engine: 'f64', kind }) as OctagonDomain<unknown>,
      closed: async (o) => (o.isClosed ? o : ((await g.close(o as Octagon<number>)) as Oct)),
      join: async (a, b) => (await g.elementwise('join', a as Octagon<number>, b as Octagon<number>)) as Oct,
    };
  } else {
    const domain = (
      engine === 'exact'
        ? createOctagonDomain({ engine: 'exact', kind })
        : createOctagonDomain({ engine: 'f64', kind })
    ) as OctagonDomain<unknown>;
    backend = { domain, closed: async (o) => o.close(), join: async (a, b) => a.join(b) };
  }
  // Count the backend's work for the statistics.
  const counted = { closures: 0, joins: 0 };
  const inner = backend;
  backend = {
    domain: inner.domain,
    closed: (o) => {
      if (!o.isClosed) counted.closures++;
      return inner.closed(o);
    },
    join: (a, b) => {
      counted.joins++;
      return inner.join(a, b);
    },
  };
  try {
    const procs = await summarize(program, backend, options, types);
    const scope = { body: program.body, procedure: null, procs: procs.procs, types };
    const a = new Analyzer(program, backend, options, scope, (loop) =>
      events.emit('iteration', { round: a.loopIterations, loop, elapsedMs: performance.now() - start }),
    );
    events.emit('phase', 'analyze', 0);
    await a.run();
    const backward = options.backward ? await a.backward() : undefined;
    const timeMs = performance.now() - start;
    const statistics: AnalysisStatistics = {
      engine,
      variables: a.names.length + procs.results.reduce((k, p) => k + p.variables.length, 0),
      loopIterations: a.loopIterations + procs.loopIterations,
      closures: counted.closures,
      joins: counted.joins,
    };
    events.emit('phase', 'done', a.loopIterations);
    events.emit('done', statistics);
    return {
      file: program.file,
      engine,
      variables: a.names,
      points: [...a.points, ...procs.points],
      assertions: [...a.assertions, ...procs.assertions],
      procedures: procs.results,
      ...(backward ? { backward } : {}),
      timeMs,
      timings: { totalMs: timeMs, setupMs: 0, solveMs: timeMs, readbackMs: 0 },
      statistics,
    };
  } finally {
    gpu?.destroy();
  }
}

/** The procedures of a program and their summaries (over `p@in…, @ret`), shared by every scope. */
interface ProcTable {
  readonly byName: Map<string, Procedure>;
  readonly summaries: Map<string, Oct>;
}

/** What the analyzer walks: the main program, or a procedure's body. */
interface Scope {
  readonly body: readonly Stmt[];
  readonly procedure: Procedure | null;
  readonly procs: ProcTable;
  readonly types: ProgramTypes;
}

/** `o` with the variables of `types` that are integers flagged so (a no-op on integer octagons). */
function typed(o: Oct, types: readonly VarType[]): Oct {
  if (o.kind === 'int') return o;
  return o.withIntegerVars(types.flatMap((t, v) => (t === 'int' ? [v] : [])));
}

/** The types of a procedure's summary variables: each parameter at entry, then the return value. */
function summaryTypes(p: Procedure, types: ProgramTypes): VarType[] {
  const t = types.scopes.get(p.name) as ScopeTypes;
  return [...p.params.map((q) => t.get(q) ?? 'int'), t.get('@ret') ?? 'int'];
}

/**
 * The procedures' summaries, summary-based and context-insensitive: each summary relates a
 * procedure's parameters at entry (`p@in`) and its return value (`@ret`) for every call. Starting
 * from ⊥, every procedure's body is analyzed in turn from ⊤ (its calls, recursive ones included,
 * read the current summaries) until no summary grows; a summary is joined for the first
 * `wideningDelay` rounds, then widened (thresholds: the body's constants), so recursion
 * terminates. Then each body is analyzed once more, recording its invariants and checks.
 */
async function summarize(program: Program, be: Backend, options: AnalyzeOptions, types: ProgramTypes) {
  const procs: ProcTable = { byName: new Map(), summaries: new Map() };
  for (const p of program.procedures) {
    procs.byName.set(p.name, p);
    procs.summaries.set(p.name, typed(be.domain.bottom(p.params.length + 1), summaryTypes(p, types)));
  }
  const rounds = new Map(program.procedures.map((p) => [p.name, 0]));
  let loopIterations = 0;
  const delay = options.wideningDelay ?? 2;
  for (let round = 0, changed = true; changed; round++) {
    changed = false;
    for (const p of program.procedures) {
      const a = new Analyzer(program, be, options, { body: p.body, procedure: p, procs, types });
      const next = await a.summary(false);
      loopIterations += a.loopIterations;
      const old = procs.summaries.get(p.name) as Oct;
      if (next.includedIn(old)) continue;
      changed = true;
      rounds.set(p.name, (rounds.get(p.name) ?? 0) + 1);
      const grown = await be.closed(await be.join(old, next));
      procs.summaries.set(p.name, round < delay ? grown : old.widen(grown, a.thresholds, MINE_WIDENING));
    }
    if (round > 1000) throw new Error('no fixpoint of the procedure summaries after 1000 rounds');
  }
  const points: ProgramPoint[] = [];
  const assertions: AssertionResult[] = [];
  const results: ProcedureResult[] = [];
  for (const p of program.procedures) {
    const a = new Analyzer(program, be, options, { body: p.body, procedure: p, procs, types });
    const summary = await a.summary(true);
    loopIterations += a.loopIterations;
    points.push(...a.points);
    assertions.push(...a.assertions);
    results.push({
      name: p.name,
      variables: a.names,
      summary: summary.toString([...p.params.map((q) => `${q}@in`), '@ret']),
      rounds: rounds.get(p.name) ?? 0,
    });
  }
  return { procs, points, assertions, results, loopIterations };
}

class Analyzer {
  readonly names: string[] = [];
  readonly #index = new Map<string, number>();
  readonly #arrays = new Map<string, number>();
  readonly points: ProgramPoint[] = [];
  readonly assertions: AssertionResult[] = [];
  readonly #thresholds: Rational[];
  readonly #delay: number;
  readonly #narrowing: number;
  readonly #signal: AbortSignal | undefined;
  /** Iterations of loop heads so far (see {@link AnalysisStatistics.loopIterations}). */
  loopIterations = 0;
  #lastYield = performance.now();

  readonly #scope: Scope;
  /** The types of this scope's variables, by name. */
  readonly #types: ScopeTypes;
  /** The type of each variable, by index. */
  readonly #flags: VarType[];
  /** This scope's expressions. */
  readonly #x: ScopeExpressions;
  /** The closed forward state before each statement (loop head for `while`), from the recording pass. */
  readonly #before = new Map<Stmt, Oct>();
  /** A procedure's returns so far (joined), null before the first. */
  #exit: Oct | null = null;

  constructor(
    readonly program: Program,
    readonly be: Backend,
    options: AnalyzeOptions,
    scope: Scope,
    /** Called after each loop-head iteration, with the loop. */
    readonly onLoopIteration: (loop: SourcePosition) => void = () => {},
  ) {
    this.#scope = scope;
    this.#types = scope.types.scopes.get(scope.procedure?.name ?? null) ?? new Map();
    for (const p of scope.procedure?.params ?? []) this.#var(p);
    const constants = new Set<bigint>([0n, 1n, -1n]);
    const decimals = new Map<string, Rational>();
    const visitExpr = (e: Expr): void => {
      if (e.kind === 'num') for (const d of [-1n, 0n, 1n]) constants.add(e.value + d);
      else if (e.kind === 'decimal') decimals.set(e.value.toString(), e.value);
      else if (e.kind === 'var') this.#var(e.name);
      else if (e.kind === 'index') visitExpr(e.index);
      else if (e.kind === 'neg') visitExpr(e.arg);
      else if (e.kind === 'bin') {
        visitExpr(e.left);
        visitExpr(e.right);
      }
    };
    const visitCond = (c: Cond): void => {
      if (c.kind === 'rel') {
        visitExpr(c.left);
        visitExpr(c.right);
      } else if (c.kind === 'and' || c.kind === 'or') {
        visitCond(c.left);
        visitCond(c.right);
      } else if (c.kind === 'not') visitCond(c.arg);
    };
    const visit = (ss: readonly Stmt[]): void => {
      for (const s of ss) {
        if (s.kind === 'var') for (const n of s.names) this.#var(n);
        else if (s.kind === 'array') {
          this.#arrays.set(s.name, this.#var(`${s.name}.length`));
          visitExpr(s.length);
        } else if (s.kind === 'assign') {
          this.#var(s.target);
          visitExpr(s.value);
        } else if (s.kind === 'havoc') this.#var(s.target);
        else if (s.kind === 'store') {
          visitExpr(s.index);
          visitExpr(s.value);
        } else if (s.kind === 'if') {
          visitCond(s.cond);
          visit(s.then);
          visit(s.else);
        } else if (s.kind === 'while') {
          visitCond(s.cond);
          visit(s.body);
        } else if (s.kind === 'assert' || s.kind === 'assume') visitCond(s.cond);
        else if (s.kind === 'call') {
          for (const a of s.args) visitExpr(a);
          if (s.target !== null) this.#var(s.target);
        } else if (s.kind === 'return' && s.value) visitExpr(s.value);
      }
    };
    visit(scope.body);
    // a procedure's hidden variables: each parameter's value at entry, then the return value
    for (const p of scope.procedure?.params ?? []) this.#var(`${p}@in`);
    if (scope.procedure) this.#var('@ret');
    this.#flags = this.names.map((name) => this.#types.get(name) ?? 'int');
    this.#x = new ScopeExpressions(this.#index, this.#types, this.#flags);
    this.#thresholds = options.thresholds === false ? [] : thresholdsOf(constants, [...decimals.values()]);
    this.#delay = options.wideningDelay ?? 2;
    this.#narrowing = options.narrowing ?? 2;
    this.#signal = options.signal;
  }

  #var(name: string): number {
    let i = this.#index.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.#index.set(name, i);
    }
    return i;
  }

  /** No constraint over this scope's variables (its integer ones flagged so). */
  #top(): Oct {
    return typed(this.be.domain.top(this.names.length), this.#flags);
  }

  /** The empty octagon over this scope's variables. */
  #bottom(): Oct {
    return typed(this.be.domain.bottom(this.names.length), this.#flags);
  }

  async run(): Promise<void> {
    const end = await this.#block(this.program.body, this.#top(), true);
    const last = this.program.body.at(-1);
    const pos = last
      ? { ...last.pos, line: last.pos.line + 1, column: 1 }
      : { file: this.program.file, line: 1, column: 1 };
    this.#record(pos, 'end', end);
  }

  /**
   * A procedure's summary (over `p@in…, @ret`): its body analyzed from ⊤ with each parameter equal
   * to its `@in` copy; the returns joined with the end of the body (where `@ret` is unknown). With
   * `rec`, records the invariants, the checks and the summary (as a point over all variables).
   */
  async summary(rec: boolean): Promise<Oct> {
    const p = this.#scope.procedure as Procedure;
    const k = p.params.length;
    const n = this.names.length;
    let s = this.#top();
    for (let i = 0; i < k; i++) s = s.assignVar(n - 1 - k + i, 1, i, 0);
    const end = await this.#block(p.body, s, rec);
    const exit = await this.be.closed(this.#exit ? await this.be.join(this.#exit, end) : end);
    const keep = new Set([...Array(k + 1).keys()].map((i) => n - 1 - k + i));
    const summary = exit.removeDimensions([...Array(n).keys()].filter((v) => !keep.has(v)));
    if (rec) this.#record(p.pos, `summary of ${p.name}(${p.params.join(', ')})`, this.#embed(summary, n));
    return summary;
  }

  /**
   * A summary (over `k` parameters at entry and the return value) as the last `k + 1` of `n`
   * variables, the first ones this scope's.
   */
  #embed(summary: Oct, n: number): Oct {
    const k1 = summary.dim;
    const perm = [...Array(n).keys()].map((v) => (v < k1 ? v + n - k1 : v - k1));
    return typed(summary.addDimensions(n - k1).permute(perm), this.#flags.slice(0, n - k1));
  }

  /** `target := proc(args)` (or the call alone): the arguments bound to the summary, which is met. */
  async #call(s0: Oct, proc: string, args: readonly Expr[], target: string | null): Promise<Oct> {
    const summary = this.#scope.procs.summaries.get(proc) as Oct;
    const callee = summaryTypes(this.#scope.procs.byName.get(proc) as Procedure, this.#scope.types);
    const n = this.names.length;
    const k = args.length;
    // the formals at entry, then the return value
    let s = typed(s0.addDimensions(k + 1), [...this.#flags, ...callee]);
    for (let i = 0; i < k; i++)
      s = this.#assign(await this.be.closed(s), n + i, args[i] as Expr, callee[i] as VarType);
    s = await this.be.closed(s.meet(this.#embed(summary, n + k + 1)));
    if (target !== null) {
      const x = this.#index.get(target) as number;
      s =
        this.#flags[x] === 'int' && callee[k] === 'real'
          ? assignTree(s, x, { op: 'cast', arg: { op: 'var', v: n + k }, round: TRUNCATE })
          : s.assignVar(x, 1, n + k, 0);
    }
    return (await this.be.closed(s)).removeDimensions([...Array(k + 1).keys()].map((i) => n + i));
  }

  #record(pos: SourcePosition, label: string, s: Oct): void {
    const box = s.toBox();
    const procedure = this.#scope.procedure?.name ?? null;
    this.points.push({
      pos,
      label: procedure ? `in ${procedure}: ${label}` : label,
      invariant: s.toString(this.names),
      box: box ? box.map((b) => ({ lo: b.lo?.toString() ?? null, hi: b.hi?.toString() ?? null })) : null,
      procedure,
      // constants as strings ("3", "-1/2"): the point is plain JSON (the CLI prints it)
      constraints: s.toConstraints()?.map((c) => ({ ...c, c: toRational(c.c).toString() })) ?? null,
    });
  }

  async #block(ss: readonly Stmt[], s0: Oct, rec: boolean): Promise<Oct> {
    let s = s0;
    for (const st of ss) s = await this.#stmt(st, s, rec);
    return s;
  }

  /** Throws when the signal was aborted; yields to the event loop every 50 ms so that it can be. */
  async #checkAborted(): Promise<void> {
    if (!this.#signal) return;
    if (performance.now() - this.#lastYield > 50) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.#lastYield = performance.now();
    }
    if (this.#signal.aborted)
      throw new OctagonAbortedError('analysis cancelled', { cause: this.#signal.reason });
  }

  async #stmt(st: Stmt, s0: Oct, rec: boolean): Promise<Oct> {
    await this.#checkAborted();
    let s = s0;
    if (rec && st.kind !== 'while') {
      s = await this.be.closed(s);
      this.#record(st.pos, `before ${st.text}`, s);
      this.#before.set(st, s);
    }
    switch (st.kind) {
      case 'var':
      case 'skip':
        return s;
      case 'call':
        for (const a of st.args) s = await this.#checkExpr(a, s, rec);
        return this.#call(await this.be.closed(s), st.proc, st.args, st.target);
      case 'return': {
        if (st.value) {
          s = await this.#checkExpr(st.value, s, rec);
          s = this.#assign(await this.be.closed(s), this.#index.get('@ret') as number, st.value);
        }
        s = await this.be.closed(s);
        this.#exit = this.#exit ? await this.be.join(this.#exit, s) : s;
        return this.#bottom();
      }
      case 'array': {
        s = await this.be.closed(s);
        return this.#assign(s, this.#arrays.get(st.name) as number, st.length);
      }
      case 'assign':
        s = await this.#checkExpr(st.value, s, rec);
        return this.#assign(await this.be.closed(s), this.#index.get(st.target) as number, st.value);
      case 'havoc':
        s = await this.be.closed(s);
        return s.assignInterval(this.#index.get(st.target) as number, st.lo, st.hi);
      case 'store': {
        s = await this.#checkExpr(st.index, s, rec);
        s = await this.#checkExpr(st.value, s, rec);
        return this.#checkBounds(st.array, st.index, st.pos, s, rec);
      }
      case 'assume':
        return this.#guard(st.cond, s);
      case 'assert': {
        const bad = await this.#guard({ kind: 'not', arg: st.cond }, s);
        // the negation empty, or (over reals, where `<` is kept as `≤`) the bounds decide
        const proved =
          (await this.be.closed(bad)).isEmpty() || this.#x.holds(st.cond, await this.be.closed(s));
        if (rec) this.assertions.push({ pos: st.pos, text: st.text, kind: 'assert', proved });
        return this.#guard(st.cond, s);
      }
      case 'if': {
        const a = await this.#block(st.then, await this.#guard(st.cond, s), rec);
        const b = await this.#block(st.else, await this.#guard({ kind: 'not', arg: st.cond }, s), rec);
        return this.be.join(a, b);
      }
      case 'while': {
        const entry = s;
        let head = await this.be.closed(entry);
        const step = async (h: Oct) =>
          this.be.join(entry, await this.#block(st.body, await this.#guard(st.cond, h), false));
        for (let iter = 0; ; iter++) {
          await this.#checkAborted();
          this.loopIterations++;
          const next = await this.be.closed(await step(head));
          this.onLoopIteration(st.pos);
          if (next.includedIn(head)) break;
          head =
            iter < this.#delay
              ? await this.be.join(head, next)
              : head.widen(await this.be.closed(next), this.#thresholds, MINE_WIDENING);
          if (iter > 1000)
            throw new Error(`no fixpoint at ${st.pos.line}:${st.pos.column} after 1000 iterations`);
        }
        for (let k = 0; k < this.#narrowing; k++) {
          const next = await this.be.closed(await step(head));
          head = await this.be.closed(head.narrow(next, MINE_WIDENING));
        }
        head = await this.be.closed(head);
        if (rec) {
          this.#record(st.pos, `loop head of ${st.text}`, head);
          this.#before.set(st, head);
          await this.#block(st.body, await this.#guard(st.cond, head), true);
        }
        return this.#guard({ kind: 'not', arg: st.cond }, head);
      }
    }
  }

  /** Checks the array accesses inside an expression. */
  async #checkExpr(e: Expr, s: Oct, rec: boolean): Promise<Oct> {
    if (e.kind === 'index') {
      const s1 = await this.#checkExpr(e.index, s, rec);
      return this.#checkBounds(e.array, e.index, e.pos, s1, rec);
    }
    if (e.kind === 'neg') return this.#checkExpr(e.arg, s, rec);
    if (e.kind === 'bin') {
      const after = await this.#checkExpr(e.right, await this.#checkExpr(e.left, s, rec), rec);
      if (rec && (e.op === '/' || e.op === '%') && !nonzeroConstant(e.right)) {
        // A division check: proved when no state of the octagon has the divisor 0. (The state
        // after it is not narrowed: an octagon cannot say `≠ 0`.)
        const zero: Cond = {
          kind: 'rel',
          op: '==',
          left: e.right,
          right: { kind: 'num', value: 0n, pos: e.pos },
        };
        const proved = (await this.be.closed(await this.#guard(zero, after))).isEmpty();
        this.assertions.push({ pos: e.pos, text: `${show(e.right)} != 0`, kind: 'division', proved });
      }
      return after;
    }
    return s;
  }

  async #checkBounds(array: string, index: Expr, pos: SourcePosition, s: Oct, rec: boolean): Promise<Oct> {
    const len = this.#arrays.get(array);
    if (len === undefined) throw new OctagonParseError(pos, `'${array}' is not a declared array`);
    const ok: Cond = {
      kind: 'and',
      left: { kind: 'rel', op: '<=', left: { kind: 'num', value: 0n, pos }, right: index },
      right: { kind: 'rel', op: '<', left: index, right: { kind: 'var', name: `${array}.length`, pos } },
    };
    const bad = await this.#guard({ kind: 'not', arg: ok }, s);
    const proved = (await this.be.closed(bad)).isEmpty();
    if (rec)
      this.assertions.push({ pos, text: `0 <= ${show(index)} < ${array}.length`, kind: 'bounds', proved });
    return this.#guard(ok, s);
  }

  /**
   * `x := e`: a linear form exactly; an integer expression of `+ − ×` by its interval on the box;
   * else (reals, `/`, `%`) APRON's tree expression, quasi-linearised, `/` and `%` rounded by the
   * types. A real value assigned to an integer variable is truncated towards zero, as C converts.
   */
  #assign(s: Oct, x: number, e: Expr, type: VarType = this.#flags[x] as VarType): Oct {
    const real = typeOf(e, this.#types) === 'real';
    const truncate = type === 'int' && real;
    const lin = truncate ? null : this.#x.lin(e);
    if (lin) return s.assignLinear(x, toLinear(lin));
    if (!real && !divides(e)) {
      const iv = this.#x.interval(e, s);
      return s.assignInterval(x, iv.lo, iv.hi);
    }
    const t = this.#x.tree(e);
    return assignTree(s, x, truncate ? { op: 'cast', arg: t, round: TRUNCATE } : t);
  }

  async #guard(c: Cond, s0: Oct): Promise<Oct> {
    switch (c.kind) {
      case 'const':
        return c.value ? s0 : this.#bottom();
      case 'unknown':
        return s0;
      case 'and':
        return this.#guard(c.right, await this.#guard(c.left, s0));
      case 'or':
        return this.be.join(await this.#guard(c.left, s0), await this.#guard(c.right, s0));
      case 'not':
        return this.#guard(negate(c.arg), s0);
      case 'rel': {
        const l = this.#x.lin(c.left);
        const r = this.#x.lin(c.right);
        const s = await this.be.closed(s0);
        if (!l || !r) return this.#guardTree(c, s);
        const d = add(l, scale(r, -1n)); // left − right
        const le = (f: Lin) => s.guardLinear(toLinear(f)); // f ≤ 0
        const nd = scale(d, -1n);
        // over integers `d < 0` is `d + 1 ≤ 0`; over reals the octagon keeps `d ≤ 0` (sound)
        const one = integral(d, (v) => this.#flags[v] === 'int') ? konst(1n) : null;
        const strict = (f: Lin) => le(one ? add(f, one) : f);
        switch (c.op) {
          case '<=':
            return le(d);
          case '<':
            return strict(d);
          case '>=':
            return le(nd);
          case '>':
            return strict(nd);
          case '==':
            return (await this.be.closed(le(d))).guardLinear(toLinear(nd));
          case '!=':
            return one ? this.be.join(strict(d), strict(nd)) : s;
        }
      }
    }
  }

  /** A comparison of non-linear sides, through their tree expressions (APRON's `meet_tcons`). */
  #guardTree(c: Cond & { kind: 'rel' }, s: Oct): Promise<Oct> | Oct {
    const d: TreeExpr = { op: '-', left: this.#x.tree(c.left), right: this.#x.tree(c.right) };
    const nd: TreeExpr = { op: 'neg', arg: d };
    const ints = typeOf(c.left, this.#types) === 'int' && typeOf(c.right, this.#types) === 'int';
    const le = (t: TreeExpr) => guardTree(s, t, '<=');
    const strict = (t: TreeExpr) => le(ints ? { op: '+', left: t, right: { op: 'const', value: 1 } } : t);
    switch (c.op) {
      case '<=':
        return le(d);
      case '<':
        return strict(d);
      case '>=':
        return le(nd);
      case '>':
        return strict(nd);
      case '==':
        return guardTree(s, d, '=');
      case '!=':
        return ints ? this.be.join(strict(d), strict(nd)) : s;
    }
  }

  /** The backward mode over the main program, after {@link run}: one analysis per assertion. */
  async backward(): Promise<BackwardResult[]> {
    const facts: ForwardFacts = {
      before: (st) => this.#before.get(st),
      guard: (c, s) => this.#guard(c, s),
      linear: (st) => {
        const e = st.kind === 'array' ? st.length : st.value;
        const x = this.#index.get(st.kind === 'array' ? `${st.name}.length` : st.target) as number;
        const truncate = this.#flags[x] === 'int' && typeOf(e, this.#types) === 'real';
        const lin = truncate ? null : this.#x.lin(e);
        if (lin) return toLinear(lin);
        // not linear: the tree's interval linear form on the forward states before the statement
        const before = this.#before.get(st);
        if (!before) return null;
        const t = this.#x.tree(e);
        return linearForm(before, truncate ? { op: 'cast', arg: t, round: TRUNCATE } : t);
      },
      index: (name) => this.#index.get(name) as number,
      closed: (o) => this.be.closed(o),
      join: (a, b) => this.be.join(a, b),
      top: () => this.#top(),
      bottom: () => this.#bottom(),
      thresholds: this.#thresholds,
      widening: MINE_WIDENING,
      delay: this.#delay,
    };
    const asserts: Stmt[] = [];
    const find = (ss: readonly Stmt[]): void => {
      for (const st of ss) {
        if (st.kind === 'assert') asserts.push(st);
        else if (st.kind === 'if') {
          find(st.then);
          find(st.else);
        } else if (st.kind === 'while') find(st.body);
      }
    };
    find(this.program.body);
    const out: BackwardResult[] = [];
    for (const target of asserts) {
      const { entry, points } = await backwardFrom(this.program.body, target, facts);
      const start = this.points.length;
      for (const [st, state] of points)
        this.#record(st.pos, `${st.kind === 'while' ? 'loop head of' : 'before'} ${st.text}`, state);
      const recorded = this.points.splice(start);
      recorded.sort((x, y) => x.pos.line - y.pos.line || x.pos.column - y.pos.column);
      const empty = (await this.be.closed(entry)).isEmpty();
      out.push({
        pos: target.pos,
        text: target.text,
        entry: entry.toString(this.names),
        proved: empty,
        points: recorded,
      });
    }
    return out;
  }

  /** Widening thresholds (exposed for tests). */
  get thresholds(): readonly Rational[] {
    return this.#thresholds;
  }
}

/** Whether `e` is a numeric literal other than 0 (a division by it needs no check). */
function nonzeroConstant(e: Expr): boolean {
  if (e.kind === 'neg') return nonzeroConstant(e.arg);
  if (e.kind === 'num') return e.value !== 0n;
  return e.kind === 'decimal' && e.value.num !== 0n;
}
