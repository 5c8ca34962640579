import { LlvmParseError } from './errors';

/** Kinds of tokens of textual LLVM IR. */
export enum TokenKind {
  /** `%name`, `%"quoted name"`, `%12`. */
  Local,
  /** `@name`, `@"quoted"`, `@3`. */
  Global,
  /** `!name`, `!12`, or a lone `!` (before `{` or `"`). */
  Metadata,
  /** `#0` (an attribute group). */
  AttributeGroup,
  /** A keyword or bare identifier: `define`, `ptr`, `i32`, `label`, `x` (in `[4 x i8]`). */
  Word,
  /** An integer or floating-point literal (`-12`, `0x3FF0000000000000`, `1.5e+10`). */
  Number,
  /** `"…"` (the `c` of `c"…"` is a Word before it). */
  String,
  /** `name:` at the start of a basic block. */
  Label,
  /** One of `( ) [ ] { } < > , = * | ...` */
  Punct,
  /** `$comdat`. */
  Comdat,
  End,
}

/** A token with its 1-based position. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

const WORD_START = /[A-Za-z_.$\-0-9]/;

function isNameChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 /* _ */ ||
    code === 46 /* . */ ||
    code === 36 /* $ */ ||
    code === 45 /* - */
  );
}

/**
 * Splits a module into tokens, dropping comments (`; …`). Lines are kept apart by the caller's
 * grammar (instructions never need the line break: LLVM's own parser ignores it too).
 *
 * @example
 * ```ts
 * tokenize('%x = load ptr, ptr %p', 'a.ll').map((t) => t.text); // ['%x', '=', 'load', 'ptr', ',', 'ptr', '%p']
 * ```
 */
export function tokenize(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const n = text.length;
  const fail = (at: number, reason: string): never => {
    throw new LlvmParseError({ file, line, column: at - lineStart + 1 }, reason);
  };
  const push = (kind: TokenKind, value: string, start: number) => {
    tokens.push({ kind, text: value, line, column: start - lineStart + 1 });
  };
  /** Reads a name after a sigil: a quoted string or a run of name characters. */
  const readName = (start: number): number => {
    let j = start;
    if (text.charCodeAt(j) === 34 /* " */) {
      j++;
      while (j < n && text.charCodeAt(j) !== 34) {
        if (text.charCodeAt(j) === 10) fail(start, 'unterminated quoted name');
        j++;
      }
      if (j >= n) fail(start, 'unterminated quoted name');
      return j + 1;
    }
    while (j < n && isNameChar(text.charCodeAt(j))) j++;
    return j;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13) {
      i++;
      continue;
    }
    // Comments, and the module summary of LTO builds (`^0 = module: (…)`, one entry a line, at
    // the start of a line): nothing a points-to analysis reads.
    if (c === 59 /* ; */ || (c === 94 /* ^ */ && i === lineStart)) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    const start = i;
    if (c === 37 /* % */ || c === 64 /* @ */ || c === 36 /* $ */) {
      const end = readName(i + 1);
      if (end === i + 1) fail(start, `a name must follow '${text[i]}'`);
      const kind = c === 37 ? TokenKind.Local : c === 64 ? TokenKind.Global : TokenKind.Comdat;
      push(kind, text.slice(i, end), start);
      i = end;
      continue;
    }
    if (c === 33 /* ! */) {
      let end = i + 1;
      while (end < n && (isNameChar(text.charCodeAt(end)) || text.charCodeAt(end) === 92)) end++;
      push(TokenKind.Metadata, text.slice(i, end), start);
      i = end;
      continue;
    }
    if (c === 35 /* # */) {
      let end = i + 1;
      while (end < n && isNameChar(text.charCodeAt(end))) end++;
      // Debug records of LLVM 19+ (`#dbg_value(…)`) are words; attribute groups are `#N`.
      push(
        /^#\d+$/.test(text.slice(i, end)) ? TokenKind.AttributeGroup : TokenKind.Word,
        text.slice(i, end),
        start,
      );
      i = end;
      continue;
    }
    if (c === 34 /* " */) {
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== 34) j++;
      if (j >= n) fail(start, 'unterminated string');
      push(TokenKind.String, text.slice(i + 1, j), start);
      // A quoted label: "name":
      i = j + 1;
      if (text.charCodeAt(i) === 58 /* : */) {
        tokens.pop();
        push(TokenKind.Label, text.slice(start + 1, j), start);
        i++;
      }
      continue;
    }
    if (c === 46 && text.startsWith('...', i)) {
      push(TokenKind.Punct, '...', start);
      i += 3;
      continue;
    }
    if ('()[]{}<>,=*|'.includes(text[i] as string)) {
      push(TokenKind.Punct, text[i] as string, start);
      i++;
      continue;
    }
    if (WORD_START.test(text[i] as string) || c === 43 /* + */) {
      let end = i + 1;
      // Numbers may carry exponents with signs (1.0e+10) and hex forms (0xK…).
      while (end < n) {
        const d = text.charCodeAt(end);
        if (isNameChar(d)) end++;
        else if (d === 43 && /[eE]$/.test(text.slice(i, end)) && /^[-+]?\d/.test(text.slice(i, end))) end++;
        else break;
      }
      const word = text.slice(i, end);
      if (text.charCodeAt(end) === 58 /* : */ && text.charCodeAt(end + 1) !== 58) {
        push(TokenKind.Label, word, start);
        i = end + 1;
        continue;
      }
      push(/^[-+]?\d/.test(word) ? TokenKind.Number : TokenKind.Word, word, start);
      i = end;
      continue;
    }
    fail(start, `unexpected character '${text[i]}'`);
  }
  tokens.push({ kind: TokenKind.End, text: '', line, column: i - lineStart + 1 });
  return tokens;
}

/**
 * The globals whose address a constant expression turns into an integer (`ptrtoint (ptr @g to
 * i64)`, also nested in integer arithmetic that the parser does not keep): every global named
 * between `ptrtoint (` and its closing parenthesis, a superset.
 */
export function globalsTurnedIntoIntegers(tokens: readonly Token[]): string[] {
  const names = new Set<string>();
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at] as Token;
    if (token.kind !== TokenKind.Word || token.text !== 'ptrtoint' || tokens[at + 1]?.text !== '(') continue;
    let depth = 0;
    for (let k = at + 1; k < tokens.length; k++) {
      const inner = tokens[k] as Token;
      if (
        inner.kind === TokenKind.Punct &&
        (inner.text === '(' || inner.text === '[' || inner.text === '{' || inner.text === '<')
      )
        depth++;
      else if (
        inner.kind === TokenKind.Punct &&
        (inner.text === ')' || inner.text === ']' || inner.text === '}' || inner.text === '>')
      )
        depth--;
      else if (inner.kind === TokenKind.Global) names.add(inner.text);
      if (depth === 0 || inner.kind === TokenKind.End) break;
    }
  }
  return [...names];
}
