/**
 * The expander: Scheme data → the core language the CPS converter takes. It resolves every name to
 * a unique {@link SourceVar} (alpha-renaming), turns derived forms into core ones, and rejects what
 * it does not support with the form's position.
 *
 * Core forms: variable reference, `lambda` with fixed parameters, unary application (n-ary calls
 * are curried here), `if`, `set!`, sequential binding (`letrec`/`define`), sequencing, constants,
 * primitive application, `call/cc` and halting (`raise` without a handler).
 * @module
 */
import { SchemeSyntaxError, SchemeSyntaxErrors, type SourcePos } from '../errors';
import { type Core, curriedApp, type ExpandedProgram, isList, isSym, type SourceVar } from './core';
import { condExpandForms, rewriteDefinition, rewriteExpression } from './derived';
import { Libraries, type LibraryResolver } from './libraries';
import { expandMacro, parseSyntaxRules } from './macros';
import { CALLING, PRELUDE_NAMES } from './prelude';
import { PRIMITIVES } from './primitives';
import { type Datum, datumToString, readScheme } from './reader';
import {
  assignedNames,
  callingDefinition,
  isMacro,
  type MacroBinding,
  preludeDefinitions,
  Scope,
  SPECIAL,
} from './scope';
import { runTrampoline, type Tramp } from './trampoline';

export {
  type Core,
  curriedApp,
  type ExpandedProgram,
  type LambdaOrigin,
  type OutsideModel,
  type SourceCallSite,
  type SourceVar,
  type SourceVarKind,
} from './core';

const UNSUPPORTED = new Set(['syntax-rules']);
/** Definitions that the body splices (rewritten by `rewriteDefinition`). */
const DEFINITIONS = new Set(['define-record-type', 'define-values']);

/**
 * Reads and expands a Scheme program (a sequence of top-level forms; `define`s are mutually
 * recursive, the value is the last expression's).
 *
 * @example
 * ```ts
 * const p = expandProgram('(define (id x) x) (id id)', 'id.scm');
 * p.variables.map((v) => v.name); // ['id', 'x']
 * ```
 */
export function expandProgram(
  text: string,
  file = '<input>',
  options: { readonly resolveLibrary?: LibraryResolver } = {},
): ExpandedProgram {
  const data = readScheme(text, file);
  const expander = new Expander(assignedNames(data), new Libraries(options.resolveLibrary));
  const start = data[0]?.pos ?? { file, line: 1, column: 1 };
  const body = runTrampoline(expander.body(data, start));
  if (expander.errors.length > 0) {
    const errors = [...expander.errors].sort(
      (a, b) => a.pos.line - b.pos.line || a.pos.column - b.pos.column,
    );
    throw errors.length === 1 ? errors[0] : new SchemeSyntaxErrors(errors);
  }
  return {
    body: expander.withPrelude(body),
    variables: expander.variables,
    callSites: expander.callSites,
    unknown: expander.unknown,
  };
}

class Expander extends Scope {
  /** Binds every prelude variable the program needed around it (letrec*: the prelude's order is free). */
  withPrelude(program: Core): Core {
    const inits: { v: SourceVar; init: Core }[] = [];
    for (let i = 0; i < this.preludeQueue_.length; i++) {
      const name = this.preludeQueue_[i] as string;
      const v = this.prelude_.get(name) as SourceVar;
      const pos = { file: '<prelude>', line: 1, column: 1 };
      let init: Core;
      if (name === '%heap') init = { k: 'const', value: 'basic', pos };
      else if (PRELUDE_NAMES.has(name) || CALLING[name] !== undefined) {
        const form = PRELUDE_NAMES.has(name)
          ? (preludeDefinitions().get(name) as Datum)
          : callingDefinition(name);
        this.inPrelude_ = name;
        init = runTrampoline(this.expr(this.parseDefine(form as Extract<Datum, { t: 'list' }>).value, name));
        this.inPrelude_ = null;
      } else if (PRIMITIVES.has(name)) init = this.primitiveValue(name, pos);
      else init = { k: 'const', value: 'basic', pos }; // a record field's cell
      inits.push({ v, init });
    }
    let result = program;
    for (let i = inits.length - 1; i >= 0; i--) {
      const { v, init } = inits[i] as { v: SourceVar; init: Core };
      result = { k: 'bind', v, init, body: result };
    }
    return result;
  }

  // ---- bodies: internal defines become sequential (letrec*) bindings ------------------------------

  *body(forms: readonly Datum[], pos: SourcePos): Tramp<Core> {
    // Splice `begin`s at body level, collect the defined names.
    const flat: Datum[] = [];
    const stack = [...forms].reverse();
    const macros: MacroBinding[] = [];
    while (stack.length > 0) {
      const f = stack.pop() as Datum;
      const head = isList(f) && f.tail === null ? f.items[0] : undefined;
      const headBinding = isSym(head) ? this.lookup(head.name) : undefined;
      if (isMacro(headBinding)) {
        // A macro use at body level may expand into definitions.
        const expanded = this.recover(() =>
          this.expandMacro(headBinding, f as Extract<Datum, { t: 'list' }>),
        );
        if (expanded !== undefined) stack.push(expanded);
      } else if (isSym(head, 'define-syntax') && this.special('define-syntax')) {
        const m = this.recover(() => this.defineSyntax(f as Extract<Datum, { t: 'list' }>));
        if (m) {
          macros.push(m);
          this.bind(m);
        }
      } else if (isSym(head, 'begin') && this.special('begin')) {
        const items = (f as Extract<Datum, { t: 'list' }>).items;
        for (let i = items.length - 1; i >= 1; i--) stack.push(items[i] as Datum);
      } else if (isSym(head, 'cond-expand') && this.special('cond-expand')) {
        const forms = this.recover(() => condExpandForms(f as Extract<Datum, { t: 'list' }>)) ?? [];
        for (let i = forms.length - 1; i >= 0; i--) stack.push(forms[i] as Datum);
      } else if ((isSym(head, 'import') || isSym(head, 'define-library')) && this.special(head.name)) {
        const list = f as Extract<Datum, { t: 'list' }>;
        const forms =
          this.recover(() =>
            head.name === 'import' ? this.libraries_.importForms(list) : this.libraries_.libraryForms(list),
          ) ?? [];
        for (let i = forms.length - 1; i >= 0; i--) stack.push(forms[i] as Datum);
      } else if (isSym(head) && DEFINITIONS.has(head.name) && this.special(head.name)) {
        const forms =
          this.recover(() =>
            rewriteDefinition(head.name, f as Extract<Datum, { t: 'list' }>, this.gensym_),
          ) ?? [];
        for (let i = forms.length - 1; i >= 0; i--) stack.push(forms[i] as Datum);
      } else flat.push(f);
    }
    const defined: { v: SourceVar; init: Datum | null; lambda: Datum | null; form: Datum }[] = [];
    const order: ({ def: number } | { expr: Datum })[] = [];
    const seen = new Map<string, number>();
    for (const f of flat) {
      if (isList(f) && isSym(f.items[0], 'define') && this.special('define')) {
        const parsed = this.recover(() => this.parseDefine(f));
        if (parsed === undefined) continue;
        const { name, namePos, value } = parsed;
        const again = seen.get(name);
        if (again !== undefined) {
          // A second define of the same name is an assignment.
          order.push({
            expr: {
              t: 'list',
              items: [{ t: 'sym', name: 'set!', pos: f.pos }, { t: 'sym', name, pos: namePos }, value],
              tail: null,
              pos: f.pos,
            },
          });
          continue;
        }
        const v = this.fresh(name, namePos, 'define');
        seen.set(name, defined.length);
        order.push({ def: defined.length });
        defined.push({ v, init: value, lambda: null, form: f });
      } else order.push({ expr: f });
    }
    const vars = defined.map((d) => d.v);
    for (const v of vars) this.bind(v);
    // The body's macros see its definitions (letrec* scope) from here on.
    for (const m of macros) this.captureDefinitionEnv(m);
    // Build from the end: the value of a body is its last expression (void if it ends in a define).
    const parts: ({ bind: SourceVar; init: Core } | { expr: Core })[] = [];
    for (const item of order) {
      if ('def' in item) {
        const d = defined[item.def] as (typeof defined)[number];
        const init = (yield this.recovering(this.expr(d.init as Datum, d.v.name), pos)) as Core;
        parts.push({ bind: d.v, init });
      } else parts.push({ expr: (yield this.recovering(this.expr(item.expr), pos)) as Core });
    }
    this.unbind(vars);
    this.unbind(macros);
    let result: Core;
    const last = parts[parts.length - 1];
    if (last === undefined || 'bind' in last) result = { k: 'const', value: 'basic', pos };
    else {
      parts.pop();
      result = last.expr;
    }
    for (let i = parts.length - 1; i >= 0; i--) {
      const p = parts[i] as (typeof parts)[number];
      result =
        'bind' in p
          ? { k: 'bind', v: p.bind, init: p.init, body: result }
          : { k: 'seq', first: p.expr, rest: result };
    }
    return result;
  }

  /** `(define-syntax name (syntax-rules …))`. */
  defineSyntax(f: Extract<Datum, { t: 'list' }>): MacroBinding {
    const [, name, spec] = f.items;
    if (!isSym(name) || spec === undefined || f.items.length !== 3)
      this.fail(f.pos, 'define-syntax: expected (define-syntax name (syntax-rules …))');
    return { kind: 'macro', name: name.name, macro: parseSyntaxRules(name.name, spec) };
  }

  expandMacro(b: MacroBinding, d: Extract<Datum, { t: 'list' }>): Datum {
    return expandMacro(
      b.macro,
      d,
      (name) => this.gensym_.next(`${name}%m`),
      (name) => this.hygienicName(b, name),
    );
  }

  parseDefine(f: Extract<Datum, { t: 'list' }>): { name: string; namePos: SourcePos; value: Datum } {
    const items = this.items(f, 'define');
    let target = items[1];
    if (target === undefined) this.fail(f.pos, 'define: missing name');
    let body: Datum[] = items.slice(2);
    // (define ((f a) b) …) curried defines, (define (f . args) …)
    while (isList(target)) {
      const head: Datum | undefined = target.items[0];
      if (head === undefined) this.fail(target.pos, 'define: empty procedure header');
      const formals: Datum = { t: 'list', items: target.items.slice(1), tail: target.tail, pos: target.pos };
      const lam: Datum = {
        t: 'list',
        items: [{ t: 'sym', name: 'lambda', pos: target.pos }, formals, ...body],
        tail: null,
        pos: f.pos,
      };
      body = [lam];
      target = head;
    }
    if (!isSym(target)) this.fail(target.pos, `define: expected a name, got ${datumToString(target, 80)}`);
    if (body.length === 0)
      return { name: target.name, namePos: target.pos, value: { t: 'sym', name: '%void', pos: f.pos } };
    if (body.length > 1) this.fail(f.pos, 'define: more than one expression');
    return { name: target.name, namePos: target.pos, value: body[0] as Datum };
  }

  // ---- expressions ---------------------------------------------------------------------------

  *exprs(ds: readonly Datum[]): Tramp<Core[]> {
    const out: Core[] = [];
    for (const d of ds) out.push((yield this.expr(d)) as Core);
    return out;
  }

  *expr(d: Datum, name?: string): Tramp<Core> {
    switch (d.t) {
      case 'num':
      case 'str':
      case 'char':
      case 'vec':
        return { k: 'const', value: 'basic', pos: d.pos };
      case 'bool':
        return { k: 'const', value: d.value ? 'true' : 'false', pos: d.pos };
      case 'sym': {
        if (d.name === '%void' || d.name === '%unknown') return { k: 'const', value: 'basic', pos: d.pos };
        const b = this.lookup(d.name);
        if (b === undefined) {
          if (SPECIAL.has(d.name)) this.fail(d.pos, `'${d.name}' is a special form, not a value`);
          this.errors.push(new SchemeSyntaxError(d.pos, `unbound variable '${d.name}'`));
          return { k: 'const', value: 'basic', pos: d.pos };
        }
        if (b === 'primitive') return this.primitiveValue(this.canonical(d.name), d.pos);
        if (isMacro(b)) this.fail(d.pos, `macro '${d.name}' used as a value`);
        return { k: 'ref', v: b, pos: d.pos };
      }
      case 'list':
        break;
    }
    const head = d.items[0];
    if (head === undefined) this.fail(d.pos, 'empty combination ()');
    if (isSym(head) && this.special(head.name))
      return (yield this.special_(this.canonical(head.name), d, name)) as Core;
    const headBinding = isSym(head) ? this.lookup(head.name) : undefined;
    if (isMacro(headBinding)) return (yield this.expr(this.expandMacro(headBinding, d), name)) as Core;
    // Application.
    const items = this.items(d, 'application');
    if (isSym(head) && this.lookup(head.name) === 'primitive') {
      const args = (yield this.exprs(items.slice(1))) as Core[];
      const prim = this.canonical(head.name);
      if (CALLING[prim] !== undefined) return this.calling(prim, args, d.pos);
      return this.primApp(prim, args, d.pos);
    }
    const fn = (yield this.expr(head)) as Core;
    const args = (yield this.exprs(items.slice(1))) as Core[];
    const operator = isSym(head) ? this.canonical(head.name).slice(0, 40) : datumToString(head, 40);
    const site = this.site(d.pos, operator, args.length);
    return curriedApp(fn, args, d.pos, site);
  }

  *lambda(
    d: Extract<Datum, { t: 'list' }>,
    formals: Datum | undefined,
    bodyForms: Datum[],
    name?: string,
    markArity = true,
  ): Tramp<Core> {
    if (formals === undefined) this.fail(d.pos, 'lambda: missing parameter list');
    const params: SourceVar[] = [];
    let rest: SourceVar | null = null;
    const names = new Set<string>();
    const param = (p: Datum): SourceVar => {
      if (!isSym(p)) this.fail(p.pos, `lambda: parameter must be a name, got ${datumToString(p, 80)}`);
      if (names.has(p.name)) this.fail(p.pos, `lambda: duplicate parameter '${p.name}'`);
      names.add(p.name);
      return this.fresh(p.name, p.pos, 'parameter');
    };
    if (isSym(formals)) rest = param(formals);
    else if (isList(formals)) {
      for (const p of formals.items) params.push(param(p));
      if (formals.tail !== null) rest = param(formals.tail);
    } else this.fail(formals.pos, `lambda: bad parameter list ${datumToString(formals, 80)}`);
    if (bodyForms.length === 0) this.fail(d.pos, 'lambda: empty body');
    const all = rest ? [...params, rest] : params;
    for (const v of all) this.bind(v);
    const body = (yield this.body(bodyForms, d.pos)) as Core;
    this.unbind(all);
    const origin = this.lambdaOrigin(d.pos, name);
    if (rest) return this.restLambda(params, rest, body, d.pos, origin);
    if (!markArity) return { k: 'lam', params, body, pos: d.pos, origin };
    const n = params.length;
    return { k: 'lam', params, body, pos: d.pos, origin, arity: { min: n, max: n } };
  }

  *special_(name: string, d: Extract<Datum, { t: 'list' }>, defName?: string): Tramp<Core> {
    const pos = d.pos;
    if (UNSUPPORTED.has(name)) this.fail(pos, `unsupported form '${name}'`);
    const items = this.items(d, name);
    const rewritten = rewriteExpression(name, d, this.gensym_);
    if (rewritten !== undefined) return (yield this.expr(rewritten, defName)) as Core;
    const basic: Core = { k: 'const', value: 'basic', pos };
    switch (name) {
      case 'quote': {
        if (items.length !== 2) this.fail(pos, 'quote: expected one datum');
        const q = items[1] as Datum;
        if (q.t === 'bool') return { k: 'const', value: q.value ? 'true' : 'false', pos };
        return basic;
      }
      case 'quasiquote':
        return (yield this.quasiquote(items, pos)) as Core;
      case 'unquote':
      case 'unquote-splicing':
      case 'else':
      case '=>':
        return this.fail(pos, `'${name}' outside its context`);
      case 'lambda':
        return (yield this.lambda(d, items[1], items.slice(2), defName)) as Core;
      case '%lambda/any-arity':
        // A procedure of the rewrites that the model applies to fewer arguments than it has
        // parameters (a parameter object's `(p)`): arity-aware flows do not filter its calls.
        return (yield this.lambda(d, items[1], items.slice(2), defName, false)) as Core;
      case 'named-lambda': {
        const h = items[1];
        if (!isList(h) || !isSym(h.items[0])) this.fail(pos, 'named-lambda: expected (name . formals)');
        const formals: Datum = { t: 'list', items: h.items.slice(1), tail: h.tail, pos: h.pos };
        return (yield this.lambda(d, formals, items.slice(2), (h.items[0] as { name: string }).name)) as Core;
      }
      case 'define':
        return this.fail(pos, 'define is only allowed at the top level or at the start of a body');
      case 'begin':
        if (items.length === 1) return basic;
        return (yield this.sequence(items.slice(1), pos)) as Core;
      case 'if': {
        if (items.length !== 3 && items.length !== 4) this.fail(pos, 'if: expected (if test then [else])');
        const c = (yield this.expr(items[1] as Datum)) as Core;
        const t = (yield this.expr(items[2] as Datum)) as Core;
        const e = items[3] ? ((yield this.expr(items[3])) as Core) : basic;
        return { k: 'if', c, t, e, pos };
      }
      case 'set!': {
        const target = items[1];
        if (items.length !== 3 || !isSym(target)) this.fail(pos, 'set!: expected (set! name expression)');
        const b = this.lookup(target.name);
        if (b === undefined) this.fail(target.pos, `set!: unbound variable '${target.name}'`);
        const e = (yield this.expr(items[2] as Datum)) as Core;
        if (b === 'primitive') return { k: 'prim', name: 'set!', args: [e], pos };
        if (isMacro(b)) this.fail(target.pos, `set!: '${target.name}' is a macro`);
        b.mutable = true;
        return { k: 'set', v: b, e, pos };
      }
      case 'let':
        return (yield this.let_(d, items, pos)) as Core;
      case 'let*':
        return (yield this.letStar(items, pos)) as Core;
      case 'letrec':
      case 'letrec*':
        return (yield this.letrec(name, items, pos)) as Core;
      case 'and':
      case 'or':
        return (yield this.andOr(name, items, pos)) as Core;
      case 'when':
      case 'unless': {
        if (items.length < 3) this.fail(pos, `${name}: expected (${name} test expression …)`);
        const c = (yield this.expr(items[1] as Datum)) as Core;
        const b = (yield this.sequence(items.slice(2), pos)) as Core;
        return name === 'when' ? { k: 'if', c, t: b, e: basic, pos } : { k: 'if', c, t: basic, e: b, pos };
      }
      case 'cond':
        return (yield this.cond(items.slice(1), pos)) as Core;
      case 'case':
        return (yield this.case_(items, pos)) as Core;
      case 'do':
        return (yield this.do_(items, pos)) as Core;
      case 'call/cc':
      case 'call-with-current-continuation': {
        if (items.length !== 2) this.fail(pos, `${name}: expected one procedure`);
        return { k: 'callcc', f: (yield this.expr(items[1] as Datum)) as Core, pos };
      }
      case 'apply':
        return (yield this.apply(items, pos)) as Core;
      case '%halt':
        return { k: 'halt', args: (yield this.exprs(items.slice(1))) as Core[], pos };
      case 'delay':
      case 'delay-force':
        return (yield this.delay(name, items, pos)) as Core;
      case 'let-syntax':
      case 'letrec-syntax':
        return (yield this.letSyntax(name, items, pos)) as Core;
      case 'define-syntax':
      case 'define-record-type':
      case 'define-values':
      case 'import':
      case 'define-library':
        return this.fail(pos, `${name} is only allowed at the top level or at the start of a body`);
      case 'assert':
        return { k: 'prim', name: 'assert', args: (yield this.exprs(items.slice(1))) as Core[], pos };
    }
    return this.fail(pos, `unsupported form '${name}'`);
  }

  /** `(quasiquote template)`: the unquoted expressions, evaluated, make a basic value. */
  *quasiquote(items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    if (items.length !== 2) this.fail(pos, 'quasiquote: expected one datum');
    const template = items[1] as Datum;
    // `,e is e itself.
    if (isList(template) && isSym(template.items[0], 'unquote') && template.items.length === 2)
      return (yield this.expr(template.items[1] as Datum)) as Core;
    const unquoted: Datum[] = [];
    const walk: { d: Datum; depth: number }[] = [{ d: items[1] as Datum, depth: 1 }];
    while (walk.length > 0) {
      const { d: x, depth } = walk.pop() as { d: Datum; depth: number };
      if (x.t === 'vec') for (const y of x.items) walk.push({ d: y, depth });
      if (x.t !== 'list') continue;
      const h = x.items[0];
      if (isSym(h, 'unquote') || isSym(h, 'unquote-splicing')) {
        if (depth === 1) {
          if (x.items[1] !== undefined) unquoted.push(x.items[1]);
          continue;
        }
        for (const y of x.items.slice(1)) walk.push({ d: y, depth: depth - 1 });
        continue;
      }
      const inner = isSym(h, 'quasiquote') ? depth + 1 : depth;
      for (const y of x.items) walk.push({ d: y, depth: inner });
      if (x.tail) walk.push({ d: x.tail, depth: inner });
    }
    unquoted.reverse();
    return this.primApp('quasiquote', (yield this.exprs(unquoted)) as Core[], pos);
  }

  /** `let`, named or not: `((lambda (v …) body …) init …)`. */
  *let_(d: Extract<Datum, { t: 'list' }>, items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    if (isSym(items[1])) return (yield this.namedLet(d, [...items])) as Core;
    const bindings = this.bindings(items[1], 'let', pos);
    if (bindings.length === 0) return (yield this.body(items.slice(2), pos)) as Core;
    // ((lambda (v …) body …) init …), as the data folder's preprocessor does.
    const inits = (yield this.exprs(bindings.map((b) => b.init))) as Core[];
    const params = bindings.map((b) => this.fresh(b.name, b.pos, 'let'));
    for (const v of params) this.bind(v);
    const body = (yield this.body(items.slice(2), pos)) as Core;
    this.unbind(params);
    const lam: Core = { k: 'lam', params, body, pos, origin: this.lambdaOrigin(pos, 'let') };
    return curriedApp(lam, inits, pos, undefined);
  }

  /** `let*`: nested `let`s. */
  *letStar(items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    const bindings = this.bindings(items[1], 'let*', pos);
    if (bindings.length <= 1) {
      const rewritten: Datum = {
        t: 'list',
        items: [{ t: 'sym', name: 'let', pos }, ...items.slice(1)],
        tail: null,
        pos,
      };
      return (yield this.special_('let', rewritten as Extract<Datum, { t: 'list' }>)) as Core;
    }
    const [first, ...others] = (items[1] as Extract<Datum, { t: 'list' }>).items;
    const inner: Datum = {
      t: 'list',
      items: [
        { t: 'sym', name: 'let*', pos },
        { t: 'list', items: others, tail: null, pos },
        ...items.slice(2),
      ],
      tail: null,
      pos,
    };
    const outer: Datum = {
      t: 'list',
      items: [{ t: 'sym', name: 'let', pos }, { t: 'list', items: [first as Datum], tail: null, pos }, inner],
      tail: null,
      pos,
    };
    return (yield this.special_('let', outer as Extract<Datum, { t: 'list' }>)) as Core;
  }

  /** `letrec`/`letrec*`: bindings in scope of their own inits. */
  *letrec(name: string, items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    const bindings = this.bindings(items[1], name, pos);
    const vars = bindings.map((b) => this.fresh(b.name, b.pos, 'let'));
    for (const v of vars) this.bind(v);
    const inits: Core[] = [];
    for (let i = 0; i < bindings.length; i++)
      inits.push(
        (yield this.expr((bindings[i] as { init: Datum }).init, (vars[i] as SourceVar).name)) as Core,
      );
    let body = (yield this.body(items.slice(2), pos)) as Core;
    this.unbind(vars);
    for (let i = vars.length - 1; i >= 0; i--)
      body = { k: 'bind', v: vars[i] as SourceVar, init: inits[i] as Core, body };
    return body;
  }

  /** `and`/`or` as `if`s (`or` binds each value once). */
  *andOr(name: string, items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    if (items.length === 1) return { k: 'const', value: name === 'and' ? 'true' : 'false', pos };
    const parts = (yield this.exprs(items.slice(1))) as Core[];
    let result = parts[parts.length - 1] as Core;
    for (let i = parts.length - 2; i >= 0; i--) {
      const p = parts[i] as Core;
      if (name === 'and') result = { k: 'if', c: p, t: result, e: { k: 'const', value: 'false', pos }, pos };
      else {
        const t = this.temp(pos);
        result = {
          k: 'bind',
          v: t,
          init: p,
          body: { k: 'if', c: { k: 'ref', v: t, pos }, t: { k: 'ref', v: t, pos }, e: result, pos },
        };
      }
    }
    return result;
  }

  /** `delay`/`delay-force`: the promise's thunk is written to `%promise-thunk`. */
  *delay(name: string, items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    // The promise's thunk joins every other promise's in %promise-thunk; force calls them all.
    if (items.length !== 2) this.fail(pos, `${name}: expected one expression`);
    const body = (yield this.expr(items[1] as Datum)) as Core;
    const cell = this.preludeVar('%promise-thunk');
    cell.mutable = true;
    const thunk: Core = { k: 'lam', params: [], body, pos, origin: { kind: 'thunk', pos } };
    return {
      k: 'seq',
      first: { k: 'set', v: cell, e: thunk, pos },
      rest: { k: 'const', value: 'basic', pos },
    };
  }

  /** `let-syntax`/`letrec-syntax`: macros in scope of the body. */
  *letSyntax(name: string, items: readonly Datum[], pos: SourcePos): Tramp<Core> {
    const bindings = items[1];
    if (!isList(bindings)) this.fail(pos, `${name}: expected (${name} ((name transformer) …) body …)`);
    const macros = bindings.items.map((b) => {
      const [n, spec] = isList(b) ? b.items : [];
      if (!isSym(n) || spec === undefined) return this.fail(b.pos, `${name}: bad binding`);
      return { kind: 'macro', name: n.name, macro: parseSyntaxRules(n.name, spec) } as MacroBinding;
    });
    for (const m of macros) this.bind(m);
    for (const m of macros) this.captureDefinitionEnv(m);
    const body = (yield this.body(items.slice(2), pos)) as Core;
    this.unbind(macros);
    return body;
  }

  *sequence(forms: readonly Datum[], pos: SourcePos): Tramp<Core> {
    const parts = (yield this.exprs(forms)) as Core[];
    let result = (parts.pop() ?? { k: 'const', value: 'basic', pos }) as Core;
    for (let i = parts.length - 1; i >= 0; i--) result = { k: 'seq', first: parts[i] as Core, rest: result };
    return result;
  }

  bindings(
    d: Datum | undefined,
    form: string,
    pos: SourcePos,
  ): { name: string; pos: SourcePos; init: Datum }[] {
    if (!isList(d)) this.fail(d?.pos ?? pos, `${form}: expected a list of bindings`);
    return this.items(d, form).map((b) => {
      if (!isList(b) || !isSym(b.items[0]) || b.items.length > 2)
        this.fail(b.pos, `${form}: bad binding ${datumToString(b, 80)}`);
      const n = b.items[0] as Extract<Datum, { t: 'sym' }>;
      return { name: n.name, pos: n.pos, init: b.items[1] ?? { t: 'sym', name: '%void', pos: b.pos } };
    });
  }

  *namedLet(d: Extract<Datum, { t: 'list' }>, items: Datum[]): Tramp<Core> {
    const pos = d.pos;
    const loopName = items[1] as Extract<Datum, { t: 'sym' }>;
    const bindings = this.bindings(items[2], 'let', pos);
    const inits = (yield this.exprs(bindings.map((b) => b.init))) as Core[];
    const loop = this.fresh(loopName.name, loopName.pos, 'let');
    this.bind(loop);
    const formals: Datum = {
      t: 'list',
      items: bindings.map((b) => ({ t: 'sym', name: b.name, pos: b.pos }) as Datum),
      tail: null,
      pos,
    };
    const lam = (yield this.lambda(d, formals, items.slice(3), loopName.name)) as Core;
    this.unbind([loop]);
    const site = this.site(pos, loopName.name, inits.length);
    return { k: 'bind', v: loop, init: lam, body: curriedApp({ k: 'ref', v: loop, pos }, inits, pos, site) };
  }

  *cond(clauses: readonly Datum[], pos: SourcePos): Tramp<Core> {
    if (clauses.length === 0) return { k: 'const', value: 'basic', pos };
    const [clause, ...rest] = clauses as [Datum, ...Datum[]];
    if (!isList(clause) || clause.items.length === 0) this.fail(clause.pos, 'cond: bad clause');
    const parts = this.items(clause, 'cond clause');
    if (isSym(parts[0], 'else') && this.special('else')) {
      if (rest.length > 0) this.fail(clause.pos, 'cond: else must be the last clause');
      return (yield this.sequence(parts.slice(1), clause.pos)) as Core;
    }
    const test = (yield this.expr(parts[0] as Datum)) as Core;
    const otherwise = (yield this.cond(rest, pos)) as Core;
    if (parts.length === 1) {
      const t = this.temp(clause.pos);
      const ref: Core = { k: 'ref', v: t, pos: clause.pos };
      return {
        k: 'bind',
        v: t,
        init: test,
        body: { k: 'if', c: ref, t: ref, e: otherwise, pos: clause.pos },
      };
    }
    if (isSym(parts[1], '=>') && this.special('=>')) {
      if (parts.length !== 3) this.fail(clause.pos, 'cond: expected (test => receiver)');
      const receiver = (yield this.expr(parts[2] as Datum)) as Core;
      const t = this.temp(clause.pos);
      const site = this.site(clause.pos, datumToString(parts[2] as Datum, 40), 1);
      const call = curriedApp(receiver, [{ k: 'ref', v: t, pos: clause.pos }], clause.pos, site);
      return {
        k: 'bind',
        v: t,
        init: test,
        body: { k: 'if', c: { k: 'ref', v: t, pos: clause.pos }, t: call, e: otherwise, pos: clause.pos },
      };
    }
    const then = (yield this.sequence(parts.slice(1), clause.pos)) as Core;
    return { k: 'if', c: test, t: then, e: otherwise, pos: clause.pos };
  }

  *case_(items: Datum[], pos: SourcePos): Tramp<Core> {
    if (items.length < 2) this.fail(pos, 'case: missing key');
    const key = (yield this.expr(items[1] as Datum)) as Core;
    const t = this.temp(pos);
    const ref: Core = { k: 'ref', v: t, pos };
    let result: Core = { k: 'const', value: 'basic', pos };
    const clauses = items.slice(2);
    for (let i = clauses.length - 1; i >= 0; i--) {
      const clause = clauses[i] as Datum;
      if (!isList(clause) || clause.items.length < 2) this.fail(clause.pos, 'case: bad clause');
      const parts = this.items(clause, 'case clause');
      const isElse = isSym(parts[0], 'else');
      if (!isElse && !isList(parts[0])) this.fail(clause.pos, 'case: expected a list of data or else');
      if (isElse && i !== clauses.length - 1) this.fail(clause.pos, 'case: else must be the last clause');
      let body: Core;
      if (isSym(parts[1], '=>')) {
        const receiver = (yield this.expr(parts[2] as Datum)) as Core;
        body = curriedApp(receiver, [ref], clause.pos, undefined);
      } else body = (yield this.sequence(parts.slice(1), clause.pos)) as Core;
      result = isElse
        ? body
        : {
            k: 'if',
            c: { k: 'const', value: 'basic', pos: clause.pos },
            t: body,
            e: result,
            pos: clause.pos,
          };
    }
    return { k: 'bind', v: t, init: key, body: result };
  }

  *do_(items: Datum[], pos: SourcePos): Tramp<Core> {
    // (do ((v init step) …) (test result …) body …) → (let loop ((v init) …) (if test (begin result …) (begin body … (loop step …))))
    const specs = items[1];
    const exit = items[2];
    if (!isList(specs) || !isList(exit) || exit.items.length === 0)
      this.fail(pos, 'do: expected (do ((var init step) …) (test result …) body …)');
    const loop: Datum = { t: 'sym', name: `%do${this.tmp_++}`, pos };
    const bindings: Datum[] = [];
    const steps: Datum[] = [];
    for (const s of specs.items) {
      if (!isList(s) || !isSym(s.items[0]) || s.items.length < 2 || s.items.length > 3)
        this.fail(s.pos, 'do: bad variable clause');
      bindings.push({ t: 'list', items: [s.items[0] as Datum, s.items[1] as Datum], tail: null, pos: s.pos });
      steps.push(s.items[2] ?? (s.items[0] as Datum));
    }
    const sym = (name: string): Datum => ({ t: 'sym', name, pos });
    const list = (...xs: Datum[]): Datum => ({ t: 'list', items: xs, tail: null, pos });
    const result = exit.items.length > 1 ? list(sym('begin'), ...exit.items.slice(1)) : sym('%void');
    const again = list(sym('begin'), ...items.slice(3), list(loop, ...steps));
    const form = list(
      sym('let'),
      loop,
      list(...bindings),
      list(sym('if'), exit.items[0] as Datum, result, again),
    );
    return (yield this.expr(form)) as Core;
  }

  *apply(items: Datum[], pos: SourcePos): Tramp<Core> {
    // (apply f a … lst): f is called with a … and then with any number of further (basic) arguments.
    if (items.length < 3) this.fail(pos, 'apply: expected (apply procedure argument … list)');
    const fn = (yield this.expr(items[1] as Datum)) as Core;
    const args = (yield this.exprs(items.slice(2))) as Core[];
    const list = args.pop() as Core;
    const basic: Core = { k: 'const', value: 'basic', pos };
    const loop = this.temp(pos);
    const r = this.temp(pos);
    const site = this.site(pos, datumToString(items[1] as Datum, 40), -1);
    // loop = (lambda (r) (if ? r (loop (r heap)))): the list's elements are heap values.
    const loopLam: Core = {
      k: 'lam',
      params: [r],
      body: {
        k: 'if',
        c: basic,
        t: { k: 'ref', v: r, pos },
        e: curriedApp(
          { k: 'ref', v: loop, pos },
          [curriedApp({ k: 'ref', v: r, pos }, [this.heapRef(pos)], pos, undefined)],
          pos,
          undefined,
        ),
        pos,
      },
      pos,
      origin: { kind: 'thunk', pos },
    };
    const g = this.temp(pos);
    const gRef: Core = { k: 'ref', v: g, pos };
    const start: Core =
      args.length > 0
        ? curriedApp({ k: 'ref', v: loop, pos }, [curriedApp(gRef, args, pos, site)], pos, undefined)
        : {
            k: 'if',
            c: basic,
            t: curriedApp(gRef, [], pos, site),
            e: curriedApp(
              { k: 'ref', v: loop, pos },
              [curriedApp(gRef, [this.heapRef(pos)], pos, undefined)],
              pos,
              undefined,
            ),
            pos,
          };
    return {
      k: 'bind',
      v: g,
      init: fn,
      body: { k: 'seq', first: list, rest: { k: 'bind', v: loop, init: loopLam, body: start } },
    };
  }
}
