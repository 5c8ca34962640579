import { LlvmParseError } from './errors';
import type { IrType, IrTypedValue, IrValue } from './ir';
import { type Token, TokenKind } from './lexer';
import {
  ATTRIBUTES_WITH_INTEGER,
  CAST_OPS,
  CONSTANT_WORDS,
  describe,
  EMPTY,
  isConstantExpressionWord,
  isTypeStart,
  isValueWord,
  PTR,
  VOID,
} from './words';

/**
 * The token cursor of the LLVM IR reader and what it reads anywhere in a module: types and values
 * (constants, constant expressions, operands). {@link parseLlvmModule} reads the module,
 * functions and instructions on top of it.
 */
export class IrReader {
  readonly tokens: Token[];
  readonly file: string;
  pos = 0;
  limit: number;
  readonly end: Token;
  /** Where named types, globals and the current function's locals are used, checked once all are defined. */
  typeUses: Token[] = [];
  globalUses: Token[] = [];
  localUses: Token[] = [];
  /** Locals the current function defines: parameters, instruction results. */
  localDefinitions = new Set<string>();

  constructor(tokens: Token[], file: string) {
    this.tokens = tokens;
    this.file = file;
    this.limit = tokens.length - 1;
    this.end = tokens[tokens.length - 1] as Token;
  }

  peek(ahead = 0): Token {
    const at = this.pos + ahead;
    return at < this.limit ? (this.tokens[at] as Token) : { ...this.end, line: this.last().line };
  }

  last(): Token {
    return (this.tokens[Math.min(this.pos, this.limit) - 1] ?? this.end) as Token;
  }

  next(): Token {
    const token = this.peek();
    if (this.pos < this.limit) this.pos++;
    return token;
  }

  atEnd(): boolean {
    return this.pos >= this.limit;
  }

  is(text: string): boolean {
    const token = this.peek();
    return token.text === text && token.kind !== TokenKind.String;
  }

  accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.next();
    return true;
  }

  expect(text: string): Token {
    if (!this.is(text)) this.fail(`expected '${text}', found ${describe(this.peek())}`);
    return this.next();
  }

  fail(reason: string, token: Token = this.peek()): never {
    throw new LlvmParseError({ file: this.file, line: token.line, column: token.column }, reason);
  }

  /** Skips one token, or a whole bracketed group when it opens one. */
  skipBalanced(): void {
    const open = this.next();
    const closing: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
    if (open.kind !== TokenKind.Punct || !(open.text in closing)) return;
    let depth = 1;
    while (depth > 0) {
      const token = this.next();
      if (token.kind === TokenKind.End) this.fail(`unbalanced '${open.text}'`, open);
      if (token.kind !== TokenKind.Punct) continue;
      if (token.text in closing) depth++;
      else if (')]}>'.includes(token.text)) depth--;
    }
  }

  /**
   * Skips a line-based entity: tokens up to a line change at bracket depth 0. `rest`: the entity
   * has begun (skip what is left of it), else it starts at the next token.
   */
  skipEntity(rest = false): void {
    let depth = 0;
    let line = rest ? this.last().line : this.peek().line;
    while (!this.atEnd()) {
      const token = this.peek();
      if (depth === 0 && token.line !== line) return;
      this.next();
      line = token.line;
      if (token.kind !== TokenKind.Punct) continue;
      if ('([{<'.includes(token.text)) depth++;
      else if (')]}>'.includes(token.text)) depth = Math.max(0, depth - 1);
    }
  }

  // ── types ──────────────────────────────────────────────────────────────────────────────────

  parseType(): IrType {
    let type = this.parseBaseType();
    for (;;) {
      if (this.is('*')) {
        this.next();
        type = PTR;
      } else if (this.is('addrspace') && this.peek(1).text === '(' && this.peek(4).text === '*') {
        this.next();
        this.skipBalanced();
        this.expect('*');
        type = PTR;
      } else if (this.is('(')) {
        type = this.parseFunctionTypeParams(type);
      } else return type;
    }
  }

  parseFunctionTypeParams(result: IrType): IrType & { kind: 'function' } {
    this.expect('(');
    const params: IrType[] = [];
    let varargs = false;
    while (!this.is(')')) {
      if (this.accept('...')) {
        varargs = true;
        continue;
      }
      params.push(this.parseType());
      this.skipAttributes();
      if (this.peek().kind === TokenKind.Local) this.next(); // a parameter name
      if (!this.is(')')) this.expect(',');
    }
    this.expect(')');
    return { kind: 'function', result, params, varargs };
  }

  parseBaseType(): IrType {
    const token = this.peek();
    if (token.kind === TokenKind.Local) {
      this.next();
      this.typeUses.push(token);
      return { kind: 'named', name: token.text };
    }
    if (token.kind === TokenKind.Punct) {
      if (token.text === '{') return this.parseStructBody(false);
      if (token.text === '<' && this.peek(1).text === '{') {
        this.next();
        const struct = this.parseStructBody(true);
        this.expect('>');
        return struct;
      }
      if (token.text === '[' || token.text === '<') {
        this.next();
        if (this.accept('vscale')) this.expect('x');
        const length = Number(this.expectNumber());
        this.expect('x');
        const element = this.parseType();
        this.expect(token.text === '[' ? ']' : '>');
        return token.text === '[' ? { kind: 'array', length, element } : { kind: 'vector', length, element };
      }
    }
    if (token.kind !== TokenKind.Word) this.fail(`expected a type, found ${describe(token)}`);
    this.next();
    const word = token.text;
    if (/^i\d+$/.test(word)) return { kind: 'int', bits: Number(word.slice(1)) };
    switch (word) {
      case 'void':
        return VOID;
      case 'ptr':
        if (this.is('addrspace')) {
          this.next();
          this.skipBalanced();
        }
        return PTR;
      case 'half':
      case 'bfloat':
        return { kind: 'float', bits: 16 };
      case 'float':
        return { kind: 'float', bits: 32 };
      case 'double':
        return { kind: 'float', bits: 64 };
      case 'x86_fp80':
      case 'fp128':
      case 'ppc_fp128':
        return { kind: 'float', bits: 128 }; // x86_fp80 occupies 16 bytes on x86-64
      case 'label':
      case 'metadata':
      case 'token':
      case 'opaque':
        return { kind: word };
      case 'x86_mmx':
      case 'x86_amx':
        return { kind: 'other' };
      case 'target':
        this.skipBalanced();
        return { kind: 'other' };
      default:
        return this.fail(`expected a type, found ${describe(token)}`, token);
    }
  }

  parseStructBody(packed: boolean): IrType {
    this.expect('{');
    const fields: IrType[] = [];
    while (!this.is('}')) {
      fields.push(this.parseType());
      if (!this.is('}')) this.expect(',');
    }
    this.expect('}');
    return { kind: 'struct', fields, packed };
  }

  expectNumber(): string {
    const token = this.next();
    if (token.kind !== TokenKind.Number) this.fail(`expected a number, found ${describe(token)}`, token);
    return token.text;
  }

  // ── values ─────────────────────────────────────────────────────────────────────────────────

  /** Skips parameter and return attributes (`noundef`, `align 8`, `dereferenceable(16)`, `captures(none)`, `byval(%T)`). */
  skipAttributes(): void {
    for (;;) {
      const token = this.peek();
      if (token.kind === TokenKind.AttributeGroup) {
        this.next();
        continue;
      }
      if (token.kind !== TokenKind.Word || isTypeStart(token) || isValueWord(token.text)) return;
      if (token.text === 'c' && this.peek(1).kind === TokenKind.String) return;
      this.next();
      if (ATTRIBUTES_WITH_INTEGER.has(token.text) && this.peek().kind === TokenKind.Number) this.next();
      else if (this.is('(')) this.skipBalanced();
    }
  }

  parseTypedValue(): IrTypedValue {
    const type = this.parseType();
    this.skipAttributes();
    return { type, value: this.parseValue() };
  }

  parseValue(): IrValue {
    const token = this.peek();
    switch (token.kind) {
      case TokenKind.Local:
        this.next();
        this.localUses.push(token);
        return { kind: 'local', name: token.text };
      case TokenKind.Global:
        this.next();
        this.globalUses.push(token);
        return { kind: 'global', name: token.text };
      case TokenKind.Number:
        this.next();
        return /^-?\d+$/.test(token.text) ? { kind: 'int', value: Number(token.text) } : EMPTY;
      case TokenKind.String:
        this.next();
        return EMPTY;
      case TokenKind.Metadata: {
        this.next();
        if (this.is('(') || this.is('{')) this.skipBalanced();
        // `metadata !"_ZTS5Shape"` (a type identifier of llvm.type.test): the string is the id.
        const string = token.text === '!' && this.peek().kind === TokenKind.String ? this.next() : undefined;
        return {
          kind: 'opaque',
          what: 'metadata',
          id: string === undefined ? token.text : `!"${string.text}"`,
        };
      }
      case TokenKind.Punct:
        return this.parseAggregateConstant();
      case TokenKind.Word:
        return this.parseWordValue();
      default:
        return this.fail(`expected a value, found ${describe(token)}`);
    }
  }

  parseAggregateConstant(): IrValue {
    const open = this.next();
    let close: string;
    if (open.text === '{') close = '}';
    else if (open.text === '[') close = ']';
    else if (open.text === '<' && this.is('{')) {
      this.next();
      close = '}';
    } else if (open.text === '<') close = '>';
    else return this.fail(`expected a value, found ${describe(open)}`, open);
    const elements: IrTypedValue[] = [];
    while (!this.is(close)) {
      elements.push(this.parseTypedValue());
      if (!this.is(close)) this.expect(',');
    }
    this.expect(close);
    if (open.text === '<' && close === '}') this.expect('>');
    return { kind: 'aggregate', elements };
  }

  parseWordValue(): IrValue {
    const token = this.next();
    const word = token.text;
    if (CONSTANT_WORDS.has(word)) return EMPTY;
    if (word === 'c' && this.peek().kind === TokenKind.String) {
      this.next();
      return EMPTY;
    }
    if (word === 'getelementptr') {
      while (this.peek().kind === TokenKind.Word) {
        const flag = this.next();
        if (flag.text === 'inrange' && this.is('(')) this.skipBalanced();
      }
      this.expect('(');
      const sourceType = this.parseType();
      this.expect(',');
      const base = this.parseTypedValue();
      const indices: IrTypedValue[] = [];
      while (this.accept(',')) {
        if (this.is('inrange')) this.next();
        indices.push(this.parseTypedValue());
      }
      this.expect(')');
      return { kind: 'gep', sourceType, base, indices };
    }
    if (CAST_OPS.has(word)) {
      this.expect('(');
      const operand = this.parseTypedValue();
      this.expect('to');
      const to = this.parseType();
      this.expect(')');
      return { kind: 'cast', op: word, operand, to };
    }
    if (word === 'dso_local_equivalent' || word === 'no_cfi') return this.parseValue();
    if (word === 'asm') {
      while (this.peek().kind === TokenKind.Word) this.next();
      while (this.peek().kind === TokenKind.String || this.is(',')) this.next();
      return { kind: 'opaque', what: 'asm' };
    }
    if (word === 'blockaddress' || word === 'splat' || isConstantExpressionWord(word)) {
      // Integer and vector constant expressions (sub, shl, icmp, …) yield no pointer.
      while (this.peek().kind === TokenKind.Word && !this.is('(')) this.next();
      if (this.is('(')) this.skipBalanced();
      // Opaque, not empty: an integer computed from addresses may become a pointer again.
      return { kind: 'opaque', what: word };
    }
    return this.fail(`expected a value, found ${describe(token)}`, token);
  }
}
