/**
 * A small concrete Scheme interpreter: the soundness oracle of the tests. It runs a program and
 * records every call edge (source call site → source lambda) and every source closure bound or
 * assigned to a source variable; 0CFA must contain every recorded fact. It reads with the front
 * end's reader (positions only) and shares nothing else with the analysis: special forms and
 * standard procedures are implemented here from R7RS, directly on data.
 *
 * A run stops on an error without a handler, on a re-entered continuation, or when its step
 * budget is spent; what it recorded up to there are facts all the same.
 */
import { formatPos } from '../../src/errors';
import { expandMacro, parseSyntaxRules } from '../../src/frontend/macros';
import { type Datum, readScheme } from '../../src/frontend/reader';
import { installPrimitives } from './primitives';
import {
  Char,
  Closure,
  Continuation,
  Env,
  ErrorObject,
  type LambdaSpec,
  list,
  MacroValue,
  MString,
  NIL,
  Pair,
  Parameter,
  Primitive,
  PromiseValue,
  RecordValue,
  Sym,
  UNASSIGNED,
  type Value,
  Values,
  VOID,
} from './values';

/** What a run recorded. */
export interface ConcreteFacts {
  /** `site → lambda`, both as `file:line:column`. */
  readonly calls: Set<string>;
  /** `name@file:line:column ← lambda`. */
  readonly flows: Set<string>;
  /** Why the run ended: 'done', 'error', 'budget', 'unsupported'. */
  end: string;
  detail?: string;
}

type List = Extract<Datum, { t: 'list' }>;
const isSym = (d: Datum | undefined, name?: string): d is Extract<Datum, { t: 'sym' }> =>
  d !== undefined && d.t === 'sym' && (name === undefined || d.name === name);
const isList = (d: Datum | undefined): d is List => d !== undefined && d.t === 'list';

/** Stops the run (the facts so far stand). */
export class StopRun extends Error {
  constructor(
    readonly end: string,
    detail: string,
  ) {
    super(detail);
  }
}
/** A raised object on its way to a handler installed by guard. */
class GuardEscape {
  constructor(
    readonly tag: object,
    readonly obj: Value,
  ) {}
}
class ContinuationThrow {
  constructor(
    readonly k: Continuation,
    readonly value: Value,
  ) {}
}
class TailCall {
  constructor(
    readonly fn: Value,
    readonly args: Value[],
  ) {}
}

/** `(raise obj)` as the interpreter runs it: a handler stack of procedures. */
type Handler = Value | { guard: object };

export class Interpreter {
  readonly facts: ConcreteFacts = { calls: new Set(), flows: new Set(), end: 'done' };
  readonly global = new Env(null);
  handlers: Handler[] = [];
  steps = 0;
  output = '';

  constructor(readonly budget: number) {
    installPrimitives(this);
  }

  run(text: string, file: string): ConcreteFacts {
    try {
      this.body(readScheme(text, file), this.global, true);
    } catch (e) {
      if (e instanceof StopRun) {
        this.facts.end = e.end;
        this.facts.detail = e.message;
      } else if (e instanceof GuardEscape || e instanceof ContinuationThrow) {
        this.facts.end = 'error';
        this.facts.detail = 'escape outside its extent';
      } else if (e instanceof RangeError) {
        this.facts.end = 'budget';
        this.facts.detail = e.message;
      } else throw e;
    }
    return this.facts;
  }

  fail(message: string): never {
    throw new StopRun('error', message);
  }

  // ---- facts ------------------------------------------------------------------------------------

  bindFact(key: string | null, value: Value): void {
    // Variables a macro template introduces are renamed differently here and in the front end.
    if (key === null || key.includes('%i')) return;
    if (value instanceof Closure) {
      if (value.spec.source) this.facts.flows.add(`${key} ← ${value.spec.id}`);
    } else if (
      // Several values where one is expected (an error in R7RS) are no value of the analysis.
      !(
        value instanceof Primitive ||
        value instanceof Continuation ||
        value instanceof Parameter ||
        value instanceof Values
      )
    )
      this.facts.flows.add(`${key} ← data`); // a number, boolean, string, structure: some basic value or boolean
  }

  define(env: Env, name: Extract<Datum, { t: 'sym' }>, value: Value): void {
    const key = `${name.name}@${formatPos(name.pos)}`;
    env.vars.set(name.name, { value, key });
    this.bindFact(key, value);
  }

  // ---- evaluation -------------------------------------------------------------------------------

  special(name: string, env: Env): boolean {
    return SPECIAL.has(name) && env.find(name) === undefined;
  }

  /** Evaluates a body (internal definitions first bound, letrec*): the last form in tail position. */
  body(forms: Datum[], env: Env, top = false): Value | TailCall {
    const flat: Datum[] = [];
    const stack = [...forms].reverse();
    while (stack.length > 0) {
      const f = stack.pop() as Datum;
      if (isList(f) && isSym(f.items[0], 'begin') && this.special('begin', env)) {
        for (let i = f.items.length - 1; i >= 1; i--) stack.push(f.items[i] as Datum);
      } else flat.push(f);
    }
    const frame = top ? env : new Env(env);
    for (const f of flat) {
      const target = isList(f) && isSym(f.items[0], 'define') ? definedName(f) : undefined;
      if (target && !frame.vars.has(target.name))
        frame.vars.set(target.name, { value: UNASSIGNED, key: `${target.name}@${formatPos(target.pos)}` });
    }
    let result: Value | TailCall = VOID;
    for (let i = 0; i < flat.length; i++) {
      let f = flat[i] as Datum;
      let head = isList(f) ? f.items[0] : undefined;
      // A macro use at body level may expand into definitions (or a begin of them).
      for (let m = isSym(head) ? frame.find(head.name)?.value : undefined; m instanceof MacroValue; ) {
        f = this.expand(m, f as List);
        if (isList(f) && isSym(f.items[0], 'begin') && this.special('begin', frame)) {
          flat.splice(i, 1, ...f.items.slice(1));
          f = flat[i] as Datum;
        }
        head = isList(f) ? f.items[0] : undefined;
        m = isSym(head) ? frame.find(head.name)?.value : undefined;
      }
      if (f === undefined) break;
      if (isSym(head) && DEFINITIONS.has(head.name) && this.special(head.name, frame)) {
        this.definition(f as List, frame);
        result = VOID;
      } else result = i === flat.length - 1 && !top ? this.evTail(f, frame) : this.ev(f, frame);
    }
    return result;
  }

  #renames = 0;
  expand(m: MacroValue, d: List): Datum {
    return expandMacro(m.macro, d, (n) => `${n}%i${this.#renames++}`);
  }

  definition(f: List, env: Env): void {
    const head = (f.items[0] as Extract<Datum, { t: 'sym' }>).name;
    if (head === 'define-syntax') {
      const name = f.items[1] as Extract<Datum, { t: 'sym' }>;
      env.vars.set(name.name, {
        value: new MacroValue(parseSyntaxRules(name.name, f.items[2] as Datum)),
        key: null,
      });
      return;
    }
    if (head === 'define') {
      let target = f.items[1] as Datum;
      let body = f.items.slice(2);
      while (isList(target)) {
        const lam: List = {
          t: 'list',
          items: [
            { t: 'sym', name: 'lambda', pos: f.pos },
            { ...target, items: target.items.slice(1) },
            ...body,
          ],
          tail: null,
          pos: f.pos,
        };
        body = [lam];
        target = target.items[0] as Datum;
      }
      if (!isSym(target)) this.fail('bad define');
      const value = body.length === 0 ? VOID : this.ev(body[0] as Datum, env, target.name);
      const b = env.vars.get(target.name);
      if (b) {
        b.value = value;
        this.bindFact(b.key, value);
      } else this.define(env, target, value);
      return;
    }
    if (head === 'define-values') {
      const vals = this.valuesOf(this.ev(f.items[2] as Datum, env));
      this.bindFormals(f.items[1] as Datum, vals, env, true);
      return;
    }
    if (head === 'define-record-type') this.recordType(f, env);
  }

  recordType(f: List, env: Env): void {
    const [, , ctor, pred, ...fields] = f.items;
    const type = {};
    const names = fields.map((x) =>
      isList(x) ? (x.items[0] as Extract<Datum, { t: 'sym' }>).name : (x as { name: string }).name,
    );
    const set = (name: Datum | undefined, fn: (args: Value[]) => Value) => {
      if (isSym(name)) this.define(env, name, new Primitive(name.name, fn));
    };
    if (isList(ctor)) {
      const params = ctor.items.slice(1).map((p) => (p as { name: string }).name);
      set(
        ctor.items[0],
        (args) => new RecordValue(type, new Map(params.map((p, i) => [p, args[i] as Value]))),
      );
    } else if (isSym(ctor))
      set(ctor, (args) => new RecordValue(type, new Map(names.map((p, i) => [p, args[i] as Value]))));
    set(pred, (args) => args[0] instanceof RecordValue && args[0].type === type);
    for (const x of fields) {
      if (!isList(x)) continue;
      const field = (x.items[0] as { name: string }).name;
      const check = (r: Value | undefined): RecordValue =>
        r instanceof RecordValue && r.type === type ? r : this.fail('record type');
      set(x.items[1], (args) => check(args[0]).fields.get(field) ?? VOID);
      set(x.items[2], (args) => {
        check(args[0]).fields.set(field, args[1] as Value);
        return VOID;
      });
    }
  }

  ev(d: Datum, env: Env, name?: string): Value {
    let r = this.evTail(d, env, name);
    while (r instanceof TailCall) r = this.applyOnce(r.fn, r.args);
    return r;
  }

  apply(fn: Value, args: Value[]): Value {
    let r: Value | TailCall = this.applyOnce(fn, args);
    while (r instanceof TailCall) r = this.applyOnce(r.fn, r.args);
    return r;
  }

  /** Binds formals `(a b . r)` to values (records the facts). */
  bindFormals(formals: Datum, vals: Value[], env: Env, assign = false): void {
    const bind = (s: Datum, v: Value) => {
      if (!isSym(s)) this.fail('bad formal');
      const b = assign ? env.vars.get(s.name) : undefined;
      if (b) {
        b.value = v;
        this.bindFact(b.key, v);
      } else this.define(env, s, v);
    };
    if (isSym(formals)) {
      bind(formals, list(vals));
      return;
    }
    const f = formals as List;
    if (vals.length < f.items.length || (f.tail === null && vals.length > f.items.length)) this.fail('arity');
    f.items.forEach((p, i) => {
      bind(p, vals[i] as Value);
    });
    if (f.tail) bind(f.tail, list(vals.slice(f.items.length)));
  }

  applyOnce(fn: Value, args: Value[]): Value | TailCall {
    if (++this.steps > this.budget) throw new StopRun('budget', 'step budget spent');
    const clauses = fn instanceof Closure ? CASE_LAMBDAS.get(fn) : undefined;
    if (clauses) {
      const clause = clauses.find(
        (c) =>
          args.length === c.spec.params.length ||
          (c.spec.rest !== null && args.length >= c.spec.params.length),
      );
      return clause ? this.applyOnce(clause, args) : this.fail('no case-lambda clause');
    }
    if (fn instanceof Closure) {
      const env = new Env(fn.env);
      const { params, rest } = fn.spec;
      if (args.length < params.length || (rest === null && args.length > params.length))
        this.fail(`arity of ${fn.spec.id}`);
      params.forEach((p, i) => {
        this.define(env, p as Extract<Datum, { t: 'sym' }>, args[i] as Value);
      });
      if (rest) this.define(env, rest as Extract<Datum, { t: 'sym' }>, list(args.slice(params.length)));
      return this.body(fn.spec.body, env);
    }
    if (fn instanceof Primitive) return fn.fn(args);
    if (fn instanceof Continuation) {
      if (!fn.active) throw new StopRun('unsupported', 'continuation re-entered');
      throw new ContinuationThrow(fn, args.length === 1 ? (args[0] as Value) : new Values(args));
    }
    if (fn instanceof Parameter) {
      if (args.length === 0) return fn.value;
      fn.value = fn.converter ? this.apply(fn.converter, [args[0] as Value]) : (args[0] as Value);
      return VOID;
    }
    return this.fail('not a procedure');
  }

  valuesOf(v: Value): Value[] {
    return v instanceof Values ? v.values : [v];
  }

  callcc(f: Value): Value {
    const k = new Continuation({});
    const handlers = this.handlers;
    try {
      return this.apply(f, [k]);
    } catch (e) {
      if (e instanceof ContinuationThrow && e.k === k) {
        this.handlers = handlers;
        return e.value;
      }
      throw e;
    } finally {
      k.active = false;
    }
  }

  /** `raise` / `raise-continuable`: calls the innermost handler in the context of the outer ones. */
  raise(obj: Value, continuable: boolean): Value {
    const handler = this.handlers[this.handlers.length - 1];
    if (handler === undefined) throw new StopRun('error', `uncaught raise`);
    if (typeof handler === 'object' && handler !== null && 'guard' in handler)
      throw new GuardEscape(handler.guard, obj);
    const saved = this.handlers;
    this.handlers = saved.slice(0, -1);
    try {
      const r = this.apply(handler as Value, [obj]);
      if (!continuable) throw new StopRun('error', 'handler returned from raise');
      return r;
    } finally {
      this.handlers = saved;
    }
  }

  /** An error of a primitive: raised as an error object, as R7RS implementations do. */
  error(message: string, ...irritants: Value[]): never {
    this.raise(new ErrorObject(new MString(message), list(irritants)), false);
    throw new StopRun('error', message);
  }

  withHandler(handler: Handler, thunk: () => Value): Value {
    const saved = this.handlers;
    this.handlers = [...saved, handler];
    try {
      return thunk();
    } finally {
      this.handlers = saved;
    }
  }

  lambda(id: Datum, formals: Datum, body: Datum[], env: Env, source = true): Closure {
    const params: Datum[] = isList(formals) ? formals.items : [];
    const rest = isSym(formals) ? formals : isList(formals) ? formals.tail : null;
    const spec: LambdaSpec = { params, rest, body, id: formatPos(id.pos), source };
    return new Closure(spec, env);
  }

  evTail(d: Datum, env: Env, name?: string): Value | TailCall {
    if (++this.steps > this.budget) throw new StopRun('budget', 'step budget spent');
    switch (d.t) {
      case 'num':
        return Number(d.text);
      case 'str':
        return new MString(d.value);
      case 'char':
        return charOf(d.value);
      case 'bool':
        return d.value;
      case 'vec':
        return d.items.map((x) => quoted(x));
      case 'sym': {
        const b = env.find(d.name);
        if (!b) return this.fail(`unbound ${d.name}`);
        if (b.value === UNASSIGNED) return this.fail(`${d.name} read before its definition ran`);
        return b.value;
      }
      case 'list':
        break;
    }
    const head = d.items[0];
    if (isSym(head) && this.special(head.name, env)) return this.form(head.name, d, env, name);
    const macro = isSym(head) ? env.find(head.name)?.value : undefined;
    if (macro instanceof MacroValue) return this.evTail(this.expand(macro, d), env, name);
    const fn = this.ev(head as Datum, env);
    const args = d.items.slice(1).map((x) => this.ev(x, env));
    this.callFact(d, fn, args);
    return new TailCall(fn, args);
  }

  /** Whether the closure's parameters take `count` arguments (a case-lambda: some clause's do). */
  accepts(fn: Closure, count: number): boolean {
    const clauses = CASE_LAMBDAS.get(fn);
    if (clauses) return clauses.some((c) => this.accepts(c, count));
    const { params, rest } = fn.spec;
    return count === params.length || (rest !== null && count >= params.length);
  }

  callFact(site: Datum, fn: Value, args: Value[]): void {
    const pos = formatPos(site.pos);
    // A call whose arguments the closure's parameters do not accept is an error that enters
    // nothing: no edge (arity-aware flows leave such pairs out).
    if (fn instanceof Closure && fn.spec.source && this.accepts(fn, args.length))
      this.facts.calls.add(`${pos} → ${fn.spec.id}`);
    if (fn instanceof Primitive && fn.name === 'apply' && args[0] instanceof Closure && args[0].spec.source)
      this.facts.calls.add(`${pos} → ${args[0].spec.id}`);
  }

  form(name: string, d: List, env: Env, defName?: string): Value | TailCall {
    const items = d.items;
    return evalForm(this, name, d, items, env, defName);
  }
}

import { CASE_LAMBDAS, evalForm } from './forms';

const DEFINITIONS = new Set(['define', 'define-values', 'define-record-type', 'define-syntax']);
export const SPECIAL = new Set([
  'quote',
  'quasiquote',
  'lambda',
  'named-lambda',
  'define',
  'define-values',
  'define-record-type',
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
  'delay',
  'delay-force',
  'cons-stream',
  'guard',
  'parameterize',
  'case-lambda',
  'let-values',
  'let*-values',
  'receive',
  'assert',
  'make-parameter',
  'import',
  'define-syntax',
  'let-syntax',
  'letrec-syntax',
]);

function definedName(f: List): Extract<Datum, { t: 'sym' }> | undefined {
  let t = f.items[1];
  while (isList(t)) t = t.items[0];
  return isSym(t) ? t : undefined;
}

const CHAR_NAMES: Record<string, string> = {
  space: ' ',
  newline: '\n',
  tab: '\t',
  nul: '\0',
  null: '\0',
  return: '\r',
  linefeed: '\n',
  altmode: '\x1b',
  escape: '\x1b',
  backspace: '\b',
  delete: '\x7f',
  alarm: '\x07',
};
export function charOf(text: string): Char {
  if (text.length === 1) return new Char(text);
  const named = CHAR_NAMES[text.toLowerCase()];
  if (named !== undefined) return new Char(named);
  if (/^x[0-9a-f]+$/i.test(text)) return new Char(String.fromCodePoint(Number.parseInt(text.slice(1), 16)));
  return new Char(text[0] as string);
}

/** A quoted datum as a value. */
export function quoted(d: Datum): Value {
  switch (d.t) {
    case 'num':
      return Number(d.text);
    case 'str':
      return new MString(d.value);
    case 'char':
      return charOf(d.value);
    case 'bool':
      return d.value;
    case 'sym':
      return Sym.of(d.name);
    case 'vec':
      return d.items.map(quoted);
    case 'list':
      return list(d.items.map(quoted), d.tail ? quoted(d.tail) : NIL);
  }
}

export { ContinuationThrow, GuardEscape, isList, isSym, Pair, PromiseValue, TailCall };
