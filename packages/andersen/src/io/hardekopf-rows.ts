/**
 * Programs built from the rows the reader threads scanned ({@link scanNumberLines}), with every
 * rule of the token-by-token parsers ({@link parseHardekopfNodes}, {@link parseHardekopfConstraints})
 * checked. Each function returns `undefined` when anything is wrong (a rule broken, a count that
 * disagrees, a limit passed); the file is then read by those parsers on the calling thread, which
 * throw the error with its file, line and column. So the threads either give the program those
 * parsers return, or leave the file to them.
 * @module
 */
import { PROGRAM_LIMITS } from '../errors';
import type { ConstraintProgram } from '../model/program';
import type { HardekopfNodeTable } from './hardekopf';
import type { NumberLines } from './number-lines';

/** The header of a nodes file: the node count, the last object id, the last function id. */
export const NODES_HEADER = [1, 1, 1] as const;
/** Numbers per node line: `id,objSize,isFunction`. */
export const NODE_FIELDS = 3;
/** The header of a constraints file: the counts line `nAddr,nCopy,nLoad,nStore,nGep`. */
export const CONSTRAINTS_HEADER = [5] as const;
/** Numbers per constraint line: `id,src,dst,type,offset`. */
export const CONSTRAINT_FIELDS = 5;

function noConstraints() {
  return {
    length: 0,
    kind: new Uint8Array(0),
    dst: new Uint32Array(0),
    src: new Uint32Array(0),
    offset: new Uint32Array(0),
  };
}

/**
 * The program of a nodes file's rows (as {@link parseHardekopfNodes} returns it), or `undefined`
 * when the careful parser must read the file: a node count past the limits, an id out of range or
 * listed twice, a flag above 1, an object running past the last node, a node missing.
 */
export function nodesFromLines(lines: NumberLines): ConstraintProgram | undefined {
  const [nodeCount, lastObject, lastFunction] = lines.header as [number, number, number];
  if (nodeCount > PROGRAM_LIMITS.nodes || lines.rows !== nodeCount) return undefined;
  const objectSize = new Uint32Array(nodeCount);
  const isFunction = new Uint8Array(nodeCount);
  // Each id at most once: with as many rows as nodes, every node is then listed.
  const seen = new Uint8Array(nodeCount);
  const { values } = lines;
  for (let r = 0, at = 0; r < nodeCount; r++, at += NODE_FIELDS) {
    const id = values[at] as number;
    const size = values[at + 1] as number;
    const flag = values[at + 2] as number;
    if (id >= nodeCount || seen[id] !== 0 || flag > 1 || (size > 0 && id + size > nodeCount))
      return undefined;
    seen[id] = 1;
    objectSize[id] = size;
    isFunction[id] = flag;
  }
  return {
    nodeCount,
    objectSize,
    isFunction,
    constraints: noConstraints(),
    hardekopf: { lastObject, lastFunction },
  };
}

/**
 * The program of a constraints file's rows against `nodes` (as {@link parseHardekopfConstraints}
 * returns it), or `undefined` when the careful parser must read the file: an unknown type, a rule
 * of the model broken, counts that disagree with the constraints. `makeObjects` is the
 * `nonObjectAddress: 'make-object'` option: `x = &y` with y not an object makes y a one-field
 * object, in a copy of the node table made at the first such constraint, as the careful parser does.
 */
export function constraintsFromLines(
  lines: NumberLines,
  nodes: HardekopfNodeTable,
  makeObjects: boolean,
): ConstraintProgram | undefined {
  const { rows, values } = lines;
  const { nodeCount } = nodes;
  let { objectSize } = nodes;
  // largestObjectSize, with an indexed loop (its for…of took a quarter of this function on linux).
  let largest = 0;
  for (let id = 0; id < objectSize.length; id++)
    if ((objectSize[id] as number) > largest) largest = objectSize[id] as number;
  const kind = new Uint8Array(rows);
  const dst = new Uint32Array(rows);
  const src = new Uint32Array(rows);
  const offset = new Uint32Array(rows);
  const found = [0, 0, 0, 0, 0];
  // The rules of breaksConstraintRule (validate.ts), on local arrays in the loop that fills them:
  // the call per constraint took most of the time of building linux's 400k constraints.
  for (let r = 0, at = 0; r < rows; r++, at += CONSTRAINT_FIELDS) {
    const from = values[at + 1] as number;
    const to = values[at + 2] as number;
    const type = values[at + 3] as number;
    const off = values[at + 4] as number;
    if (type > 4 || to >= nodeCount || from >= nodeCount) return undefined;
    if (type === 0) {
      if (makeObjects && objectSize[from] === 0) {
        // Copy before the first change: the caller's node table stays as it was.
        if (objectSize === nodes.objectSize) objectSize = objectSize.slice();
        objectSize[from] = 1;
      }
      if (objectSize[from] === 0 || off !== 0) return undefined;
    } else if (type === 1) {
      if (off !== 0) return undefined;
    } else if (off > 0 && off >= largest) return undefined;
    kind[r] = type;
    dst[r] = to;
    src[r] = from;
    offset[r] = off;
    found[type] = (found[type] as number) + 1;
  }
  for (let k = 0; k < 5; k++) if (found[k] !== lines.header[k]) return undefined;
  return {
    nodeCount,
    objectSize,
    isFunction: nodes.isFunction,
    constraints: { length: rows, kind, dst, src, offset },
    names: nodes.names,
    hardekopf: nodes.hardekopf,
  };
}
