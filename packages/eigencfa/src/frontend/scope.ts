/**
 * The expander's state and the pieces of it that do not read syntax: scopes (alpha-renaming),
 * the prelude's variables, the heap cell, and how primitives, the procedures of `CALLING` and rest
 * arguments are applied (docs/decisions/eigencfa-heap-model.md).
 * @module
 */
import { SchemeSyntaxError, type SourcePos } from '../errors';
import {
  type Core,
  curriedApp,
  isList,
  isSym,
  type LambdaOrigin,
  type OutsideModel,
  type SourceCallSite,
  type SourceVar,
  type SourceVarKind,
} from './core';
import { Gensym } from './derived';
import type { Libraries } from './libraries';
import type { Macro } from './macros';
import { CALLING, PRELUDE, PRELUDE_NAMES } from './prelude';
import { OUTSIDE_MODEL, PRIMITIVES, primitiveEffect } from './primitives';
import { type Datum, readScheme } from './reader';
import type { Tramp } from './trampoline';

/** A `syntax-rules` macro in scope. */
export interface MacroBinding {
  readonly kind: 'macro';
  readonly name: string;
  readonly macro: Macro;
  /**
   * What the template's free names meant where the macro was defined (set once the definitions of
   * its body are in scope); a use where one means something else gets an alias to this meaning.
   */
  definitionEnv?: ReadonlyMap<string, Binding | undefined>;
}
export type Binding = SourceVar | 'primitive' | MacroBinding;
export const isMacro = (b: Binding | undefined): b is MacroBinding => typeof b === 'object' && 'macro' in b;

export const SPECIAL = new Set([
  'quote',
  'quasiquote',
  'unquote',
  'unquote-splicing',
  'lambda',
  'define',
  'let',
  'let*',
  'letrec',
  'letrec*',
  'if',
  'cond',
  'case',
  'and',
  'or',
  'when',
  'unless',
  'do',
  'begin',
  'set!',
  'call/cc',
  'call-with-current-continuation',
  'apply',
  '%halt',
  'else',
  '=>',
  'named-lambda',
  '%lambda/any-arity',
  'delay',
  'delay-force',
  'cons-stream',
  'define-syntax',
  'let-syntax',
  'letrec-syntax',
  'syntax-rules',
  'let-values',
  'let*-values',
  'receive',
  'define-record-type',
  'import',
  'define-library',
  'cond-expand',
  'guard',
  'parameterize',
  'make-parameter',
  'case-lambda',
  'define-values',
  'assert',
]);

/** Names that some `(set! name …)` of the program assigns (primitives among them become variables). */
export function assignedNames(data: readonly Datum[]): Set<string> {
  const names = new Set<string>();
  const stack = [...data];
  while (stack.length > 0) {
    const d = stack.pop() as Datum;
    if (d.t === 'vec') stack.push(...d.items);
    if (d.t !== 'list') continue;
    const [head, target] = d.items;
    if (isSym(head, 'set!') && isSym(target)) names.add(target.name);
    stack.push(...d.items);
    if (d.tail) stack.push(d.tail);
  }
  return names;
}

let preludeForms: Map<string, Datum> | undefined;
/** The prelude's definitions by name, read once. */
export function preludeDefinitions(): Map<string, Datum> {
  if (preludeForms === undefined) {
    preludeForms = new Map();
    for (const d of readScheme(PRELUDE, '<prelude>')) {
      const target = isList(d) ? d.items[1] : undefined;
      const name = isList(target) ? target.items[0] : target;
      if (isSym(name)) preludeForms.set(name.name, d);
    }
  }
  return preludeForms;
}

/** The prelude definition of a {@link CALLING} procedure used as a value: it calls every heap value. */
export function callingDefinition(name: string): Datum {
  const calls = (CALLING[name] as { calls: readonly { args: number | 'lists' }[] }).calls.map((c) =>
    c.args === 'lists' ? '(set! %heap (apply %heap args))' : `(set! %heap (%heap${' %heap'.repeat(c.args)}))`,
  );
  const result = CALLING[name]?.result === 'heap' ? '%heap' : '0';
  return readScheme(`(define (${name} . args) ${calls.join(' ')} ${result})`, '<prelude>')[0] as Datum;
}

export class Scope {
  readonly variables: SourceVar[] = [];
  readonly callSites: SourceCallSite[] = [];
  protected readonly env_ = new Map<string, Binding[]>();
  /**
   * Names a macro use made for a free template name that the use site rebinds: the name and what
   * it meant where the macro was defined (`undefined`: a special form or an unbound name).
   */
  protected readonly aliases_ = new Map<
    string,
    { readonly name: string; readonly binding: Binding | undefined }
  >();
  protected tmp_ = 0;
  protected readonly gensym_ = new Gensym();
  /** Primitive names the program assigns: they are prelude variables, not inline primitives. */
  protected readonly assigned_: ReadonlySet<string>;
  /** Prelude variables in the order they were first needed, and their definitions. */
  protected readonly prelude_ = new Map<string, SourceVar>();
  protected readonly preludeQueue_: string[] = [];
  /** The prelude definition being expanded (its lambdas are `primitive`, the others internal). */
  protected inPrelude_: string | null = null;

  protected readonly libraries_: Libraries;

  constructor(assigned: ReadonlySet<string>, libraries: Libraries) {
    this.assigned_ = assigned;
    this.libraries_ = libraries;
  }

  /** The prelude variable `name` (its definition is expanded by {@link withPrelude}). */
  preludeVar(name: string): SourceVar {
    let v = this.prelude_.get(name);
    if (!v) {
      v = this.fresh(name, { file: '<prelude>', line: 1, column: 1 }, 'synthetic');
      this.prelude_.set(name, v);
      this.preludeQueue_.push(name);
    }
    return v;
  }

  /** The program-wide heap cell (every value stored in a data structure). */
  heap(): SourceVar {
    const v = this.preludeVar('%heap');
    v.mutable = true;
    return v;
  }

  /** The origin of a lambda expanded here (inside the prelude: its definition's, or internal). */
  lambdaOrigin(pos: SourcePos, name: string | undefined): LambdaOrigin {
    if (this.inPrelude_ === null) return { kind: 'lambda', pos, name };
    if (name === this.inPrelude_) return { kind: 'primitive', pos, name };
    return { kind: 'thunk', pos };
  }

  /** Records a source call site (none inside the prelude). */
  site(pos: SourcePos, operator: string, argumentCount: number): SourceCallSite | undefined {
    if (this.inPrelude_ !== null) return undefined;
    const site: SourceCallSite = { id: this.callSites.length, pos, operator, argumentCount };
    this.callSites.push(site);
    return site;
  }

  fail(pos: SourcePos, reason: string): never {
    throw new SchemeSyntaxError(pos, reason);
  }

  /** Uses of procedures outside the model (see {@link OUTSIDE_MODEL}). */
  readonly unknown: OutsideModel[] = [];

  /** Errors found so far (each body form is expanded on its own, so one file reports them all). */
  readonly errors: SchemeSyntaxError[] = [];

  /** Runs `f`; a syntax error is recorded and undefined returned. */
  recover<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (error) {
      if (!(error instanceof SchemeSyntaxError)) throw error;
      this.errors.push(error);
      return undefined;
    }
  }

  /** Expands one body form; a syntax error in it is recorded and the form becomes the basic value. */
  *recovering(step: Tramp<Core>, pos: SourcePos): Tramp<Core> {
    try {
      return (yield step) as Core;
    } catch (error) {
      if (!(error instanceof SchemeSyntaxError)) throw error;
      this.errors.push(error);
      return { k: 'const', value: 'basic', pos };
    }
  }

  fresh(name: string, pos: SourcePos, kind: SourceVarKind): SourceVar {
    const v: SourceVar = {
      name,
      id: this.variables.length,
      pos,
      // Prelude variables and the rewrites' fresh names (see Gensym) are not source variables.
      kind: this.inPrelude_ === null && !name.includes(' ') ? kind : 'synthetic',
      mutable: false,
    };
    this.variables.push(v);
    return v;
  }

  bind(v: SourceVar | MacroBinding): void {
    let list = this.env_.get(v.name);
    if (!list) {
      list = [];
      this.env_.set(v.name, list);
    }
    list.push(v);
  }

  unbind(vs: readonly (SourceVar | MacroBinding)[]): void {
    for (const v of vs) this.env_.get(v.name)?.pop();
  }

  lookup(name: string): Binding | undefined {
    const alias = this.aliases_.get(name);
    if (alias !== undefined) return alias.binding ?? this.lookupGlobal(alias.name);
    const list = this.env_.get(name);
    if (list && list.length > 0) return list[list.length - 1];
    return this.lookupGlobal(name);
  }

  /** What `name` means where no variable binds it: a prelude variable, a primitive, or nothing. */
  lookupGlobal(name: string): Binding | undefined {
    if (name.startsWith('%prelude:')) return this.preludeVar(name.slice('%prelude:'.length));
    const inline = PRIMITIVES.has(name) || CALLING[name] !== undefined;
    if (PRELUDE_NAMES.has(name) || (inline && this.assigned_.has(name))) return this.preludeVar(name);
    return inline ? 'primitive' : undefined;
  }

  /** Whether `name` at the head of a form means the special form (not shadowed by a variable). */
  special(name: string): boolean {
    const alias = this.aliases_.get(name);
    if (alias !== undefined) return alias.binding === undefined && SPECIAL.has(alias.name);
    if (!SPECIAL.has(name)) return false;
    const list = this.env_.get(name);
    return !list || list.length === 0;
  }

  /** The name a macro alias stands for (other names are themselves). */
  canonical(name: string): string {
    return this.aliases_.get(name)?.name ?? name;
  }

  /** Records what the free names of `m`'s templates mean here, its definition environment. */
  captureDefinitionEnv(m: MacroBinding): void {
    const env = new Map<string, Binding | undefined>();
    for (const name of m.macro.freeNames) env.set(name, this.lookup(name));
    m.definitionEnv = env;
  }

  /**
   * The name to write for free template name `name` at a use of `m`: itself when it means here what
   * it meant where `m` was defined, else a fresh alias of that meaning (so a user's `(let ((if …)) …)`
   * or local `helper` does not capture the macro's).
   */
  hygienicName(m: MacroBinding, name: string): string {
    const env = m.definitionEnv;
    if (env === undefined || !env.has(name)) return name;
    const meant = env.get(name);
    if (this.lookup(name) === meant) return name;
    const alias = this.gensym_.next(`${name}%h`);
    this.aliases_.set(alias, { name, binding: meant });
    return alias;
  }

  temp(pos: SourcePos): SourceVar {
    return this.fresh(`%t${this.tmp_++}`, pos, 'synthetic');
  }

  items(d: Extract<Datum, { t: 'list' }>, what: string): Datum[] {
    if (d.tail !== null) this.fail(d.tail.pos, `${what}: unexpected dotted list`);
    return d.items;
  }

  heapRef(pos: SourcePos): Core {
    return { k: 'ref', v: this.heap(), pos };
  }

  /**
   * `(set! %heap e)`, or `e` alone when its value is basic (a basic constant, a primitive's result)
   * or read from the heap already. Church booleans are stored like any other lambda.
   */
  store(e: Core, pos: SourcePos): Core {
    if ((e.k === 'const' && e.value === 'basic') || e.k === 'prim') return e;
    if (e.k === 'seq' && e.rest.k === 'ref' && e.rest.v === this.prelude_.get('%heap')) return e;
    return { k: 'set', v: this.heap(), e, pos };
  }

  /** An inline primitive application: its arguments are stored as {@link primitiveEffect} says. */
  primApp(name: string, args: readonly Core[], pos: SourcePos): Core {
    if (OUTSIDE_MODEL.has(name)) this.unknown.push({ name, pos });
    const effect = primitiveEffect(name);
    if (effect === 'basic') return { k: 'prim', name, args, pos };
    const prim: Core = { k: 'prim', name, args: args.map((a) => this.store(a, pos)), pos };
    return effect === 'construct' ? prim : { k: 'seq', first: prim, rest: this.heapRef(pos) };
  }

  /**
   * `(map f l …)` and the other {@link CALLING} procedures: each procedure argument is called with
   * heap values (as many as the table says) and its result is stored in the heap.
   */
  calling(name: string, args: readonly Core[], pos: SourcePos): Core {
    const spec = CALLING[name] as (typeof CALLING)[string];
    const temps = args.map(() => this.temp(pos));
    const parts: Core[] = [];
    for (const c of spec.calls) {
      const fn = temps[c.index];
      if (fn === undefined) continue;
      const count = c.args === 'lists' ? Math.max(1, args.length - 1) : c.args;
      const callArgs = Array.from({ length: count }, () => this.heapRef(pos));
      parts.push({
        k: 'set',
        v: this.heap(),
        e: curriedApp({ k: 'ref', v: fn, pos }, callArgs, pos, undefined),
        pos,
      });
    }
    // Arguments are stored (a default value may be returned), except the procedures it calls.
    const called = new Set(spec.calls.map((c) => c.index));
    const stored = temps.map(
      (t, i): Core => (called.has(i) ? { k: 'ref', v: t, pos } : this.store({ k: 'ref', v: t, pos }, pos)),
    );
    let result: Core = { k: 'prim', name, args: [...parts, ...stored], pos };
    if (spec.result === 'heap') result = { k: 'seq', first: result, rest: this.heapRef(pos) };
    for (let i = temps.length - 1; i >= 0; i--)
      result = { k: 'bind', v: temps[i] as SourceVar, init: args[i] as Core, body: result };
    return result;
  }

  /**
   * A primitive used as a value: a procedure of any arity that stores its arguments and returns
   * what applying the primitive would.
   */
  primitiveValue(name: string, pos: SourcePos): Core {
    if (OUTSIDE_MODEL.has(name)) this.unknown.push({ name, pos });
    const effect = primitiveEffect(name);
    const body: Core = effect === 'access' ? this.heapRef(pos) : { k: 'const', value: 'basic', pos };
    return this.restLambda(
      [],
      this.temp(pos),
      body,
      pos,
      { kind: 'primitive', pos, name },
      effect !== 'basic',
    );
  }

  /**
   * `(lambda (p … . rest) body)`: the rest list is a basic value whose elements are written to
   * `%heap` (`storeRest`; a basic primitive used as a value keeps nothing). The step that takes the
   * last fixed parameter (or, with none, the first argument) is two lambdas: one runs the body
   * (applied where one argument is left, or none), one returns an absorber (two or more left).
   * The absorber is two lambdas the same way, each storing its argument, so under arity-aware
   * flows a call reaches the body once, with its own continuation, after as many absorbers as it
   * has extra arguments. The last fixed parameter, bound by both lambdas of its step, is a
   * variable they assign.
   */
  restLambda(
    params: SourceVar[],
    rest: SourceVar,
    body: Core,
    pos: SourcePos,
    origin: LambdaOrigin,
    storeRest = true,
  ): Core {
    const thunk = this.temp(pos);
    const absorbLast = this.temp(pos);
    const absorbMore = this.temp(pos);
    const ref = (v: SourceVar): Core => ({ k: 'ref', v, pos });
    const either = (a: SourceVar, b: SourceVar): Core => ({
      k: 'if',
      c: { k: 'const', value: 'basic', pos },
      t: ref(a),
      e: ref(b),
      pos,
    });
    const runBody = curriedApp(ref(thunk), [], pos, undefined);
    const store = (x: SourceVar, then: Core): Core =>
      storeRest ? { k: 'seq', first: { k: 'set', v: this.heap(), e: ref(x), pos }, rest: then } : then;
    // A step of one parameter x that does `then` with it: the body step (one argument left, or
    // `none` too) or the absorbing step (two or more).
    const step = (
      last: boolean,
      none: boolean,
      stepOrigin: LambdaOrigin,
      then: (x: SourceVar) => Core,
    ): Core => {
      const x = this.temp(pos);
      const arity = last ? { min: none ? 0 : 1, max: 1 } : { min: 2, max: null };
      return { k: 'lam', params: [x], body: then(x), pos, origin: stepOrigin, arity };
    };
    const absorb: LambdaOrigin = { kind: 'absorb', pos };
    const lastFixed = params[params.length - 1];
    // With fixed parameters, both lambdas of the last one's step assign it; with none, they store
    // their argument as the rest list's first element.
    const take = (x: SourceVar, then: Core): Core =>
      lastFixed
        ? { k: 'seq', first: { k: 'set', v: lastFixed, e: ref(x), pos }, rest: then }
        : store(x, then);
    const lastStep = this.temp(pos);
    const moreStep = this.temp(pos);
    let result = either(lastStep, moreStep);
    const binds: [SourceVar, Core][] = [
      [rest, { k: 'const', value: 'basic', pos }],
      [thunk, { k: 'lam', params: [], body, pos, origin: { kind: 'thunk', pos } }],
      [absorbLast, step(true, false, absorb, (x) => store(x, runBody))],
      [absorbMore, step(false, false, absorb, (x) => store(x, either(absorbLast, absorbMore)))],
      [lastStep, step(true, !lastFixed, origin, (x) => take(x, runBody))],
      [moreStep, step(false, false, origin, (x) => take(x, either(absorbLast, absorbMore)))],
    ];
    for (let i = binds.length - 1; i >= 0; i--) {
      const [v, init] = binds[i] as [SourceVar, Core];
      result = { k: 'bind', v, init, body: result };
    }
    if (!lastFixed) return result;
    lastFixed.mutable = true;
    result = { k: 'bind', v: lastFixed, init: { k: 'const', value: 'basic', pos }, body: result };
    if (params.length === 1) return result;
    // The steps before the last fixed parameter's take one fewer argument each than the call has left.
    const n = params.length;
    return { k: 'lam', params: params.slice(0, -1), body: result, pos, origin, arity: { min: n, max: null } };
  }
}
