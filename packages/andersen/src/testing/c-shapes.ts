import fc from 'fast-check';
import type { ConstraintKind, ConstraintProgram } from '../model/program';

/** Options of {@link cShapedProgram}. */
export interface CShapedProgramOptions {
  /** Most nodes (variables plus object fields); default 120, at least 8. */
  readonly maxNodes?: number | undefined;
  /** Most constraints; default 240. */
  readonly maxConstraints?: number | undefined;
  /** Most fields of one struct or function object; default 5, at least 2. */
  readonly maxFields?: number | undefined;
  /**
   * fast-check's size of the lists (objects, constraint pieces, cycles): `small` (default) stays
   * far below the maxima, `max` reaches them.
   */
  readonly size?: fc.SizeForArbitrary | undefined;
}

/** One constraint before packing: `[kind, dst, src, offset]`. */
type Row = readonly [ConstraintKind, number, number, number];

interface CLayout {
  readonly nodeCount: number;
  readonly objectSize: Uint32Array;
  readonly isFunction: Uint8Array;
  /** Bases of objects (structs and functions) with their field counts. */
  readonly bases: readonly (readonly [number, number])[];
  readonly functions: readonly (readonly [number, number])[];
  /** Plain variables (objectSize 0). */
  readonly variables: readonly number[];
  /** The few pointers most loads and stores go through. */
  readonly hot: readonly number[];
  readonly largest: number;
}

/** Objects (some of them functions) and variables laid out as the builder does, node 0 a variable. */
function cLayout(
  objects: readonly { fields: number; fn: boolean }[],
  variableCount: number,
  hotCount: number,
): CLayout {
  const sizes: number[] = [0]; // node 0: a variable (the Hardekopf files' null)
  const bases: [number, number][] = [];
  const functions: [number, number][] = [];
  for (const { fields, fn } of objects) {
    bases.push([sizes.length, fields]);
    if (fn) functions.push([sizes.length, fields]);
    for (let k = 0; k < fields; k++) sizes.push(fields - k);
  }
  const variables: number[] = [0];
  for (let i = 0; i < variableCount; i++) {
    variables.push(sizes.length);
    sizes.push(0);
  }
  const isFunction = new Uint8Array(sizes.length);
  for (const [base] of functions) isFunction[base] = 1;
  return {
    nodeCount: sizes.length,
    objectSize: Uint32Array.from(sizes),
    isFunction,
    bases,
    functions,
    variables,
    hot: variables.slice(1, 1 + Math.max(1, hotCount)),
    largest: Math.max(0, ...sizes),
  };
}

/** The constraint pieces of {@link cShapedProgram} over a layout, weighted towards what C programs have. */
function cRows(l: CLayout, maxConstraints: number, size: fc.SizeForArbitrary): fc.Arbitrary<Row[]> {
  const variable = fc.constantFrom(...l.variables);
  const hot = fc.constantFrom(...l.hot);
  const base = fc.constantFrom(...l.bases);
  const anyObject = base.chain(([b, fields]) => fc.integer({ min: b, max: b + fields - 1 }));
  const offset = fc.oneof(
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: Math.max(0, l.largest - 1) }) },
  );
  const piece: fc.Arbitrary<Row[]> = fc.oneof(
    // Heavy load/store through a few pointers (the hubs of real programs: a global list head, a
    // context struct passed everywhere).
    {
      weight: 8,
      arbitrary: fc
        .tuple(fc.boolean(), hot, variable, offset)
        .map(([load, h, v, k]): Row[] => [load ? [2, v, h, k] : [3, h, v, k]]),
    },
    // The hot pointers point at a few objects.
    { weight: 2, arbitrary: fc.tuple(hot, anyObject).map(([h, o]): Row[] => [[0, h, o, 0]]) },
    // A large strongly connected component of copies.
    {
      weight: 1,
      arbitrary: fc
        .array(variable, { minLength: 2, maxLength: 24, size })
        .map((cycle): Row[] => cycle.map((n, i) => [1, n, cycle[(i + 1) % cycle.length] as number, 0])),
    },
    // Big fan-in: many addresses into one pointer, or one object's address into many pointers.
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc
          .tuple(variable, fc.array(anyObject, { minLength: 4, maxLength: 24, size }))
          .map(([p, objects]): Row[] => objects.map((o) => [0, p, o, 0])),
        fc
          .tuple(anyObject, fc.array(variable, { minLength: 4, maxLength: 24, size }))
          .map(([o, pointers]): Row[] => pointers.map((p) => [0, p, o, 0])),
      ),
    },
    // Struct fields: ptr = &s; f = ptr + k; *f = y; z = *(ptr + k).
    {
      weight: 2,
      arbitrary: fc.tuple(base, variable, variable, variable, variable).chain(([[b, fields], ptr, f, y, z]) =>
        fc.integer({ min: 0, max: fields - 1 }).map((k): Row[] => [
          [0, ptr, b, 0],
          [4, f, ptr, k],
          [3, f, y, 0],
          [2, z, ptr, k],
        ]),
      ),
    },
    // Cycles through a dereference, the source of HCD's online pairs: a = *x; b = a; *x = b.
    {
      weight: 2,
      arbitrary: fc.tuple(fc.oneof(hot, variable), variable, variable).map(([x, a, b]): Row[] => [
        [2, a, x, 0],
        [1, b, a, 0],
        [3, x, b, 0],
      ]),
    },
    // A cycle through two dereferences (a = *x; *y = a; b = *y; *x = b): it closes only when both
    // x and y point to objects, and one of them often points nowhere.
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.oneof(hot, variable), variable, variable, variable)
        .map(([x, y, a, b]): Row[] => [
          [2, a, x, 0],
          [3, y, a, 0],
          [2, b, y, 0],
          [3, x, b, 0],
        ]),
    },
    // Two pointers loaded through one pointer (HVN finds them equal, and they may stay empty), each
    // dereferenced on a cycle of its own: online pairs whose pointers share a class.
    {
      weight: 1,
      arbitrary: fc
        .tuple(variable, variable, variable, variable, variable, anyObject, anyObject, anyObject)
        .map(([e, x1, x2, a, b, o1, o2, o3]): Row[] => [
          [0, e, o3, 0],
          [2, x1, e, 0],
          [2, x2, e, 0],
          [2, a, x1, 0],
          [3, x1, a, 0],
          [2, b, x2, 0],
          [3, x2, b, 0],
          [0, a, o1, 0],
          [0, b, o2, 0],
        ]),
    },
    // Plain constraints of every kind.
    { weight: 2, arbitrary: fc.tuple(variable, anyObject).map(([p, o]): Row[] => [[0, p, o, 0]]) },
    { weight: 3, arbitrary: fc.tuple(variable, variable).map(([d, s]): Row[] => [[1, d, s, 0]]) },
    {
      weight: 1,
      arbitrary: fc.tuple(variable, variable, offset).map(([d, s, k]): Row[] => [[4, d, s, k]]),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(2, 3) as fc.Arbitrary<ConstraintKind>, variable, variable, offset)
        .map(([kind, d, s, k]): Row[] => [[kind, d, s, k]]),
    },
  );
  const call: fc.Arbitrary<Row[]> =
    l.functions.length === 0
      ? fc.constant([])
      : // An indirect call through a function pointer: fp = &f; *(fp + k) = arg (parameter k);
        // r = *fp (the return value, field 0); and inside f: local = param, field 0 = result.
        fc
          .tuple(fc.constantFrom(...l.functions), variable, variable, variable, variable, variable)
          .map(([[f, fields], fp, arg, r, local, result]): Row[] => {
            const k = 1 + (arg % Math.max(1, fields - 1));
            return [
              [0, fp, f, 0],
              [3, fp, arg, Math.min(k, fields - 1)],
              [2, r, fp, 0],
              [1, local, f + Math.min(k, fields - 1), 0],
              [1, f, result, 0],
            ];
          });
  return fc
    .array(fc.oneof({ weight: 6, arbitrary: piece }, { weight: 1, arbitrary: call }), {
      maxLength: maxConstraints,
      size,
    })
    .map((pieces) => pieces.flat().slice(0, maxConstraints));
}

/**
 * Valid constraint programs shaped like the constraint graphs of real C programs, for differential
 * tests of the solvers: most loads and stores go through a few hot pointers; large copy cycles;
 * objects whose address many pointers take and pointers that take many addresses; struct field
 * offsets; indirect calls through function pointers (arguments stored at the function object's
 * parameter fields, the result loaded from field 0); cycles through one dereference
 * (`a = *x; b = a; *x = b`) and through two (`a = *x; *y = a; b = *y; *x = b`), which give an HCD
 * table many online pairs, some of them on cycles that never close. Node 0 is a plain variable,
 * as in the Hardekopf files.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(cShapedProgram({ maxNodes: 200 }), async (program) => {
 *   // solve with two engines and compare
 * }));
 * ```
 */
export function cShapedProgram(options: CShapedProgramOptions = {}): fc.Arbitrary<ConstraintProgram> {
  const maxNodes = Math.max(8, options.maxNodes ?? 120);
  const maxFields = Math.max(2, options.maxFields ?? 5);
  const maxConstraints = Math.max(0, options.maxConstraints ?? 240);
  const objectRoom = Math.max(1, Math.floor(maxNodes / 2 / maxFields));
  const layout = fc
    .tuple(
      fc.array(fc.record({ fields: fc.integer({ min: 1, max: maxFields }), fn: fc.boolean() }), {
        minLength: 1,
        maxLength: objectRoom,
        size: options.size ?? 'small',
      }),
      fc.integer({ min: 2, max: Math.max(2, maxNodes - objectRoom * maxFields - 1) }),
      fc.integer({ min: 1, max: 3 }),
    )
    .map(([objects, variables, hot]) =>
      cLayout(
        objects.map((o) => (o.fn ? { fields: Math.max(2, o.fields), fn: true } : o)),
        variables,
        hot,
      ),
    );
  return layout.chain((l) =>
    cRows(l, maxConstraints, options.size ?? 'small').map((list): ConstraintProgram => {
      const n = list.length;
      return {
        nodeCount: l.nodeCount,
        objectSize: l.objectSize.slice(),
        isFunction: l.isFunction.slice(),
        constraints: {
          length: n,
          kind: Uint8Array.from(list, (r) => r[0]),
          dst: Uint32Array.from(list, (r) => r[1]),
          src: Uint32Array.from(list, (r) => r[2]),
          offset: Uint32Array.from(list, (r) => r[3]),
        },
      };
    }),
  );
}
