/**
 * A byte scanner for the line-oriented numeric formats (Hardekopf files, the points-to format):
 * it walks the decompressed bytes once, parses unsigned integers digit by digit and tracks the line
 * and the line's start so any token's column is known, without allocating per line.
 * @internal
 * @module
 */
import { ConstraintModelError, ConstraintParseError, type SourcePosition } from '../errors';

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const HASH = 0x23;
const ZERO = 0x30;
const NINE = 0x39;
const U32_MAX = 0xffff_ffff;

/** @internal */
export class ByteScanner {
  pos = 0;
  line = 1;
  lineStart = 0;
  readonly end: number;

  readonly bytes: Uint8Array;

  constructor(
    bytes: Uint8Array,
    readonly file: string,
  ) {
    // A plain Uint8Array view (not a Node Buffer subclass) keeps the byte loads monomorphic.
    this.bytes =
      bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    this.end = bytes.length;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** The byte at the cursor, or -1 at the end. */
  peek(): number {
    return this.pos < this.end ? (this.bytes[this.pos] as number) : -1;
  }

  column(at: number = this.pos): number {
    return at - this.lineStart + 1;
  }

  position(at: number = this.pos): SourcePosition {
    return { file: this.file, line: this.line, column: this.column(at) };
  }

  /** Throws a parse error at byte `at` of the current line. */
  fail(reason: string, at: number = this.pos): never {
    throw new ConstraintParseError(this.position(at), reason);
  }

  /** Throws a model error (a rule break, not a syntax error) at byte `at` of the current line. */
  failRule(message: string, at: number, constraintIndex?: number, node?: number): never {
    throw new ConstraintModelError(message, constraintIndex, node, this.position(at));
  }

  /** The token at `at` in words, for messages: `'abc'`, `end of line` or `end of file`. */
  describe(at: number = this.pos): string {
    if (at >= this.end) return 'end of file';
    const first = this.bytes[at] as number;
    if (first === NEWLINE || first === RETURN) return 'end of line';
    let stop = at;
    while (stop < this.end && stop - at < 24) {
      const b = this.bytes[stop] as number;
      if (b === NEWLINE || b === RETURN || b === SPACE || b === TAB || b === 0x2c) break;
      stop++;
    }
    if (stop === at) stop = at + 1;
    return `'${new TextDecoder().decode(this.bytes.subarray(at, stop))}'`;
  }

  skipSpaces(): void {
    const { bytes, end } = this;
    let p = this.pos;
    while (p < end) {
      const b = bytes[p];
      if (b !== SPACE && b !== TAB) break;
      p++;
    }
    this.pos = p;
  }

  /**
   * Skips blank lines and lines whose first non-blank byte is `#`, stopping at the start of the
   * next line with content (or the end). Only call it at the start of a line.
   */
  skipBlankAndCommentLines(): void {
    const { bytes, end } = this;
    for (;;) {
      let p = this.pos;
      while (p < end && (bytes[p] === SPACE || bytes[p] === TAB || bytes[p] === RETURN)) p++;
      if (p < end && bytes[p] !== NEWLINE && bytes[p] !== HASH) return;
      while (p < end && bytes[p] !== NEWLINE) p++;
      if (p >= end) {
        this.pos = end;
        return;
      }
      this.pos = p + 1;
      this.line++;
      this.lineStart = this.pos;
    }
  }

  /** Skips lines that hold only blanks (not comments); only call it at the start of a line. */
  skipBlankLines(): void {
    const { bytes, end } = this;
    for (;;) {
      let p = this.pos;
      while (p < end && (bytes[p] === SPACE || bytes[p] === TAB || bytes[p] === RETURN)) p++;
      if (p >= end) {
        this.pos = end;
        return;
      }
      if (bytes[p] !== NEWLINE) return;
      this.pos = p + 1;
      this.line++;
      this.lineStart = this.pos;
    }
  }

  /** Whether the current line (from the cursor) starts with `#` after blanks. */
  atCommentLine(): boolean {
    const { bytes, end } = this;
    let p = this.pos;
    while (p < end && (bytes[p] === SPACE || bytes[p] === TAB)) p++;
    return p < end && bytes[p] === HASH;
  }

  /** Reads an unsigned 32-bit decimal integer; `what` names it in messages ("node id"). */
  readU32(what: string): number {
    const { bytes, end } = this;
    const start = this.pos;
    let p = start;
    let value = 0;
    while (p < end) {
      const b = bytes[p] as number;
      if (b < ZERO || b > NINE) break;
      value = value * 10 + (b - ZERO);
      p++;
    }
    if (p === start) {
      const found = this.describe(start);
      if (found === 'end of line' || found === 'end of file')
        this.fail(`missing ${what} (found ${found})`, start);
      this.fail(`expected ${what} (a non-negative integer), found ${found}`, start);
    }
    if (p < end) {
      const b = bytes[p] as number;
      if ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2e) {
        this.fail(`bad number ${this.describe(start)} for ${what}`, start);
      }
    }
    if (value > U32_MAX) this.fail(`${what} ${this.describe(start)} does not fit in 32 bits`, start);
    this.pos = p;
    return value;
  }

  /** Consumes byte `expected` (after blanks when `skipBlanks`), or fails naming `what` it separates. */
  expect(expected: number, what: string): void {
    if (this.pos < this.end && this.bytes[this.pos] === expected) {
      this.pos++;
      return;
    }
    const found = this.describe();
    if (found === 'end of line' || found === 'end of file') {
      this.fail(`missing '${String.fromCharCode(expected)}' ${what} (found ${found}): a field is missing`);
    }
    this.fail(`expected '${String.fromCharCode(expected)}' ${what}, found ${found}`);
  }

  /** Expects the end of the line (trailing blanks allowed) and moves to the next line. */
  endLine(after: string): void {
    const { bytes, end } = this;
    let p = this.pos;
    while (p < end && (bytes[p] === SPACE || bytes[p] === TAB || bytes[p] === RETURN)) p++;
    if (p < end && bytes[p] !== NEWLINE) {
      this.fail(`unexpected ${this.describe(p)} after ${after}`, p);
    }
    if (p < end) {
      this.pos = p + 1;
      this.line++;
      this.lineStart = this.pos;
    } else {
      this.pos = end;
    }
  }
}
