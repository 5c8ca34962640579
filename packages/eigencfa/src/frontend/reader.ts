/**
 * A Scheme reader with source positions: lists (proper and dotted), vectors `#( … )`, strings,
 * characters, numbers, booleans, symbols, the quote shorthands `' \` , ,@`, line comments, block
 * comments `#| … |#` and datum comments `#;`. Iterative (an explicit stack), so deeply nested
 * programs — the Van Horn–Mairson family nests thousands of levels — do not overflow the call stack.
 * @module
 */
import { SchemeSyntaxError, type SourcePos } from '../errors';

/** One datum as read, with where it starts. */
export type Datum =
  | { readonly t: 'sym'; readonly name: string; readonly pos: SourcePos }
  | { readonly t: 'list'; readonly items: Datum[]; readonly tail: Datum | null; readonly pos: SourcePos }
  | { readonly t: 'vec'; readonly items: Datum[]; readonly pos: SourcePos }
  | { readonly t: 'num'; readonly text: string; readonly pos: SourcePos }
  | { readonly t: 'str'; readonly value: string; readonly pos: SourcePos }
  | { readonly t: 'char'; readonly value: string; readonly pos: SourcePos }
  | { readonly t: 'bool'; readonly value: boolean; readonly pos: SourcePos };

const DELIMITERS = new Set([' ', '\t', '\n', '\r', '\f', '(', ')', '[', ']', '"', ';']);
/** Atoms that may be a number, a boolean or other `#` syntax (anything else is a symbol). */
const NUMBER_OR_HASH_START = /^([+-]?\.?\d|#)/;
const QUOTES: Record<string, string> = {
  "'": 'quote',
  '`': 'quasiquote',
  ',': 'unquote',
  ',@': 'unquote-splicing',
};

interface Frame {
  kind: 'list' | 'vec' | 'quote' | 'skip';
  items: Datum[];
  tail: Datum | null;
  dotted: boolean;
  close: string;
  pos: SourcePos;
  quoteName?: string;
}

/**
 * Reads every datum of `text`.
 *
 * @example
 * ```ts
 * const [d] = readScheme('(lambda (x) x)', 'id.scm');
 * d.t; // 'list'
 * d.pos; // { file: 'id.scm', line: 1, column: 1 }
 * ```
 */
export function readScheme(text: string, file = '<input>'): Datum[] {
  let i = 0;
  let line = 1;
  let col = 1;
  const n = text.length;
  const top: Datum[] = [];
  const stack: Frame[] = [];
  const here = (): SourcePos => ({ file, line, column: col });
  const advance = (k = 1) => {
    for (let j = 0; j < k; j++) {
      if (text[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  const fail = (pos: SourcePos, reason: string): never => {
    throw new SchemeSyntaxError(pos, reason);
  };

  // Delivers a finished datum to the innermost open frame (closing quote frames as they fill).
  const emit = (d: Datum): void => {
    let datum: Datum | null = d;
    while (datum !== null) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) {
        top.push(datum);
        return;
      }
      if (frame.kind === 'skip') {
        stack.pop();
        return;
      }
      if (frame.kind === 'quote') {
        stack.pop();
        datum = {
          t: 'list',
          items: [{ t: 'sym', name: frame.quoteName as string, pos: frame.pos }, datum],
          tail: null,
          pos: frame.pos,
        };
        continue;
      }
      if (frame.dotted) {
        if (frame.tail !== null) fail(datum.pos, 'more than one datum after the dot of a dotted list');
        frame.tail = datum;
      } else frame.items.push(datum);
      return;
    }
  };

  while (i < n) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      advance();
      continue;
    }
    if (c === ';') {
      while (i < n && text[i] !== '\n') advance();
      continue;
    }
    const pos = here();
    if (c === '#' && text[i + 1] === '|') {
      let depth = 1;
      advance(2);
      while (i < n && depth > 0) {
        if (text[i] === '|' && text[i + 1] === '#') {
          depth--;
          advance(2);
        } else if (text[i] === '#' && text[i + 1] === '|') {
          depth++;
          advance(2);
        } else advance();
      }
      if (depth > 0) fail(pos, 'unterminated block comment #| … |#');
      continue;
    }
    if (c === '#' && text[i + 1] === ';') {
      advance(2);
      stack.push({ kind: 'skip', items: [], tail: null, dotted: false, close: '', pos });
      continue;
    }
    if (c === '(' || c === '[') {
      advance();
      stack.push({ kind: 'list', items: [], tail: null, dotted: false, close: c === '(' ? ')' : ']', pos });
      continue;
    }
    if (c === '#' && (text[i + 1] === '(' || /^#u8\(/i.test(text.slice(i, i + 4)))) {
      // A vector, or a bytevector #u8( … ) (read as a vector of its bytes).
      advance(text[i + 1] === '(' ? 2 : 4);
      stack.push({ kind: 'vec', items: [], tail: null, dotted: false, close: ')', pos });
      continue;
    }
    if (c === ')' || c === ']') {
      const frame = stack.pop();
      if (frame === undefined || (frame.kind !== 'list' && frame.kind !== 'vec'))
        fail(pos, `unexpected '${c}'`);
      const f = frame as Frame;
      if (f.close !== c)
        fail(pos, `'${c}' closes '${f.close === ')' ? '(' : '['}' opened at ${f.pos.line}:${f.pos.column}`);
      if (f.dotted && f.tail === null) fail(pos, 'nothing after the dot of a dotted list');
      advance();
      emit(
        f.kind === 'vec'
          ? { t: 'vec', items: f.items, pos: f.pos }
          : { t: 'list', items: f.items, tail: f.tail, pos: f.pos },
      );
      continue;
    }
    if (c === "'" || c === '`' || c === ',') {
      const two = c === ',' && text[i + 1] === '@';
      advance(two ? 2 : 1);
      stack.push({
        kind: 'quote',
        items: [],
        tail: null,
        dotted: false,
        close: '',
        pos,
        quoteName: QUOTES[two ? ',@' : c] as string,
      });
      continue;
    }
    if (c === '"') {
      advance();
      let value = '';
      for (;;) {
        if (i >= n) fail(pos, 'unterminated string');
        const ch = text[i] as string;
        if (ch === '"') break;
        if (ch === '\\') {
          const e = text[i + 1] ?? '';
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          advance(2);
        } else {
          value += ch;
          advance();
        }
      }
      advance();
      emit({ t: 'str', value, pos });
      continue;
    }
    // An atom: up to the next delimiter.
    let j = i;
    if (c === '#' && text[i + 1] === '\\') {
      j = i + 3; // #\x, also #\( and #\)
      while (j < n && !DELIMITERS.has(text[j] as string)) j++;
    } else {
      while (j < n && !DELIMITERS.has(text[j] as string)) j++;
    }
    const atom = text.slice(i, j);
    advance(j - i);
    if (atom === '.') {
      const frame = stack[stack.length - 1];
      if (frame === undefined || frame.kind !== 'list' || frame.items.length === 0 || frame.dotted)
        fail(pos, "unexpected '.'");
      (frame as Frame).dotted = true;
      continue;
    }
    if (atom.startsWith('#\\')) {
      emit({ t: 'char', value: atom.slice(2), pos });
      continue;
    }
    // Most atoms are symbols: only those that start like a number or with '#' need the patterns.
    if (!NUMBER_OR_HASH_START.test(atom)) {
      emit({ t: 'sym', name: atom, pos });
      continue;
    }
    const lower = atom.toLowerCase();
    if (lower === '#t' || lower === '#true') {
      emit({ t: 'bool', value: true, pos });
      continue;
    }
    if (lower === '#f' || lower === '#false') {
      emit({ t: 'bool', value: false, pos });
      continue;
    }
    if (
      /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(atom) ||
      /^[+-]?\d+\/\d+$/.test(atom) ||
      /^#[xXbBoOdDeEiI]/.test(atom)
    ) {
      emit({ t: 'num', text: atom, pos });
      continue;
    }
    if (atom.startsWith('#')) fail(pos, `unknown syntax '${atom}'`);
    emit({ t: 'sym', name: atom, pos });
  }
  const open = stack[stack.length - 1];
  if (open !== undefined) {
    const what =
      open.kind === 'quote'
        ? `'${open.quoteName}' shorthand`
        : open.kind === 'skip'
          ? 'datum comment #;'
          : `'${open.close === ']' ? '[' : '('}'`;
    fail(open.pos, `${what} is never closed (end of input)`);
  }
  return top;
}

/**
 * Writes a datum back as text (for error messages and tests), at most `limit` characters (the walk
 * stops there, so naming a huge operator costs no more than a short one).
 *
 * @example
 * ```ts
 * datumToString(readScheme('(a . (b))')[0]); // '(a . (b))'
 * ```
 */
export function datumToString(d: Datum, limit = Number.POSITIVE_INFINITY): string {
  const parts: string[] = [];
  const stack: (Datum | string)[] = [d];
  let length = 0;
  const emit = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  while (stack.length > 0 && length < limit) {
    const x = stack.pop() as Datum | string;
    if (typeof x === 'string') {
      emit(x);
      continue;
    }
    switch (x.t) {
      case 'sym':
        emit(x.name);
        break;
      case 'num':
        emit(x.text);
        break;
      case 'str':
        emit(JSON.stringify(x.value));
        break;
      case 'char':
        emit(`#\\${x.value}`);
        break;
      case 'bool':
        emit(x.value ? '#t' : '#f');
        break;
      case 'vec':
      case 'list': {
        const seq: (Datum | string)[] = [x.t === 'vec' ? '#(' : '('];
        x.items.forEach((item, k) => {
          if (k > 0) seq.push(' ');
          seq.push(item);
        });
        if (x.t === 'list' && x.tail !== null) seq.push(' . ', x.tail);
        seq.push(')');
        for (let k = seq.length - 1; k >= 0; k--) stack.push(seq[k] as Datum | string);
        break;
      }
    }
  }
  const text = parts.join('');
  return text.length > limit ? text.slice(0, limit) : text;
}
