/**
 * fast-check arbitraries for property tests of code that reads, writes, transforms or solves
 * constraint programs: valid {@link ConstraintProgram}s with multi-field structs and functions, all
 * five kinds, offsets that sometimes run past the pointed-to object (legal: they do not apply),
 * cycles of copies and loads/stores through pointers to pointers, so a solver has real work.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * import { constraintProgram } from '@gpumorph/andersen/testing';
 * fc.assert(fc.property(constraintProgram(), (program) => {
 *   expect(parseConstraintText(formatConstraintText(program))).toEqual(program);
 * }));
 * ```
 * @module
 */
import fc from 'fast-check';
import type { ConstraintKind, ConstraintProgram } from '../model/program';

/** Options of {@link constraintProgram}. */
export interface ConstraintProgramOptions {
  /** Most nodes (variables plus object fields); default 40, at least 1. */
  readonly maxNodes?: number;
  /** Most constraints; default 60. */
  readonly maxConstraints?: number;
  /** Most fields of one object (struct); default 4, at least 1. */
  readonly maxFields?: number;
  /** Whether programs may carry node names (some odd, some shared by two nodes); default true. */
  readonly names?: boolean;
}

/** One constraint before packing: `[kind, dst, src, offset]`. */
type Row = readonly [ConstraintKind, number, number, number];

interface Layout {
  readonly nodeCount: number;
  readonly objectSize: Uint32Array;
  readonly isFunction: Uint8Array;
  /** Ids with `objectSize > 0` (bases and fields of objects). */
  readonly objects: readonly number[];
  /** Bases of objects with their field counts. */
  readonly bases: readonly (readonly [number, number])[];
  readonly largest: number;
}

type Group =
  | { readonly object: false }
  | { readonly object: true; readonly fields: number; readonly fn: boolean };

/** Lays out groups as the builder does: an object of n fields takes n consecutive ids, field k of size n − k. */
function layOut(groups: readonly Group[], maxNodes: number): Layout {
  const sizes: number[] = [];
  const functions: number[] = [];
  const bases: [number, number][] = [];
  for (const group of groups) {
    const width = group.object ? group.fields : 1;
    if (sizes.length + width > maxNodes) break;
    if (!group.object) {
      sizes.push(0);
      continue;
    }
    bases.push([sizes.length, group.fields]);
    if (group.fn) functions.push(sizes.length);
    for (let k = 0; k < group.fields; k++) sizes.push(group.fields - k);
  }
  const objectSize = Uint32Array.from(sizes);
  const isFunction = new Uint8Array(sizes.length);
  for (const id of functions) isFunction[id] = 1;
  const objects: number[] = [];
  sizes.forEach((size, id) => {
    if (size > 0) objects.push(id);
  });
  return {
    nodeCount: sizes.length,
    objectSize,
    isFunction,
    objects,
    bases,
    largest: Math.max(0, ...sizes),
  };
}

/** Constraint pieces over a layout; each yields one or more rows. */
function rows(layout: Layout, maxConstraints: number): fc.Arbitrary<Row[]> {
  const node = fc.integer({ min: 0, max: layout.nodeCount - 1 });
  const object = fc.constantFrom(...layout.objects);
  const base = fc.constantFrom(...layout.bases);
  // Mostly 0 (plain dereference), sometimes any offset below the largest object, which may exceed
  // the pointed-to object's own size (then the constraint does not apply to it).
  const offset = fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: Math.max(0, layout.largest - 1) }) },
  );
  const one = (
    kind: ConstraintKind,
    d: fc.Arbitrary<number>,
    s: fc.Arbitrary<number>,
    o: fc.Arbitrary<number>,
  ) => fc.tuple(d, s, o).map(([dst, src, off]): Row[] => [[kind, dst, src, off]]);
  const zero = fc.constant(0);
  const piece: fc.Arbitrary<Row[]> = fc.oneof(
    { weight: 4, arbitrary: one(0, node, object, zero) },
    { weight: 4, arbitrary: one(1, node, node, zero) },
    { weight: 3, arbitrary: one(2, node, node, offset) },
    { weight: 3, arbitrary: one(3, node, node, offset) },
    { weight: 2, arbitrary: one(4, node, node, offset) },
    {
      // A cycle of copies: n0 = n1, n1 = n2, …, nk = n0.
      weight: 1,
      arbitrary: fc
        .array(node, { minLength: 2, maxLength: 4 })
        .map((cycle): Row[] => cycle.map((n, i) => [1, n, cycle[(i + 1) % cycle.length] as number, 0])),
    },
    {
      // Through a pointer to a pointer: pp = &p; p = &x; q = *pp; *pp = r.
      weight: 1,
      arbitrary: fc.tuple(node, object, object, node, node).map(([pp, p, x, q, r]): Row[] => [
        [0, pp, p, 0],
        [0, p, x, 0],
        [2, q, pp, 0],
        [3, pp, r, 0],
      ]),
    },
    {
      // A struct field: ptr = &s; f = ptr + k; *f = y; z = *(ptr + k).
      weight: 1,
      arbitrary: base.chain(([b, fields]) =>
        fc
          .tuple(node, node, fc.integer({ min: 0, max: fields - 1 }), node, node)
          .map(([ptr, f, k, y, z]): Row[] => [
            [0, ptr, b, 0],
            [4, f, ptr, k],
            [3, f, y, 0],
            [2, z, ptr, k],
          ]),
      ),
    },
  );
  return fc
    .array(piece, { maxLength: maxConstraints })
    .map((pieces) => pieces.flat().slice(0, maxConstraints));
}

/** Names for some nodes: plain identifiers, odd strings (quotes, spaces, keywords, digits), duplicates. */
function nodeNames(nodeCount: number): fc.Arbitrary<(string | undefined)[] | undefined> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[a-z_][a-z0-9_.]{0,6}$/) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
    { weight: 1, arbitrary: fc.constantFrom('node', 'function', 'fields', '12', 'a b', '#x', '"q"', 'dup') },
  );
  return fc
    .array(fc.option(name, { nil: undefined, freq: 3 }), { minLength: nodeCount, maxLength: nodeCount })
    .map((names) => (names.some((n) => n !== undefined) ? names : undefined));
}

/**
 * Valid constraint programs (they pass `validateProgram`) on which an Andersen solver has
 * interesting work: objects of 1…maxFields fields laid out as the builder does (some functions),
 * plain variables, all five kinds, offsets that sometimes run past the pointed-to object, cycles of
 * copies, loads and stores through pointers to pointers, struct field accesses; sometimes node names.
 * `names`, when present, has one entry per node and at least one name.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(constraintProgram({ maxNodes: 20 }), (program) => {
 *   validateProgram(program); // never throws
 * }));
 * ```
 */
export function constraintProgram(options: ConstraintProgramOptions = {}): fc.Arbitrary<ConstraintProgram> {
  const maxNodes = Math.max(1, options.maxNodes ?? 40);
  const maxFields = Math.max(1, Math.min(options.maxFields ?? 4, maxNodes));
  const maxConstraints = Math.max(0, options.maxConstraints ?? 60);
  const objectGroup = fc.record({
    object: fc.constant(true as const),
    fields: fc.integer({ min: 1, max: maxFields }),
    fn: fc.boolean(),
  });
  const group: fc.Arbitrary<Group> = fc.oneof(fc.constant({ object: false as const }), objectGroup);
  // The first group is an object, so every program has something whose address can be taken.
  const layout = fc
    .tuple(objectGroup, fc.array(group, { maxLength: maxNodes }))
    .map(([first, more]) =>
      layOut([{ ...first, fields: Math.min(first.fields, maxNodes) }, ...more], maxNodes),
    );
  return layout.chain((l) =>
    fc
      .tuple(
        rows(l, maxConstraints),
        options.names === false ? fc.constant(undefined) : nodeNames(l.nodeCount),
      )
      .map(([list, names]): ConstraintProgram => {
        const n = list.length;
        const constraints = {
          length: n,
          kind: Uint8Array.from(list, (r) => r[0]),
          dst: Uint32Array.from(list, (r) => r[1]),
          src: Uint32Array.from(list, (r) => r[2]),
          offset: Uint32Array.from(list, (r) => r[3]),
        };
        return {
          nodeCount: l.nodeCount,
          objectSize: l.objectSize.slice(),
          isFunction: l.isFunction.slice(),
          constraints,
          names,
        };
      }),
  );
}

export { type AnswerComparison, answerFingerprint, compareAnswers, type RepresentedAnswer } from './answers';
export { type CShapedProgramOptions, cShapedProgram } from './c-shapes';
export {
  type CheckProgramOptions,
  checkProgram,
  hcdExactFor,
  type StressDifference,
  type StressOptions,
  type StressReport,
  type StressVariant,
  stressAndersen,
  stressVariants,
} from './stress';
