/**
 * Readers and writers of the Hardekopf & Lin constraint files (the PPoPP'12 benchmark suite):
 * `_nodes.txt`, `_constraints.txt` / `_constraints_after_hcd.txt`, `_hcd.txt` and
 * `_correct_soln_001.txt`, plain or gzip-compressed. The parsers are pure functions of the bytes
 * (usable in a browser once the bytes are decompressed) and scan the bytes once without allocating
 * per line: linux's 920k node lines and 400k constraint lines parse in a fraction of a second.
 * @module
 */
import { ConstraintParseError } from '../errors';
import { type ConstraintProgram, countByKind, largestObjectSize } from '../model/program';
import { type ParseOptions, plainBytesSync, type TextInput, UNNAMED_INPUT } from './input';
import { checkNodeCount } from './limits';
import { ByteScanner } from './scanner';
import type { HcdTable, ReferenceSolution, SolutionClass } from './types';
import { checkConstraintAt, FIELD_DST, FIELD_KIND, FIELD_OFFSET, FIELD_SRC } from './validate';

const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const EQUALS = 0x3d;
const GREATER = 0x3e;

/** The kinds in the words of the counts line's comment, for messages. */
const KIND_WORDS = ['address-of', 'copy', 'load', 'store', 'gep (offset)'] as const;

/** `bigger` holding `array`'s values. */
function grow<T extends Uint8Array | Uint32Array>(array: T, bigger: T): T {
  bigger.set(array);
  return bigger;
}

function scannerFor(input: TextInput, options: ParseOptions): ByteScanner {
  const file = options.file ?? UNNAMED_INPUT;
  return new ByteScanner(plainBytesSync(input, file), file);
}

function failIfEmpty(s: ByteScanner, expected: string): void {
  s.skipBlankAndCommentLines();
  if (s.atEnd) {
    s.fail(
      s.end === 0 ? `empty file: expected ${expected}` : `no content, only comments: expected ${expected}`,
    );
  }
}

/**
 * Parses a Hardekopf `_nodes.txt` file (line 1 the node count N, line 2 the last object id, line 3
 * the last function id, then `id,objSize,isFunction` for each of the N nodes, in any order) into a
 * {@link ConstraintProgram} without constraints, keeping the header in `hardekopf`.
 * Gzip-compressed bytes are detected by their magic bytes and decompressed (synchronously in Node;
 * in a browser `await decompress(bytes)` first).
 *
 * @throws ConstraintParseError for malformed lines, a node listed twice or missing.
 * @throws ConstraintModelError (positioned) for an id ≥ N or an object whose fields run past the last node.
 * @example
 * ```ts
 * const nodes = parseHardekopfNodes('3\n0\n0\n0,2,0\n1,1,0\n2,0,0\n', { file: 'tiny_nodes.txt' });
 * nodes.objectSize; // Uint32Array [2, 1, 0]
 * nodes.hardekopf;  // { lastObject: 0, lastFunction: 0 }
 * ```
 */
export function parseHardekopfNodes(input: TextInput, options: ParseOptions = {}): ConstraintProgram {
  const s = scannerFor(input, options);
  failIfEmpty(s, 'the node count on the first line');
  const countAt = s.pos;
  const nodeCount = s.readU32('node count');
  checkNodeCount(nodeCount, () => s.position(countAt));
  s.endLine('the node count');
  s.skipBlankAndCommentLines();
  const lastObject = s.readU32('last object id (line 2)');
  s.endLine('the last object id');
  s.skipBlankAndCommentLines();
  const lastFunction = s.readU32('last function id (line 3)');
  s.endLine('the last function id');

  const objectSize = new Uint32Array(nodeCount);
  const isFunction = new Uint8Array(nodeCount);
  // Line of each node's entry (0 = not seen yet), for the "listed twice" message.
  const seenOnLine = new Uint32Array(nodeCount);
  let listed = 0;
  for (;;) {
    s.skipBlankAndCommentLines();
    if (s.atEnd) break;
    const idAt = s.pos;
    const id = s.readU32('node id');
    if (id >= nodeCount) {
      s.failRule(`node id ${id} is not a node: line 1 says there are ${nodeCount}`, idAt, undefined, id);
    }
    if (seenOnLine[id] !== 0) s.fail(`node ${id} is listed twice (first on line ${seenOnLine[id]})`, idAt);
    seenOnLine[id] = s.line;
    s.expect(COMMA, 'between the node id and the object size');
    const sizeAt = s.pos;
    const size = s.readU32('object size');
    s.expect(COMMA, 'between the object size and the function flag');
    const flagAt = s.pos;
    const flag = s.readU32('function flag');
    if (flag > 1) s.fail(`function flag ${flag} is neither 0 nor 1`, flagAt);
    if (size > 0 && id + size > nodeCount) {
      s.failRule(
        `object ${id} has ${size} fields, running past the last node ${nodeCount - 1}`,
        sizeAt,
        undefined,
        id,
      );
    }
    s.endLine('the function flag');
    objectSize[id] = size;
    isFunction[id] = flag;
    listed++;
  }
  if (listed !== nodeCount) {
    const missing = seenOnLine.indexOf(0);
    s.fail(`the file lists ${listed} nodes but line 1 says ${nodeCount}: node ${missing} is missing`);
  }
  return {
    nodeCount,
    objectSize,
    isFunction,
    constraints: {
      length: 0,
      kind: new Uint8Array(0),
      dst: new Uint32Array(0),
      src: new Uint32Array(0),
      offset: new Uint32Array(0),
    },
    hardekopf: { lastObject, lastFunction },
  };
}

/** The node part of a program that constraints are read against. */
export type HardekopfNodeTable = Pick<
  ConstraintProgram,
  'nodeCount' | 'objectSize' | 'isFunction' | 'names' | 'hardekopf'
>;

/** Options of {@link parseHardekopfConstraints}. */
export interface HardekopfConstraintOptions extends ParseOptions {
  /**
   * What to do with `dst = &src` where `src` is not an object (`objectSize` 0), which the model
   * forbids. `error` (default): throw a positioned ConstraintModelError. `make-object`: read `src`
   * as a one-field object (`objectSize[src] = 1` in the returned program; the nodes passed in are
   * not modified), which is what the Hardekopf solver does with such a node: loads and stores at
   * offset 0 through a pointer to it apply. The linux benchmark has 63 such constraints
   * (`x = &y` with y = x + 1 and y's size 0), the other benchmarks none.
   */
  readonly nonObjectAddress?: 'error' | 'make-object';
}

/**
 * Parses a Hardekopf constraints file (raw `_constraints.txt` or `_constraints_after_hcd.txt`):
 * `#` comment lines, the counts line `nAddr,nCopy,nLoad,nStore,nGep`, then `id,src,dst,type,offset`
 * per constraint. Returns `nodes` with the constraints in file order (the id column is not kept).
 * Each constraint is checked against the model's rules as it is read.
 *
 * @throws ConstraintParseError for malformed lines, an unknown type, or a counts line that
 *   disagrees with the constraints that follow (positioned at the disagreeing count).
 * @throws ConstraintModelError (positioned at the token at fault) for ids out of range, the
 *   address of a non-object, an offset past every object.
 * @example
 * ```ts
 * const nodes = parseHardekopfNodes(nodesBytes, { file: 'ex_nodes.txt.gz' });
 * const program = parseHardekopfConstraints(constraintBytes, nodes, { file: 'ex_constraints_after_hcd.txt.gz' });
 * program.constraints.length; // 8681
 * ```
 */
export function parseHardekopfConstraints(
  input: TextInput,
  nodes: HardekopfNodeTable,
  options: HardekopfConstraintOptions = {},
): ConstraintProgram {
  const s = scannerFor(input, options);
  const { file } = s;
  failIfEmpty(s, 'the counts line nAddr,nCopy,nLoad,nStore,nGep');
  const countsLine = s.line;
  const countColumns = [0, 0, 0, 0, 0];
  const declared = [0, 0, 0, 0, 0];
  for (let k = 0; k < 5; k++) {
    if (k > 0)
      s.expect(COMMA, `between the counts of the counts line (it has five: nAddr,nCopy,nLoad,nStore,nGep)`);
    countColumns[k] = s.column();
    declared[k] = s.readU32(`number of ${KIND_WORDS[k]} constraints (counts line)`);
  }
  s.endLine('the five counts of the counts line');

  const expected = declared.reduce((a, b) => a + b, 0);
  // Each constraint line takes at least 10 bytes, which bounds the first allocation if the counts lie.
  let capacity = Math.max(16, Math.min(expected, Math.ceil(s.end / 10) + 16));
  let kind = new Uint8Array(capacity);
  let dst = new Uint32Array(capacity);
  let src = new Uint32Array(capacity);
  let offset = new Uint32Array(capacity);
  let count = 0;
  const { nodeCount, isFunction } = nodes;
  let { objectSize } = nodes;
  const makeObjects = options.nonObjectAddress === 'make-object';
  const hint = makeObjects
    ? ''
    : "; read it with { nonObjectAddress: 'make-object' } to make it a one-field object";
  const largest = largestObjectSize(nodes);
  const columns = new Uint32Array(4);
  let line = 0;
  const locate = (field: number) => ({ file, line, column: columns[field] as number });
  const program = (): ConstraintProgram => ({
    nodeCount,
    objectSize,
    isFunction,
    constraints: { length: count, kind, dst, src, offset },
    names: nodes.names,
    hardekopf: nodes.hardekopf,
  });
  let view = program();

  for (;;) {
    s.skipBlankAndCommentLines();
    if (s.atEnd) break;
    line = s.line;
    s.readU32('constraint id');
    s.expect(COMMA, 'after the constraint id');
    columns[FIELD_SRC] = s.column();
    const from = s.readU32('source node');
    s.expect(COMMA, 'after the source node');
    columns[FIELD_DST] = s.column();
    const to = s.readU32('destination node');
    s.expect(COMMA, 'after the destination node');
    const typeAt = s.pos;
    columns[FIELD_KIND] = s.column();
    const type = s.readU32('constraint type');
    if (type > 4) {
      s.fail(`unknown constraint type ${type}: 0 addr, 1 copy, 2 load, 3 store, 4 offset (gep)`, typeAt);
    }
    s.expect(COMMA, 'after the constraint type');
    columns[FIELD_OFFSET] = s.column();
    const off = s.readU32('offset');
    s.endLine('the offset (a constraint line has five fields: id,src,dst,type,offset)');
    if (count === capacity) {
      capacity *= 2;
      kind = grow(kind, new Uint8Array(capacity));
      dst = grow(dst, new Uint32Array(capacity));
      src = grow(src, new Uint32Array(capacity));
      offset = grow(offset, new Uint32Array(capacity));
      view = program();
    }
    kind[count] = type;
    dst[count] = to;
    src[count] = from;
    offset[count] = off;
    count++;
    if (makeObjects && type === 0 && from < nodeCount && objectSize[from] === 0) {
      // Copy before the first change: the caller's node table stays as it was.
      if (objectSize === nodes.objectSize) objectSize = objectSize.slice();
      objectSize[from] = 1;
      view = program();
    }
    checkConstraintAt(view, count - 1, largest, locate, hint);
  }

  const result: ConstraintProgram = {
    ...program(),
    constraints: {
      length: count,
      kind: kind.slice(0, count),
      dst: dst.slice(0, count),
      src: src.slice(0, count),
      offset: offset.slice(0, count),
    },
  };
  const found = countByKind(result.constraints);
  for (let k = 0; k < 5; k++) {
    if (found[k] !== declared[k]) {
      throw new ConstraintParseError(
        { file, line: countsLine, column: countColumns[k] as number },
        `the counts line says ${declared[k]} ${KIND_WORDS[k]} constraints but the file has ${found[k]}`,
      );
    }
  }
  return result;
}

/** Options of {@link parseHardekopfHcd} and {@link parseHardekopfSolution}. */
export interface HardekopfTableOptions extends ParseOptions {
  /** When given, every node id must be below it (a positioned ConstraintModelError otherwise). */
  readonly nodeCount?: number;
}

/** Reads `y,x` lines until a `#` line or the end; returns how many pairs were read into `out`. */
function readPairs(
  s: ByteScanner,
  out: { pairs: Uint32Array; length: number },
  nodeCount: number | undefined,
  section: string,
): void {
  for (;;) {
    // Blank lines are skipped; a comment line ends the section.
    s.skipBlankLines();
    if (s.atEnd || s.atCommentLine()) return;
    const yAt = s.pos;
    const y = s.readU32(`y of a ${section} pair y,x`);
    s.expect(COMMA, `between y and x of a ${section} pair`);
    const xAt = s.pos;
    const x = s.readU32(`x of a ${section} pair y,x`);
    if (nodeCount !== undefined) {
      if (y >= nodeCount)
        s.failRule(`${section} pair names node ${y}, but there are ${nodeCount} nodes`, yAt, undefined, y);
      if (x >= nodeCount)
        s.failRule(`${section} pair names node ${x}, but there are ${nodeCount} nodes`, xAt, undefined, x);
    }
    s.endLine(`the ${section} pair y,x`);
    if (out.length + 2 > out.pairs.length) {
      const grown = new Uint32Array(Math.max(16, out.pairs.length * 2));
      grown.set(out.pairs);
      out.pairs = grown;
    }
    out.pairs[out.length++] = y;
    out.pairs[out.length++] = x;
  }
}

/**
 * Parses a Hardekopf `_hcd.txt` file. Section 1 (after optional `#` lines): the number of offline
 * merges, then that many `y,x` lines (rep(y) = x). Section 2, after a `#` header: a line
 * `distinctY,pairs`, then `y,x` lines (every node x points to is pointer-equivalent to y).
 *
 * @throws ConstraintParseError for malformed lines, a missing second section, counts that disagree
 *   with the pairs that follow.
 * @example
 * ```ts
 * const hcd = parseHardekopfHcd('# merges\n1\n7,3\n# online\n1,2\n9,4\n9,5\n', { file: 'x_hcd.txt' });
 * hcd.online; // Uint32Array [9, 4, 9, 5]
 * ```
 */
export function parseHardekopfHcd(input: TextInput, options: HardekopfTableOptions = {}): HcdTable {
  const s = scannerFor(input, options);
  const { nodeCount } = options;
  failIfEmpty(s, 'the number of offline merges');
  const mergesLine = s.line;
  const mergesColumn = s.column();
  const merges = s.readU32('number of offline merges');
  s.endLine('the number of offline merges');
  const offline = { pairs: new Uint32Array(Math.min(2 * merges, s.end) + 2), length: 0 };
  readPairs(s, offline, nodeCount, 'offline merge');
  if (offline.length / 2 !== merges) {
    throw new ConstraintParseError(
      { file: s.file, line: mergesLine, column: mergesColumn },
      `the first section says ${merges} offline merges but has ${offline.length / 2}`,
    );
  }
  if (s.atEnd) {
    s.fail(
      "the online HCD section is missing: expected a '#' header line, then 'distinctY,pairs', then y,x lines",
    );
  }
  s.skipBlankAndCommentLines();
  if (s.atEnd) s.fail("the online HCD section is missing its first line 'distinctY,pairs'");
  const headerLine = s.line;
  const distinctColumn = s.column();
  const distinct = s.readU32('number of distinct y (online section)');
  s.expect(COMMA, 'between the number of distinct y and the number of pairs');
  const pairsColumn = s.column();
  const pairs = s.readU32('number of pairs (online section)');
  s.endLine('distinctY,pairs');
  const online = { pairs: new Uint32Array(Math.min(2 * pairs, s.end) + 2), length: 0 };
  for (;;) {
    readPairs(s, online, nodeCount, 'online HCD');
    s.skipBlankAndCommentLines();
    if (s.atEnd) break;
  }
  const onlinePairs = online.pairs.slice(0, online.length);
  if (online.length / 2 !== pairs) {
    throw new ConstraintParseError(
      { file: s.file, line: headerLine, column: pairsColumn },
      `the online section says ${pairs} pairs but has ${online.length / 2}`,
    );
  }
  const ys = new Set<number>();
  for (let i = 0; i < onlinePairs.length; i += 2) ys.add(onlinePairs[i] as number);
  if (ys.size !== distinct) {
    throw new ConstraintParseError(
      { file: s.file, line: headerLine, column: distinctColumn },
      `the online section says ${distinct} distinct y but its pairs have ${ys.size}`,
    );
  }
  return { offlineMerges: offline.pairs.slice(0, offline.length), online: onlinePairs };
}

/** A growable u32 list reused while reading many lists. */
class U32Stack {
  data = new Uint32Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
}

/** Reads `[a, b, c]` into `into` (ids checked against `nodeCount`). */
function readBracketList(s: ByteScanner, into: U32Stack, what: string, one: string, nodeCount: number): void {
  s.skipSpaces();
  s.expect(OPEN, `opening the list of ${what}`);
  s.skipSpaces();
  if (s.peek() === CLOSE) {
    s.pos++;
    return;
  }
  for (;;) {
    s.skipSpaces();
    const at = s.pos;
    const id = s.readU32(one);
    if (id >= nodeCount) {
      s.failRule(`${one} ${id} is not a node: line 1 says there are ${nodeCount}`, at, undefined, id);
    }
    into.push(id);
    s.skipSpaces();
    if (s.peek() === CLOSE) {
      s.pos++;
      return;
    }
    s.expect(COMMA, `or ']' in the list of ${what}`);
  }
}

/**
 * Parses a Hardekopf `_correct_soln_001.txt` file: line 1 the node count N, then one line
 * `[v1, v2, ...] => [o1, o2, ...]` per class of variables with equal points-to sets.
 *
 * @throws ConstraintParseError for malformed lines (a missing `=>`, a bad number), a variable in two classes.
 * @throws ConstraintModelError (positioned) for ids ≥ N, or N different from `options.nodeCount`.
 * @example
 * ```ts
 * const solution = parseHardekopfSolution('3\n[0, 2] => [1]\n[1] => []\n');
 * solution.classes.length; // 2
 * ```
 */
export function parseHardekopfSolution(
  input: TextInput,
  options: HardekopfTableOptions = {},
): ReferenceSolution {
  const s = scannerFor(input, options);
  failIfEmpty(s, 'the node count on the first line');
  const countAt = s.pos;
  const nodeCount = s.readU32('node count');
  checkNodeCount(nodeCount, () => s.position(countAt));
  if (options.nodeCount !== undefined && nodeCount !== options.nodeCount) {
    s.failRule(`the solution is for ${nodeCount} nodes but the program has ${options.nodeCount}`, countAt);
  }
  s.endLine('the node count');
  const classOfVariable = new Uint32Array(nodeCount);
  const classes: SolutionClass[] = [];
  const variables = new U32Stack();
  const pointsTo = new U32Stack();
  for (;;) {
    s.skipBlankAndCommentLines();
    if (s.atEnd) break;
    variables.length = 0;
    pointsTo.length = 0;
    const line = s.line;
    const lineStart = s.pos;
    readBracketList(s, variables, 'variables', 'variable', nodeCount);
    s.skipSpaces();
    if (s.peek() !== EQUALS || s.bytes[s.pos + 1] !== GREATER) {
      s.fail(`missing '=>' between the variables and their points-to set (found ${s.describe()})`);
    }
    s.pos += 2;
    readBracketList(s, pointsTo, 'objects', 'object', nodeCount);
    for (let i = 0; i < variables.length; i++) {
      const v = variables.data[i] as number;
      const previous = classOfVariable[v] as number;
      if (previous !== 0) {
        s.fail(`variable ${v} is already in the class on line ${previous}`, lineStart);
      }
      classOfVariable[v] = line;
    }
    s.endLine('the points-to set');
    classes.push({
      variables: variables.data.slice(0, variables.length),
      pointsTo: pointsTo.data.slice(0, pointsTo.length),
    });
  }
  return { nodeCount, classes };
}

/** Highest id whose entry of `values` is nonzero, or 0 when none is. */
function lastNonzero(values: ArrayLike<number>): number {
  for (let id = values.length - 1; id >= 0; id--) if ((values[id] as number) !== 0) return id;
  return 0;
}

/**
 * Writes the nodes of `program` as a Hardekopf `_nodes.txt` file. The header comes from
 * `program.hardekopf` when present; otherwise the last object is the highest id with
 * `objectSize > 0` and the last function the highest id with `isFunction` (0 when there is none).
 *
 * @example
 * ```ts
 * formatHardekopfNodes(program); // "3\n0\n0\n0,2,0\n1,1,0\n2,0,0\n"
 * ```
 */
export function formatHardekopfNodes(program: ConstraintProgram): string {
  const lastObject = program.hardekopf?.lastObject ?? lastNonzero(program.objectSize);
  const lastFunction = program.hardekopf?.lastFunction ?? lastNonzero(program.isFunction);
  const lines: string[] = [`${program.nodeCount}`, `${lastObject}`, `${lastFunction}`];
  for (let id = 0; id < program.nodeCount; id++) {
    lines.push(`${id},${program.objectSize[id]},${program.isFunction[id]}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes the constraints of `program` as a Hardekopf constraints file: a comment, the counts line,
 * then `id,src,dst,type,offset` per constraint in program order (id = the constraint's index).
 *
 * @example
 * ```ts
 * formatHardekopfConstraints(program);
 * // "# number of constraints of each type (address-of, copy, load, store, gep)\n1,0,0,0,0\n# format: id, src, dst, type, offset\n0,0,2,0,0\n"
 * ```
 */
export function formatHardekopfConstraints(program: ConstraintProgram): string {
  const c = program.constraints;
  const lines: string[] = [
    '# number of constraints of each type (address-of, copy, load, store, gep)',
    countByKind(c).join(','),
    '# format: id, src, dst, type, offset',
  ];
  for (let i = 0; i < c.length; i++) {
    lines.push(`${i},${c.src[i]},${c.dst[i]},${c.kind[i]},${c.offset[i]}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes an {@link HcdTable} as a Hardekopf `_hcd.txt` file.
 *
 * @example
 * ```ts
 * formatHardekopfHcd({ offlineMerges: Uint32Array.of(7, 3), online: Uint32Array.of(9, 4) });
 * ```
 */
export function formatHardekopfHcd(hcd: HcdTable): string {
  const lines: string[] = ['# first row: number of offline HCD merges. <y,x> means rep(y) = x'];
  lines.push(`${hcd.offlineMerges.length >> 1}`);
  for (let i = 0; i + 1 < hcd.offlineMerges.length; i += 2) {
    lines.push(`${hcd.offlineMerges[i]},${hcd.offlineMerges[i + 1]}`);
  }
  lines.push(
    "# <y,x> means that *x is PTS-equivalent to y. 1st row: number of different 'y', number of pairs",
  );
  const ys = new Set<number>();
  for (let i = 0; i < hcd.online.length; i += 2) ys.add(hcd.online[i] as number);
  lines.push(`${ys.size},${hcd.online.length >> 1}`);
  for (let i = 0; i + 1 < hcd.online.length; i += 2) lines.push(`${hcd.online[i]},${hcd.online[i + 1]}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Writes a {@link ReferenceSolution} as a Hardekopf `_correct_soln_001.txt` file.
 *
 * @example
 * ```ts
 * formatHardekopfSolution({ nodeCount: 3, classes: [{ variables: Uint32Array.of(0, 2), pointsTo: Uint32Array.of(1) }] });
 * // "3\n[0, 2] => [1]\n"
 * ```
 */
export function formatHardekopfSolution(solution: ReferenceSolution): string {
  const lines: string[] = [`${solution.nodeCount}`];
  for (const { variables, pointsTo } of solution.classes) {
    lines.push(`[${variables.join(', ')}] => [${pointsTo.join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}
