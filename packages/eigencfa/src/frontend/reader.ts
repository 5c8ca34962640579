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
  return new Reader(text, file).read();
}

/** The reader's state: the text, where it is, the datums read and the frames still open. */
class Reader {
  readonly #text: string;
  readonly #file: string;
  #i = 0;
  #line = 1;
  #col = 1;
  readonly #top: Datum[] = [];
  readonly #stack: Frame[] = [];

  constructor(text: string, file: string) {
    this.#text = text;
    this.#file = file;
  }

  read(): Datum[] {
    const text = this.#text;
    while (this.#i < text.length) {
      if (this.#skip()) continue;
      const pos = this.#here();
      const c = text[this.#i] as string;
      if (this.#open(c, pos)) continue;
      if (c === ')' || c === ']') this.#close(c, pos);
      else if (c === '"') this.#emit(this.#string(pos));
      else this.#atom(c, pos);
    }
    this.#finish();
    return this.#top;
  }

  #here(): SourcePos {
    return { file: this.#file, line: this.#line, column: this.#col };
  }

  #advance(k = 1): void {
    for (let j = 0; j < k; j++) {
      if (this.#text[this.#i] === '\n') {
        this.#line++;
        this.#col = 1;
      } else this.#col++;
      this.#i++;
    }
  }

  #fail(pos: SourcePos, reason: string): never {
    throw new SchemeSyntaxError(pos, reason);
  }

  /** Skips white space, a line comment or a block comment; false when none starts here. */
  #skip(): boolean {
    const text = this.#text;
    const c = text[this.#i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      this.#advance();
      return true;
    }
    if (c === ';') {
      while (this.#i < text.length && text[this.#i] !== '\n') this.#advance();
      return true;
    }
    if (c !== '#' || text[this.#i + 1] !== '|') return false;
    const pos = this.#here();
    let depth = 1;
    this.#advance(2);
    while (this.#i < text.length && depth > 0) {
      const two = text.slice(this.#i, this.#i + 2);
      if (two === '|#') depth--;
      else if (two === '#|') depth++;
      this.#advance(two === '|#' || two === '#|' ? 2 : 1);
    }
    if (depth > 0) this.#fail(pos, 'unterminated block comment #| … |#');
    return true;
  }

  /** Opens a frame (list, vector, quote shorthand, datum comment) when one starts here. */
  #open(c: string, pos: SourcePos): boolean {
    const text = this.#text;
    const next = text[this.#i + 1];
    const frame = (kind: Frame['kind'], close = '', quoteName?: string): true => {
      const f: Frame = { kind, items: [], tail: null, dotted: false, close, pos };
      if (quoteName !== undefined) f.quoteName = quoteName;
      this.#stack.push(f);
      return true;
    };
    if (c === '#' && next === ';') {
      this.#advance(2);
      return frame('skip');
    }
    if (c === '(' || c === '[') {
      this.#advance();
      return frame('list', c === '(' ? ')' : ']');
    }
    if (c === '#' && (next === '(' || /^#u8\(/i.test(text.slice(this.#i, this.#i + 4)))) {
      // A vector, or a bytevector #u8( … ) (read as a vector of its bytes).
      this.#advance(next === '(' ? 2 : 4);
      return frame('vec', ')');
    }
    if (c === "'" || c === '`' || c === ',') {
      const two = c === ',' && next === '@';
      this.#advance(two ? 2 : 1);
      return frame('quote', '', QUOTES[two ? ',@' : c] as string);
    }
    return false;
  }

  #close(c: string, pos: SourcePos): void {
    const frame = this.#stack.pop();
    if (frame === undefined || (frame.kind !== 'list' && frame.kind !== 'vec'))
      this.#fail(pos, `unexpected '${c}'`);
    const f = frame as Frame;
    if (f.close !== c)
      this.#fail(
        pos,
        `'${c}' closes '${f.close === ')' ? '(' : '['}' opened at ${f.pos.line}:${f.pos.column}`,
      );
    if (f.dotted && f.tail === null) this.#fail(pos, 'nothing after the dot of a dotted list');
    this.#advance();
    this.#emit(
      f.kind === 'vec'
        ? { t: 'vec', items: f.items, pos: f.pos }
        : { t: 'list', items: f.items, tail: f.tail, pos: f.pos },
    );
  }

  #string(pos: SourcePos): Datum {
    const text = this.#text;
    this.#advance();
    let value = '';
    for (;;) {
      if (this.#i >= text.length) this.#fail(pos, 'unterminated string');
      const ch = text[this.#i] as string;
      if (ch === '"') break;
      if (ch === '\\') {
        const e = text[this.#i + 1] ?? '';
        value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
        this.#advance(2);
      } else {
        value += ch;
        this.#advance();
      }
    }
    this.#advance();
    return { t: 'str', value, pos };
  }

  /** An atom, up to the next delimiter: the dot of a dotted list, a character, symbol, boolean or number. */
  #atom(c: string, pos: SourcePos): void {
    const text = this.#text;
    // #\x, also #\( and #\)
    let j = c === '#' && text[this.#i + 1] === '\\' ? this.#i + 3 : this.#i;
    while (j < text.length && !DELIMITERS.has(text[j] as string)) j++;
    const atom = text.slice(this.#i, j);
    this.#advance(j - this.#i);
    if (atom === '.') {
      const frame = this.#stack[this.#stack.length - 1];
      if (frame === undefined || frame.kind !== 'list' || frame.items.length === 0 || frame.dotted)
        this.#fail(pos, "unexpected '.'");
      (frame as Frame).dotted = true;
      return;
    }
    if (atom.startsWith('#\\')) this.#emit({ t: 'char', value: atom.slice(2), pos });
    else this.#emit(atomDatum(atom, pos));
  }

  // Delivers a finished datum to the innermost open frame (closing quote frames as they fill).
  #emit(d: Datum): void {
    let datum: Datum | null = d;
    while (datum !== null) {
      const frame = this.#stack[this.#stack.length - 1];
      if (frame === undefined) {
        this.#top.push(datum);
        return;
      }
      if (frame.kind === 'skip') {
        this.#stack.pop();
        return;
      }
      if (frame.kind === 'quote') {
        this.#stack.pop();
        datum = {
          t: 'list',
          items: [{ t: 'sym', name: frame.quoteName as string, pos: frame.pos }, datum],
          tail: null,
          pos: frame.pos,
        };
        continue;
      }
      if (frame.dotted) {
        if (frame.tail !== null) this.#fail(datum.pos, 'more than one datum after the dot of a dotted list');
        frame.tail = datum;
      } else frame.items.push(datum);
      return;
    }
  }

  /** Fails on a frame still open at the end of the text. */
  #finish(): void {
    const open = this.#stack[this.#stack.length - 1];
    if (open === undefined) return;
    const what =
      open.kind === 'quote'
        ? `'${open.quoteName}' shorthand`
        : open.kind === 'skip'
          ? 'datum comment #;'
          : `'${open.close === ']' ? '[' : '('}'`;
    this.#fail(open.pos, `${what} is never closed (end of input)`);
  }
}

/** A symbol, boolean or number atom (not a character or the dot). */
function atomDatum(atom: string, pos: SourcePos): Datum {
  // Most atoms are symbols: only those that start like a number or with '#' need the patterns.
  if (!NUMBER_OR_HASH_START.test(atom)) return { t: 'sym', name: atom, pos };
  const lower = atom.toLowerCase();
  if (lower === '#t' || lower === '#true') return { t: 'bool', value: true, pos };
  if (lower === '#f' || lower === '#false') return { t: 'bool', value: false, pos };
  if (
    /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(atom) ||
    /^[+-]?\d+\/\d+$/.test(atom) ||
    /^#[xXbBoOdDeEiI]/.test(atom)
  )
    return { t: 'num', text: atom, pos };
  if (atom.startsWith('#')) throw new SchemeSyntaxError(pos, `unknown syntax '${atom}'`);
  return { t: 'sym', name: atom, pos };
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
