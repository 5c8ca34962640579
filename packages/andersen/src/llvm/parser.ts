import { LlvmParseError } from './errors';
import type {
  IrFunction,
  IrGlobal,
  IrInstruction,
  IrLinkage,
  IrModule,
  IrType,
  IrTypedValue,
  IrValue,
} from './ir';
import { globalsTurnedIntoIntegers, type Token, TokenKind, tokenize } from './lexer';
import { IrReader } from './reader';
import {
  ATTRIBUTES_WITH_INTEGER,
  CALL_PREFIX_WORDS,
  CAST_OPS,
  describe,
  isTypeStart,
  LINKAGE_AND_FLAGS,
  NON_POINTER_OPS,
  PTR,
  SKIPPED_TOP_LEVEL,
} from './words';

/** A recursive-descent reader of a module over its tokens. */
class Parser extends IrReader {
  /** `!type` attachments of globals by name, and the tuple nodes they may name (`!0 = !{i64 16, !"_ZTS1A"}`). */
  readonly vtableTypeNodes = new Map<string, string[]>();
  readonly typeNodes = new Map<string, { byte: number; type: string }>();

  // ── module ─────────────────────────────────────────────────────────────────────────────────

  parseModule(size: number): IrModule {
    const types = new Map<string, IrType>();
    const globals: IrGlobal[] = [];
    const functions: IrFunction[] = [];
    const debugLines = new Map<string, number>();
    const debugVariables = new Map<string, { name: string; line: number | undefined }>();
    const functionNames = new Map<string, IrFunction>();
    while (!this.atEnd()) {
      const token = this.peek();
      if (token.kind === TokenKind.Local && this.peek(1).text === '=' && this.peek(2).text === 'type') {
        this.pos += 3;
        types.set(token.text, this.parseType()); // `type opaque` parses as the opaque type
        continue;
      }
      if (token.kind === TokenKind.Global && this.peek(1).text === '=') {
        globals.push(this.parseGlobal());
        continue;
      }
      if (token.kind === TokenKind.Metadata) {
        this.readDebugLocation(debugLines, debugVariables);
        this.readTypeNode();
        this.skipEntity();
        continue;
      }
      if (token.kind === TokenKind.Word && (token.text === 'define' || token.text === 'declare')) {
        const f = this.parseFunction();
        const earlier = functionNames.get(f.name);
        if (earlier !== undefined && !earlier.isDeclaration && !f.isDeclaration)
          this.fail(`function ${f.name} is defined twice (first at line ${earlier.line})`, token);
        if (earlier === undefined || earlier.isDeclaration) functionNames.set(f.name, f);
        functions.push(f);
        continue;
      }
      if (
        token.kind === TokenKind.Comdat ||
        (token.kind === TokenKind.Word && SKIPPED_TOP_LEVEL.has(token.text))
      ) {
        this.skipEntity();
        continue;
      }
      this.fail(`expected a global, a function, a type or metadata, found ${describe(token)}`);
    }
    this.checkModuleNames(types, globals, functions);
    return {
      file: this.file,
      types,
      globals: globals.map((g) => this.withVtableTypes(g)),
      functions,
      debugLines,
      debugVariables,
      size,
    };
  }

  /** LLVM's own reader rejects a module that uses a type or a global it does not define: so do we. */
  checkModuleNames(types: Map<string, IrType>, globals: IrGlobal[], functions: IrFunction[]): void {
    for (const use of this.typeUses)
      if (!types.has(use.text)) this.fail(`use of undefined type ${use.text}`, use);
    const names = new Set([...globals.map((g) => g.name), ...functions.map((f) => f.name)]);
    for (const use of this.globalUses)
      if (!names.has(use.text)) this.fail(`use of undefined value ${use.text}`, use);
    const seen = new Map<string, number>();
    for (const g of globals) {
      const line = seen.get(g.name);
      if (line !== undefined)
        this.fail(`global ${g.name} is defined twice (first at line ${line})`, {
          ...this.end,
          line: g.line,
          column: 1,
        });
      seen.set(g.name, g.line);
    }
  }

  /**
   * `!N = [distinct] !DILocation(line: L, …)` → debugLines[!N] = L;
   * `!N = !DILocalVariable(name: "p", …, line: L, …)` → debugVariables[!N] = { name, line }.
   */
  readDebugLocation(
    debugLines: Map<string, number>,
    debugVariables: Map<string, { name: string; line: number | undefined }>,
  ): void {
    const id = this.peek().text;
    let at = 1;
    if (this.peek(at).text !== '=') return;
    at++;
    if (this.peek(at).text === 'distinct') at++;
    if (this.peek(at).text === '!DILocalVariable' && this.peek(at + 1).text === '(') {
      let name: string | undefined;
      let line: number | undefined;
      for (let k = at + 2; this.pos + k < this.limit && this.peek(k).text !== ')'; k++) {
        const field = this.peek(k);
        const value = this.peek(k + 1);
        if (field.kind !== TokenKind.Label) continue;
        if (field.text === 'name' && value.kind === TokenKind.String) name = value.text;
        if (field.text === 'line' && value.kind === TokenKind.Number) line = Number(value.text);
      }
      if (name !== undefined) debugVariables.set(id, { name, line });
      return;
    }
    if (this.peek(at).text !== '!DILocation' || this.peek(at + 1).text !== '(') return;
    const field = this.peek(at + 2);
    const value = this.peek(at + 3);
    if (field.kind === TokenKind.Label && field.text === 'line' && value.kind === TokenKind.Number) {
      debugLines.set(id, Number(value.text));
    }
  }

  /** `!N = !{i64 16, !"_ZTS5Shape"}` (or `!{i64 16, !M}`): a candidate type node of a vtable. */
  readTypeNode(): void {
    const t = (k: number) => this.peek(k);
    if (t(1).text !== '=' || t(2).text !== '!' || t(3).text !== '{' || t(4).text !== 'i64') return;
    if (t(5).kind !== TokenKind.Number || t(6).text !== ',') return;
    const id =
      t(7).text === '!' && t(8).kind === TokenKind.String
        ? { text: `!"${t(8).text}"`, close: 9 }
        : t(7).kind === TokenKind.Metadata && t(7).text !== '!'
          ? { text: t(7).text, close: 8 }
          : undefined;
    if (id === undefined || t(id.close).text !== '}') return;
    this.typeNodes.set(t(0).text, { byte: Number(t(5).text), type: id.text });
  }

  /** A global with the `!type` attachments it named, resolved once all metadata is read. */
  withVtableTypes(g: IrGlobal): IrGlobal {
    const nodes = this.vtableTypeNodes.get(g.name);
    if (nodes === undefined) return g;
    const vtableTypes = nodes.flatMap((node) => {
      const type = this.typeNodes.get(node);
      return type === undefined ? [] : [type];
    });
    return vtableTypes.length === 0 ? g : { ...g, vtableTypes };
  }

  parseGlobal(): IrGlobal {
    const nameToken = this.next();
    this.expect('=');
    let linkage: IrLinkage = 'external';
    while (this.peek().kind === TokenKind.Word && LINKAGE_AND_FLAGS.has(this.peek().text)) {
      const flag = this.next();
      linkage = linkageOf(flag.text) ?? linkage;
      if ((flag.text === 'thread_local' || flag.text === 'addrspace') && this.is('(')) this.skipBalanced();
    }
    const kind = this.next();
    if (kind.text === 'alias' || kind.text === 'ifunc') {
      const valueType = this.parseType();
      this.expect(',');
      const aliasee = this.parseTypedValue();
      this.skipEntity(true);
      return {
        name: nameToken.text,
        valueType,
        initializer: undefined,
        isConstant: true,
        aliasee,
        line: nameToken.line,
        linkage,
      };
    }
    if (kind.text !== 'global' && kind.text !== 'constant') {
      this.fail(`expected 'global', 'constant' or 'alias', found ${describe(kind)}`, kind);
    }
    const valueType = this.parseType();
    let initializer: IrTypedValue | undefined;
    const next = this.peek();
    if (!this.atEnd() && next.line === this.last().line && next.text !== ',') {
      initializer = { type: valueType, value: this.parseValue() };
    }
    // `, align 8`, `, section "…"`, `, !dbg !3`, `, !type !0`, …
    const typeNodes: string[] = [];
    for (let at = this.pos; at < this.limit && this.tokens[at]?.line === nameToken.line; at++)
      if (this.tokens[at]?.text === '!type' && this.tokens[at + 1]?.kind === TokenKind.Metadata)
        typeNodes.push((this.tokens[at + 1] as Token).text);
    if (typeNodes.length > 0) this.vtableTypeNodes.set(nameToken.text, typeNodes);
    if (this.is(',')) this.skipEntity(true);
    return {
      name: nameToken.text,
      valueType,
      initializer,
      isConstant: kind.text === 'constant',
      line: nameToken.line,
      linkage,
    };
  }

  parseFunction(): IrFunction {
    const keyword = this.next();
    const isDeclaration = keyword.text === 'declare';
    const afterKeyword = this.pos;
    let linkage: IrLinkage = 'external';
    // The result type ends right before the function's name: try each start until one parses there.
    let nameAt = this.pos;
    while (nameAt < this.limit && (this.tokens[nameAt] as Token).kind !== TokenKind.Global) nameAt++;
    if (nameAt >= this.limit) this.fail(`expected the function's name after '${keyword.text}'`, keyword);
    let result: IrType | undefined;
    for (let start = this.pos; start < nameAt && result === undefined; start++) {
      // Linkage, visibility and attribute words cannot start a type: skip them without a throw.
      if (!isTypeStart(this.tokens[start] as Token)) continue;
      this.pos = start;
      try {
        const type = this.parseType();
        if (this.pos === nameAt) result = type;
      } catch (error) {
        if (!(error instanceof LlvmParseError)) throw error;
      }
    }
    if (result === undefined) this.fail(`expected the function's result type`, keyword);
    for (let at = afterKeyword; at < nameAt; at++)
      linkage = linkageOf((this.tokens[at] as Token).text) ?? linkage;
    this.pos = nameAt;
    const name = this.next().text;
    this.expect('(');
    const params: IrType[] = [];
    const paramNames: (string | undefined)[] = [];
    let varargs = false;
    while (!this.is(')')) {
      if (this.accept('...')) {
        varargs = true;
        continue;
      }
      params.push(this.parseType());
      this.skipAttributes();
      paramNames.push(this.peek().kind === TokenKind.Local ? this.next().text : undefined);
      if (!this.is(')')) this.expect(',');
    }
    this.expect(')');
    const type = { kind: 'function' as const, result, params, varargs };
    if (isDeclaration) {
      this.skipEntity(true);
      return { name, type, paramNames, isDeclaration, instructions: [], line: keyword.line, linkage };
    }
    // Function attributes, section, comdat, personality, !dbg: up to the body's brace.
    while (!this.is('{')) {
      if (this.atEnd()) this.fail(`expected '{' to open the body of ${name}`, keyword);
      this.skipBalanced();
    }
    this.next();
    const instructions: IrInstruction[] = [];
    this.localUses = [];
    this.localDefinitions = new Set(paramNames.filter((p) => p !== undefined));
    // Unnamed values and blocks are numbered in order: parameters first.
    for (;;) {
      const token = this.peek();
      if (token.kind === TokenKind.End) this.fail(`the body of ${name} is not closed by '}'`, keyword);
      if (token.text === '}' && token.kind === TokenKind.Punct) {
        this.next();
        break;
      }
      if (token.kind === TokenKind.Label) {
        this.next();
        this.localDefinitions.add(`%${token.text}`).add(`%"${token.text}"`);
        continue;
      }
      const instruction = this.parseInstructionLine();
      if (instruction !== undefined) instructions.push(instruction);
    }
    for (const use of this.localUses)
      if (!this.localDefinitions.has(use.text))
        this.fail(`use of undefined value ${use.text} in ${name}`, use);
    this.localUses = [];
    return { name, type, paramNames, isDeclaration, instructions, line: keyword.line, linkage };
  }

  /** One instruction: its tokens run to the first line change at bracket depth 0. */
  parseInstructionLine(): IrInstruction | undefined {
    const start = this.pos;
    let depth = 0;
    let end = start;
    while (end < this.limit) {
      const token = this.tokens[end] as Token;
      if (end > start && depth === 0 && token.line !== (this.tokens[end - 1] as Token).line) break;
      if (token.kind === TokenKind.Punct) {
        if ('([{<'.includes(token.text)) depth++;
        else if (')]}>'.includes(token.text)) depth--;
        if (depth < 0) break; // the function's closing brace on the same line
      }
      end++;
    }
    const outerLimit = this.limit;
    this.limit = end;
    try {
      return this.parseInstruction();
    } finally {
      this.limit = outerLimit;
      this.pos = end;
    }
  }

  parseInstruction(): IrInstruction | undefined {
    const first = this.peek();
    const irLine = first.line;
    let result: string | undefined;
    if (first.kind === TokenKind.Local && this.peek(1).text === '=') {
      result = first.text;
      this.localDefinitions.add(result);
      this.pos += 2;
    }
    const opToken = this.next();
    if (opToken.kind !== TokenKind.Word)
      this.fail(`expected an instruction, found ${describe(opToken)}`, opToken);
    let op = opToken.text;
    if (op.startsWith('#dbg_')) return this.parseDebugRecord(op, irLine);
    const dbg = this.findDebugAttachment();
    const at = { irLine, dbg };
    const need = (): string => result ?? this.fail(`'${op}' needs a result name`, opToken);
    if (op === 'tail' || op === 'musttail' || op === 'notail') op = this.next().text;
    switch (op) {
      case 'alloca': {
        this.accept('inalloca');
        return { ...at, op: 'alloca', result: need(), allocated: this.parseType() };
      }
      case 'load': {
        this.accept('atomic');
        this.accept('volatile');
        const type = this.parseType();
        this.expect(',');
        return { ...at, op: 'load', result: need(), type, pointer: this.parseTypedValue() };
      }
      case 'store': {
        this.accept('atomic');
        this.accept('volatile');
        const value = this.parseTypedValue();
        this.expect(',');
        return { ...at, op: 'store', value, pointer: this.parseTypedValue() };
      }
      case 'getelementptr': {
        while (this.peek().kind === TokenKind.Word && !isTypeStart(this.peek())) {
          const flag = this.next();
          if (this.is('(') && flag.text === 'inrange') this.skipBalanced();
        }
        const sourceType = this.parseType();
        this.expect(',');
        const base = this.parseTypedValue();
        const indices: IrTypedValue[] = [];
        while (this.accept(',')) {
          if (this.peek().kind === TokenKind.Metadata) break;
          indices.push(this.parseTypedValue());
        }
        return { ...at, op: 'getelementptr', result: need(), sourceType, base, indices };
      }
      case 'phi': {
        this.skipFastMathFlags();
        const type = this.parseType();
        const incoming: IrValue[] = [];
        do {
          if (this.peek().kind === TokenKind.Metadata) break;
          this.expect('[');
          incoming.push(this.parseValue());
          this.expect(',');
          this.next(); // the predecessor block
          this.expect(']');
        } while (this.accept(','));
        return { ...at, op: 'phi', result: need(), type, incoming };
      }
      case 'select': {
        this.skipFastMathFlags();
        this.parseTypedValue();
        this.expect(',');
        const a = this.parseTypedValue();
        this.expect(',');
        const b = this.parseTypedValue();
        return { ...at, op: 'select', result: need(), type: a.type, choices: [a, b] };
      }
      case 'call':
      case 'invoke':
      case 'callbr':
        return { ...at, ...this.parseCall(result) };
      case 'ret': {
        if (this.accept('void')) return { ...at, op: 'ret', value: undefined };
        return { ...at, op: 'ret', value: this.parseTypedValue() };
      }
      case 'extractvalue':
        return { ...at, op: 'extractvalue', result: need(), aggregate: this.parseTypedValue() };
      case 'insertvalue': {
        const aggregate = this.parseTypedValue();
        this.expect(',');
        return { ...at, op: 'insertvalue', result: need(), aggregate, element: this.parseTypedValue() };
      }
      case 'va_arg': {
        const list = this.parseTypedValue();
        this.expect(',');
        return { ...at, op: 'va_arg', result: need(), list, type: this.parseType() };
      }
      case 'freeze': {
        const operand = this.parseTypedValue();
        return { ...at, op: 'cast', name: 'freeze', result: need(), operand, to: operand.type };
      }
      case 'atomicrmw': {
        this.accept('volatile');
        const operation = this.next().text;
        const pointer = this.parseTypedValue();
        this.expect(',');
        const stored = this.parseTypedValue();
        if (operation !== 'xchg') return { ...at, op: 'other', name: op, result, type: stored.type };
        return { ...at, op: 'atomic', result: need(), pointer, stored, type: stored.type };
      }
      case 'cmpxchg': {
        this.accept('weak');
        this.accept('volatile');
        const pointer = this.parseTypedValue();
        this.expect(',');
        this.parseTypedValue();
        this.expect(',');
        const stored = this.parseTypedValue();
        return { ...at, op: 'atomic', result: need(), pointer, stored, type: stored.type };
      }
      case 'add':
      case 'sub':
      case 'mul':
      case 'shl':
      case 'sdiv':
      case 'ashr':
      case 'or':
      case 'xor': {
        // Integer arithmetic: its operands tell whether a pointer offset may be negative.
        while (['nuw', 'nsw', 'exact', 'disjoint'].includes(this.peek().text)) this.next();
        const first = this.parseTypedValue();
        this.expect(',');
        const operands = [first.value, this.parseValue()];
        return { ...at, op: 'other', name: op, result, type: undefined, operands };
      }
      default:
        if (CAST_OPS.has(op)) {
          while (this.peek().kind === TokenKind.Word && !isTypeStart(this.peek())) this.next(); // nneg, nuw, …
          const operand = this.parseTypedValue();
          this.expect('to');
          return { ...at, op: 'cast', name: op, result: need(), operand, to: this.parseType() };
        }
        return {
          ...at,
          op: 'other',
          name: op,
          result,
          type: NON_POINTER_OPS.has(op) ? undefined : this.guessResultType(),
        };
    }
  }

  /** Another instruction's result type when it could be a pointer (`ptr` among its words), else undefined. */
  guessResultType(): IrType | undefined {
    for (let at = this.pos; at < this.limit; at++) {
      const token = this.tokens[at] as Token;
      if (token.kind === TokenKind.Metadata) break;
      if (
        (token.kind === TokenKind.Word && token.text === 'ptr') ||
        (token.kind === TokenKind.Punct && token.text === '*')
      ) {
        return PTR;
      }
    }
    return undefined;
  }

  skipFastMathFlags(): void {
    while (this.peek().kind === TokenKind.Word && CALL_PREFIX_WORDS.has(this.peek().text)) this.next();
  }

  findDebugAttachment(): string | undefined {
    for (let at = this.pos; at + 1 < this.limit; at++) {
      const token = this.tokens[at] as Token;
      if (token.kind === TokenKind.Metadata && token.text === '!dbg')
        return (this.tokens[at + 1] as Token).text;
    }
    return undefined;
  }

  /**
   * `#dbg_value(ptr %x, !12, !DIExpression(), !20)` and `#dbg_declare(…)` (LLVM 19+), read as the
   * `llvm.dbg.value`/`llvm.dbg.declare` calls they replace; other records are skipped.
   */
  parseDebugRecord(op: string, irLine: number): IrInstruction | undefined {
    if ((op !== '#dbg_value' && op !== '#dbg_declare') || !this.accept('(')) return undefined;
    if (!isTypeStart(this.peek())) return undefined; // !DIArgList(…), metadata operands
    const wrapped = this.parseTypedValue();
    if (!this.accept(',') || this.peek().kind !== TokenKind.Metadata) return undefined;
    const variable = this.next().text;
    const metadata: IrType = { kind: 'metadata' };
    return {
      irLine,
      dbg: undefined,
      op: 'call',
      result: undefined,
      resultType: { kind: 'void' },
      callee: { kind: 'global', name: op === '#dbg_value' ? '@llvm.dbg.value' : '@llvm.dbg.declare' },
      args: [
        { type: metadata, value: { kind: 'opaque', what: 'metadata', wrapped } },
        { type: metadata, value: { kind: 'opaque', what: 'metadata', id: variable } },
      ],
    };
  }

  parseCall(result: string | undefined): Omit<IrInstruction & { op: 'call' }, 'irLine' | 'dbg'> {
    for (;;) {
      const token = this.peek();
      if (token.kind === TokenKind.Word && CALL_PREFIX_WORDS.has(token.text)) {
        this.next();
        if (token.text === 'cc' && this.peek().kind === TokenKind.Number) this.next();
        continue;
      }
      if (token.kind === TokenKind.Word && !isTypeStart(token)) {
        // Return attributes (noundef, noalias, align 8, …) and addrspace(N).
        this.next();
        if (ATTRIBUTES_WITH_INTEGER.has(token.text) && this.peek().kind === TokenKind.Number) this.next();
        else if (this.is('(')) this.skipBalanced();
        continue;
      }
      break;
    }
    // Either the result type or a whole function type (varargs and typed-pointer calls).
    let type = this.parseType();
    const resultType = type.kind === 'function' ? type.result : type;
    const callee = this.parseValue();
    const args: IrTypedValue[] = [];
    this.expect('(');
    while (!this.is(')')) {
      const argType = this.parseType();
      this.skipAttributes();
      if (argType.kind === 'metadata' && isTypeStart(this.peek())) {
        // `metadata ptr %x` (llvm.dbg.declare before LLVM 19): a value wrapped as metadata.
        const wrapped = this.parseTypedValue();
        args.push({ type: argType, value: { kind: 'opaque', what: 'metadata', wrapped } });
      } else args.push({ type: argType, value: this.parseValue() });
      if (!this.is(')')) this.expect(',');
    }
    this.expect(')');
    type = resultType;
    return { op: 'call', result, resultType: type, callee, args };
  }
}

/**
 * Parses textual LLVM IR as clang 14 to 21 writes it (typed pointers and opaque `ptr`, debug
 * records, metadata), keeping what a points-to analysis needs.
 *
 * @throws {@link LlvmParseError} naming file, line and column.
 * @example
 * ```ts
 * const module = parseLlvmModule(readFileSync('a.ll', 'utf8'), 'a.ll');
 * module.functions.map((f) => f.name); // ['@main', …]
 * ```
 */
export function parseLlvmModule(text: string, file = '<input>'): IrModule {
  const tokens = tokenize(text, file);
  const module = new Parser(tokens, file).parseModule(text.length);
  const globals = globalsTurnedIntoIntegers(tokens);
  return globals.length === 0
    ? module
    : { ...module, integerAddresses: globals.map((name) => ({ kind: 'global', name })) };
}

function linkageOf(word: string): IrLinkage | undefined {
  if (word === 'internal' || word === 'private') return 'local';
  if (/^(linkonce|linkonce_odr|weak|weak_odr|common|available_externally|extern_weak)$/.test(word))
    return 'discardable';
  return undefined;
}
