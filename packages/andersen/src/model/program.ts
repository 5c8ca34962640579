import { ConstraintModelError } from '../errors';

/**
 * The five constraint kinds of inclusion-based points-to analysis, numbered as in the Hardekopf
 * files: `dst = &src`, `dst = src`, `dst = *(src + offset)`, `*(dst + offset) = src` and
 * `dst = src + offset` (field access or pointer arithmetic).
 */
export const ConstraintKind = {
  AddressOf: 0,
  Copy: 1,
  Load: 2,
  Store: 3,
  Offset: 4,
} as const;
/** One of {@link ConstraintKind}'s values. */
export type ConstraintKind = (typeof ConstraintKind)[keyof typeof ConstraintKind];

/** Lower-case names of the kinds, indexed by kind: `addr`, `copy`, `load`, `store`, `offset`. */
export const CONSTRAINT_KIND_NAMES = ['addr', 'copy', 'load', 'store', 'offset'] as const;

/**
 * Constraints as parallel typed arrays (struct of arrays): constraint `i` is
 * `kind[i]`, `dst[i]`, `src[i]`, `offset[i]`. Millions of constraints cost no JS objects.
 */
export interface ConstraintList {
  readonly length: number;
  readonly kind: Uint8Array;
  readonly dst: Uint32Array;
  readonly src: Uint32Array;
  readonly offset: Uint32Array;
}

/**
 * A whole points-to problem. Nodes `0 … nodeCount − 1` are variables; a node is also an abstract
 * memory object (something whose address can be taken) when `objectSize[id] > 0`, and then its
 * fields are the nodes `id … id + objectSize[id] − 1`. A node stands both for the object and for
 * the value stored in it, so `pts(o)` is what memory `o` may point to.
 *
 * Semantics, with `o` ranging over `pts(src)` (resp. `pts(dst)` for stores):
 * - `dst = &src`: `src ∈ pts(dst)`;
 * - `dst = src`: `pts(src) ⊆ pts(dst)`;
 * - `dst = *(src + k)`: `pts(o + k) ⊆ pts(dst)` for each `o` with `k < objectSize[o]`;
 * - `*(dst + k) = src`: `pts(src) ⊆ pts(o + k)` for each `o` with `k < objectSize[o]`;
 * - `dst = src + k`: `o + k ∈ pts(dst)` for each `o` with `k < objectSize[o]`.
 *
 * @example
 * ```ts
 * const b = createConstraintBuilder();
 * const x = b.object('x');
 * const p = b.variable('p');
 * b.addressOf(p, x);
 * const program = b.build();
 * program.constraints.length; // 1
 * ```
 */
export interface ConstraintProgram {
  readonly nodeCount: number;
  /** Per node: how many fields an offset may reach from it as an object's base; 0 = not an object. */
  readonly objectSize: Uint32Array;
  /** Per node: 1 when it is a function (an object whose fields are its return value and parameters). */
  readonly isFunction: Uint8Array;
  readonly constraints: ConstraintList;
  /** Optional node names (from a front end, the builder or the text format); `undefined` where unnamed. */
  readonly names?: readonly (string | undefined)[] | undefined;
  /**
   * Header values of the Hardekopf nodes file (last object id, last function id), kept so that a
   * program read from one is written back unchanged; absent for other sources.
   */
  readonly hardekopf?: { readonly lastObject: number; readonly lastFunction: number } | undefined;
}

/** Counts of each kind: `[addr, copy, load, store, offset]`. */
export function countByKind(constraints: ConstraintList): [number, number, number, number, number] {
  const counts: [number, number, number, number, number] = [0, 0, 0, 0, 0];
  for (let i = 0; i < constraints.length; i++) counts[constraints.kind[i] as ConstraintKind]++;
  return counts;
}

/** Largest `objectSize` of the program (0 when it has no object). */
export function largestObjectSize(program: Pick<ConstraintProgram, 'objectSize'>): number {
  let largest = 0;
  for (const size of program.objectSize) if (size > largest) largest = size;
  return largest;
}

/** A constraint in words, e.g. `p = *(q + 2)`, with node names where the program has them. */
export function describeConstraint(program: ConstraintProgram, index: number): string {
  const c = program.constraints;
  const name = (id: number) => program.names?.[id] ?? `n${id}`;
  const dst = name(c.dst[index] as number);
  const src = name(c.src[index] as number);
  const k = c.offset[index] as number;
  switch (c.kind[index] as ConstraintKind) {
    case ConstraintKind.AddressOf:
      return `${dst} = &${src}`;
    case ConstraintKind.Copy:
      return `${dst} = ${src}`;
    case ConstraintKind.Load:
      return k === 0 ? `${dst} = *${src}` : `${dst} = *(${src} + ${k})`;
    case ConstraintKind.Store:
      return k === 0 ? `*${dst} = ${src}` : `*(${dst} + ${k}) = ${src}`;
    case ConstraintKind.Offset:
      return `${dst} = ${src} + ${k}`;
  }
}

/**
 * Checks the model's rules and throws {@link ConstraintModelError} at the first break: array
 * lengths agree; every id is below `nodeCount`; kinds are 0–4; `&src` names an object and has offset
 * 0; a copy has offset 0; an object's fields stay below `nodeCount`; a load, store or offset
 * constraint's offset is below the largest object size (otherwise it could never apply).
 * Readers and the builder call it; call it yourself on a program you assembled by hand.
 *
 * @example
 * ```ts
 * validateProgram(program); // throws ConstraintModelError naming the constraint at fault
 * ```
 */
export function validateProgram(program: ConstraintProgram): void {
  const { nodeCount, objectSize, isFunction, constraints: c } = program;
  if (!Number.isInteger(nodeCount) || nodeCount < 0 || nodeCount > 0xffff_fffe) {
    throw new ConstraintModelError(`node count ${nodeCount} is not an integer in 0 … 2^32 − 2`);
  }
  if (objectSize.length !== nodeCount || isFunction.length !== nodeCount) {
    throw new ConstraintModelError(
      `objectSize has ${objectSize.length} and isFunction ${isFunction.length} entries for ${nodeCount} nodes`,
    );
  }
  if (
    c.kind.length < c.length ||
    c.dst.length < c.length ||
    c.src.length < c.length ||
    c.offset.length < c.length
  ) {
    throw new ConstraintModelError(
      `constraint arrays are shorter than the ${c.length} constraints they hold`,
    );
  }
  if (program.names && program.names.length > nodeCount) {
    throw new ConstraintModelError(`${program.names.length} names for ${nodeCount} nodes`);
  }
  for (let id = 0; id < nodeCount; id++) {
    const size = objectSize[id] as number;
    if (size > 0 && id + size > nodeCount) {
      throw new ConstraintModelError(
        `object ${id} has ${size} fields, running past the last node ${nodeCount - 1}`,
        undefined,
        id,
      );
    }
  }
  const largest = largestObjectSize(program);
  for (let i = 0; i < c.length; i++) checkConstraint(program, i, largest);
}

/** @internal Checks constraint `i` (see {@link validateProgram}); `largest` = largest object size. */
export function checkConstraint(program: ConstraintProgram, i: number, largest: number): void {
  const c = program.constraints;
  const kind = c.kind[i] as number;
  const dst = c.dst[i] as number;
  const src = c.src[i] as number;
  const offset = c.offset[i] as number;
  const fail = (message: string, node?: number) => {
    throw new ConstraintModelError(`constraint ${i}: ${message}`, i, node);
  };
  if (kind > ConstraintKind.Offset) fail(`kind ${kind} is not one of 0 (addr) … 4 (offset)`);
  if (dst >= program.nodeCount)
    fail(`destination ${dst} is not a node (there are ${program.nodeCount})`, dst);
  if (src >= program.nodeCount) fail(`source ${src} is not a node (there are ${program.nodeCount})`, src);
  switch (kind) {
    case ConstraintKind.AddressOf:
      if ((program.objectSize[src] as number) === 0)
        fail(`${describeConstraint(program, i)} takes the address of ${src}, which is not an object`, src);
      if (offset !== 0) fail(`an address-of constraint has offset ${offset}; write the field's node instead`);
      break;
    case ConstraintKind.Copy:
      if (offset !== 0) fail(`a copy has offset ${offset}; use an offset constraint for pointer arithmetic`);
      break;
    default:
      if (offset > 0 && offset >= largest) {
        fail(
          `${describeConstraint(program, i)}: offset ${offset} is past every object (the largest has ${largest} fields)`,
        );
      }
  }
}
