/**
 * Derived forms of R7RS written as rewrites of the read data into forms the expander knows:
 * multiple values (`let-values`, `let*-values`, `receive`, `define-values`), `case-lambda`,
 * `guard`, `parameterize`, `make-parameter`, `cons-stream` and `define-record-type`.
 *
 * The rewrites name the standard procedures they need as `%prelude:NAME`, which always means the
 * prelude's procedure (a program that binds `raise-continuable` itself does not capture `guard`'s).
 * Record fields are cells `%prelude:%field:…`: one program-wide variable per field of each record
 * type, written by the constructor and the modifier and read by the accessor.
 * @module
 */
import { SchemeSyntaxError, type SourcePos } from '../errors';
import { type Datum, datumToString } from './reader';

type List = Extract<Datum, { t: 'list' }>;

const sym = (name: string, pos: SourcePos): Datum => ({ t: 'sym', name, pos });
const list = (pos: SourcePos, ...items: Datum[]): Datum => ({ t: 'list', items, tail: null, pos });
const isSym = (d: Datum | undefined, name?: string): d is Extract<Datum, { t: 'sym' }> =>
  d !== undefined && d.t === 'sym' && (name === undefined || d.name === name);
const isList = (d: Datum | undefined): d is List => d !== undefined && d.t === 'list';
const fail = (pos: SourcePos, reason: string): never => {
  throw new SchemeSyntaxError(pos, reason);
};

/**
 * Fresh names for the rewrites: `%base 7` — the space keeps them apart from every name the reader
 * can produce, and marks their variables as synthetic (left out of the results).
 */
export class Gensym {
  #n = 0;
  next(base: string): string {
    return `%${base} ${this.#n++}`;
  }
}

/** Formals `(a b . r)` with the same shape and fresh names. */
function freshFormals(formals: Datum, g: Gensym): { formals: Datum; pairs: [Datum, Datum][] } {
  const pairs: [Datum, Datum][] = [];
  const rename = (d: Datum): Datum => {
    if (!isSym(d)) return fail(d.pos, `bad formal ${datumToString(d)}`);
    const t = sym(g.next('mv'), d.pos);
    pairs.push([d, t]);
    return t;
  };
  if (isSym(formals)) return { formals: rename(formals), pairs };
  if (!isList(formals)) return fail(formals.pos, `bad formals ${datumToString(formals)}`);
  const items = formals.items.map(rename);
  const tail = formals.tail === null ? null : rename(formals.tail);
  return { formals: { t: 'list', items, tail, pos: formals.pos }, pairs };
}

const thunk = (pos: SourcePos, ...body: Datum[]): Datum => list(pos, sym('lambda', pos), list(pos), ...body);
const cwv = (pos: SourcePos, producer: Datum, consumer: Datum): Datum =>
  list(pos, sym('%prelude:call-with-values', pos), producer, consumer);

/**
 * Rewrites an expression form; undefined when `name` is not one of this module's.
 *
 * @example
 * ```ts
 * rewriteExpression('receive', readScheme('(receive (a b) (values 1 2) a)')[0], new Gensym());
 * ```
 */
export function rewriteExpression(name: string, d: List, g: Gensym): Datum | undefined {
  const pos = d.pos;
  const items = d.items;
  switch (name) {
    case 'let-values':
    case 'let*-values': {
      const bindings = items[1];
      if (!isList(bindings) || items.length < 3)
        return fail(pos, `${name}: expected (${name} (bindings) body …)`);
      const body = items.slice(2);
      if (name === 'let*-values') {
        let result: Datum = list(pos, sym('let', pos), list(pos), ...body);
        for (let i = bindings.items.length - 1; i >= 0; i--) {
          const b = bindings.items[i] as Datum;
          if (!isList(b) || b.items.length !== 2) return fail(b.pos, `${name}: bad binding`);
          const lam: Datum = list(b.pos, sym('lambda', b.pos), b.items[0] as Datum, result);
          result = cwv(b.pos, thunk(b.pos, b.items[1] as Datum), lam);
        }
        return result;
      }
      // Parallel scope: every init is evaluated outside the new bindings (fresh names first).
      const renames: [Datum, Datum][] = [];
      const steps: { formals: Datum; init: Datum; pos: SourcePos }[] = [];
      for (const b of bindings.items) {
        if (!isList(b) || b.items.length !== 2) return fail(b.pos, `${name}: bad binding`);
        const f = freshFormals(b.items[0] as Datum, g);
        renames.push(...f.pairs);
        steps.push({ formals: f.formals, init: b.items[1] as Datum, pos: b.pos });
      }
      let result: Datum = list(
        pos,
        sym('let', pos),
        list(pos, ...renames.map(([v, t]) => list(pos, v, t))),
        ...body,
      );
      for (let i = steps.length - 1; i >= 0; i--) {
        const s = steps[i] as (typeof steps)[number];
        result = cwv(s.pos, thunk(s.pos, s.init), list(s.pos, sym('lambda', s.pos), s.formals, result));
      }
      return result;
    }
    case 'receive': {
      if (items.length < 4) return fail(pos, 'receive: expected (receive formals expression body …)');
      return cwv(
        pos,
        thunk(pos, items[2] as Datum),
        list(pos, sym('lambda', pos), items[1] as Datum, ...items.slice(3)),
      );
    }
    case 'case-lambda': {
      // Any clause may run with the call's arguments (read back from the heap by apply).
      const args = sym(g.next('args'), pos);
      let result: Datum = list(pos, sym('quote', pos), list(pos));
      for (let i = items.length - 1; i >= 1; i--) {
        const clause = items[i] as Datum;
        if (!isList(clause) || clause.items.length < 2) return fail(clause.pos, 'case-lambda: bad clause');
        const lam = list(clause.pos, sym('lambda', clause.pos), ...clause.items);
        const call = list(clause.pos, sym('apply', clause.pos), lam, args);
        result =
          i === items.length - 1 ? call : list(pos, sym('if', pos), sym('%unknown', pos), call, result);
      }
      return { t: 'list', items: [sym('lambda', pos), args, result], tail: null, pos };
    }
    case 'guard': {
      // (call/cc (λ (k) (with-exception-handler (λ (e) (k (cond clause … [else (raise-continuable e)]))) (λ () body …))))
      const spec = items[1];
      if (!isList(spec) || !isSym(spec.items[0]) || items.length < 3)
        return fail(pos, 'guard: expected (guard (variable clause …) body …)');
      const e = spec.items[0] as Datum;
      const clauses = spec.items.slice(1);
      const last = clauses[clauses.length - 1];
      const hasElse = isList(last) && isSym(last.items[0], 'else');
      const reraise = list(pos, sym('else', pos), list(pos, sym('%prelude:raise-continuable', pos), e));
      const k = sym(g.next('k'), pos);
      const cond = list(pos, sym('cond', pos), ...clauses, ...(hasElse ? [] : [reraise]));
      const handler = list(pos, sym('lambda', pos), list(pos, e), list(pos, k, cond));
      const body = thunk(pos, ...items.slice(2));
      const weh = list(pos, sym('%prelude:with-exception-handler', pos), handler, body);
      return list(pos, sym('%prelude:call/cc', pos), list(pos, sym('lambda', pos), list(pos, k), weh));
    }
    case 'parameterize': {
      const bindings = items[1];
      if (!isList(bindings) || items.length < 3)
        return fail(pos, 'parameterize: expected (parameterize ((p v) …) body …)');
      const sets = bindings.items.map((b) => {
        if (!isList(b) || b.items.length !== 2) return fail(b.pos, 'parameterize: bad binding');
        return list(b.pos, b.items[0] as Datum, b.items[1] as Datum);
      });
      return list(pos, sym('begin', pos), ...sets, list(pos, sym('let', pos), list(pos), ...items.slice(2)));
    }
    case 'make-parameter': {
      // (let ((v value) (c converter)) (let ((cell (c v))) (λ (x) (set! cell (c x)) cell))):
      // (p) passes the basic value as x; (p v), as parameterize writes it, sets the cell.
      if (items.length < 2 || items.length > 3)
        return fail(pos, 'make-parameter: expected (make-parameter value [converter])');
      const v = sym(g.next('value'), pos);
      const c = sym(g.next('convert'), pos);
      const cell = sym(g.next('cell'), pos);
      const x = sym(g.next('x'), pos);
      const identity = list(pos, sym('lambda', pos), list(pos, x), x);
      const inner = list(
        pos,
        sym('%lambda/any-arity', pos),
        list(pos, x),
        list(pos, sym('set!', pos), cell, list(pos, c, x)),
        cell,
      );
      return list(
        pos,
        sym('let', pos),
        list(pos, list(pos, v, items[1] as Datum), list(pos, c, items[2] ?? identity)),
        list(pos, sym('let', pos), list(pos, list(pos, cell, list(pos, c, v))), inner),
      );
    }
    case 'cond-expand':
      return list(pos, sym('begin', pos), ...condExpandForms(d));
    case 'cons-stream': {
      if (items.length !== 3) return fail(pos, 'cons-stream: expected (cons-stream a b)');
      return list(pos, sym('cons', pos), items[1] as Datum, list(pos, sym('delay', pos), items[2] as Datum));
    }
  }
  return undefined;
}

/**
 * Rewrites a definition form into plain definitions and expressions (spliced into the body);
 * undefined when `name` is not one of this module's.
 *
 * @example
 * ```ts
 * rewriteDefinition('define-record-type', readScheme('(define-record-type p (mk a) p? (a p-a))')[0], new Gensym());
 * ```
 */
export function rewriteDefinition(name: string, d: List, g: Gensym): Datum[] | undefined {
  const pos = d.pos;
  const items = d.items;
  if (name === 'define-values') {
    if (items.length !== 3) return fail(pos, 'define-values: expected (define-values formals expression)');
    const f = freshFormals(items[1] as Datum, g);
    const defines = f.pairs.map(([v]) =>
      list(pos, sym('define', pos), v, list(pos, sym('quote', pos), list(pos))),
    );
    const sets = f.pairs.map(([v, t]) => list(pos, sym('set!', pos), v, t));
    const consumer = list(
      pos,
      sym('lambda', pos),
      f.formals,
      ...sets,
      list(pos, sym('quote', pos), list(pos)),
    );
    return [...defines, cwv(pos, thunk(pos, items[2] as Datum), consumer)];
  }
  if (name !== 'define-record-type') return undefined;
  // (define-record-type type (ctor field …) pred (field accessor [modifier]) …)
  const [, typeName, ctor, pred, ...fields] = items;
  if (typeName === undefined || ctor === undefined || pred === undefined)
    return fail(
      pos,
      'define-record-type: expected (define-record-type name (constructor field …) predicate field …)',
    );
  const type = isSym(typeName)
    ? typeName.name
    : isList(typeName) && isSym(typeName.items[0])
      ? typeName.items[0].name
      : 'record';
  const cells = new Map<string, string>();
  const out: Datum[] = [];
  const zero = (p: SourcePos): Datum => ({ t: 'num', text: '0', pos: p });
  for (const f of fields) {
    const spec = isSym(f) ? { t: 'list' as const, items: [f], tail: null, pos: f.pos } : f;
    if (!isList(spec) || !isSym(spec.items[0])) return fail(f.pos, 'define-record-type: bad field spec');
    const field = spec.items[0].name;
    const cell = `%prelude:${g.next(`%field:${type}:${field}:`)}`;
    cells.set(field, cell);
    const [, accessor, modifier] = spec.items;
    if (isSym(accessor))
      out.push(
        list(
          spec.pos,
          sym('define', spec.pos),
          list(spec.pos, accessor, sym('%r', spec.pos)),
          sym(cell, spec.pos),
        ),
      );
    if (isSym(modifier))
      out.push(
        list(
          spec.pos,
          sym('define', spec.pos),
          list(spec.pos, modifier, sym('%r', spec.pos), sym('%v', spec.pos)),
          list(spec.pos, sym('set!', spec.pos), sym(cell, spec.pos), sym('%v', spec.pos)),
        ),
      );
  }
  if (isSym(typeName)) out.push(list(pos, sym('define', pos), typeName, zero(pos)));
  if (isSym(pred))
    out.push(
      list(pred.pos, sym('define', pred.pos), list(pred.pos, pred, sym('%x', pred.pos)), zero(pred.pos)),
    );
  const ctorName = isList(ctor) ? ctor.items[0] : ctor;
  if (isSym(ctorName)) {
    const params = isList(ctor) ? ctor.items.slice(1) : [...cells.keys()].map((n) => sym(n, ctor.pos));
    const sets = params.map((p) => {
      const cell = isSym(p) ? cells.get(p.name) : undefined;
      if (cell === undefined || !isSym(p))
        return fail(p.pos, `define-record-type: ${datumToString(p)} is not a field`);
      return list(p.pos, sym('set!', p.pos), sym(cell, p.pos), p);
    });
    out.push(
      list(ctor.pos, sym('define', ctor.pos), list(ctor.pos, ctorName, ...params), ...sets, zero(ctor.pos)),
    );
  } else if (!(ctor.t === 'bool' && !ctor.value))
    return fail(ctor.pos, 'define-record-type: bad constructor spec');
  return out;
}

/** Features `cond-expand` takes as present: R7RS-small's, and every `(library (scheme …))`. */
const FEATURES = new Set(['r7rs', 'exact-closed', 'exact-complex', 'ieee-float', 'full-unicode', 'ratios']);

function featureHolds(req: Datum): boolean {
  if (isSym(req)) return req.name === 'else' || FEATURES.has(req.name);
  if (!isList(req) || !isSym(req.items[0])) return false;
  const args = req.items.slice(1);
  switch (req.items[0].name) {
    case 'and':
      return args.every(featureHolds);
    case 'or':
      return args.some(featureHolds);
    case 'not':
      return args[0] !== undefined && !featureHolds(args[0]);
    case 'library': {
      const name = args[0];
      return isList(name) && isSym(name.items[0]) && ['scheme', 'srfi'].includes(name.items[0].name);
    }
  }
  return false;
}

/**
 * The forms of the first `cond-expand` clause whose feature requirement holds (R7RS-small's
 * features and standard libraries; `else`), or none.
 *
 * @example
 * ```ts
 * condExpandForms(readScheme('(cond-expand (chicken 1) (r7rs 2))')[0]); // [2]
 * ```
 */
export function condExpandForms(d: List): Datum[] {
  for (const clause of d.items.slice(1)) {
    if (!isList(clause) || clause.items.length === 0) return fail(clause.pos, 'cond-expand: bad clause');
    if (featureHolds(clause.items[0] as Datum)) return clause.items.slice(1);
  }
  return [];
}
