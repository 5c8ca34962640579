/**
 * The `gpumorph-constraints 1` text format: a readable, hand-writable form of a
 * {@link ConstraintProgram} (node declarations with optional names, objects with field counts and
 * the function flag, one constraint per line in C-like syntax). FORMATS.md describes it; a program
 * written with {@link formatConstraintText} reads back identical.
 * @module
 */
import { ConstraintModelError, ConstraintParseError } from '../errors';
import { ConstraintKind, type ConstraintProgram, largestObjectSize } from '../model/program';
import { type ParseOptions, plainTextSync, type TextInput, UNNAMED_INPUT } from './input';
import { checkNodeCount } from './limits';
import { checkConstraintAt, FIELD_DST, FIELD_KIND, FIELD_OFFSET, FIELD_SRC } from './validate';

const TEXT_MAGIC = 'gpumorph-constraints';
const U32_MAX = 0xffff_ffff;

/** Words that start a declaration or an attribute; a node with such a name is written quoted. */
const RESERVED = new Set(['nodes', 'node', 'hardekopf', 'fields', 'function']);
const BARE_NAME = /^[A-Za-z_.$@%][A-Za-z0-9_.$@%:-]*$/;

type Token =
  | { readonly type: 'number'; readonly value: number; readonly column: number }
  | { readonly type: 'word' | 'string'; readonly value: string; readonly column: number }
  | { readonly type: 'punct'; readonly value: string; readonly column: number };

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isNameStart = (c: number) =>
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x61 && c <= 0x7a) ||
  c === 0x5f ||
  c === 0x2e ||
  c === 0x24 ||
  c === 0x40 ||
  c === 0x25;
const isNamePart = (c: number) => isNameStart(c) || isDigit(c) || c === 0x3a || c === 0x2d;

/** Splits one line (without its newline) into tokens; a `#` outside a string starts a comment. */
function tokenize(text: string, start: number, end: number, file: string, line: number): Token[] {
  const tokens: Token[] = [];
  const fail = (at: number, reason: string): never => {
    throw new ConstraintParseError({ file, line, column: at - start + 1 }, reason);
  };
  let p = start;
  while (p < end) {
    const c = text.charCodeAt(p);
    const column = p - start + 1;
    if (c === 0x20 || c === 0x09 || c === 0x0d) {
      p++;
    } else if (c === 0x23) {
      break;
    } else if (isDigit(c)) {
      let q = p;
      let value = 0;
      while (q < end && isDigit(text.charCodeAt(q))) value = value * 10 + (text.charCodeAt(q++) - 0x30);
      if (q < end && isNamePart(text.charCodeAt(q))) {
        let r = q;
        while (r < end && isNamePart(text.charCodeAt(r))) r++;
        fail(
          p,
          `bad number '${text.slice(p, r)}' (a name cannot start with a digit; quote it: "${text.slice(p, r)}")`,
        );
      }
      if (value > U32_MAX) fail(p, `number ${text.slice(p, q)} does not fit in 32 bits`);
      tokens.push({ type: 'number', value, column });
      p = q;
    } else if (isNameStart(c)) {
      let q = p + 1;
      while (q < end && isNamePart(text.charCodeAt(q))) q++;
      tokens.push({ type: 'word', value: text.slice(p, q), column });
      p = q;
    } else if (c === 0x22) {
      let q = p + 1;
      while (q < end && text.charCodeAt(q) !== 0x22) q += text.charCodeAt(q) === 0x5c ? 2 : 1;
      if (q >= end) fail(p, 'unterminated string: a quoted name ends with " on the same line');
      let value: unknown;
      try {
        value = JSON.parse(text.slice(p, q + 1));
      } catch (cause) {
        throw new ConstraintParseError(
          { file, line, column },
          `bad escape in the quoted name ${text.slice(p, q + 1)} (names use JSON string escapes)`,
          { cause },
        );
      }
      tokens.push({ type: 'string', value: value as string, column });
      p = q + 1;
    } else if (c === 0x3d || c === 0x26 || c === 0x2a || c === 0x28 || c === 0x29 || c === 0x2b) {
      tokens.push({ type: 'punct', value: text[p] as string, column });
      p++;
    } else {
      fail(p, `unexpected character '${String.fromCodePoint(text.codePointAt(p) as number)}'`);
    }
  }
  return tokens;
}

/** Cursor over one line's tokens with positioned errors. */
class LineReader {
  index = 0;
  constructor(
    readonly tokens: Token[],
    readonly file: string,
    readonly line: number,
    readonly lineLength: number,
  ) {}

  peek(): Token | undefined {
    return this.tokens[this.index];
  }

  /** Column of the current token, or just past the end of the line. */
  column(): number {
    return this.peek()?.column ?? this.lineLength + 1;
  }

  fail(reason: string, column: number = this.column()): never {
    throw new ConstraintParseError({ file: this.file, line: this.line, column }, reason);
  }

  found(): string {
    const t = this.peek();
    if (!t) return 'end of line';
    return t.type === 'string' ? JSON.stringify(t.value) : `'${t.value}'`;
  }

  isPunct(value: string): boolean {
    const t = this.peek();
    return t?.type === 'punct' && t.value === value;
  }

  punct(value: string, why: string): void {
    if (!this.isPunct(value)) this.fail(`expected '${value}' ${why}, found ${this.found()}`);
    this.index++;
  }

  number(what: string): number {
    const t = this.peek();
    if (t?.type !== 'number') this.fail(`expected ${what} (a non-negative integer), found ${this.found()}`);
    this.index++;
    return t.value;
  }

  end(after: string): void {
    if (this.peek()) this.fail(`unexpected ${this.found()} after ${after}`);
  }
}

/**
 * Parses the `gpumorph-constraints 1` text format (FORMATS.md) into a {@link ConstraintProgram}.
 * Names are resolved as they are read, so a node is declared before a constraint names it; node
 * declarations come before the first constraint. The result has `names` (one entry per node) only
 * when some node is named.
 *
 * @throws ConstraintParseError with file:line:column for syntax errors, unknown or ambiguous names,
 *   a missing header or `nodes` line.
 * @throws ConstraintModelError (positioned) for rule breaks: ids out of range, the address of a
 *   non-object, an offset past every object, an object running past the last node.
 * @example
 * ```ts
 * const program = parseConstraintText(`gpumorph-constraints 1
 * nodes 4
 * node 0 s fields 2
 * node 2 p
 * node 3 q
 * p = &s
 * q = p + 1
 * *q = p
 * `);
 * program.constraints.length; // 3
 * ```
 */
export function parseConstraintText(input: TextInput, options: ParseOptions = {}): ConstraintProgram {
  const file = options.file ?? UNNAMED_INPUT;
  const text = plainTextSync(input, file);
  let nodeCount = -1;
  let objectSize = new Uint32Array(0);
  let isFunction = new Uint8Array(0);
  let names: (string | undefined)[] | undefined;
  let declaredOnLine = new Uint32Array(0);
  /** Name → node id, or -1 when two nodes share the name (then it cannot be used as a reference). */
  const byName = new Map<string, number>();
  let hardekopf: { lastObject: number; lastFunction: number } | undefined;
  let headerSeen = false;
  let largest = -1;
  let kind = new Uint8Array(64);
  let dst = new Uint32Array(64);
  let src = new Uint32Array(64);
  let offset = new Uint32Array(64);
  let count = 0;
  const columns = new Uint32Array(4);

  const view = (): ConstraintProgram => ({
    nodeCount,
    objectSize,
    isFunction,
    constraints: { length: count, kind, dst, src, offset },
    names,
  });

  const reference = (r: LineReader, role: string): number => {
    const t = r.peek();
    if (!t || t.type === 'punct') r.fail(`expected the ${role} node (a name or an id), found ${r.found()}`);
    r.index++;
    if (t.type === 'number') {
      if (t.value >= nodeCount) {
        throw new ConstraintModelError(
          `${role} node ${t.value} is not a node (there are ${nodeCount})`,
          count,
          t.value,
          { file, line: r.line, column: t.column },
        );
      }
      return t.value;
    }
    if (t.type === 'word' && RESERVED.has(t.value)) {
      r.fail(`'${t.value}' is a keyword; write a node named so as "${t.value}"`, t.column);
    }
    const id = byName.get(t.value);
    if (id === undefined)
      r.fail(`unknown node name ${JSON.stringify(t.value)} (declare it with a node line first)`, t.column);
    if (id < 0) {
      r.fail(
        `the name ${JSON.stringify(t.value)} belongs to several nodes; refer to the node by its id`,
        t.column,
      );
    }
    return id;
  };

  const declareNodes = (r: LineReader) => {
    if (nodeCount >= 0) r.fail("a second 'nodes' line: the node count is given once", 1);
    r.index++;
    const at = r.column();
    const n = r.number('the node count');
    checkNodeCount(n, () => ({ file: r.file, line: r.line, column: at }));
    r.end('the node count');
    nodeCount = n;
    objectSize = new Uint32Array(n);
    isFunction = new Uint8Array(n);
    declaredOnLine = new Uint32Array(n);
  };

  const declareNode = (r: LineReader) => {
    if (count > 0) r.fail('node declarations come before the first constraint', 1);
    r.index++;
    const idColumn = r.column();
    const id = r.number('the node id');
    if (id >= nodeCount) {
      throw new ConstraintModelError(`node ${id} is not a node (there are ${nodeCount})`, undefined, id, {
        file,
        line: r.line,
        column: idColumn,
      });
    }
    if (declaredOnLine[id] !== 0)
      r.fail(`node ${id} is declared twice (first on line ${declaredOnLine[id]})`, idColumn);
    declaredOnLine[id] = r.line;
    const nameToken = r.peek();
    if (
      nameToken &&
      (nameToken.type === 'string' || (nameToken.type === 'word' && !RESERVED.has(nameToken.value)))
    ) {
      r.index++;
      names ??= new Array<string | undefined>(nodeCount).fill(undefined);
      names[id] = nameToken.value;
      byName.set(nameToken.value, byName.has(nameToken.value) ? -1 : id);
    }
    let sawFields = false;
    let sawFunction = false;
    for (let t = r.peek(); t; t = r.peek()) {
      if (t.type === 'word' && t.value === 'fields' && !sawFields) {
        r.index++;
        sawFields = true;
        const at = r.column();
        const fields = r.number('the number of fields');
        if (fields < 1) r.fail('an object has at least 1 field; leave out `fields` for a plain variable', at);
        if (id + fields > nodeCount) {
          throw new ConstraintModelError(
            `object ${id} has ${fields} fields, running past the last node ${nodeCount - 1}`,
            undefined,
            id,
            { file, line: r.line, column: at },
          );
        }
        objectSize[id] = fields;
      } else if (t.type === 'word' && t.value === 'function' && !sawFunction) {
        r.index++;
        sawFunction = true;
        isFunction[id] = 1;
      } else {
        r.fail(`unexpected ${r.found()} in the declaration of node ${id}: expected 'fields N' or 'function'`);
      }
    }
  };

  const declareHardekopf = (r: LineReader) => {
    if (hardekopf) r.fail("a second 'hardekopf' line", 1);
    if (count > 0) r.fail('the hardekopf line comes before the first constraint', 1);
    r.index++;
    const lastObject = r.number('the last object id');
    const lastFunction = r.number('the last function id');
    r.end('the last function id');
    hardekopf = { lastObject, lastFunction };
  };

  const addConstraint = (r: LineReader) => {
    let k: ConstraintKind;
    let d: number;
    let s: number;
    let off = 0;
    columns[FIELD_KIND] = r.column();
    const optionalOffset = (open: boolean): number => {
      if (!open) return 0;
      r.punct('+', 'before the offset');
      columns[FIELD_OFFSET] = r.column();
      const value = r.number('the offset');
      r.punct(')', 'closing *(… + offset)');
      return value;
    };
    if (r.isPunct('*')) {
      r.index++;
      k = ConstraintKind.Store;
      const open = r.isPunct('(');
      if (open) r.index++;
      columns[FIELD_DST] = r.column();
      columns[FIELD_OFFSET] = columns[FIELD_DST] as number;
      d = reference(r, 'destination');
      off = optionalOffset(open);
      r.punct('=', 'after the store target *p');
      columns[FIELD_SRC] = r.column();
      s = reference(r, 'source');
      r.end('the stored value');
    } else {
      columns[FIELD_DST] = r.column();
      d = reference(r, 'destination');
      r.punct('=', 'after the destination');
      if (r.isPunct('&')) {
        r.index++;
        k = ConstraintKind.AddressOf;
        columns[FIELD_SRC] = r.column();
        columns[FIELD_OFFSET] = columns[FIELD_SRC] as number;
        s = reference(r, 'source');
      } else if (r.isPunct('*')) {
        r.index++;
        k = ConstraintKind.Load;
        const open = r.isPunct('(');
        if (open) r.index++;
        columns[FIELD_SRC] = r.column();
        columns[FIELD_OFFSET] = columns[FIELD_SRC] as number;
        s = reference(r, 'source');
        off = optionalOffset(open);
      } else {
        columns[FIELD_SRC] = r.column();
        columns[FIELD_OFFSET] = columns[FIELD_SRC] as number;
        s = reference(r, 'source');
        k = ConstraintKind.Copy;
        if (r.isPunct('+')) {
          r.index++;
          k = ConstraintKind.Offset;
          columns[FIELD_OFFSET] = r.column();
          off = r.number('the offset');
        }
      }
      r.end('the constraint');
    }
    if (count === kind.length) {
      const grow = <T extends Uint8Array | Uint32Array>(a: T, b: T): T => {
        b.set(a);
        return b;
      };
      kind = grow(kind, new Uint8Array(count * 2));
      dst = grow(dst, new Uint32Array(count * 2));
      src = grow(src, new Uint32Array(count * 2));
      offset = grow(offset, new Uint32Array(count * 2));
    }
    kind[count] = k;
    dst[count] = d;
    src[count] = s;
    offset[count] = off;
    count++;
    if (largest < 0) largest = largestObjectSize({ objectSize });
    checkConstraintAt(view(), count - 1, largest, (field) => ({
      file,
      line: r.line,
      column: columns[field] as number,
    }));
  };

  let line = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const tokens = tokenize(text, start, end, file, line);
    const r = new LineReader(tokens, file, line, end - start);
    const first = tokens[0];
    if (first) {
      if (!headerSeen) {
        if (first.type !== 'word' || first.value !== TEXT_MAGIC) {
          r.fail(`not a ${TEXT_MAGIC} file: the first line must be '${TEXT_MAGIC} 1', found ${r.found()}`);
        }
        r.index++;
        const at = r.column();
        const version = r.number('the format version');
        if (version !== 1)
          r.fail(`unsupported ${TEXT_MAGIC} version ${version} (this reader knows version 1)`, at);
        r.end('the format version');
        headerSeen = true;
      } else if (first.type === 'word' && first.value === 'nodes') {
        declareNodes(r);
      } else if (nodeCount < 0) {
        r.fail("expected 'nodes N' before any declaration or constraint", first.column);
      } else if (first.type === 'word' && first.value === 'node') {
        declareNode(r);
      } else if (first.type === 'word' && first.value === 'hardekopf') {
        declareHardekopf(r);
      } else {
        addConstraint(r);
      }
    }
    start = end + 1;
  }
  if (!headerSeen) {
    throw new ConstraintParseError(
      { file, line: 1, column: 1 },
      text.length === 0
        ? `empty file: expected '${TEXT_MAGIC} 1'`
        : `no '${TEXT_MAGIC} 1' header, only comments`,
    );
  }
  if (nodeCount < 0) {
    throw new ConstraintParseError({ file, line, column: 1 }, "the 'nodes N' line is missing");
  }
  return {
    nodeCount,
    objectSize,
    isFunction,
    constraints: {
      length: count,
      kind: kind.slice(0, count),
      dst: dst.slice(0, count),
      src: src.slice(0, count),
      offset: offset.slice(0, count),
    },
    names,
    ...(hardekopf ? { hardekopf } : {}),
  };
}

/** A name as the text format writes it: bare when it is a plain identifier, else a JSON string. */
function nameToken(name: string): string {
  return BARE_NAME.test(name) && !RESERVED.has(name) ? name : JSON.stringify(name);
}

/**
 * Writes `program` in the `gpumorph-constraints 1` text format (FORMATS.md): a `node` line for
 * every node that has a name, fields or the function flag, then one constraint per line, naming a
 * node by its name when the name is unique and by its id otherwise. Reads back identical with
 * {@link parseConstraintText}.
 *
 * @example
 * ```ts
 * const b = createConstraintBuilder();
 * const x = b.object('x');
 * b.addressOf(b.variable('p'), x);
 * formatConstraintText(b.build());
 * // "gpumorph-constraints 1\nnodes 2\nnode 0 x fields 1\nnode 1 p\np = &x\n"
 * ```
 */
export function formatConstraintText(program: ConstraintProgram): string {
  const { nodeCount, objectSize, isFunction, names } = program;
  const lines: string[] = [`${TEXT_MAGIC} 1`, `nodes ${nodeCount}`];
  if (program.hardekopf)
    lines.push(`hardekopf ${program.hardekopf.lastObject} ${program.hardekopf.lastFunction}`);
  const uses = new Map<string, number>();
  for (const name of names ?? []) if (name !== undefined) uses.set(name, (uses.get(name) ?? 0) + 1);
  const ref: string[] = new Array(nodeCount);
  for (let id = 0; id < nodeCount; id++) {
    const name = names?.[id];
    ref[id] = name !== undefined && uses.get(name) === 1 ? nameToken(name) : `${id}`;
    const size = objectSize[id] as number;
    const fn = (isFunction[id] as number) !== 0;
    if (name === undefined && size === 0 && !fn) continue;
    let line = `node ${id}`;
    if (name !== undefined) line += ` ${nameToken(name)}`;
    if (size > 0) line += ` fields ${size}`;
    if (fn) line += ' function';
    lines.push(line);
  }
  const c = program.constraints;
  for (let i = 0; i < c.length; i++) {
    const d = ref[c.dst[i] as number] ?? `${c.dst[i]}`;
    const s = ref[c.src[i] as number] ?? `${c.src[i]}`;
    const k = c.offset[i] as number;
    switch (c.kind[i] as ConstraintKind) {
      case ConstraintKind.AddressOf:
        lines.push(`${d} = &${s}`);
        break;
      case ConstraintKind.Copy:
        lines.push(`${d} = ${s}`);
        break;
      case ConstraintKind.Load:
        lines.push(k === 0 ? `${d} = *${s}` : `${d} = *(${s} + ${k})`);
        break;
      case ConstraintKind.Store:
        lines.push(k === 0 ? `*${d} = ${s}` : `*(${d} + ${k}) = ${s}`);
        break;
      case ConstraintKind.Offset:
        lines.push(`${d} = ${s} + ${k}`);
        break;
    }
  }
  return `${lines.join('\n')}\n`;
}
