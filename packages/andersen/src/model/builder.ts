import { ConstraintModelError } from '../errors';
import { ConstraintKind, type ConstraintProgram, checkConstraint, largestObjectSize } from './program';

/** Options of {@link ConstraintBuilder.object}. */
export interface ObjectOptions {
  /** Fields an offset may reach (1 for a scalar, n for a struct of n fields); default 1. */
  readonly fields?: number;
  /** The object is a function: field 0 its address, then return value and parameters as the front end lays them out. */
  readonly function?: boolean;
}

/**
 * Incremental construction of a {@link ConstraintProgram}, the API a front end calls. Objects get
 * contiguous ids for their fields (`object + k` is field k); every call is validated at once, so an
 * error points at the call that made it.
 */
export interface ConstraintBuilder {
  /** A new pointer variable (not an object); returns its node id. */
  variable(name?: string): number;
  /** A new abstract object with `fields` field nodes; returns the id of field 0 (the object's base). */
  object(name?: string, options?: ObjectOptions): number;
  /** `dst = &object` (an object's base or one of its fields). */
  addressOf(dst: number, object: number): this;
  /** `dst = src`. */
  copy(dst: number, src: number): this;
  /** `dst = *(src + offset)`. */
  load(dst: number, src: number, offset?: number): this;
  /** `*(dst + offset) = src`. */
  store(dst: number, src: number, offset?: number): this;
  /** `dst = src + offset` (address of field `offset` of whatever `src` points to). */
  offset(dst: number, src: number, offset: number): this;
  /** Nodes created so far. */
  readonly nodeCount: number;
  /** Constraints added so far. */
  readonly constraintCount: number;
  /** The program; the builder may go on and build again. */
  build(): ConstraintProgram;
}

/**
 * A new {@link ConstraintBuilder}.
 *
 * @example
 * ```ts
 * const b = createConstraintBuilder();
 * const s = b.object('s', { fields: 2 }); // struct { int *f0; int *f1; } s;
 * const x = b.object('x');
 * const p = b.variable('p');
 * const q = b.variable('q');
 * b.addressOf(p, s);   // p = &s
 * b.offset(q, p, 1);   // q = &p->f1
 * b.store(q, p);       // *q = p   (s.f1 = &s)
 * b.addressOf(b.variable('r'), x);
 * const program = b.build();
 * solveAndersen(program).pointsTo(q); // [s + 1]
 * ```
 */
export function createConstraintBuilder(): ConstraintBuilder {
  let objectSize = new Uint32Array(64);
  let isFunction = new Uint8Array(64);
  const names: (string | undefined)[] = [];
  let nodeCount = 0;
  let kind = new Uint8Array(64);
  let dst = new Uint32Array(64);
  let src = new Uint32Array(64);
  let offsets = new Uint32Array(64);
  let count = 0;
  let anyName = false;

  const grow = <T extends Uint8Array | Uint32Array>(array: T, need: number): T => {
    if (need <= array.length) return array;
    const bigger = new (array.constructor as new (n: number) => T)(Math.max(need, array.length * 2));
    bigger.set(array);
    return bigger;
  };
  const newNodes = (n: number, name: string | undefined): number => {
    const first = nodeCount;
    if (first + n > 0xffff_fffe) throw new ConstraintModelError('more than 2^32 − 2 nodes');
    objectSize = grow(objectSize, first + n);
    isFunction = grow(isFunction, first + n);
    nodeCount += n;
    if (name !== undefined) {
      anyName = true;
      names[first] = name;
      for (let k = 1; k < n; k++) names[first + k] = `${name}.${k}`;
    }
    return first;
  };
  const node = (id: number, role: string): number => {
    if (!Number.isInteger(id) || id < 0 || id >= nodeCount) {
      throw new ConstraintModelError(
        `${role} ${id} is not a node of this builder (it has ${nodeCount})`,
        count,
        id,
      );
    }
    return id;
  };
  const view = (): ConstraintProgram => ({
    nodeCount,
    objectSize: objectSize.subarray(0, nodeCount),
    isFunction: isFunction.subarray(0, nodeCount),
    constraints: { length: count + 1, kind, dst, src, offset: offsets },
    names: anyName ? names : undefined,
  });
  const add = (k: ConstraintKind, d: number, s: number, off: number): void => {
    if (!Number.isInteger(off) || off < 0 || off > 0xffff_ffff) {
      throw new ConstraintModelError(`offset ${off} is not a u32`, count);
    }
    kind = grow(kind, count + 1);
    dst = grow(dst, count + 1);
    src = grow(src, count + 1);
    offsets = grow(offsets, count + 1);
    kind[count] = k;
    dst[count] = node(d, 'destination');
    src[count] = node(s, 'source');
    offsets[count] = off;
    // Offsets are checked against the objects that exist when build() runs; the rest now (ids are
    // checked above and copies carry no offset, so only an address-of a non-object can fail here,
    // and the full check, which builds a view of the arrays, runs only then for its message).
    if (k === ConstraintKind.AddressOf && objectSize[s] === 0) checkConstraint(view(), count, Infinity);
    count++;
  };

  const builder: ConstraintBuilder = {
    variable(name) {
      return newNodes(1, name);
    },
    object(name, options = {}) {
      const fields = options.fields ?? 1;
      if (!Number.isInteger(fields) || fields < 1) {
        throw new ConstraintModelError(`object ${name ?? nodeCount} needs at least one field, got ${fields}`);
      }
      const base = newNodes(fields, name);
      for (let k = 0; k < fields; k++) objectSize[base + k] = fields - k;
      if (options.function) isFunction[base] = 1;
      return base;
    },
    addressOf(d, object) {
      add(ConstraintKind.AddressOf, d, object, 0);
      return builder;
    },
    copy(d, s) {
      add(ConstraintKind.Copy, d, s, 0);
      return builder;
    },
    load(d, s, off = 0) {
      add(ConstraintKind.Load, d, s, off);
      return builder;
    },
    store(d, s, off = 0) {
      add(ConstraintKind.Store, d, s, off);
      return builder;
    },
    offset(d, s, off) {
      add(ConstraintKind.Offset, d, s, off);
      return builder;
    },
    get nodeCount() {
      return nodeCount;
    },
    get constraintCount() {
      return count;
    },
    build() {
      const program: ConstraintProgram = {
        nodeCount,
        objectSize: objectSize.slice(0, nodeCount),
        isFunction: isFunction.slice(0, nodeCount),
        constraints: {
          length: count,
          kind: kind.slice(0, count),
          dst: dst.slice(0, count),
          src: src.slice(0, count),
          offset: offsets.slice(0, count),
        },
        names: anyName ? names.slice(0, nodeCount) : undefined,
      };
      const largest = largestObjectSize(program);
      for (let i = 0; i < count; i++) checkConstraint(program, i, largest);
      return program;
    },
  };
  return builder;
}
