import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatConstraintJson,
  formatConstraintText,
  formatPointsTo,
  groupPointsTo,
  parseConstraintJson,
  parseConstraintText,
  parsePointsTo,
  pointsToOfSolution,
  type ReferenceSolution,
} from '../src/io/index';
import { type ConstraintProgram, createConstraintBuilder, validateProgram } from '../src/model/index';
import { constraintProgram } from '../src/testing/index';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`);

/** Generated programs, sometimes carrying a Hardekopf header. */
const programs = fc
  .tuple(constraintProgram(), fc.option(fc.tuple(fc.nat(1000), fc.nat(1000)), { nil: undefined }))
  .map(
    ([program, header]): ConstraintProgram =>
      header ? { ...program, hardekopf: { lastObject: header[0], lastFunction: header[1] } } : program,
  );

describe('the generated programs', () => {
  it('pass validateProgram', () => {
    fc.assert(fc.property(constraintProgram({ maxNodes: 30, maxFields: 6 }), (p) => validateProgram(p)));
  });

  it('cover all five kinds, functions, names and offsets past the pointed-to object', () => {
    const seen = { kinds: new Set<number>(), functions: false, names: false, offsetPastObject: false };
    fc.assert(
      fc.property(constraintProgram(), (p) => {
        const c = p.constraints;
        for (let i = 0; i < c.length; i++) {
          seen.kinds.add(c.kind[i] as number);
          const off = c.offset[i] as number;
          if (off > 0 && p.objectSize.some((size) => size > 0 && size <= off)) seen.offsetPastObject = true;
        }
        if (p.isFunction.some((f) => f === 1)) seen.functions = true;
        if (p.names) seen.names = true;
      }),
      { numRuns: 200 },
    );
    expect({ ...seen, kinds: [...seen.kinds].sort() }).toEqual({
      kinds: [0, 1, 2, 3, 4],
      functions: true,
      names: true,
      offsetPastObject: true,
    });
  });
});

describe.each([
  { format: 'text', write: formatConstraintText, read: parseConstraintText },
  { format: 'JSON', write: formatConstraintJson, read: parseConstraintJson },
])('the $format format', ({ write, read }) => {
  it('reads back every generated program identical', () => {
    fc.assert(
      fc.property(programs, (program) => {
        expect(read(write(program))).toStrictEqual(program);
      }),
    );
  });

  it('reads back a builder program identical (names like "s.1", functions)', () => {
    const b = createConstraintBuilder();
    const s = b.object('s', { fields: 3 });
    const f = b.object('main', { fields: 2, function: true });
    const p = b.variable('p');
    const q = b.variable();
    b.addressOf(p, s).offset(q, p, 2).store(q, p).load(p, q, 1).addressOf(q, f).copy(p, q);
    const program = b.build();
    // The builder leaves trailing unnamed nodes out of `names`; readers give one entry per node.
    const names = Array.from({ length: program.nodeCount }, (_, id) => program.names?.[id]);
    expect(program.names?.length).toBeLessThan(program.nodeCount);
    expect(read(write(program))).toStrictEqual({ ...program, names });
  });
});

describe('the documented examples', () => {
  it('the text example reads, and writes back as the same program', () => {
    const program = parseConstraintText(fixture('example.constraints.txt'), {
      file: 'example.constraints.txt',
    });
    expect(program.nodeCount).toBe(12);
    expect(program.constraints.length).toBe(12);
    expect(program.names?.[8]).toBe('id');
    expect(program.isFunction[8]).toBe(1);
    expect([...program.objectSize]).toEqual([2, 1, 1, 1, 1, 0, 0, 0, 3, 2, 1, 0]);
    expect(parseConstraintText(formatConstraintText(program))).toStrictEqual(program);
  });

  it('the JSON example reads, and writes back as the same program', () => {
    // The fixture is laid out by Biome, the example in FORMATS.md by the writer: compare programs.
    const program = parseConstraintJson(fixture('example.constraints.json'), {
      file: 'example.constraints.json',
    });
    expect(program.hardekopf).toEqual({ lastObject: 1, lastFunction: 0 });
    expect(program.names).toEqual(['s', 's.second', 'p', undefined]);
    expect(parseConstraintJson(formatConstraintJson(program))).toStrictEqual(program);
  });

  it('the points-to example reads, and is exactly what the writer writes', () => {
    const text = fixture('example.points-to.txt').toString('utf8');
    const solution = parsePointsTo(text);
    expect(solution.classes.map((c) => [...c.variables])).toEqual([
      [0, 1, 2, 3, 5, 7, 9, 10, 11],
      [4, 6],
      [8],
    ]);
    expect(formatPointsTo(solution)).toBe(text.replace(/^#.*\n/m, ''));
  });

  it('the text and JSON examples describe the same kind of program', () => {
    const text = parseConstraintText(
      'gpumorph-constraints 1\nnodes 4\nhardekopf 1 0\nnode 0 s fields 2\nnode 1 s.second fields 1\nnode 2 p\np = &s\n3 = p + 1\n*3 = p\n',
    );
    expect(text).toStrictEqual(parseConstraintJson(fixture('example.constraints.json')));
  });
});

/** Points-to sets per variable, as a solver would return them (unsorted, with repeats). */
const pointsToSets = fc.integer({ min: 0, max: 40 }).chain((nodeCount) =>
  fc.array(fc.array(fc.nat(Math.max(0, nodeCount - 1)), { maxLength: nodeCount === 0 ? 0 : 8 }), {
    minLength: nodeCount,
    maxLength: nodeCount,
  }),
);

describe('the points-to format', () => {
  it('written from pointsTo(v), reads back every variable with its set', () => {
    fc.assert(
      fc.property(pointsToSets, (sets) => {
        const solution = parsePointsTo(
          formatPointsTo({ nodeCount: sets.length, pointsTo: (v) => sets[v] ?? [] }),
        );
        const lookup = pointsToOfSolution(solution);
        sets.forEach((set, v) => {
          expect([...lookup.pointsTo(v)]).toEqual([...new Set(set)].sort((a, b) => a - b));
        });
        // Equal sets share one class.
        expect(solution.classes.length).toBe(new Set(sets.map((s) => [...new Set(s)].sort().join())).size);
      }),
    );
  });

  it('a grouped solution reads back identical', () => {
    fc.assert(
      fc.property(pointsToSets, (sets) => {
        const grouped: ReferenceSolution = groupPointsTo({
          nodeCount: sets.length,
          pointsTo: (v) => sets[v] ?? [],
        });
        expect(parsePointsTo(formatPointsTo(grouped))).toStrictEqual(grouped);
      }),
    );
  });

  it('writes runs of three or more ids as ranges', () => {
    const text = formatPointsTo({ nodeCount: 8, pointsTo: (v) => (v === 7 ? [] : [7, 1, 2, 3, 5, 6]) });
    expect(text).toBe('gpumorph-points-to 1\nnodes 8\n0-6 => 1-3 5-7\n7 =>\n');
  });
});
