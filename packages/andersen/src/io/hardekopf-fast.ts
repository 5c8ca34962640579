/**
 * The fast path of the Hardekopf nodes and constraints readers: programs built from the rows of
 * {@link scanNumberLines}, with every rule of the careful parsers checked. Each function returns
 * `undefined` when anything is wrong (a rule broken, a count that disagrees, a limit passed); the
 * careful parser then reads the same bytes and throws the error with its file, line and column. So
 * an input either reads here to the same program the careful parser returns, or is read by it.
 * @module
 */
import { PROGRAM_LIMITS } from '../errors';
import { type ConstraintProgram, largestObjectSize } from '../model/program';
import type { HardekopfNodeTable } from './hardekopf';
import type { NumberLines } from './number-lines';
import { breaksConstraintRule } from './validate';

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
  const kind = new Uint8Array(rows);
  const dst = new Uint32Array(rows);
  const src = new Uint32Array(rows);
  const offset = new Uint32Array(rows);
  const found = [0, 0, 0, 0, 0];
  for (let r = 0, at = 0; r < rows; r++, at += CONSTRAINT_FIELDS) {
    const type = values[at + 3] as number;
    if (type > 4) return undefined;
    src[r] = values[at + 1] as number;
    dst[r] = values[at + 2] as number;
    kind[r] = type;
    offset[r] = values[at + 4] as number;
    found[type] = (found[type] as number) + 1;
  }
  for (let k = 0; k < 5; k++) if (found[k] !== lines.header[k]) return undefined;
  const { nodeCount } = nodes;
  const largest = largestObjectSize(nodes);
  let program: ConstraintProgram = {
    nodeCount,
    objectSize: nodes.objectSize,
    isFunction: nodes.isFunction,
    constraints: { length: rows, kind, dst, src, offset },
    names: nodes.names,
    hardekopf: nodes.hardekopf,
  };
  for (let i = 0; i < rows; i++) {
    const from = src[i] as number;
    if (makeObjects && kind[i] === 0 && from < nodeCount && program.objectSize[from] === 0) {
      // Copy before the first change: the caller's node table stays as it was.
      const objectSize =
        program.objectSize === nodes.objectSize ? nodes.objectSize.slice() : program.objectSize;
      objectSize[from] = 1;
      program = { ...program, objectSize };
    }
    if (breaksConstraintRule(program, i, largest)) return undefined;
  }
  return program;
}
