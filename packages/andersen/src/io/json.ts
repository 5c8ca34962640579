/**
 * The JSON form of a {@link ConstraintProgram}: `{ "format": "gpumorph-constraints", "version": 1,
 * ... }` (FORMATS.md). Values are checked after `JSON.parse`; an error is positioned by walking the
 * text to the offending value, so messages carry file:line:column as for the other formats.
 * @module
 */
import { ConstraintModelError, ConstraintParseError, type SourcePosition } from '../errors';
import {
  CONSTRAINT_KIND_NAMES,
  type ConstraintKind,
  type ConstraintProgram,
  largestObjectSize,
} from '../model/program';
import { type ParseOptions, plainTextSync, positionInText, type TextInput, UNNAMED_INPUT } from './input';
import { checkNodeCount } from './limits';
import { checkConstraintAt } from './validate';

const JSON_FORMAT = 'gpumorph-constraints';
const U32_MAX = 0xffff_ffff;
const KEYS = new Set([
  'format',
  'version',
  'nodeCount',
  'objects',
  'functions',
  'names',
  'hardekopf',
  'constraints',
]);

type Path = readonly (string | number)[];

/** A JSON syntax error found by {@link skipValue}, at a character offset. */
class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function skipBlank(text: string, p: number): number {
  while (p < text.length) {
    const c = text.charCodeAt(p);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    p++;
  }
  return p;
}

function skipString(text: string, p: number): number {
  // p is at the opening quote.
  let q = p + 1;
  while (q < text.length) {
    const c = text.charCodeAt(q);
    if (c === 0x22) return q + 1;
    if (c === 0x5c) q += 2;
    else if (c < 0x20) throw new JsonSyntaxError(q, 'control character in a string');
    else q++;
  }
  throw new JsonSyntaxError(p, 'unterminated string');
}

/**
 * Offset just past the JSON value at `p` (after blanks). When `path` is given, returns the offset of
 * the value at that path below this one instead (the start of that value).
 */
function skipValue(text: string, start: number, path?: Path): number {
  const p = skipBlank(text, start);
  if (path && path.length === 0) return p;
  const c = text.charCodeAt(p);
  if (c === 0x7b || c === 0x5b) {
    const isObject = c === 0x7b;
    const close = isObject ? 0x7d : 0x5d;
    let q = skipBlank(text, p + 1);
    if (text.charCodeAt(q) === close) {
      if (path) throw new JsonSyntaxError(p, 'path not found');
      return q + 1;
    }
    for (let index = 0; ; index++) {
      let key: string | number = index;
      if (isObject) {
        if (text.charCodeAt(q) !== 0x22) throw new JsonSyntaxError(q, 'expected a quoted key');
        const keyEnd = skipString(text, q);
        key = JSON.parse(text.slice(q, keyEnd)) as string;
        q = skipBlank(text, keyEnd);
        if (text.charCodeAt(q) !== 0x3a) throw new JsonSyntaxError(q, "expected ':' after the key");
        q++;
      }
      if (path && path[0] === key) return skipValue(text, q, path.slice(1));
      q = skipBlank(text, skipValue(text, q));
      const next = text.charCodeAt(q);
      if (next === close) {
        if (path) throw new JsonSyntaxError(p, 'path not found');
        return q + 1;
      }
      if (next !== 0x2c) {
        throw new JsonSyntaxError(q, `expected ',' or '${isObject ? '}' : ']'}'`);
      }
      q = skipBlank(text, q + 1);
    }
  }
  if (path) throw new JsonSyntaxError(p, 'path not found');
  if (c === 0x22) return skipString(text, p);
  const literal = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
    text.slice(p, p + 400),
  );
  if (!literal)
    throw new JsonSyntaxError(
      p,
      p >= text.length ? 'unexpected end of the JSON text' : 'expected a JSON value',
    );
  return p + literal[0].length;
}

/** Offset of the value at `path`, or 0 when it cannot be found. */
function locate(text: string, path: Path): number {
  try {
    return skipValue(text, 0, path);
  } catch {
    return 0;
  }
}

/** Parser state: the text, for positions, and the file name. */
class JsonReader {
  constructor(
    readonly text: string,
    readonly file: string,
  ) {}

  position(path: Path): SourcePosition {
    return positionInText(this.text, locate(this.text, path), this.file);
  }

  fail(path: Path, reason: string): never {
    throw new ConstraintParseError(this.position(path), reason);
  }

  failRule(path: Path, message: string, constraintIndex?: number, node?: number): never {
    throw new ConstraintModelError(message, constraintIndex, node, this.position(path));
  }

  u32(value: unknown, path: Path, what: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > U32_MAX) {
      this.fail(path, `${what} must be an integer in 0 … 2^32 − 1, found ${JSON.stringify(value)}`);
    }
    return value;
  }

  node(value: unknown, path: Path, what: string, nodeCount: number, constraintIndex?: number): number {
    const id = this.u32(value, path, what);
    if (id >= nodeCount)
      this.failRule(path, `${what} ${id} is not a node (there are ${nodeCount})`, constraintIndex, id);
    return id;
  }

  array(value: unknown, path: Path, what: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, `${what} must be an array, found ${describeJson(value)}`);
    return value;
  }
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * `JSON.parse(text)`, with a syntax error reported where it is: `JSON.parse`'s message has no
 * line and column, so the text is scanned again to find the offending offset.
 */
function parseJsonValue(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    let offset = 0;
    let reason = cause instanceof Error ? cause.message : String(cause);
    try {
      const end = skipBlank(text, skipValue(text, 0));
      if (end < text.length) {
        offset = end;
        reason = 'unexpected text after the JSON value';
      }
    } catch (syntax) {
      if (syntax instanceof JsonSyntaxError) {
        offset = syntax.offset;
        reason = syntax.reason;
      }
    }
    throw new ConstraintParseError(positionInText(text, offset, file), `invalid JSON: ${reason}`, { cause });
  }
}

/**
 * Parses the JSON form (FORMATS.md) into a {@link ConstraintProgram}. Unknown keys are errors, so a
 * misspelt key does not go unnoticed.
 *
 * @throws ConstraintParseError with file:line:column for invalid JSON, a wrong `format` or
 *   `version`, missing or mistyped fields, unknown kinds.
 * @throws ConstraintModelError (positioned at the offending value) for rule breaks.
 * @example
 * ```ts
 * const program = parseConstraintJson(`{
 *   "format": "gpumorph-constraints", "version": 1, "nodeCount": 2,
 *   "objects": [[0, 1]], "constraints": [["addr", 1, 0]]
 * }`);
 * program.constraints.length; // 1
 * ```
 */
export function parseConstraintJson(input: TextInput, options: ParseOptions = {}): ConstraintProgram {
  const file = options.file ?? UNNAMED_INPUT;
  const text = plainTextSync(input, file);
  const r: JsonReader = new JsonReader(text, file);
  if (text.trim() === '') {
    throw new ConstraintParseError(
      { file, line: 1, column: 1 },
      `empty file: expected a ${JSON_FORMAT} JSON object`,
    );
  }
  const root = parseJsonValue(text, file);
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    r.fail([], `expected a ${JSON_FORMAT} JSON object, found ${describeJson(root)}`);
  }
  const doc = root as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    if (!KEYS.has(key)) r.fail([key], `unknown key ${JSON.stringify(key)} (known: ${[...KEYS].join(', ')})`);
  }
  if (doc.format !== JSON_FORMAT) {
    if (!('format' in doc)) r.fail([], `the "format" key is missing: expected "format": "${JSON_FORMAT}"`);
    r.fail(['format'], `not a ${JSON_FORMAT} document: "format" is ${JSON.stringify(doc.format)}`);
  }
  if (doc.version !== 1) {
    if (!('version' in doc)) r.fail([], 'the "version" key is missing: expected "version": 1');
    r.fail(['version'], `unsupported version ${JSON.stringify(doc.version)} (this reader knows version 1)`);
  }
  if (!('nodeCount' in doc)) r.fail([], 'the "nodeCount" key is missing');
  const nodeCount = r.u32(doc.nodeCount, ['nodeCount'], '"nodeCount"');
  checkNodeCount(nodeCount, () => r.position(['nodeCount']));

  const objectSize = new Uint32Array(nodeCount);
  const objects = r.array(doc.objects ?? [], ['objects'], '"objects"');
  objects.forEach((entry, i) => {
    const pair = r.array(entry, ['objects', i], 'an object entry [id, fields]');
    if (pair.length !== 2)
      r.fail(['objects', i], `an object entry is [id, fields], found ${pair.length} values`);
    const id = r.node(pair[0], ['objects', i, 0], 'object', nodeCount);
    const fields = r.u32(pair[1], ['objects', i, 1], 'the number of fields');
    if (fields < 1)
      r.fail(['objects', i, 1], 'an object has at least 1 field; leave plain variables out of "objects"');
    if (objectSize[id] !== 0) r.fail(['objects', i, 0], `object ${id} is listed twice`);
    if (id + fields > nodeCount) {
      r.failRule(
        ['objects', i, 1],
        `object ${id} has ${fields} fields, running past the last node ${nodeCount - 1}`,
        undefined,
        id,
      );
    }
    objectSize[id] = fields;
  });

  const isFunction = new Uint8Array(nodeCount);
  r.array(doc.functions ?? [], ['functions'], '"functions"').forEach((value, i) => {
    const id = r.node(value, ['functions', i], 'function', nodeCount);
    if (isFunction[id] !== 0) r.fail(['functions', i], `function ${id} is listed twice`);
    isFunction[id] = 1;
  });

  let names: (string | undefined)[] | undefined;
  if (doc.names !== undefined) {
    const list = r.array(doc.names, ['names'], '"names"');
    if (list.length !== nodeCount) {
      r.fail(
        ['names'],
        `"names" has ${list.length} entries for ${nodeCount} nodes (null for an unnamed node)`,
      );
    }
    names = list.map((name, i): string | undefined => {
      if (name === null) return undefined;
      if (typeof name !== 'string')
        r.fail(['names', i], `a name is a string or null, found ${describeJson(name)}`);
      return name;
    });
  }

  let hardekopf: { lastObject: number; lastFunction: number } | undefined;
  if (doc.hardekopf !== undefined) {
    const h = doc.hardekopf;
    if (h === null || typeof h !== 'object' || Array.isArray(h)) {
      r.fail(
        ['hardekopf'],
        `"hardekopf" is { "lastObject": n, "lastFunction": n }, found ${describeJson(h)}`,
      );
    }
    const header = h as Record<string, unknown>;
    for (const key of Object.keys(header)) {
      if (key !== 'lastObject' && key !== 'lastFunction')
        r.fail(['hardekopf', key], `unknown key ${JSON.stringify(key)}`);
    }
    hardekopf = {
      lastObject: r.u32(header.lastObject, ['hardekopf', 'lastObject'], '"lastObject"'),
      lastFunction: r.u32(header.lastFunction, ['hardekopf', 'lastFunction'], '"lastFunction"'),
    };
  }

  const list = r.array(doc.constraints ?? [], ['constraints'], '"constraints"');
  const count = list.length;
  const kind = new Uint8Array(count);
  const dst = new Uint32Array(count);
  const src = new Uint32Array(count);
  const offset = new Uint32Array(count);
  const program: ConstraintProgram = {
    nodeCount,
    objectSize,
    isFunction,
    constraints: { length: count, kind, dst, src, offset },
    names,
    ...(hardekopf ? { hardekopf } : {}),
  };
  const largest = largestObjectSize(program);
  list.forEach((entry, i) => {
    const at = ['constraints', i];
    const c = r.array(entry, at, 'a constraint [kind, dst, src, offset?]');
    if (c.length < 3 || c.length > 4) {
      r.fail(at, `a constraint is [kind, dst, src] or [kind, dst, src, offset], found ${c.length} values`);
    }
    const k = CONSTRAINT_KIND_NAMES.indexOf(c[0] as (typeof CONSTRAINT_KIND_NAMES)[number]);
    if (k < 0) {
      r.fail([...at, 0], `unknown kind ${JSON.stringify(c[0])} (one of ${CONSTRAINT_KIND_NAMES.join(', ')})`);
    }
    kind[i] = k as ConstraintKind;
    dst[i] = r.u32(c[1], [...at, 1], 'the destination');
    src[i] = r.u32(c[2], [...at, 2], 'the source');
    offset[i] = c.length === 4 ? r.u32(c[3], [...at, 3], 'the offset') : 0;
    // The JSON value of each field, for the position of an error (an address-of has no offset value).
    const valueIndexOfField = [0, 1, 2, c.length === 4 ? 3 : 2];
    checkConstraintAt(program, i, largest, (field) =>
      r.position([...at, valueIndexOfField[field] as number]),
    );
  });
  return program;
}

/**
 * Writes `program` in the JSON form (FORMATS.md), one constraint per line. Reads back identical with
 * {@link parseConstraintJson}.
 *
 * @example
 * ```ts
 * formatConstraintJson(program);
 * // {
 * //   "format": "gpumorph-constraints",
 * //   "version": 1,
 * //   "nodeCount": 2,
 * //   "objects": [[0, 1]],
 * //   "functions": [],
 * //   "constraints": [
 * //     ["addr", 1, 0]
 * //   ]
 * // }
 * ```
 */
export function formatConstraintJson(program: ConstraintProgram): string {
  const { nodeCount, objectSize, isFunction, names, constraints: c } = program;
  const objects: string[] = [];
  const functions: number[] = [];
  for (let id = 0; id < nodeCount; id++) {
    if ((objectSize[id] as number) > 0) objects.push(`[${id}, ${objectSize[id]}]`);
    if ((isFunction[id] as number) !== 0) functions.push(id);
  }
  const lines = [
    '{',
    `  "format": "${JSON_FORMAT}",`,
    '  "version": 1,',
    `  "nodeCount": ${nodeCount},`,
    `  "objects": [${objects.join(', ')}],`,
    `  "functions": [${functions.join(', ')}],`,
  ];
  if (names) {
    const all = Array.from({ length: nodeCount }, (_, id) => JSON.stringify(names[id] ?? null));
    lines.push(`  "names": [${all.join(', ')}],`);
  }
  if (program.hardekopf) {
    const { lastObject, lastFunction } = program.hardekopf;
    lines.push(`  "hardekopf": { "lastObject": ${lastObject}, "lastFunction": ${lastFunction} },`);
  }
  if (c.length === 0) {
    lines.push('  "constraints": []');
  } else {
    lines.push('  "constraints": [');
    for (let i = 0; i < c.length; i++) {
      const k = CONSTRAINT_KIND_NAMES[c.kind[i] as ConstraintKind];
      const off = c.offset[i] as number;
      const tail = off === 0 ? '' : `, ${off}`;
      lines.push(`    ["${k}", ${c.dst[i]}, ${c.src[i]}${tail}]${i + 1 < c.length ? ',' : ''}`);
    }
    lines.push('  ]');
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
