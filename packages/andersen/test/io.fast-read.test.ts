// The reader threads' path (one loop over the bytes into rows, the program built from them) against
// the token-by-token parsers: on generated files, on generated files with bytes
// changed (where both must throw the same error at the same place, or read the same program), on
// the carried fixtures and on the data folder's programs when it is there.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hardekopfFixtures } from '../../../test/data';
import {
  CONSTRAINT_FIELDS,
  CONSTRAINTS_HEADER,
  constraintsFromLines,
  NODE_FIELDS,
  NODES_HEADER,
  nodesFromLines,
} from '../src/io/hardekopf-rows';
import {
  createReaderThreads,
  formatHardekopfConstraints,
  formatHardekopfNodes,
  type HardekopfConstraintOptions,
  type ParseOptions,
  parseHardekopfConstraints,
  parseHardekopfNodes,
  type ReaderThreads,
  readHardekopf,
} from '../src/io/index';
import { scanNumberLines } from '../src/io/number-lines';
import type { ConstraintProgram } from '../src/model/index';
import { constraintProgram } from '../src/testing/index';
import { benchmarkPrefix, describeEachBenchmark } from './benchmarks';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** What a call gave: its value, or the error's class, message and fields (position, node, …). */
function outcome<T>(run: () => T): { value: T } | { error: Record<string, unknown> } {
  try {
    return { value: run() };
  } catch (error) {
    const e = error as Error;
    const { cause: _cause, ...fields } = { ...e } as Record<string, unknown>;
    return { error: { type: e.constructor.name, message: e.message, ...fields } };
  }
}

async function outcomeOf<T>(run: () => Promise<T>) {
  try {
    return { value: await run() };
  } catch (error) {
    const e = error as Error;
    const { cause: _cause, ...fields } = { ...e } as Record<string, unknown>;
    return { error: { type: e.constructor.name, message: e.message, ...fields } };
  }
}

/** The program's nodes file with its node lines in the order `order` (a permutation) and comments. */
function nodesText(program: ConstraintProgram, order: number[], comments: boolean): string {
  const [count, lastObject, lastFunction, ...lines] = formatHardekopfNodes(program).trimEnd().split('\n');
  const body = order.map((i) => lines[i] as string);
  if (comments) body.splice(Math.floor(body.length / 2), 0, '# a comment', '');
  return `${[count, lastObject, lastFunction, ...body].join('\n')}\n`;
}

/**
 * Edits of a file: bytes removed and inserted somewhere (lines of another shape), or one of its
 * numbers replaced (ids out of range, flags, types and offsets the rules refuse, counts that
 * disagree, numbers past 32 bits).
 */
const edit = fc.oneof(
  fc.record({
    at: fc.nat(),
    remove: fc.integer({ min: 0, max: 3 }),
    insert: fc.array(fc.constantFrom('0', '7', '9', ',', '\n', '#', ' ', '\r', 'x', '-', '99999999999'), {
      maxLength: 3,
    }),
  }),
  fc.record({
    number: fc.nat(),
    value: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.constantFrom(4294967295, 4294967296, 2 ** 31)),
  }),
);
type Edit = { at: number; remove: number; insert: string[] } | { number: number; value: number };
function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const e of edits) {
    if ('number' in e) {
      const numbers = [...out.matchAll(/\d+/g)];
      const target = numbers[e.number % Math.max(1, numbers.length)];
      if (target?.index === undefined) continue;
      out = out.slice(0, target.index) + String(e.value) + out.slice(target.index + target[0].length);
      continue;
    }
    const at = out.length === 0 ? 0 : e.at % (out.length + 1);
    out = out.slice(0, at) + e.insert.join('') + out.slice(at + e.remove);
  }
  return out;
}

const programAndLayout = constraintProgram({ maxNodes: 24, maxConstraints: 40, names: false }).chain(
  (program) =>
    fc.tuple(
      fc.constant(program),
      fc.shuffledSubarray(
        Array.from({ length: program.nodeCount }, (_, i) => i),
        { minLength: program.nodeCount, maxLength: program.nodeCount },
      ),
      fc.boolean(),
    ),
);

const MAKE_OBJECT: HardekopfConstraintOptions = { file: 'c.txt', nonObjectAddress: 'make-object' };

/** The program of a nodes file's scanned rows, as a reader thread gives it (undefined: it gives up). */
function nodesFromScan(text: string | Uint8Array): ConstraintProgram | undefined {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const lines = scanNumberLines(bytes, NODES_HEADER, NODE_FIELDS);
  return lines && nodesFromLines(lines);
}

/** The program of a constraints file's scanned rows against `nodes` (undefined: it gives up). */
function constraintsFromScan(
  text: string | Uint8Array,
  nodes: ConstraintProgram,
  options: HardekopfConstraintOptions = {},
): ConstraintProgram | undefined {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const lines = scanNumberLines(bytes, CONSTRAINTS_HEADER, CONSTRAINT_FIELDS);
  return lines && constraintsFromLines(lines, nodes, options.nonObjectAddress === 'make-object');
}

/** A nodes file as readHardekopf with threads reads it: the scan, else the parser. */
function nodesByScan(text: string, options: ParseOptions = {}): ConstraintProgram {
  return nodesFromScan(text) ?? parseHardekopfNodes(text, options);
}

/** A constraints file as readHardekopf with threads reads it: the scan, else the parser. */
function constraintsByScan(
  text: string,
  nodes: ConstraintProgram,
  options: HardekopfConstraintOptions = {},
): ConstraintProgram {
  return constraintsFromScan(text, nodes, options) ?? parseHardekopfConstraints(text, nodes, options);
}

describe('scanNumberLines', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  it('reads header lines, rows, blank and comment lines, a last line without its newline', () => {
    const lines = scanNumberLines(bytes('# counts\n2,0,0,0,0\n\n0,5,7,0,0\n# c\n1,4294967295,0,1,3'), [5], 5);
    expect(lines?.header).toEqual([2, 0, 0, 0, 0]);
    expect([...(lines?.values ?? [])]).toEqual([0, 5, 7, 0, 0, 1, 4294967295, 0, 1, 3]);
    expect(lines?.rows).toBe(2);
  });
  it.each([
    ['a carriage return', '1\n0,1\r\n'],
    ['a blank before a number', '1\n0, 1\n'],
    ['a missing field', '1\n0\n'],
    ['an extra field', '1\n0,1,2\n'],
    ['an empty field', '1\n0,,\n'],
    ['a number past 2^32 - 1', '1\n0,4294967296\n'],
    ['eleven digits', '1\n0,00000000001\n'],
    ['a sign', '1\n-0,1\n'],
    ['a missing header line', '# only a comment\n'],
  ])('gives up on %s', (_, text) => {
    expect(scanNumberLines(bytes(text), [1], 2)).toBeUndefined();
  });
});

describe("the threads' scan against the token-by-token parsers", () => {
  it('reads generated nodes and constraints files to the same program', () => {
    fc.assert(
      fc.property(programAndLayout, ([program, order, comments]) => {
        const nodeText = nodesText(program, order, comments);
        const nodes = parseHardekopfNodes(nodeText);
        // The scan takes these files itself (it gives up on none of them), to the same program.
        expect(nodesFromScan(nodeText)).toStrictEqual(nodes);
        const constraintText = formatHardekopfConstraints(program);
        const scanned = constraintsFromScan(constraintText, nodes);
        expect(scanned).toStrictEqual(parseHardekopfConstraints(constraintText, nodes));
        expect(scanned?.constraints).toStrictEqual(program.constraints);
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same program or the same positioned error on files with bytes changed', () => {
    fc.assert(
      fc.property(
        programAndLayout,
        fc.array(edit, { minLength: 1, maxLength: 3 }),
        fc.array(edit, { minLength: 0, maxLength: 3 }),
        ([program, order, comments], nodeEdits, constraintEdits) => {
          const nodeText = applyEdits(nodesText(program, order, comments), nodeEdits);
          const parsedNodes = outcome(() => parseHardekopfNodes(nodeText, { file: 'n.txt' }));
          expect(outcome(() => nodesByScan(nodeText, { file: 'n.txt' }))).toStrictEqual(parsedNodes);
          // Constraints (changed) against the unchanged nodes, and against changed nodes that read.
          const constraintText = applyEdits(formatHardekopfConstraints(program), constraintEdits);
          const nodeTables = [parseHardekopfNodes(formatHardekopfNodes(program))];
          if ('value' in parsedNodes) nodeTables.push(parsedNodes.value);
          for (const nodes of nodeTables) {
            for (const options of [{ file: 'c.txt' }, MAKE_OBJECT]) {
              const before = nodes.objectSize.slice();
              const scanned = outcome(() => constraintsByScan(constraintText, nodes, options));
              const parsed = outcome(() => parseHardekopfConstraints(constraintText, nodes, options));
              expect(scanned).toStrictEqual(parsed);
              // make-object works on a copy: the caller's node table is as it was.
              expect(nodes.objectSize).toStrictEqual(before);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('applies every rule at its edges as the parser does', () => {
    // Node 0 a 3-field object (the largest), 3 a 1-field object, 4 a function, 5 a plain variable.
    const nodes = parseHardekopfNodes('6\n3\n4\n0,3,0\n1,2,0\n2,1,0\n3,1,0\n4,0,1\n5,0,0\n');
    for (let kind = 0; kind <= 5; kind++) {
      for (const offset of [0, 1, 2, 3, 4]) {
        for (const [src, dst] of [
          [0, 5],
          [5, 0],
          [4, 5],
          [6, 5],
          [5, 6],
        ]) {
          const counts = [0, 0, 0, 0, 0];
          if (kind < 5) counts[kind] = 1;
          const text = `${counts.join(',')}\n0,${src},${dst},${kind},${offset}\n`;
          for (const options of [{ file: 'c.txt' }, MAKE_OBJECT]) {
            expect(outcome(() => constraintsByScan(text, nodes, options))).toStrictEqual(
              outcome(() => parseHardekopfConstraints(text, nodes, options)),
            );
          }
        }
      }
    }
  });

  it('makes the objects of x = &y with y not an object, as the parser does', () => {
    const nodes = parseHardekopfNodes('4\n0\n0\n0,1,0\n1,0,0\n2,0,0\n3,0,0\n');
    const text = '2,0,0,0,0\n0,2,1,0,0\n1,3,1,0,0\n';
    const scanned = constraintsFromScan(text, nodes, MAKE_OBJECT);
    expect(scanned).toStrictEqual(parseHardekopfConstraints(text, nodes, MAKE_OBJECT));
    expect([...(scanned?.objectSize ?? [])]).toEqual([1, 0, 1, 1]);
    expect([...nodes.objectSize]).toEqual([1, 0, 0, 0]);
  });
});

describe('readHardekopf on reader threads', () => {
  let threads: ReaderThreads | undefined;
  let dir = '';
  beforeAll(async () => {
    threads = createReaderThreads({ threads: 2 });
    dir = await mkdtemp(join(tmpdir(), 'gpumorph-read-threads-'));
  });
  afterAll(async () => {
    threads?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts in Node, and scans a file on a thread', async () => {
    expect(threads?.threads).toBe(2);
    // The threads' own answer (not the fallback on this thread): the rows of ex's nodes file.
    const answer = await threads?.read(join(hardekopfFixtures, 'ex_nodes.txt.gz'), [1, 1, 1], 3);
    expect(answer?.kind).toBe('lines');
    if (answer?.kind === 'lines') {
      expect(answer.lines.header).toEqual([11078, 2262, 89]);
      expect(answer.lines.rows).toBe(11078);
    }
    const bytes = await threads?.read(join(FIXTURES, 'tiny_hcd.txt'), [], 0);
    expect(bytes?.kind).toBe('bytes');
    if (bytes?.kind === 'bytes') expect(new TextDecoder().decode(bytes.bytes)).toMatch(/^# first row/);
  });

  it('reads the carried fixtures (plain and gzip) to the same input as this thread', async () => {
    for (const prefix of [join(hardekopfFixtures, 'ex'), join(FIXTURES, 'tiny')]) {
      for (const constraints of ['raw', 'after-hcd'] as const) {
        const here = await readHardekopf({ prefix }, { constraints });
        const there = await readHardekopf({ prefix }, { constraints, threads });
        expect(isDeepStrictEqual(there, here)).toBe(true);
      }
    }
  });

  it('gives the same input or the same error on generated files with bytes changed', async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        programAndLayout,
        fc.array(edit, { maxLength: 2 }),
        fc.array(edit, { maxLength: 2 }),
        fc.constantFrom('error', 'make-object' as const),
        async ([program, order, comments], nodeEdits, constraintEdits, nonObjectAddress) => {
          const prefix = join(dir, `p${file++}`);
          await writeFile(`${prefix}_nodes.txt`, applyEdits(nodesText(program, order, comments), nodeEdits));
          await writeFile(
            `${prefix}_constraints_after_hcd.txt`,
            applyEdits(formatHardekopfConstraints(program), constraintEdits),
          );
          const options = { nonObjectAddress } as const;
          const here = await outcomeOf(() => readHardekopf({ prefix }, options));
          const there = await outcomeOf(() => readHardekopf({ prefix }, { ...options, threads }));
          expect(there).toStrictEqual(here);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives the same error for a missing file and a corrupt gzip stream', async () => {
    const missing = { nodes: join(dir, 'none_nodes.txt'), constraints: join(dir, 'none_constraints.txt') };
    expect(await outcomeOf(() => readHardekopf(missing, { threads }))).toStrictEqual(
      await outcomeOf(() => readHardekopf(missing)),
    );
    const corrupt = join(dir, 'corrupt_nodes.txt.gz');
    await writeFile(corrupt, Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3));
    const files = { nodes: corrupt, constraints: join(hardekopfFixtures, 'ex_constraints_after_hcd.txt.gz') };
    const here = await outcomeOf(() => readHardekopf(files));
    expect('error' in here).toBe(true);
    expect(await outcomeOf(() => readHardekopf(files, { threads }))).toStrictEqual(here);
  });

  it('reads on this thread after destroy()', async () => {
    const pool = createReaderThreads({ threads: 1 });
    pool?.destroy();
    const prefix = join(hardekopfFixtures, 'ex');
    const input = await readHardekopf({ prefix }, { threads: pool });
    expect(isDeepStrictEqual(input, await readHardekopf({ prefix }))).toBe(true);
  });
});

describeEachBenchmark(['ex', 'perl', 'gcc', 'python', 'vim', 'php', 'mplayer', 'linux'])(
  'the $name benchmark on reader threads',
  (name) => {
    it('reads the same program, HCD table and solution on the threads as on this thread', async () => {
      const threads = createReaderThreads({ threads: 2 });
      try {
        const options = { nonObjectAddress: 'make-object' } as const;
        const there = await readHardekopf({ prefix: benchmarkPrefix(name) }, { ...options, threads });
        const here = await readHardekopf({ prefix: benchmarkPrefix(name) }, options);
        expect(isDeepStrictEqual(there, here)).toBe(true);
        const { readFile } = await import('node:fs/promises');
        const { gunzipSync } = await import('node:zlib');
        // And the threads' own rows, not a fallback: the scan takes the real files too.
        const nodes = nodesFromScan(gunzipSync(await readFile(here.files.nodes)));
        const careful = constraintsFromScan(
          gunzipSync(await readFile(here.files.constraints)),
          nodes as ConstraintProgram,
          options,
        );
        expect(isDeepStrictEqual(careful, here.program)).toBe(true);
      } finally {
        threads?.destroy();
      }
    }, 120_000);
  },
);
