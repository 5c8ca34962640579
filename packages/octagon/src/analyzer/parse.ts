import type { Rounding } from '../dbm/apron/tree';
import { OctagonLimitError, OctagonParseError, PARSE_LIMITS, type SourcePosition } from '../errors';
import { Rational } from '../numbers/rational';

/** The type of a variable: an integer, or a real (a rational number). */
export type VarType = 'int' | 'real';

/** A binary operator of expressions. */
export type BinOp = '+' | '-' | '*' | '/' | '%';

/** An expression of the analyzer language. */
export type Expr =
  | { readonly kind: 'num'; readonly value: bigint; readonly pos: SourcePosition }
  /** A literal with a fractional part (`2.5`), a real constant. */
  | {
      readonly kind: 'decimal';
      readonly value: Rational;
      readonly text: string;
      readonly pos: SourcePosition;
    }
  | { readonly kind: 'var'; readonly name: string; readonly pos: SourcePosition }
  | { readonly kind: 'unknown'; readonly pos: SourcePosition }
  | { readonly kind: 'index'; readonly array: string; readonly index: Expr; readonly pos: SourcePosition }
  | { readonly kind: 'neg'; readonly arg: Expr; readonly pos: SourcePosition }
  | {
      readonly kind: 'bin';
      readonly op: BinOp;
      readonly left: Expr;
      readonly right: Expr;
      /**
       * The rounding written after `/` or `%` (`/_i,0`, `/_r`, …, as Interproc writes APRON's
       * tree expressions); absent: the default of the operands' types (see the README).
       */
      readonly round?: Rounding;
      readonly pos: SourcePosition;
    };

/** A relational operator. */
export type RelOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

/** A condition. */
export type Cond =
  | { readonly kind: 'const'; readonly value: boolean }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'rel'; readonly op: RelOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'and' | 'or'; readonly left: Cond; readonly right: Cond }
  | { readonly kind: 'not'; readonly arg: Cond };

/** A statement; `text` is its source (for reports). */
export type Stmt = { readonly pos: SourcePosition; readonly text: string } & (
  | { readonly kind: 'var'; readonly names: readonly string[]; readonly type: VarType }
  | { readonly kind: 'array'; readonly name: string; readonly length: Expr }
  | { readonly kind: 'assign'; readonly target: string; readonly value: Expr }
  | {
      readonly kind: 'havoc';
      readonly target: string;
      readonly lo: Rational | null;
      readonly hi: Rational | null;
    }
  | { readonly kind: 'store'; readonly array: string; readonly index: Expr; readonly value: Expr }
  | {
      readonly kind: 'if';
      readonly cond: Cond;
      readonly then: readonly Stmt[];
      readonly else: readonly Stmt[];
    }
  | { readonly kind: 'while'; readonly cond: Cond; readonly body: readonly Stmt[] }
  | { readonly kind: 'assert' | 'assume'; readonly cond: Cond }
  | { readonly kind: 'skip' }
  | {
      readonly kind: 'call';
      /** The variable that receives the return value, or null for a call statement. */
      readonly target: string | null;
      readonly proc: string;
      readonly args: readonly Expr[];
    }
  | { readonly kind: 'return'; readonly value: Expr | null }
);

/** A procedure: parameters (passed by value), a body, a return value (`return e;`). */
export interface Procedure {
  readonly name: string;
  readonly params: readonly string[];
  /** The type of each parameter (`proc f(real x, n)`: `real`, `int`). */
  readonly paramTypes: readonly VarType[];
  readonly body: readonly Stmt[];
  readonly pos: SourcePosition;
}

/** A parsed program: its procedures and the statements of the main program (the others). */
export interface Program {
  readonly file: string;
  readonly body: readonly Stmt[];
  readonly procedures: readonly Procedure[];
}

interface Token {
  readonly kind: 'num' | 'decimal' | 'id' | 'op' | 'eof';
  readonly text: string;
  readonly pos: SourcePosition;
  readonly offset: number;
}

const OPS = [
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '<',
  '>',
  '=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ';',
  ',',
  '!',
  '?',
];
const KEYWORDS = new Set([
  'var',
  'real',
  'array',
  'if',
  'else',
  'while',
  'assert',
  'assume',
  'skip',
  'true',
  'false',
  'inf',
  'proc',
  'return',
]);

const DIGITS = /\d+(?:\.\d+)?/y;
/** A rounding written right after `/` or `%`: `_r` (real), or `_i,` and a direction. */
const ROUNDING = /_(?:r|i,(?:n|0|\+oo|-oo|\?))(?![A-Za-z0-9_])/y;
const DIRECTIONS: Record<string, Rounding> = {
  _r: { type: 'real' },
  '_i,n': { type: 'int', dir: 'nearest' },
  '_i,0': { type: 'int', dir: 'zero' },
  '_i,+oo': { type: 'int', dir: 'up' },
  '_i,-oo': { type: 'int', dir: 'down' },
  '_i,?': { type: 'int', dir: 'any' },
};
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

function tokenize(src: string, file: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let col = 1;
  let i = 0;
  const advance = (n: number) => {
    for (let k = 0; k < n; k++) {
      if (src[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  while (i < src.length) {
    const ch = src[i] as string;
    if (/\s/.test(ch)) {
      advance(1);
      continue;
    }
    if (src.startsWith('//', i) || ch === '#') {
      while (i < src.length && src[i] !== '\n') advance(1);
      continue;
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new OctagonParseError({ file, line, column: col }, 'unterminated comment');
      advance(end + 2 - i);
      continue;
    }
    const pos = { file, line, column: col };
    // Sticky patterns read a whole literal or name however long it is (never split in two).
    DIGITS.lastIndex = i;
    const num = DIGITS.exec(src);
    if (num) {
      if (num[0].length > PARSE_LIMITS.literalDigits) {
        throw new OctagonLimitError(
          pos,
          `an integer literal of ${num[0].length} digits; the limit is ${PARSE_LIMITS.literalDigits}`,
          'literalDigits',
        );
      }
      out.push({ kind: num[0].includes('.') ? 'decimal' : 'num', text: num[0], pos, offset: i });
      advance(num[0].length);
      continue;
    }
    NAME.lastIndex = i;
    const id = NAME.exec(src);
    if (id) {
      out.push({ kind: 'id', text: id[0], pos, offset: i });
      advance(id[0].length);
      continue;
    }
    let op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new OctagonParseError(pos, `unexpected character '${ch}'`);
    if (op === '/' || op === '%') {
      ROUNDING.lastIndex = i + 1;
      op += ROUNDING.exec(src)?.[0] ?? '';
    }
    out.push({ kind: 'op', text: op, pos, offset: i });
    advance(op.length);
  }
  out.push({ kind: 'eof', text: 'end of file', pos: { file, line, column: col }, offset: src.length });
  return out;
}

/**
 * Parses a program of the analyzer language (grammar in the README): integer and real
 * (`real x;`) variables, assignments (`x = e;`, `x = [a, b];` for an unknown value in a range),
 * `+ - * / %` with APRON's roundings (`/_i,0`, `/_r`, …), arrays with checked accesses
 * (`array a[n]; a[i] = e;`), `if`/`else`, `while`, `assert`, `assume`, procedures.
 *
 * @example
 * ```ts
 * const p = parseProgram('x = 0; while (x < 10) { x = x + 1; } assert(x == 10);', 'count.oct');
 * p.body.length; // 3
 * ```
 */
export function parseProgram(src: string, file = '<input>'): Program {
  const toks = tokenize(src, file);
  let k = 0;
  const peek = (d = 0) => toks[Math.min(k + d, toks.length - 1)] as Token;
  const next = () => toks[k++] as Token;
  const fail = (t: Token, what: string): never => {
    throw new OctagonParseError(t.pos, `expected ${what}, found '${t.text}'`);
  };
  const is = (text: string, d = 0) => {
    const t = peek(d);
    return (t.kind === 'op' || t.kind === 'id') && t.text === text;
  };
  const expect = (text: string) => {
    const t = next();
    if ((t.kind !== 'op' && t.kind !== 'id') || t.text !== text) fail(t, `'${text}'`);
    return t;
  };
  const ident = () => {
    const t = next();
    if (t.kind !== 'id' || KEYWORDS.has(t.text)) fail(t, 'a variable name');
    return t;
  };
  // The limits (PARSE_LIMITS) bound this parser's recursion and every later walk of the tree.
  let nesting = 0;
  const nested = <T>(at: Token, parse: () => T): T => {
    if (nesting >= PARSE_LIMITS.nesting) {
      throw new OctagonLimitError(
        at.pos,
        `brackets, blocks, '-', '!' and 'else if' nested deeper than ${PARSE_LIMITS.nesting}`,
        'nesting',
      );
    }
    nesting++;
    try {
      return parse();
    } finally {
      nesting--;
    }
  };
  const depths = new WeakMap<object, number>();
  const tree = <T extends object>(node: T, at: Token, ...children: object[]): T => {
    let depth = 1;
    for (const child of children) depth = Math.max(depth, (depths.get(child) ?? 1) + 1);
    if (depth > PARSE_LIMITS.expressionDepth) {
      throw new OctagonLimitError(
        at.pos,
        `an expression more than ${PARSE_LIMITS.expressionDepth} deep (a chain of N terms is N deep)`,
        'expressionDepth',
      );
    }
    depths.set(node, depth);
    return node;
  };
  // The analysis's variables, as it names them (an array's length is `name.length`).
  const variables = new Set<string>();
  const variable = <T extends { text: string; pos: SourcePosition }>(name: string, at: T): T => {
    variables.add(name);
    if (variables.size > PARSE_LIMITS.variables) {
      throw new OctagonLimitError(
        at.pos,
        `more than ${PARSE_LIMITS.variables} variables (the analysis costs statements × variables³)`,
        'variables',
      );
    }
    return at;
  };
  /** Positions of '(' where `( condition )` failed to parse: tried once, so nested parentheses stay linear. */
  const notCondition = new Set<number>();

  const atom = (): Expr => {
    const t = peek();
    if (t.kind === 'num') {
      next();
      return { kind: 'num', value: BigInt(t.text), pos: t.pos };
    }
    if (t.kind === 'decimal') {
      next();
      return { kind: 'decimal', value: Rational.parse(t.text), text: t.text, pos: t.pos };
    }
    if (is('?')) {
      next();
      return { kind: 'unknown', pos: t.pos };
    }
    if (is('(')) {
      next();
      const e = nested(t, expr);
      expect(')');
      return e;
    }
    if (is('-')) {
      next();
      const arg = nested(t, atom);
      return tree({ kind: 'neg', arg, pos: t.pos }, t, arg);
    }
    if (t.kind !== 'id' || KEYWORDS.has(t.text)) fail(t, 'an expression');
    const id = ident();
    if (is('[')) {
      const index = nested(next(), expr);
      expect(']');
      return tree({ kind: 'index', array: id.text, index, pos: id.pos }, t, index);
    }
    variable(id.text, id);
    return { kind: 'var', name: id.text, pos: id.pos };
  };
  const multiplicative = () => {
    const t = peek();
    return t.kind === 'op' && (t.text === '*' || t.text[0] === '/' || t.text[0] === '%');
  };
  const term = (): Expr => {
    let e = atom();
    while (multiplicative()) {
      const t = next();
      const op = t.text[0] as '*' | '/' | '%';
      const round = DIRECTIONS[t.text.slice(1)];
      const right = atom();
      const node = { kind: 'bin', op, left: e, right, pos: t.pos, ...(round ? { round } : {}) } as const;
      e = tree(node, t, e, right);
    }
    return e;
  };
  const expr = (): Expr => {
    let e = term();
    while (is('+') || is('-')) {
      const t = next();
      const right = term();
      e = tree({ kind: 'bin', op: t.text as '+' | '-', left: e, right, pos: t.pos }, t, e, right);
    }
    return e;
  };
  const rel = (): Cond => {
    const left = expr();
    const t = next();
    if (!['<', '<=', '>', '>=', '==', '!='].includes(t.text)) fail(t, 'a comparison (<, <=, >, >=, ==, !=)');
    const right = expr();
    return tree({ kind: 'rel', op: t.text as RelOp, left, right }, t, left, right);
  };
  const neg = (): Cond => {
    if (is('!')) {
      const t = next();
      const arg = nested(t, neg);
      return tree({ kind: 'not', arg }, t, arg);
    }
    if (is('true') || is('false')) return { kind: 'const', value: next().text === 'true' };
    if (is('?') && (is(')', 1) || is('&&', 1) || is('||', 1))) {
      next();
      return { kind: 'unknown' };
    }
    if (is('(') && !notCondition.has(k)) {
      const save = k;
      try {
        const c = nested(next(), cond);
        expect(')');
        return c;
      } catch (error) {
        // Not a parenthesized condition: parse a comparison whose left side starts with '('.
        if (!(error instanceof OctagonParseError) || error instanceof OctagonLimitError) throw error;
        k = save;
        notCondition.add(k);
      }
    }
    return rel();
  };
  const conj = (): Cond => {
    let c = neg();
    while (is('&&')) {
      const t = next();
      const right = neg();
      c = tree({ kind: 'and', left: c, right }, t, c, right);
    }
    return c;
  };
  const cond = (): Cond => {
    let c = conj();
    while (is('||')) {
      const t = next();
      const right = conj();
      c = tree({ kind: 'or', left: c, right }, t, c, right);
    }
    return c;
  };
  const signedNum = (): Rational | null => {
    const neg = is('-');
    if (neg) next();
    if (is('inf')) {
      next();
      return null;
    }
    const t = next();
    if (t.kind !== 'num' && t.kind !== 'decimal') fail(t, 'a number');
    const value = Rational.parse(t.text);
    return neg ? value.neg() : value;
  };
  const block = (): Stmt[] =>
    nested(expect('{'), () => {
      const out: Stmt[] = [];
      while (!is('}')) {
        if (peek().kind === 'eof') fail(peek(), "'}'");
        out.push(stmt());
      }
      next();
      return out;
    });
  const text = (start: Token) => {
    const end = toks[k - 1] as Token;
    return src.slice(start.offset, end.offset + end.text.length).replace(/\s+/g, ' ');
  };
  const stmt = (): Stmt => {
    const t = peek();
    if (is('var') || is('real')) {
      const type: VarType = next().text === 'real' ? 'real' : 'int';
      const first = ident();
      const names = [variable(first.text, first).text];
      while (is(',')) {
        next();
        const name = ident();
        names.push(variable(name.text, name).text);
      }
      expect(';');
      return { kind: 'var', names, type, pos: t.pos, text: text(t) };
    }
    if (is('array')) {
      next();
      const nameToken = ident();
      variable(`${nameToken.text}.length`, nameToken);
      const name = nameToken.text;
      expect('[');
      const length = expr();
      expect(']');
      expect(';');
      return { kind: 'array', name, length, pos: t.pos, text: text(t) };
    }
    if (is('skip')) {
      next();
      expect(';');
      return { kind: 'skip', pos: t.pos, text: 'skip;' };
    }
    if (is('if')) {
      next();
      expect('(');
      const c = cond();
      expect(')');
      const head = text(t);
      const then = block();
      let els: Stmt[] = [];
      if (is('else')) {
        next();
        els = is('if') ? [nested(peek(), stmt)] : block();
      }
      return { kind: 'if', cond: c, then, else: els, pos: t.pos, text: head };
    }
    if (is('while')) {
      next();
      expect('(');
      const c = cond();
      expect(')');
      const head = text(t);
      return { kind: 'while', cond: c, body: block(), pos: t.pos, text: head };
    }
    if (is('return')) {
      next();
      if (!inProc) throw new OctagonParseError(t.pos, "'return' outside a procedure");
      const value = is(';') ? null : expr();
      expect(';');
      return { kind: 'return', value, pos: t.pos, text: text(t) };
    }
    if (peek().kind === 'id' && !KEYWORDS.has(peek().text) && is('(', 1)) {
      const [proc, args] = call();
      expect(';');
      return { kind: 'call', target: null, proc, args, pos: t.pos, text: text(t) };
    }
    if (is('assert') || is('assume')) {
      const kind = next().text as 'assert' | 'assume';
      expect('(');
      const c = cond();
      expect(')');
      expect(';');
      return { kind, cond: c, pos: t.pos, text: text(t) };
    }
    const id = ident();
    if (is('[')) {
      next();
      const index = expr();
      expect(']');
      expect('=');
      const value = expr();
      expect(';');
      return { kind: 'store', array: id.text, index, value, pos: t.pos, text: text(t) };
    }
    expect('=');
    variable(id.text, id);
    if (peek().kind === 'id' && !KEYWORDS.has(peek().text) && is('(', 1)) {
      const [proc, args] = call();
      expect(';');
      return { kind: 'call', target: id.text, proc, args, pos: t.pos, text: text(t) };
    }
    if (is('[')) {
      next();
      const lo = signedNum();
      expect(',');
      const hi = signedNum();
      expect(']');
      expect(';');
      return { kind: 'havoc', target: id.text, lo, hi, pos: t.pos, text: text(t) };
    }
    const value = expr();
    expect(';');
    return { kind: 'assign', target: id.text, value, pos: t.pos, text: text(t) };
  };
  /** `NAME ( args )`: the callee (checked once every procedure is known) and the arguments. */
  const calls: { name: Token; arity: number }[] = [];
  function call(): [string, Expr[]] {
    const name = ident();
    expect('(');
    const args: Expr[] = [];
    if (!is(')')) {
      args.push(expr());
      while (is(',')) {
        next();
        args.push(expr());
      }
    }
    expect(')');
    calls.push({ name, arity: args.length });
    return [name.text, args];
  }
  let inProc = false;
  const body: Stmt[] = [];
  const procedures: Procedure[] = [];
  while (peek().kind !== 'eof') {
    if (!is('proc')) {
      body.push(stmt());
      continue;
    }
    const t = next();
    const name = ident();
    if (procedures.some((p) => p.name === name.text))
      throw new OctagonParseError(name.pos, `procedure '${name.text}' defined twice`);
    expect('(');
    const params: string[] = [];
    const paramTypes: VarType[] = [];
    if (!is(')')) {
      do {
        if (params.length > 0) next();
        const real = is('real'); // `real x`: a real parameter
        if (real) next();
        const p = ident();
        if (params.includes(p.text)) throw new OctagonParseError(p.pos, `parameter '${p.text}' given twice`);
        params.push(variable(p.text, p).text);
        paramTypes.push(real ? 'real' : 'int');
      } while (is(','));
    }
    expect(')');
    inProc = true;
    procedures.push({ name: name.text, params, paramTypes, body: block(), pos: t.pos });
    inProc = false;
  }
  for (const c of calls) {
    const p = procedures.find((q) => q.name === c.name.text);
    if (!p) throw new OctagonParseError(c.name.pos, `call of '${c.name.text}', which is no procedure`);
    if (p.params.length !== c.arity)
      throw new OctagonParseError(
        c.name.pos,
        `'${p.name}' takes ${p.params.length} argument${p.params.length === 1 ? '' : 's'}, given ${c.arity}`,
      );
  }
  return { file, body, procedures };
}
