/**
 * Standard procedures of the concrete interpreter (R7RS-small, SRFI-1/69 and MIT names that the
 * corpus uses), written directly on its values.
 */
import { type Interpreter, StopRun } from './interpreter';
import {
  Box,
  Char,
  Closure,
  EOF,
  ErrorObject,
  HashTable,
  list,
  MString,
  NIL,
  Pair,
  Port,
  Primitive,
  PromiseValue,
  RecordValue,
  Sym,
  type Value,
  Values,
  VOID,
} from './values';

export const truthy = (v: Value): boolean => v !== false;

export function equalValues(a: Value, b: Value, kind: 'eq' | 'eqv' | 'equal'): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a instanceof Char && b instanceof Char) return a.c === b.c;
  if (a instanceof MString && b instanceof MString && (kind === 'equal' || (a.s === '' && b.s === '')))
    return a.s === b.s;
  if (kind !== 'equal') return false;
  if (a instanceof Pair && b instanceof Pair)
    return equalValues(a.car, b.car, kind) && equalValues(a.cdr, b.cdr, kind);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => equalValues(x, b[i] as Value, kind));
  return false;
}

export function toArray(it: Interpreter, l: Value): Value[] {
  const out: Value[] = [];
  let p = l;
  while (p instanceof Pair) {
    out.push(p.car);
    p = p.cdr;
  }
  if (p !== NIL) it.error('not a list');
  return out;
}

function hashKey(v: Value, kind: 'eq' | 'equal'): unknown {
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Char) return `c:${v.c}`;
  if (kind === 'equal' && v instanceof MString) return `s:${v.s}`;
  if (kind === 'equal' && (v instanceof Pair || Array.isArray(v))) return `d:${show(v)}`;
  return v;
}

export function show(v: Value, write = false): string {
  if (typeof v === 'number') return String(v);
  if (v === true) return '#t';
  if (v === false) return '#f';
  if (v instanceof Sym) return v.name;
  if (v instanceof MString) return write ? JSON.stringify(v.s) : v.s;
  if (v instanceof Char) return write ? `#\\${v.c}` : v.c;
  if (v === NIL) return '()';
  if (v instanceof Pair) {
    const parts: string[] = [];
    let p: Value = v;
    while (p instanceof Pair) {
      parts.push(show(p.car, write));
      p = p.cdr;
    }
    return `(${parts.join(' ')}${p === NIL ? '' : ` . ${show(p, write)}`})`;
  }
  if (Array.isArray(v)) return `#(${v.map((x) => show(x, write)).join(' ')})`;
  if (v instanceof Closure || v instanceof Primitive) return '#[procedure]';
  return '#[object]';
}

export function installPrimitives(it: Interpreter): void {
  const def = (name: string, fn: (args: Value[]) => Value) => {
    it.global.vars.set(name, { value: new Primitive(name, fn), key: null });
  };
  const num = (v: Value | undefined): number =>
    typeof v === 'number' ? v : it.error('not a number', v ?? VOID);
  const pair = (v: Value | undefined): Pair => (v instanceof Pair ? v : it.error('not a pair', v ?? VOID));
  const vec = (v: Value | undefined): Value[] => (Array.isArray(v) ? v : it.error('not a vector', v ?? VOID));
  const str = (v: Value | undefined): MString =>
    v instanceof MString ? v : it.error('not a string', v ?? VOID);
  const chr = (v: Value | undefined): Char => (v instanceof Char ? v : it.error('not a char', v ?? VOID));
  const call = (f: Value, ...args: Value[]) => it.apply(f, args);
  const numeric = (name: string, fn: (xs: number[]) => Value) => def(name, (a) => fn(a.map(num)));
  numeric('+', (xs) => xs.reduce((x, y) => x + y, 0));
  numeric('*', (xs) => xs.reduce((x, y) => x * y, 1));
  numeric('-', (xs) =>
    xs.length === 1 ? -(xs[0] as number) : xs.slice(1).reduce((x, y) => x - y, xs[0] as number),
  );
  numeric('/', (xs) =>
    xs.length === 1 ? 1 / (xs[0] as number) : xs.slice(1).reduce((x, y) => x / y, xs[0] as number),
  );
  const compare = (name: string, op: (a: number, b: number) => boolean) =>
    numeric(name, (xs) => xs.every((x, i) => i === 0 || op(xs[i - 1] as number, x)));
  compare('=', (a, b) => a === b);
  compare('<', (a, b) => a < b);
  compare('>', (a, b) => a > b);
  compare('<=', (a, b) => a <= b);
  compare('>=', (a, b) => a >= b);
  const unary: Record<string, (x: number) => Value> = {
    abs: Math.abs,
    sqrt: Math.sqrt,
    exp: Math.exp,
    log: Math.log,
    sin: Math.sin,
    cos: Math.cos,
    atan: Math.atan,
    floor: Math.floor,
    ceiling: Math.ceil,
    round: Math.round,
    truncate: Math.trunc,
    square: (x) => x * x,
    'zero?': (x) => x === 0,
    'positive?': (x) => x > 0,
    'negative?': (x) => x < 0,
    'odd?': (x) => Math.abs(x % 2) === 1,
    'even?': (x) => x % 2 === 0,
    'exact->inexact': (x) => x,
    'inexact->exact': (x) => x,
    exact: (x) => x,
    inexact: (x) => x,
    add1: (x) => x + 1,
    sub1: (x) => x - 1,
    '1+': (x) => x + 1,
    '-1+': (x) => x - 1,
    'number->string': (x) => new MString(String(x)),
  };
  for (const [name, fn] of Object.entries(unary)) def(name, (a) => fn(num(a[0])));
  numeric('quotient', ([a, b]) => Math.trunc((a as number) / (b as number)));
  numeric('remainder', ([a, b]) => (a as number) % (b as number));
  numeric('modulo', ([a, b]) => (((a as number) % (b as number)) + (b as number)) % (b as number));
  numeric('expt', ([a, b]) => (a as number) ** (b as number));
  numeric('max', (xs) => Math.max(...xs));
  numeric('min', (xs) => Math.min(...xs));
  numeric('gcd', (xs) =>
    xs.reduce((a, b) => {
      let x = Math.abs(a);
      let y = Math.abs(b);
      while (y) [x, y] = [y, x % y];
      return x;
    }, 0),
  );
  def('number?', (a) => typeof a[0] === 'number');
  def('integer?', (a) => typeof a[0] === 'number' && Number.isInteger(a[0]));
  def('exact-integer?', (a) => typeof a[0] === 'number' && Number.isInteger(a[0]));
  def('string->number', (a) => {
    const n = Number(str(a[0]).s);
    return Number.isNaN(n) ? false : n;
  });
  def('not', (a) => a[0] === false);
  def('eq?', (a) => equalValues(a[0] as Value, a[1] as Value, 'eq'));
  def('eqv?', (a) => equalValues(a[0] as Value, a[1] as Value, 'eqv'));
  def('equal?', (a) => equalValues(a[0] as Value, a[1] as Value, 'equal'));
  def('boolean?', (a) => typeof a[0] === 'boolean');
  def('procedure?', (a) => a[0] instanceof Closure || a[0] instanceof Primitive);
  def('symbol?', (a) => a[0] instanceof Sym);
  def('string?', (a) => a[0] instanceof MString);
  def('char?', (a) => a[0] instanceof Char);
  def('vector?', (a) => Array.isArray(a[0]));
  def('pair?', (a) => a[0] instanceof Pair);
  def('null?', (a) => a[0] === NIL);
  def('list?', (a) => {
    let p = a[0] as Value;
    while (p instanceof Pair) p = p.cdr;
    return p === NIL;
  });
  def('cons', (a) => new Pair(a[0] as Value, a[1] as Value));
  def('car', (a) => pair(a[0]).car);
  def('cdr', (a) => pair(a[0]).cdr);
  for (const n of [2, 3, 4]) {
    const walk = (path: string, left: number): void => {
      if (left === 0) {
        def(`c${path}r`, (a) => {
          let v = a[0] as Value;
          for (let i = path.length - 1; i >= 0; i--) v = path[i] === 'a' ? pair(v).car : pair(v).cdr;
          return v;
        });
        return;
      }
      walk(`${path}a`, left - 1);
      walk(`${path}d`, left - 1);
    };
    walk('', n);
  }
  def('set-car!', (a) => {
    pair(a[0]).car = a[1] as Value;
    return VOID;
  });
  def('set-cdr!', (a) => {
    pair(a[0]).cdr = a[1] as Value;
    return VOID;
  });
  def('list', (a) => list(a));
  def('cons*', (a) => list(a.slice(0, -1), a[a.length - 1] as Value));
  def('length', (a) => toArray(it, a[0] as Value).length);
  def('append', (a) =>
    a.length === 0
      ? NIL
      : list(
          a.slice(0, -1).flatMap((l) => toArray(it, l)),
          a[a.length - 1] as Value,
        ),
  );
  def('reverse', (a) => list(toArray(it, a[0] as Value).reverse()));
  def('list-tail', (a) => {
    let p = a[0] as Value;
    for (let i = 0; i < num(a[1]); i++) p = pair(p).cdr;
    return p;
  });
  def('list-ref', (a) => {
    let p = a[0] as Value;
    for (let i = 0; i < num(a[1]); i++) p = pair(p).cdr;
    return pair(p).car;
  });
  def('list-copy', (a) => list(toArray(it, a[0] as Value)));
  def('last-pair', (a) => {
    let p = pair(a[0]);
    while (p.cdr instanceof Pair) p = p.cdr;
    return p;
  });
  def('iota', (a) =>
    list(Array.from({ length: num(a[0]) }, (_, i) => (a[1] === undefined ? 0 : num(a[1])) + i)),
  );
  def('make-list', (a) => list(Array.from({ length: num(a[0]) }, () => a[1] ?? VOID)));
  const mem = (kind: 'eq' | 'eqv' | 'equal') => (a: Value[]) => {
    for (let p = a[1] as Value; p instanceof Pair; p = p.cdr)
      if (
        a[2] !== undefined
          ? truthy(call(a[2], a[0] as Value, p.car))
          : equalValues(a[0] as Value, p.car, kind)
      )
        return p;
    return false;
  };
  const ass = (kind: 'eq' | 'eqv' | 'equal') => (a: Value[]) => {
    for (let p = a[1] as Value; p instanceof Pair; p = p.cdr)
      if (
        a[2] !== undefined
          ? truthy(call(a[2], a[0] as Value, pair(p.car).car))
          : equalValues(a[0] as Value, pair(p.car).car, kind)
      )
        return p.car;
    return false;
  };
  def('memq', mem('eq'));
  def('memv', mem('eqv'));
  def('member', mem('equal'));
  def('assq', ass('eq'));
  def('assv', ass('eqv'));
  def('assoc', ass('equal'));
  const lists = (a: Value[]) => a.map((l) => toArray(it, l));
  const zip = (ls: Value[][]) =>
    Array.from({ length: Math.min(...ls.map((l) => l.length)) }, (_, i) => ls.map((l) => l[i] as Value));
  def('map', (a) => list(zip(lists(a.slice(1))).map((xs) => call(a[0] as Value, ...xs))));
  def('for-each', (a) => {
    for (const xs of zip(lists(a.slice(1)))) call(a[0] as Value, ...xs);
    return VOID;
  });
  def('append-map', (a) =>
    list(zip(lists(a.slice(1))).flatMap((xs) => toArray(it, call(a[0] as Value, ...xs)))),
  );
  def('filter-map', (a) =>
    list(
      zip(lists(a.slice(1)))
        .map((xs) => call(a[0] as Value, ...xs))
        .filter(truthy),
    ),
  );
  def('vector-map', (a) => zip(a.slice(1).map(vec)).map((xs) => call(a[0] as Value, ...xs)));
  def('vector-for-each', (a) => {
    for (const xs of zip(a.slice(1).map(vec))) call(a[0] as Value, ...xs);
    return VOID;
  });
  def('string-for-each', (a) => {
    for (const c of str(a[1]).s) call(a[0] as Value, new Char(c));
    return VOID;
  });
  def(
    'string-map',
    (a) => new MString([...str(a[1]).s].map((c) => chr(call(a[0] as Value, new Char(c))).c).join('')),
  );
  def('filter', (a) => list(toArray(it, a[1] as Value).filter((x) => truthy(call(a[0] as Value, x)))));
  def('remove', (a) => list(toArray(it, a[1] as Value).filter((x) => !truthy(call(a[0] as Value, x)))));
  def('find', (a) => toArray(it, a[1] as Value).find((x) => truthy(call(a[0] as Value, x))) ?? false);
  def('any', (a) => {
    for (const xs of zip(lists(a.slice(1)))) {
      const r = call(a[0] as Value, ...xs);
      if (truthy(r)) return r;
    }
    return false;
  });
  def('every', (a) => {
    let r: Value = true;
    for (const xs of zip(lists(a.slice(1)))) {
      r = call(a[0] as Value, ...xs);
      if (!truthy(r)) return false;
    }
    return r;
  });
  def('count', (a) => zip(lists(a.slice(1))).filter((xs) => truthy(call(a[0] as Value, ...xs))).length);
  def('fold-left', (a) =>
    zip(lists(a.slice(2))).reduce((acc, xs) => call(a[0] as Value, acc, ...xs), a[1] as Value),
  );
  def('fold-right', (a) =>
    zip(lists(a.slice(2))).reduceRight((acc, xs) => call(a[0] as Value, ...xs, acc), a[1] as Value),
  );
  def('fold', (a) =>
    zip(lists(a.slice(2))).reduce((acc, xs) => call(a[0] as Value, ...xs, acc), a[1] as Value),
  );
  def('reduce', (a) => {
    const xs = toArray(it, a[2] as Value);
    return xs.length === 0
      ? (a[1] as Value)
      : xs.slice(1).reduce((acc, x) => call(a[0] as Value, x, acc), xs[0] as Value);
  });
  const sorter = (seq: Value, less: Value): Value[] => {
    const xs = Array.isArray(seq) ? [...seq] : toArray(it, seq);
    // Insertion sort: every comparison goes through the procedure, in a defined order.
    for (let i = 1; i < xs.length; i++)
      for (let j = i; j > 0 && truthy(call(less, xs[j] as Value, xs[j - 1] as Value)); j--)
        [xs[j], xs[j - 1]] = [xs[j - 1] as Value, xs[j] as Value];
    return xs;
  };
  def('sort', (a) =>
    Array.isArray(a[0]) ? sorter(a[0], a[1] as Value) : list(sorter(a[0] as Value, a[1] as Value)),
  );
  def('list-sort', (a) => list(sorter(a[1] as Value, a[0] as Value)));
  def('list-tabulate', (a) => list(Array.from({ length: num(a[0]) }, (_, i) => call(a[1] as Value, i))));
  def('make-initialized-vector', (a) => Array.from({ length: num(a[0]) }, (_, i) => call(a[1] as Value, i)));
  def('vector', (a) => [...a]);
  def('make-vector', (a) => Array.from({ length: num(a[0]) }, () => a[1] ?? 0));
  def('vector-ref', (a) => {
    const v = vec(a[0]);
    const i = num(a[1]);
    return i >= 0 && i < v.length ? (v[i] as Value) : it.error('index');
  });
  def('vector-set!', (a) => {
    vec(a[0])[num(a[1])] = a[2] as Value;
    return VOID;
  });
  def('vector-length', (a) => vec(a[0]).length);
  def('vector->list', (a) => list(vec(a[0])));
  def('list->vector', (a) => toArray(it, a[0] as Value));
  def('vector-fill!', (a) => {
    vec(a[0]).fill(a[1] as Value);
    return VOID;
  });
  def('vector-copy', (a) => [...vec(a[0])]);
  def('string-length', (a) => str(a[0]).s.length);
  def('string-ref', (a) => new Char(str(a[0]).s[num(a[1])] ?? it.error('index')));
  def(
    'substring',
    (a) => new MString(str(a[0]).s.slice(num(a[1]), a[2] === undefined ? undefined : num(a[2]))),
  );
  def('string-append', (a) => new MString(a.map((s) => str(s).s).join('')));
  def('string', (a) => new MString(a.map((c) => chr(c).c).join('')));
  def('make-string', (a) => new MString((a[1] instanceof Char ? a[1].c : ' ').repeat(num(a[0]))));
  def('string->list', (a) => list([...str(a[0]).s].map((c) => new Char(c))));
  def(
    'list->string',
    (a) =>
      new MString(
        toArray(it, a[0] as Value)
          .map((c) => chr(c).c)
          .join(''),
      ),
  );
  def('string->symbol', (a) => Sym.of(str(a[0]).s));
  def('symbol->string', (a) => new MString((a[0] as Sym).name));
  def('string=?', (a) => a.every((s) => str(s).s === str(a[0]).s));
  def('string<?', (a) => str(a[0]).s < str(a[1]).s);
  def('string-copy', (a) => new MString(str(a[0]).s));
  def('string-upcase', (a) => new MString(str(a[0]).s.toUpperCase()));
  def('char->integer', (a) => chr(a[0]).c.codePointAt(0) as number);
  def('integer->char', (a) => new Char(String.fromCodePoint(num(a[0]))));
  def('char=?', (a) => chr(a[0]).c === chr(a[1]).c);
  def('char<?', (a) => chr(a[0]).c < chr(a[1]).c);
  def('char-alphabetic?', (a) => /\p{L}/u.test(chr(a[0]).c));
  def('char-numeric?', (a) => /\d/.test(chr(a[0]).c));
  def('char-whitespace?', (a) => /\s/.test(chr(a[0]).c));
  def('char-upcase', (a) => new Char(chr(a[0]).c.toUpperCase()));
  def('char-downcase', (a) => new Char(chr(a[0]).c.toLowerCase()));
  def('box', (a) => new Box(a[0] as Value));
  def('unbox', (a) => (a[0] as Box).value);
  def('set-box!', (a) => {
    (a[0] as Box).value = a[1] as Value;
    return VOID;
  });
  const table = (v: Value | undefined) => (v instanceof HashTable ? v : it.error('not a hash table'));
  for (const name of ['make-equal-hash-table', 'make-hash-table', 'make-string-hash-table'])
    def(name, () => new HashTable('equal'));
  for (const name of ['make-strong-eqv-hash-table', 'make-eqv-hash-table', 'make-eq-hash-table'])
    def(name, () => new HashTable('eq'));
  const put = (a: Value[]) => {
    const t = table(a[0]);
    t.map.set(hashKey(a[1] as Value, t.weak), [a[1] as Value, a[2] as Value]);
    return VOID;
  };
  def('hash-table-set!', put);
  def('hash-table/put!', put);
  const get = (a: Value[]) => {
    const t = table(a[0]);
    return t.map.get(hashKey(a[1] as Value, t.weak))?.[1] ?? (a[2] as Value);
  };
  def('hash-table-ref/default', get);
  def('hash-table/get', get);
  def('hash-table-ref', (a) => {
    const t = table(a[0]);
    const e = t.map.get(hashKey(a[1] as Value, t.weak));
    if (e) return a[3] !== undefined ? call(a[3], e[1]) : e[1];
    return a[2] !== undefined ? call(a[2]) : it.error('key not found');
  });
  def('hash-table-update!', (a) => {
    const t = table(a[0]);
    const k = hashKey(a[1] as Value, t.weak);
    const e = t.map.get(k);
    const old = e ? e[1] : a[3] !== undefined ? call(a[3]) : it.error('key not found');
    t.map.set(k, [a[1] as Value, call(a[2] as Value, old)]);
    return VOID;
  });
  def('hash-table-update!/default', (a) => {
    const t = table(a[0]);
    const k = hashKey(a[1] as Value, t.weak);
    t.map.set(k, [a[1] as Value, call(a[2] as Value, t.map.get(k)?.[1] ?? (a[3] as Value))]);
    return VOID;
  });
  def('hash-table-contains?', (a) => table(a[0]).map.has(hashKey(a[1] as Value, table(a[0]).weak)));
  def('hash-table-delete!', (a) => {
    table(a[0]).map.delete(hashKey(a[1] as Value, table(a[0]).weak));
    return VOID;
  });
  def('hash-table-count', (a) => table(a[0]).map.size);
  def('hash-table-keys', (a) => list([...table(a[0]).map.values()].map((e) => e[0])));
  def('hash-table-values', (a) => list([...table(a[0]).map.values()].map((e) => e[1])));
  def('hash-table->alist', (a) => list([...table(a[0]).map.values()].map((e) => new Pair(e[0], e[1]))));
  def('hash-table-walk', (a) => {
    for (const [k, v] of [...table(a[0]).map.values()]) call(a[1] as Value, k, v);
    return VOID;
  });
  def('values', (a) => (a.length === 1 ? (a[0] as Value) : new Values(a)));
  def('call-with-values', (a) => call(a[1] as Value, ...it.valuesOf(call(a[0] as Value))));
  def('apply', (a) => it.apply(a[0] as Value, [...a.slice(1, -1), ...toArray(it, a[a.length - 1] as Value)]));
  def('call/cc', (a) => it.callcc(a[0] as Value));
  def('call-with-current-continuation', (a) => it.callcc(a[0] as Value));
  def('dynamic-wind', (a) => {
    call(a[0] as Value);
    try {
      return call(a[1] as Value);
    } finally {
      call(a[2] as Value);
    }
  });
  def('with-exception-handler', (a) => it.withHandler(a[0] as Value, () => call(a[1] as Value)));
  def('raise', (a) => it.raise(a[0] as Value, false));
  def('raise-continuable', (a) => it.raise(a[0] as Value, true));
  def('error', (a) => it.raise(new ErrorObject(a[0] as Value, list(a.slice(1))), false));
  def('error-object?', (a) => a[0] instanceof ErrorObject);
  def('error-object-message', (a) => (a[0] as ErrorObject).message);
  def('error-object-irritants', (a) => (a[0] as ErrorObject).irritants);
  def('force', (a) => {
    let p = a[0] as Value;
    while (p instanceof PromiseValue) {
      if (p.done) return p.value as Value;
      const promise: PromiseValue = p;
      const v = (promise.value as () => Value)();
      if (promise.done) return promise.value as Value;
      if (v instanceof PromiseValue) {
        p = v;
        continue;
      }
      promise.done = true;
      promise.value = v;
      return v;
    }
    return p;
  });
  def('make-promise', (a) => (a[0] instanceof PromiseValue ? a[0] : new PromiseValue(true, a[0] as Value)));
  def('promise?', (a) => a[0] instanceof PromiseValue);
  def('record?', (a) => a[0] instanceof RecordValue);
  const out = (text: string, port?: Value) => {
    if (port instanceof Port) port.text += text;
    else it.output += text;
    return VOID;
  };
  def('display', (a) => out(show(a[0] as Value), a[1]));
  def('write', (a) => out(show(a[0] as Value, true), a[1]));
  def('newline', (a) => out('\n', a[0]));
  def('write-string', (a) => out(str(a[0]).s, a[1]));
  def('write-char', (a) => out(chr(a[0]).c, a[1]));
  def('open-output-string', () => new Port(''));
  def('open-input-string', (a) => new Port(str(a[0]).s));
  def('get-output-string', (a) => new MString((a[0] as Port).text));
  def('read-char', (a) => {
    const p = a[0] as Port;
    return p.pos < p.input.length ? new Char(p.input[p.pos++] as string) : EOF;
  });
  def('peek-char', (a) => {
    const p = a[0] as Port;
    return p.pos < p.input.length ? new Char(p.input[p.pos] as string) : EOF;
  });
  def('eof-object', () => EOF);
  def('eof-object?', (a) => a[0] === EOF);
  def('call-with-output-string', (a) => {
    const p = new Port('');
    call(a[0] as Value, p);
    return new MString(p.text);
  });
  def('void', () => VOID);
  def('current-jiffy', () => it.steps);
  def('current-second', () => it.steps / 1000);
  def('jiffies-per-second', () => 1000);
  def('round', (a) => Math.round(num(a[0])));
  def(
    'string-map',
    (a) => new MString([...str(a[1]).s].map((c) => chr(call(a[0] as Value, new Char(c))).c).join('')),
  );
  def('exit', () => {
    throw new StopRun('done', 'exit');
  });
}
