/**
 * `syntax-rules` macros (R7RS §4.3.2): patterns with literals, `_`, ellipses (also followed by
 * more patterns, nested, custom ellipsis identifiers), dotted tails and vectors; templates with
 * `(... ...)` escapes.
 *
 * Hygiene, as far as the benchmark programs need it: a name that the template binds (a `lambda`
 * parameter, a `let`/`let*`/`letrec`/`letrec*`/named-`let`/`do` variable) and that is not a
 * pattern variable is renamed freshly at each use, so a macro's temporaries never capture the
 * user's variables (`swap!`'s `tmp`). Every other free name of a template means what it meant
 * where the macro was defined: where the use site binds it to something else (a user's `if`,
 * `list` or a local `helper`), the expander writes an alias of the definition's meaning instead
 * (`Scope.hygienicName`). `define`d names are kept, so a macro can define a global.
 * @module
 */
import { SchemeSyntaxError } from '../errors';
import { type Datum, datumToString } from './reader';

type List = Extract<Datum, { t: 'list' }>;
type Sym = Extract<Datum, { t: 'sym' }>;

/** A parsed `syntax-rules` transformer. */
export interface Macro {
  readonly name: string;
  readonly ellipsis: string;
  readonly literals: ReadonlySet<string>;
  readonly rules: readonly { readonly pattern: Datum; readonly template: Datum }[];
  /** Names the templates use that are neither pattern variables nor bound by the template. */
  readonly freeNames: ReadonlySet<string>;
}

const isSym = (d: Datum | undefined, name?: string): d is Sym =>
  d !== undefined && d.t === 'sym' && (name === undefined || d.name === name);
const isList = (d: Datum | undefined): d is List => d !== undefined && d.t === 'list';
const fail = (d: Datum, reason: string): never => {
  throw new SchemeSyntaxError(d.pos, reason);
};

/**
 * Parses `(syntax-rules (literal …) (pattern template) …)` (or with a custom ellipsis first).
 *
 * @example
 * ```ts
 * parseSyntaxRules('swap!', readScheme('(syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp))))')[0]);
 * ```
 */
export function parseSyntaxRules(name: string, spec: Datum): Macro {
  if (!isList(spec) || !isSym(spec.items[0], 'syntax-rules'))
    return fail(spec, `define-syntax: only syntax-rules transformers are supported (${name})`);
  let i = 1;
  let ellipsis = '...';
  if (isSym(spec.items[1])) {
    ellipsis = spec.items[1].name;
    i = 2;
  }
  const literals = spec.items[i];
  if (!isList(literals)) return fail(spec, 'syntax-rules: expected a list of literals');
  const rules = spec.items.slice(i + 1).map((r) => {
    if (!isList(r) || r.items.length !== 2) return fail(r, 'syntax-rules: expected (pattern template)');
    return { pattern: r.items[0] as Datum, template: r.items[1] as Datum };
  });
  const m = {
    name,
    ellipsis,
    literals: new Set(literals.items.filter((x): x is Sym => isSym(x)).map((s) => s.name)),
    rules,
    freeNames: new Set<string>(),
  };
  for (const rule of rules) {
    const bound = new Set<string>(patternVars(m, rule.pattern));
    boundByTemplate(rule.template, bound);
    templateNames(rule.template, (n) => {
      if (!bound.has(n) && n !== ellipsis && n !== '_') m.freeNames.add(n);
    });
  }
  return m;
}

function templateNames(t: Datum, out: (name: string) => void): void {
  if (t.t === 'sym') out(t.name);
  if (t.t === 'vec') for (const x of t.items) templateNames(x, out);
  if (t.t !== 'list') return;
  for (const x of t.items) templateNames(x, out);
  if (t.tail) templateNames(t.tail, out);
}

/** Pattern variable bindings: a datum, or one binding per repetition of an ellipsis. */
type Match = Datum | Match[];

function match(m: Macro, pattern: Datum, form: Datum, out: Map<string, Match>): boolean {
  if (pattern.t === 'sym') {
    if (pattern.name === '_') return true;
    if (m.literals.has(pattern.name)) return isSym(form, pattern.name);
    out.set(pattern.name, form);
    return true;
  }
  if (pattern.t === 'list' || pattern.t === 'vec') {
    if (form.t !== pattern.t) return false;
    const ps = pattern.items;
    const fs = form.items;
    const tail = pattern.t === 'list' ? pattern.tail : null;
    const formTail = form.t === 'list' ? form.tail : null;
    const e = ps.findIndex((p, k) => isSym(ps[k + 1], m.ellipsis) && p !== undefined);
    if (e < 0) {
      if (fs.length < ps.length || (tail === null && (fs.length > ps.length || formTail !== null)))
        return false;
      for (let k = 0; k < ps.length; k++) if (!match(m, ps[k] as Datum, fs[k] as Datum, out)) return false;
      if (tail === null) return true;
      const rest: Datum =
        fs.length === ps.length && formTail !== null
          ? formTail
          : { t: 'list', items: fs.slice(ps.length), tail: formTail, pos: form.pos };
      return match(m, tail, rest, out);
    }
    const after = ps.slice(e + 2);
    const reps = fs.length - e - after.length;
    if (reps < 0 || (tail === null && formTail !== null)) return false;
    for (let k = 0; k < e; k++) if (!match(m, ps[k] as Datum, fs[k] as Datum, out)) return false;
    const repeated: Map<string, Match>[] = [];
    for (let k = 0; k < reps; k++) {
      const one = new Map<string, Match>();
      if (!match(m, ps[e] as Datum, fs[e + k] as Datum, one)) return false;
      repeated.push(one);
    }
    for (const v of patternVars(m, ps[e] as Datum))
      out.set(
        v,
        repeated.map((r) => r.get(v) as Match),
      );
    for (let k = 0; k < after.length; k++)
      if (!match(m, after[k] as Datum, fs[e + reps + k] as Datum, out)) return false;
    if (tail !== null) return match(m, tail, { t: 'list', items: [], tail: formTail, pos: form.pos }, out);
    return true;
  }
  // Constants match equal constants.
  return form.t === pattern.t && datumToString(form) === datumToString(pattern);
}

function patternVars(m: Macro, p: Datum): string[] {
  if (p.t === 'sym') return p.name === '_' || p.name === m.ellipsis || m.literals.has(p.name) ? [] : [p.name];
  if (p.t === 'list')
    return [...p.items.flatMap((x) => patternVars(m, x)), ...(p.tail ? patternVars(m, p.tail) : [])];
  if (p.t === 'vec') return p.items.flatMap((x) => patternVars(m, x));
  return [];
}

const BINDERS = new Set([
  'let',
  'let*',
  'letrec',
  'letrec*',
  'do',
  'lambda',
  'named-lambda',
  'let-values',
  'let*-values',
]);

/** Names the template binds (renamed at each use). */
function boundByTemplate(t: Datum, out: Set<string>): void {
  if (t.t === 'vec') for (const x of t.items) boundByTemplate(x, out);
  if (t.t !== 'list') return;
  const [head, a, b] = t.items;
  if (isSym(head) && BINDERS.has(head.name)) {
    const add = (d: Datum | undefined) => {
      if (isSym(d)) out.add(d.name);
      else if (isList(d)) {
        for (const x of d.items) add(isList(x) ? x.items[0] : x);
        if (d.tail) add(d.tail);
      }
    };
    if (head.name === 'lambda') add(a);
    else if (isSym(a) && head.name === 'let') {
      out.add(a.name);
      add(b);
    } else add(a);
  }
  for (const x of t.items) boundByTemplate(x, out);
  if (t.tail) boundByTemplate(t.tail, out);
}

function instantiate(
  m: Macro,
  t: Datum,
  b: Map<string, Match>,
  rename: (name: string) => string,
  at: Datum,
): Datum {
  if (t.t === 'sym') {
    const v = b.get(t.name);
    if (v !== undefined) {
      if (Array.isArray(v))
        return fail(at, `${m.name}: pattern variable '${t.name}' needs an ellipsis in the template`);
      return v;
    }
    return { t: 'sym', name: rename(t.name), pos: at.pos };
  }
  if (t.t !== 'list' && t.t !== 'vec') return { ...t, pos: at.pos } as Datum;
  if (t.t === 'list' && isSym(t.items[0], m.ellipsis) && t.items.length === 2)
    return instantiate({ ...m, ellipsis: '\0' }, t.items[1] as Datum, b, rename, at);
  const out: Datum[] = [];
  for (let k = 0; k < t.items.length; k++) {
    const x = t.items[k] as Datum;
    let depth = 0;
    while (isSym(t.items[k + 1 + depth], m.ellipsis)) depth++;
    if (depth === 0) {
      out.push(instantiate(m, x, b, rename, at));
      continue;
    }
    k += depth;
    let results: Map<string, Match>[] = [b];
    for (let level = 0; level < depth; level++) {
      const next: Map<string, Match>[] = [];
      for (const env of results) {
        const vars = patternVars(m, x).filter((v) => Array.isArray(env.get(v)));
        if (vars.length === 0) return fail(at, `${m.name}: no pattern variable repeats under the ellipsis`);
        const n = Math.max(...vars.map((v) => (env.get(v) as Match[]).length));
        for (let r = 0; r < n; r++) {
          const e = new Map(env);
          for (const v of vars) {
            const reps = env.get(v) as Match[];
            if (r < reps.length) e.set(v, reps[r] as Match);
          }
          next.push(e);
        }
      }
      results = next;
    }
    for (const env of results) out.push(instantiate(m, x, env, rename, at));
  }
  if (t.t === 'vec') return { t: 'vec', items: out, pos: at.pos };
  return { t: 'list', items: out, tail: t.tail ? instantiate(m, t.tail, b, rename, at) : null, pos: at.pos };
}

/**
 * Expands one use of a macro; `fresh` names the renamed bindings of this use, `free` the template's
 * free names (by default themselves).
 *
 * @example
 * ```ts
 * expandMacro(swap, readScheme('(swap! x y)')[0], (n) => `${n}%1`); // (let ((tmp%1 x)) (set! x y) (set! y tmp%1))
 * ```
 */
export function expandMacro(
  m: Macro,
  form: List,
  fresh: (name: string) => string,
  free: (name: string) => string = (name) => name,
): Datum {
  for (const rule of m.rules) {
    const b = new Map<string, Match>();
    const pattern = rule.pattern;
    // The keyword position is ignored.
    const p: Datum = isList(pattern)
      ? { ...pattern, items: [{ t: 'sym', name: '_', pos: pattern.pos }, ...pattern.items.slice(1)] }
      : pattern;
    if (!match(m, p, form, b)) continue;
    const bound = new Set<string>();
    boundByTemplate(rule.template, bound);
    const rename = new Map<string, string>();
    for (const name of bound) if (!b.has(name)) rename.set(name, fresh(name));
    return instantiate(m, rule.template, b, (name) => rename.get(name) ?? free(name), form);
  }
  return fail(form, `no syntax-rules pattern of '${m.name}' matches ${datumToString(form, 60)}`);
}
