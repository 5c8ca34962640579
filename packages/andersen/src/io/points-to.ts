/**
 * The `gpumorph-points-to 1` format: a points-to solution with variables grouped by equal sets (as
 * the Hardekopf solution files do) and runs of consecutive ids written as ranges `a-b`, which keeps
 * files of millions of variables small. FORMATS.md describes it.
 * @module
 */
import { type ParseOptions, plainBytesSync, type TextInput, UNNAMED_INPUT } from './input';
import { checkNodeCount } from './limits';
import { ByteScanner } from './scanner';
import type { PointsToSource, ReferenceSolution, SolutionClass } from './types';

const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const HASH = 0x23;
const DASH = 0x2d;
const EQUALS = 0x3d;
const GREATER = 0x3e;
const POINTS_TO_MAGIC = 'gpumorph-points-to';

/** Options of {@link parsePointsTo}. */
export interface PointsToParseOptions extends ParseOptions {
  /** When given, the file's node count must equal it (a positioned ConstraintModelError otherwise). */
  readonly nodeCount?: number;
}

/** A growable u32 list reused line after line. */
class U32List {
  data = new Uint32Array(256);
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

function atLineEnd(s: ByteScanner): boolean {
  const b = s.peek();
  return b === -1 || b === NEWLINE || b === RETURN || b === HASH;
}

/**
 * Reads ids and ranges `a-b` separated by blanks into `into`, strictly ascending, until `=>` (when
 * `stopAtArrow`) or the end of the line.
 */
function readIdList(
  s: ByteScanner,
  into: U32List,
  one: string,
  nodeCount: number,
  stopAtArrow: boolean,
): void {
  for (;;) {
    s.skipSpaces();
    if (stopAtArrow && s.peek() === EQUALS) return;
    if (atLineEnd(s)) {
      if (stopAtArrow)
        s.fail(`missing '=>' between the variables and their points-to set (found ${s.describe()})`);
      return;
    }
    const at = s.pos;
    const low = s.readU32(one);
    let high = low;
    if (s.peek() === DASH) {
      s.pos++;
      high = s.readU32(`end of the ${one} range ${low}-…`);
      if (high < low) s.fail(`range ${low}-${high} runs backwards`, at);
    }
    if (high >= nodeCount) {
      s.failRule(`${one} ${high} is not a node: the file says there are ${nodeCount}`, at, undefined, high);
    }
    if (into.length > 0 && low <= (into.data[into.length - 1] as number)) {
      s.fail(
        `${one} ${low} does not come after ${into.data[into.length - 1]}: ids are listed in ascending order, once`,
        at,
      );
    }
    for (let id = low; id <= high; id++) into.push(id);
    const next = s.peek();
    if (next !== SPACE && next !== TAB && !atLineEnd(s) && !(stopAtArrow && next === EQUALS)) {
      s.fail(`unexpected ${s.describe()} after ${one} ${high}`);
    }
  }
}

function skipLineComment(s: ByteScanner): void {
  if (s.peek() === HASH) while (!s.atEnd && s.peek() !== NEWLINE) s.pos++;
}

/**
 * Parses a `gpumorph-points-to 1` file into a {@link ReferenceSolution} (classes in file order).
 *
 * @throws ConstraintParseError for a missing header or node count, a missing `=>`, bad numbers,
 *   ids out of order, a variable listed in two classes.
 * @throws ConstraintModelError (positioned) for ids not below the node count.
 * @example
 * ```ts
 * const solution = parsePointsTo('gpumorph-points-to 1\nnodes 5\n0 2-3 => 1 4\n1 4 =>\n');
 * solution.classes[0].variables; // Uint32Array [0, 2, 3]
 * ```
 */
export function parsePointsTo(input: TextInput, options: PointsToParseOptions = {}): ReferenceSolution {
  const file = options.file ?? UNNAMED_INPUT;
  const s = new ByteScanner(plainBytesSync(input, file), file);
  s.skipBlankAndCommentLines();
  if (s.atEnd)
    s.fail(s.end === 0 ? `empty file: expected '${POINTS_TO_MAGIC} 1'` : `no '${POINTS_TO_MAGIC} 1' header`);
  const magic = new TextEncoder().encode(POINTS_TO_MAGIC);
  for (let i = 0; i < magic.length; i++) {
    if (s.bytes[s.pos + i] !== magic[i])
      s.fail(`not a points-to file: expected '${POINTS_TO_MAGIC} 1', found ${s.describe()}`);
  }
  s.pos += magic.length;
  s.skipSpaces();
  const versionAt = s.pos;
  const version = s.readU32('format version');
  if (version !== 1)
    s.fail(`unsupported ${POINTS_TO_MAGIC} version ${version} (this reader knows version 1)`, versionAt);
  s.endLine('the format version');
  s.skipBlankAndCommentLines();
  if (s.bytes[s.pos] !== 0x6e || new TextDecoder().decode(s.bytes.subarray(s.pos, s.pos + 6)) !== 'nodes ') {
    s.fail(`expected 'nodes N' after the header, found ${s.describe()}`);
  }
  s.pos += 6;
  s.skipSpaces();
  const countAt = s.pos;
  const nodeCount = s.readU32('node count');
  checkNodeCount(nodeCount, () => s.position(countAt));
  if (options.nodeCount !== undefined && options.nodeCount !== nodeCount) {
    s.failRule(`the solution is for ${nodeCount} nodes but the program has ${options.nodeCount}`, countAt);
  }
  s.endLine('the node count');

  const classOfVariable = new Uint32Array(nodeCount);
  const classes: SolutionClass[] = [];
  const variables = new U32List();
  const pointsTo = new U32List();
  for (;;) {
    s.skipBlankAndCommentLines();
    if (s.atEnd) break;
    const line = s.line;
    const lineStart = s.pos;
    variables.length = 0;
    pointsTo.length = 0;
    readIdList(s, variables, 'variable', nodeCount, true);
    if (variables.length === 0) s.fail('a class needs at least one variable before its =>', lineStart);
    if (s.bytes[s.pos + 1] !== GREATER) s.fail(`expected '=>', found ${s.describe()}`);
    s.pos += 2;
    readIdList(s, pointsTo, 'object', nodeCount, false);
    for (let i = 0; i < variables.length; i++) {
      const v = variables.data[i] as number;
      if (classOfVariable[v] !== 0) {
        s.fail(`variable ${v} is already in the class on line ${classOfVariable[v]}`, lineStart);
      }
      classOfVariable[v] = line;
    }
    skipLineComment(s);
    s.endLine('the points-to set');
    classes.push({
      variables: variables.data.slice(0, variables.length),
      pointsTo: pointsTo.data.slice(0, pointsTo.length),
    });
  }
  return { nodeCount, classes };
}

/** `ids` (ascending) with runs of three or more consecutive ids written `a-b`. */
function idList(ids: ArrayLike<number>): string {
  const parts: string[] = [];
  let i = 0;
  while (i < ids.length) {
    const low = ids[i] as number;
    let j = i;
    while (j + 1 < ids.length && (ids[j + 1] as number) === (ids[j] as number) + 1) j++;
    if (j - i >= 2) {
      parts.push(`${low}-${ids[j]}`);
    } else {
      for (let k = i; k <= j; k++) parts.push(`${ids[k]}`);
    }
    i = j + 1;
  }
  return parts.join(' ');
}

/** Sorted, duplicate-free copy of `set` as a Uint32Array (no copy work beyond one pass when already sorted). */
function normalised(set: ArrayLike<number>): Uint32Array {
  let sorted = true;
  for (let i = 1; i < set.length; i++) {
    if ((set[i] as number) <= (set[i - 1] as number)) {
      sorted = false;
      break;
    }
  }
  const copy = Uint32Array.from(set);
  if (sorted) return copy;
  copy.sort();
  let n = 0;
  for (let i = 0; i < copy.length; i++) if (n === 0 || copy[i] !== copy[n - 1]) copy[n++] = copy[i] as number;
  return copy.slice(0, n);
}

function hashSet(set: Uint32Array): number {
  let h = 0x811c9dc5 ^ set.length;
  for (let i = 0; i < set.length; i++) h = Math.imul(h ^ (set[i] as number), 0x01000193);
  return h >>> 0;
}

function sameSet(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Groups the variables of `source` by equal points-to sets, in order of each class's first
 * variable (sets are sorted and deduplicated; every variable is in exactly one class, the empty set
 * included).
 *
 * @example
 * ```ts
 * groupPointsTo({ nodeCount: 3, pointsTo: (v) => (v === 1 ? [] : [1]) }).classes.length; // 2
 * ```
 */
export function groupPointsTo(source: PointsToSource): ReferenceSolution {
  const classes: { variables: number[]; pointsTo: Uint32Array }[] = [];
  const byHash = new Map<number, number[]>();
  for (let v = 0; v < source.nodeCount; v++) {
    const set = normalised(source.pointsTo(v));
    const h = hashSet(set);
    let candidates = byHash.get(h);
    if (!candidates) {
      candidates = [];
      byHash.set(h, candidates);
    }
    let found = -1;
    for (const c of candidates) {
      if (sameSet((classes[c] as { pointsTo: Uint32Array }).pointsTo, set)) {
        found = c;
        break;
      }
    }
    if (found < 0) {
      found = classes.length;
      candidates.push(found);
      classes.push({ variables: [], pointsTo: set });
    }
    (classes[found] as { variables: number[] }).variables.push(v);
  }
  return {
    nodeCount: source.nodeCount,
    classes: classes.map((c) => ({ variables: Uint32Array.from(c.variables), pointsTo: c.pointsTo })),
  };
}

/** Points-to queries answered from a {@link ReferenceSolution} (see {@link pointsToOfSolution}). */
export interface SolutionLookup extends PointsToSource {
  /** The points-to set of `variable`, ascending when the solution's sets are; empty when it is in no class. */
  pointsTo(variable: number): Uint32Array;
}

/**
 * Answers points-to queries from a {@link ReferenceSolution} (a variable in no class has the empty set).
 *
 * @example
 * ```ts
 * const lookup = pointsToOfSolution(parseHardekopfSolution(text));
 * lookup.pointsTo(42); // Uint32Array of object ids
 * ```
 */
export function pointsToOfSolution(solution: ReferenceSolution): SolutionLookup {
  const empty = new Uint32Array(0);
  const classOf = new Int32Array(solution.nodeCount).fill(-1);
  solution.classes.forEach((c, index) => {
    for (const v of c.variables) if (v < classOf.length) classOf[v] = index;
  });
  return {
    nodeCount: solution.nodeCount,
    pointsTo(variable: number): Uint32Array {
      const index = classOf[variable] ?? -1;
      return index < 0 ? empty : (solution.classes[index] as SolutionClass).pointsTo;
    },
  };
}

/**
 * Writes a points-to solution in the `gpumorph-points-to 1` format: the header, `nodes N`, then one
 * line `variables => objects` per class of variables with equal sets ({@link groupPointsTo}),
 * ascending ids, runs of three or more consecutive ids as `a-b`. Accepts a solver's result or a
 * {@link ReferenceSolution} (whose classes are written as they are).
 *
 * @example
 * ```ts
 * formatPointsTo({ nodeCount: 4, pointsTo: (v) => (v < 3 ? [3] : []) });
 * // "gpumorph-points-to 1\nnodes 4\n0-2 => 3\n3 =>\n"
 * ```
 */
export function formatPointsTo(solution: PointsToSource | ReferenceSolution): string {
  const grouped = 'classes' in solution ? solution : groupPointsTo(solution);
  const lines: string[] = [`${POINTS_TO_MAGIC} 1`, `nodes ${grouped.nodeCount}`];
  for (const { variables, pointsTo } of grouped.classes) {
    const objects = idList(pointsTo);
    lines.push(objects === '' ? `${idList(variables)} =>` : `${idList(variables)} => ${objects}`);
  }
  return `${lines.join('\n')}\n`;
}
