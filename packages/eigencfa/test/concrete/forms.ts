/**
 * The special forms of the concrete interpreter, from R7RS §4 (and MIT's `cons-stream`,
 * `named-lambda`).
 */
import type { SourcePos } from '../../src/errors';
import { parseSyntaxRules } from '../../src/frontend/macros';
import type { Datum } from '../../src/frontend/reader';
import { GuardEscape, type Interpreter, isList, isSym, quoted, TailCall } from './interpreter';
import { equalValues, truthy } from './primitives';
import {
  type Closure,
  Env,
  list,
  MacroValue,
  NIL,
  Pair,
  Parameter,
  PromiseValue,
  UNASSIGNED,
  type Value,
  VOID,
} from './values';

type List = Extract<Datum, { t: 'list' }>;
type SymD = Extract<Datum, { t: 'sym' }>;

const sym = (name: string, pos: SourcePos): Datum => ({ t: 'sym', name, pos });

function quasi(it: Interpreter, d: Datum, env: Env, depth: number): Value {
  if (d.t === 'vec') {
    const l = quasi(it, { t: 'list', items: d.items, tail: null, pos: d.pos }, env, depth);
    const out: Value[] = [];
    for (let p = l; p instanceof Pair; p = p.cdr) out.push(p.car);
    return out;
  }
  if (!isList(d)) return quoted(d);
  const h = d.items[0];
  if (isSym(h, 'unquote')) {
    if (depth === 1) return it.ev(d.items[1] as Datum, env);
    return list([quoted(h), quasi(it, d.items[1] as Datum, env, depth - 1)]);
  }
  if (isSym(h, 'quasiquote')) return list([quoted(h), quasi(it, d.items[1] as Datum, env, depth + 1)]);
  let tail: Value = d.tail ? quasi(it, d.tail, env, depth) : NIL;
  for (let i = d.items.length - 1; i >= 0; i--) {
    const x = d.items[i] as Datum;
    if (isList(x) && isSym(x.items[0], 'unquote-splicing') && depth === 1) {
      const spliced = it.ev(x.items[1] as Datum, env);
      const xs: Value[] = [];
      for (let p = spliced; p instanceof Pair; p = p.cdr) xs.push(p.car);
      tail = list(xs, tail);
    } else tail = new Pair(quasi(it, x, env, depth), tail);
  }
  return tail;
}

function seq(it: Interpreter, forms: Datum[], env: Env): Value | TailCall {
  if (forms.length === 0) return VOID;
  for (let i = 0; i < forms.length - 1; i++) it.ev(forms[i] as Datum, env);
  return it.evTail(forms[forms.length - 1] as Datum, env);
}

function condClauses(it: Interpreter, clauses: Datum[], env: Env, pos?: Datum): Value | TailCall {
  for (const c of clauses) {
    const parts = (c as List).items;
    if (isSym(parts[0], 'else')) return seq(it, parts.slice(1), env);
    const t = it.ev(parts[0] as Datum, env);
    if (!truthy(t)) continue;
    if (parts.length === 1) return t;
    if (isSym(parts[1], '=>')) {
      const f = it.ev(parts[2] as Datum, env);
      it.callFact(c, f, [t]);
      return new TailCall(f, [t]);
    }
    return seq(it, parts.slice(1), env);
  }
  void pos;
  return VOID;
}

function letForm(it: Interpreter, d: List, env: Env): Value | TailCall {
  const items = d.items;
  if (isSym(items[1])) {
    // Named let: the loop is a source lambda at the let's position, called from the let's position.
    const name = items[1];
    const bindings = (items[2] as List).items as List[];
    const args = bindings.map((b) => it.ev(b.items[1] as Datum, env));
    const loopEnv = new Env(env);
    const formals: List = {
      t: 'list',
      items: bindings.map((b) => b.items[0] as Datum),
      tail: null,
      pos: d.pos,
    };
    const loop = it.lambda(d, formals, items.slice(3), loopEnv);
    it.define(loopEnv, name, loop);
    it.callFact(d, loop, args);
    return new TailCall(loop, args);
  }
  const bindings = (items[1] as List).items as List[];
  const vals = bindings.map((b) => (b.items[1] ? it.ev(b.items[1], env) : VOID));
  const inner = new Env(env);
  bindings.forEach((b, i) => {
    it.define(inner, b.items[0] as SymD, vals[i] as Value);
  });
  return it.body(items.slice(2), inner);
}

export function evalForm(
  it: Interpreter,
  name: string,
  d: List,
  items: Datum[],
  env: Env,
  defName?: string,
): Value | TailCall {
  const pos = d.pos;
  switch (name) {
    case 'quote':
      return quoted(items[1] as Datum);
    case 'quasiquote':
      return quasi(it, items[1] as Datum, env, 1);
    case 'lambda':
      return it.lambda(d, items[1] as Datum, items.slice(2), env);
    case 'named-lambda': {
      const h = items[1] as List;
      return it.lambda(d, { ...h, items: h.items.slice(1) }, items.slice(2), env);
    }
    case 'define':
    case 'define-values':
    case 'define-record-type':
      return it.fail(`${name} in expression position`);
    case 'begin':
      return seq(it, items.slice(1), env);
    case 'if':
      return truthy(it.ev(items[1] as Datum, env))
        ? it.evTail(items[2] as Datum, env)
        : items[3]
          ? it.evTail(items[3], env)
          : VOID;
    case 'when':
    case 'unless':
      return truthy(it.ev(items[1] as Datum, env)) === (name === 'when')
        ? seq(it, items.slice(2), env)
        : VOID;
    case 'and': {
      let r: Value = true;
      for (let i = 1; i < items.length; i++) {
        if (i === items.length - 1) return it.evTail(items[i] as Datum, env);
        r = it.ev(items[i] as Datum, env);
        if (!truthy(r)) return r;
      }
      return r;
    }
    case 'or': {
      for (let i = 1; i < items.length; i++) {
        if (i === items.length - 1) return it.evTail(items[i] as Datum, env);
        const r = it.ev(items[i] as Datum, env);
        if (truthy(r)) return r;
      }
      return false;
    }
    case 'set!': {
      const b = env.find((items[1] as SymD).name);
      if (!b) return it.fail('set! of an unbound variable');
      b.value = it.ev(items[2] as Datum, env);
      it.bindFact(b.key, b.value);
      return VOID;
    }
    case 'let':
      return letForm(it, d, env);
    case 'let*': {
      let e = env;
      for (const b of (items[1] as List).items as List[]) {
        const v = b.items[1] ? it.ev(b.items[1], e) : VOID;
        e = new Env(e);
        it.define(e, b.items[0] as SymD, v);
      }
      return it.body(items.slice(2), e);
    }
    case 'letrec':
    case 'letrec*': {
      const e = new Env(env);
      const bindings = (items[1] as List).items as List[];
      for (const b of bindings) e.vars.set((b.items[0] as SymD).name, { value: UNASSIGNED, key: null });
      for (const b of bindings)
        it.define(e, b.items[0] as SymD, it.ev(b.items[1] as Datum, e, (b.items[0] as SymD).name));
      return it.body(items.slice(2), e);
    }
    case 'cond':
      return condClauses(it, items.slice(1), env);
    case 'case': {
      const key = it.ev(items[1] as Datum, env);
      for (const c of items.slice(2) as List[]) {
        const data = c.items[0] as Datum;
        const hit =
          isSym(data, 'else') || (data as List).items.some((x) => equalValues(quoted(x), key, 'eqv'));
        if (!hit) continue;
        if (isSym(c.items[1], '=>')) {
          const f = it.ev(c.items[2] as Datum, env);
          return new TailCall(f, [key]);
        }
        return seq(it, c.items.slice(1), env);
      }
      return VOID;
    }
    case 'do': {
      // The front end rewrites do into a named let at the do's position: the same lambda and site.
      const specs = (items[1] as List).items as List[];
      const exit = items[2] as List;
      const loop = it.lambda(
        d,
        { t: 'list', items: specs.map((s) => s.items[0] as Datum), tail: null, pos },
        [],
        env,
      );
      let args = specs.map((s) => it.ev(s.items[1] as Datum, env));
      it.callFact(d, loop, args);
      for (;;) {
        const e = new Env(env);
        specs.forEach((s, i) => {
          it.define(e, s.items[0] as SymD, args[i] as Value);
        });
        if (truthy(it.ev(exit.items[0] as Datum, e))) return seq(it, exit.items.slice(1), e);
        for (const f of items.slice(3)) it.ev(f, e);
        args = specs.map((s) => it.ev((s.items[2] ?? s.items[0]) as Datum, e));
        it.callFact(d, loop, args);
      }
    }
    case 'delay':
    case 'delay-force':
      return new PromiseValue(false, () => it.ev(items[1] as Datum, env));
    case 'cons-stream':
      return new Pair(
        it.ev(items[1] as Datum, env),
        new PromiseValue(false, () => it.ev(items[2] as Datum, env)),
      );
    case 'make-parameter': {
      const conv = items[2] ? it.ev(items[2], env) : null;
      const v = it.ev(items[1] as Datum, env);
      return new Parameter(conv ? it.apply(conv, [v]) : v, conv);
    }
    case 'parameterize': {
      const bindings = (items[1] as List).items as List[];
      const params = bindings.map((b) => it.ev(b.items[0] as Datum, env) as Parameter);
      const vals = bindings.map((b) => it.ev(b.items[1] as Datum, env));
      const old = params.map((p) => p.value);
      params.forEach((p, i) => {
        p.value = p.converter ? it.apply(p.converter, [vals[i] as Value]) : (vals[i] as Value);
      });
      try {
        return it.ev(
          {
            t: 'list',
            items: [sym('let', pos), { t: 'list', items: [], tail: null, pos }, ...items.slice(2)],
            tail: null,
            pos,
          },
          env,
        );
      } finally {
        params.forEach((p, i) => {
          p.value = old[i] as Value;
        });
      }
    }
    case 'guard': {
      const spec = items[1] as List;
      const tag = {};
      try {
        return it.withHandler({ guard: tag }, () =>
          it.ev(
            {
              t: 'list',
              items: [sym('let', pos), { t: 'list', items: [], tail: null, pos }, ...items.slice(2)],
              tail: null,
              pos,
            },
            env,
          ),
        );
      } catch (e) {
        if (!(e instanceof GuardEscape) || e.tag !== tag) throw e;
        const inner = new Env(env);
        it.define(inner, spec.items[0] as SymD, e.obj);
        const clauses = spec.items.slice(1);
        const last = clauses[clauses.length - 1];
        const r = it.ev(
          {
            t: 'list',
            items: [
              sym('cond', pos),
              ...clauses,
              ...(isList(last) && isSym(last.items[0], 'else')
                ? []
                : [{ t: 'list', items: [sym('else', pos), sym('%reraise', pos)], tail: null, pos } as Datum]),
            ],
            tail: null,
            pos,
          },
          withReraise(inner, it, e.obj),
        );
        return r;
      }
    }
    case 'case-lambda': {
      const clauses = items
        .slice(1)
        .map((c) => it.lambda(c, (c as List).items[0] as Datum, (c as List).items.slice(1), env));
      const closure = it.lambda(d, sym('%args', pos), [], env);
      CASE_LAMBDAS.set(closure, clauses);
      return closure;
    }
    case 'let-values':
    case 'let*-values': {
      let e = new Env(env);
      for (const b of (items[1] as List).items as List[]) {
        const vals = it.valuesOf(it.ev(b.items[1] as Datum, name === 'let*-values' ? e : env));
        if (name === 'let*-values') e = new Env(e);
        it.bindFormals(b.items[0] as Datum, vals, e);
      }
      return it.body(items.slice(2), e);
    }
    case 'receive': {
      const e = new Env(env);
      it.bindFormals(items[1] as Datum, it.valuesOf(it.ev(items[2] as Datum, env)), e);
      return it.body(items.slice(3), e);
    }
    case 'import':
      return VOID;
    case 'let-syntax':
    case 'letrec-syntax': {
      const e = new Env(env);
      for (const b of (items[1] as List).items as List[]) {
        const n = b.items[0] as SymD;
        e.vars.set(n.name, {
          value: new MacroValue(parseSyntaxRules(n.name, b.items[1] as Datum)),
          key: null,
        });
      }
      return it.body(items.slice(2), e);
    }
    case 'assert':
      if (!truthy(it.ev(items[1] as Datum, env))) it.error('assertion failed');
      return VOID;
  }
  void defName;
  return it.fail(`form ${name}`);
}

function withReraise(env: Env, it: Interpreter, obj: Value): Env {
  const e = new Env(env);
  e.vars.set('%reraise', { value: VOID, key: null });
  Object.defineProperty(e.vars.get('%reraise'), 'value', { get: () => it.raise(obj, true) });
  return e;
}

/** Clauses of case-lambda closures (the interpreter's applyOnce consults it). */
export const CASE_LAMBDAS = new WeakMap<Closure, Closure[]>();
