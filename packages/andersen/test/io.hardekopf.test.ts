import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decompress,
  formatHardekopfConstraints,
  formatHardekopfHcd,
  formatHardekopfNodes,
  formatHardekopfSolution,
  type HardekopfInput,
  type HcdTable,
  parseHardekopfConstraints,
  parseHardekopfHcd,
  parseHardekopfNodes,
  parseHardekopfSolution,
  type ReferenceSolution,
  readHardekopf,
} from '../src/io/index';
import { countByKind, validateProgram } from '../src/model/index';
import { constraintProgram } from '../src/testing/index';
import { benchmarkPrefix, describeEachBenchmark } from './benchmarks';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Figures read off the files with zcat/awk, independently of the parser. */
const benchmarks = [
  {
    name: 'ex',
    nodes: 11078,
    lastObject: 2262,
    lastFunction: 89,
    raw: [1425, 6844, 2574, 1547, 826],
    afterHcd: [1423, 3881, 1940, 611, 826],
    merges: 1574,
    onlineDistinct: 74,
    onlinePairs: 110,
    classes: 1644,
  },
  {
    name: 'perl',
    nodes: 53361,
    lastObject: 4599,
    lastFunction: 1021,
    raw: [3879, 37480, 14168, 4857, 8261],
    afterHcd: [3467, 27972, 13157, 3120, 8261],
    merges: 5276,
    onlineDistinct: 52,
    onlinePairs: 140,
    classes: 3201,
  },
  {
    name: 'gcc',
    nodes: 120870,
    lastObject: 13217,
    lastFunction: 990,
    raw: [7504, 94006, 26385, 6790, 21591],
    afterHcd: [6224, 68225, 25506, 5625, 21591],
    merges: 7901,
    onlineDistinct: 122,
    onlinePairs: 441,
    classes: 7605,
  },
] as const;

const cache = new Map<string, Promise<HardekopfInput>>();
/** Each benchmark is read once per file of tests. */
function load(name: string, constraints: 'raw' | 'after-hcd' = 'after-hcd'): Promise<HardekopfInput> {
  const key = `${name}:${constraints}`;
  let input = cache.get(key);
  if (!input) {
    input = readHardekopf({ prefix: benchmarkPrefix(name) }, { constraints });
    cache.set(key, input);
  }
  return input;
}

describeEachBenchmark(benchmarks)('the $name benchmark', (b) => {
  it('reads the nodes file: node count, header, objects', async () => {
    const { program } = await load(b.name);
    expect(program.nodeCount).toBe(b.nodes);
    expect(program.objectSize.length).toBe(b.nodes);
    expect(program.hardekopf).toEqual({ lastObject: b.lastObject, lastFunction: b.lastFunction });
    expect(program.objectSize[b.lastObject]).toBeGreaterThan(0);
    expect(program.objectSize.subarray(b.lastObject + 1).every((size) => size === 0)).toBe(true);
  });

  it('reads the after-HCD constraints, agreeing with their counts line', async () => {
    const { program, files } = await load(b.name);
    expect(files.constraints).toBe(`${benchmarkPrefix(b.name)}_constraints_after_hcd.txt.gz`);
    expect(countByKind(program.constraints)).toEqual(b.afterHcd);
    // HCD merged loads and stores onto offset 0.
    const c = program.constraints;
    const offsets = new Set<number>();
    for (let i = 0; i < c.length; i++)
      if (c.kind[i] === 2 || c.kind[i] === 3) offsets.add(c.offset[i] as number);
    expect([...offsets]).toEqual([0]);
    expect(() => validateProgram(program)).not.toThrow();
  });

  it('reads the raw constraints with { constraints: "raw" }', async () => {
    const { program, files } = await load(b.name, 'raw');
    expect(files.constraints).toBe(`${benchmarkPrefix(b.name)}_constraints.txt.gz`);
    expect(countByKind(program.constraints)).toEqual(b.raw);
  });

  it('reads the HCD table: both sections, with their sizes', async () => {
    const { hcd, files } = await load(b.name);
    expect(files.hcd).toBe(`${benchmarkPrefix(b.name)}_hcd.txt.gz`);
    expect(hcd?.offlineMerges.length).toBe(2 * b.merges);
    expect(hcd?.online.length).toBe(2 * b.onlinePairs);
    const ys = new Set<number>();
    for (let i = 0; i < (hcd?.online.length ?? 0); i += 2) ys.add(hcd?.online[i] as number);
    expect(ys.size).toBe(b.onlineDistinct);
  });

  it('reads the reference solution: its classes cover the N variables once each', async () => {
    const { solution } = await load(b.name);
    expect(solution?.nodeCount).toBe(b.nodes);
    expect(solution?.classes.length).toBe(b.classes);
    const seen = new Uint8Array(b.nodes);
    let listed = 0;
    for (const c of solution?.classes ?? []) {
      for (const v of c.variables) seen[v] = (seen[v] as number) + 1;
      listed += c.variables.length;
    }
    expect(listed).toBe(b.nodes);
    expect(seen.every((times) => times === 1)).toBe(true);
  });
});

// gcc is left out here: comparing its 150k constraints element by element takes seconds.
describeEachBenchmark(benchmarks.slice(0, 2))('the $name benchmark written back', (b) => {
  it('writes nodes, constraints, HCD table and solution that read back identical', async () => {
    const { program, hcd, solution } = await load(b.name);
    const nodes = parseHardekopfNodes(formatHardekopfNodes(program));
    const back = parseHardekopfConstraints(formatHardekopfConstraints(program), nodes);
    expect(back).toStrictEqual(program);
    expect(parseHardekopfHcd(formatHardekopfHcd(hcd as HcdTable))).toStrictEqual(hcd);
    expect(parseHardekopfSolution(formatHardekopfSolution(solution as ReferenceSolution))).toStrictEqual(
      solution,
    );
  });
});

describe('gzip detection', () => {
  it('reads plain and gzip-compressed bytes of one file the same, whatever the name says', async () => {
    const gz = await readFile(`${benchmarkPrefix('ex')}_nodes.txt.gz`);
    const plain = await decompress(gz, 'ex_nodes.txt.gz');
    expect(plain[0]).not.toBe(0x1f);
    expect(parseHardekopfNodes(plain, { file: 'ex_nodes.txt.gz' })).toStrictEqual(
      parseHardekopfNodes(gz, { file: 'ex_nodes.txt' }),
    );
  });
});

describe('readHardekopf on the tiny fixture', () => {
  it('finds plain and .gz files by prefix and leaves out a missing solution', async () => {
    const input = await readHardekopf({ prefix: `${FIXTURES}tiny` });
    expect(input.files).toEqual({
      nodes: `${FIXTURES}tiny_nodes.txt`,
      constraints: `${FIXTURES}tiny_constraints_after_hcd.txt.gz`,
      hcd: `${FIXTURES}tiny_hcd.txt`,
    });
    expect(input.solution).toBeUndefined();
    expect(input.hcd).toStrictEqual({ offlineMerges: Uint32Array.of(5, 3), online: Uint32Array.of(4, 3) });
    expect(countByKind(input.program.constraints)).toEqual([2, 0, 1, 1, 1]);
  });

  it('reads the files named one by one, raw constraints keeping file order', async () => {
    const input = await readHardekopf({
      nodes: `${FIXTURES}tiny_nodes.txt`,
      constraints: `${FIXTURES}tiny_constraints.txt`,
    });
    const c = input.program.constraints;
    expect([...c.kind]).toEqual([0, 0, 1, 2, 3, 4]);
    expect([...c.dst]).toEqual([3, 4, 5, 4, 3, 5]);
    expect([...c.src]).toEqual([0, 2, 3, 3, 4, 3]);
    expect([...c.offset]).toEqual([0, 0, 0, 1, 0, 1]);
    expect(input.hcd).toBeUndefined();
  });

  it('names the missing file when the prefix finds no nodes file', async () => {
    await expect(readHardekopf({ prefix: `${FIXTURES}absent` })).rejects.toThrow(
      `${FIXTURES}absent_nodes.txt:1:1: the nodes file is missing: neither ${FIXTURES}absent_nodes.txt nor ${FIXTURES}absent_nodes.txt.gz exists`,
    );
  });
});

describe('Hardekopf round trips of generated programs', () => {
  it('nodes and constraints read back identical, with the derived header', () => {
    fc.assert(
      fc.property(constraintProgram({ names: false }), (program) => {
        const nodes = parseHardekopfNodes(formatHardekopfNodes(program));
        const back = parseHardekopfConstraints(formatHardekopfConstraints(program), nodes);
        const lastNonzero = (a: ArrayLike<number>) => {
          for (let i = a.length - 1; i >= 0; i--) if (a[i] !== 0) return i;
          return 0;
        };
        expect(back).toStrictEqual({
          ...program,
          hardekopf: {
            lastObject: lastNonzero(program.objectSize),
            lastFunction: lastNonzero(program.isFunction),
          },
        });
      }),
    );
  });

  it('an HCD table reads back identical', () => {
    const pairs = fc
      .array(fc.tuple(fc.nat(5000), fc.nat(5000)), { maxLength: 30 })
      .map((list) => Uint32Array.from(list.flat()));
    fc.assert(
      fc.property(pairs, pairs, (offlineMerges, online) => {
        const table = { offlineMerges, online };
        expect(parseHardekopfHcd(formatHardekopfHcd(table))).toStrictEqual(table);
      }),
    );
  });

  it('a solution reads back identical', () => {
    const solution = fc.integer({ min: 1, max: 60 }).chain((nodeCount) =>
      fc
        .array(fc.tuple(fc.nat(7), fc.uniqueArray(fc.nat(nodeCount - 1), { maxLength: 6 })), {
          minLength: nodeCount,
          maxLength: nodeCount,
        })
        .map((assignment): ReferenceSolution => {
          // Variables grouped by an arbitrary class number; points-to set of each class as generated.
          const byClass = new Map<number, { variables: number[]; pointsTo: number[] }>();
          assignment.forEach(([cls, set], v) => {
            const entry = byClass.get(cls) ?? { variables: [], pointsTo: set };
            entry.variables.push(v);
            byClass.set(cls, entry);
          });
          return {
            nodeCount,
            classes: [...byClass.values()].map((c) => ({
              variables: Uint32Array.from(c.variables),
              pointsTo: Uint32Array.from(c.pointsTo),
            })),
          };
        }),
    );
    fc.assert(
      fc.property(solution, (s) => {
        expect(parseHardekopfSolution(formatHardekopfSolution(s))).toStrictEqual(s);
      }),
    );
  });
});
