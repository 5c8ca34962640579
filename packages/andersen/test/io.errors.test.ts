import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hardekopfFixtures } from '../../../test/data';
import { ConstraintModelError, ConstraintParseError } from '../src/errors';
import {
  parseConstraintJson,
  parseConstraintText,
  parseHardekopfConstraints,
  parseHardekopfHcd,
  parseHardekopfNodes,
  parseHardekopfSolution,
  parsePointsTo,
  readHardekopf,
} from '../src/io/index';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Four nodes: 0 a 2-field struct (0 and 1), 2 a function flag only, 3 a plain variable; largest object 2. */
const NODES = parseHardekopfNodes('4\n1\n2\n0,2,0\n1,1,0\n2,0,1\n3,0,0\n');
const constraints = (text: string) => () => parseHardekopfConstraints(text, NODES, { file: 'c.txt' });
const nodes = (text: string) => () => parseHardekopfNodes(text, { file: 'n.txt' });
const hcd = (text: string, nodeCount?: number) => () =>
  parseHardekopfHcd(text, { file: 'h.txt', ...(nodeCount === undefined ? {} : { nodeCount }) });
const solution = (text: string, nodeCount?: number) => () =>
  parseHardekopfSolution(text, { file: 's.txt', ...(nodeCount === undefined ? {} : { nodeCount }) });
const TEXT_HEAD = 'gpumorph-constraints 1\nnodes 3\nnode 0 x fields 1\nnode 1 p\n';
const text = (body: string) => () => parseConstraintText(`${TEXT_HEAD}${body}`, { file: 't.txt' });
const json = (body: string) => () => parseConstraintJson(body, { file: 'j.json' });
const JSON_HEAD =
  '{\n  "format": "gpumorph-constraints",\n  "version": 1,\n  "nodeCount": 3,\n  "objects": [[0, 1]],\n';
const pointsTo = (body: string) => () =>
  parsePointsTo(`gpumorph-points-to 1\nnodes 3\n${body}`, { file: 'p.txt' });

/** ex_nodes.txt.gz cut after 10,000 of its compressed bytes. */
const truncatedGzip = readFileSync(`${hardekopfFixtures}/ex_nodes.txt.gz`).subarray(0, 10_000);
/** A gzip header followed by bytes that are not a deflate stream. */
const corruptGzip = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0);

interface Case {
  readonly name: string;
  readonly run: () => unknown;
  readonly error: typeof ConstraintParseError | typeof ConstraintModelError;
  /** `file:line:column` of the offending token. */
  readonly at: string;
  /** Part of the reason. */
  readonly says: string;
}

const cases: Case[] = [
  // Hardekopf nodes files
  {
    name: 'empty nodes file',
    run: nodes(''),
    error: ConstraintParseError,
    at: 'n.txt:1:1',
    says: 'empty file',
  },
  {
    name: 'bad number in a node line',
    run: nodes('4\n1\n1\n0,x,0\n'),
    error: ConstraintParseError,
    at: 'n.txt:4:3',
    says: "expected object size (a non-negative integer), found 'x'",
  },
  {
    name: 'node line missing a field',
    run: nodes('4\n1\n1\n0,2\n'),
    error: ConstraintParseError,
    at: 'n.txt:4:4',
    says: "missing ',' between the object size and the function flag",
  },
  {
    name: 'node count that does not fit in 32 bits',
    run: nodes('99999999999\n'),
    error: ConstraintParseError,
    at: 'n.txt:1:1',
    says: 'does not fit in 32 bits',
  },
  {
    name: 'function flag other than 0 or 1',
    run: nodes('1\n0\n0\n0,1,2\n'),
    error: ConstraintParseError,
    at: 'n.txt:4:5',
    says: 'function flag 2 is neither 0 nor 1',
  },
  {
    name: 'node id out of range',
    run: nodes('2\n0\n0\n0,1,0\n7,0,0\n'),
    error: ConstraintModelError,
    at: 'n.txt:5:1',
    says: 'node id 7 is not a node: line 1 says there are 2',
  },
  {
    name: 'object fields past the last node',
    run: nodes('2\n0\n0\n0,1,0\n1,3,0\n'),
    error: ConstraintModelError,
    at: 'n.txt:5:3',
    says: 'object 1 has 3 fields, running past the last node 1',
  },
  {
    name: 'a node missing from the nodes file',
    run: nodes('3\n0\n0\n0,1,0\n1,0,0\n'),
    error: ConstraintParseError,
    at: 'n.txt:6:1',
    says: 'the file lists 2 nodes but line 1 says 3: node 2 is missing',
  },
  {
    name: 'a node listed twice',
    run: nodes('2\n0\n0\n0,1,0\n0,1,0\n'),
    error: ConstraintParseError,
    at: 'n.txt:5:1',
    says: 'node 0 is listed twice (first on line 4)',
  },
  {
    name: 'truncated gzip (a real .gz cut short)',
    run: () => parseHardekopfNodes(truncatedGzip, { file: 'ex_nodes.txt.gz' }),
    error: ConstraintParseError,
    // `head -c 10000 ex_nodes.txt.gz | zcat` recovers 4147 whole lines: the text stops at 4148:1.
    at: 'ex_nodes.txt.gz:4148:1',
    says: 'the gzip stream is truncated or corrupt (unexpected end of file): its text stops here',
  },
  {
    name: 'corrupt gzip',
    run: () => parseHardekopfNodes(corruptGzip, { file: 'bad.gz' }),
    error: ConstraintParseError,
    at: 'bad.gz:1:1',
    says: 'nothing could be decompressed',
  },
  // Hardekopf constraints files
  {
    name: 'empty constraints file',
    run: constraints(''),
    error: ConstraintParseError,
    at: 'c.txt:1:1',
    says: 'empty file',
  },
  {
    name: 'constraints file with only comments',
    run: constraints('# number of constraints\n'),
    error: ConstraintParseError,
    at: 'c.txt:2:1',
    says: 'no content, only comments: expected the counts line',
  },
  {
    name: 'counts line disagreeing with the constraints',
    run: constraints('# counts\n1,1,0,0,0\n0,0,1,0,0\n'),
    error: ConstraintParseError,
    at: 'c.txt:2:3',
    says: 'the counts line says 1 copy constraints but the file has 0',
  },
  {
    name: 'counts line with four counts',
    run: constraints('1,0,0,0\n'),
    error: ConstraintParseError,
    at: 'c.txt:1:8',
    says: "missing ',' between the counts of the counts line",
  },
  {
    name: 'unknown constraint type',
    run: constraints('1,0,0,0,0\n0,0,1,7,0\n'),
    error: ConstraintParseError,
    at: 'c.txt:2:7',
    says: 'unknown constraint type 7',
  },
  {
    name: 'constraint line missing the offset',
    run: constraints('0,1,0,0,0\n0,1,2,1\n'),
    error: ConstraintParseError,
    at: 'c.txt:2:8',
    says: "missing ',' after the constraint type",
  },
  {
    name: 'constraint line with a sixth field',
    run: constraints('0,1,0,0,0\n0,1,2,1,0,5\n'),
    error: ConstraintParseError,
    at: 'c.txt:2:10',
    says: "unexpected ',' after the offset (a constraint line has five fields",
  },
  {
    name: 'source id out of range',
    run: constraints('1,0,0,0,0\n0,9,1,0,0\n'),
    error: ConstraintModelError,
    at: 'c.txt:2:3',
    says: 'constraint 0: source 9 is not a node (there are 4)',
  },
  {
    name: 'destination id out of range',
    run: constraints('0,1,0,0,0\n0,1,4,1,0\n'),
    error: ConstraintModelError,
    at: 'c.txt:2:5',
    says: 'constraint 0: destination 4 is not a node (there are 4)',
  },
  {
    name: 'address of a non-object',
    run: constraints('1,0,0,0,0\n0,3,1,0,0\n'),
    error: ConstraintModelError,
    at: 'c.txt:2:3',
    says: "takes the address of 3, which is not an object; read it with { nonObjectAddress: 'make-object' }",
  },
  {
    name: 'offset past every object',
    run: constraints('0,0,1,0,0\n# load\n0,1,2,2,5\n'),
    error: ConstraintModelError,
    at: 'c.txt:3:9',
    says: 'constraint 0: n2 = *(n1 + 5): offset 5 is past every object (the largest has 2 fields)',
  },
  {
    name: 'copy with an offset',
    run: constraints('0,1,0,0,0\n0,1,2,1,3\n'),
    error: ConstraintModelError,
    at: 'c.txt:2:9',
    says: 'a copy has offset 3',
  },
  // Hardekopf HCD files
  {
    name: 'HCD file without its online section',
    run: hcd('# merges\n1\n2,3\n'),
    error: ConstraintParseError,
    at: 'h.txt:4:1',
    says: 'the online HCD section is missing',
  },
  {
    name: 'HCD merge count disagreeing',
    run: hcd('2\n1,2\n#\n0,0\n'),
    error: ConstraintParseError,
    at: 'h.txt:1:1',
    says: 'the first section says 2 offline merges but has 1',
  },
  {
    name: 'HCD online pair count disagreeing',
    run: hcd('0\n#\n1,2\n4,3\n'),
    error: ConstraintParseError,
    at: 'h.txt:3:3',
    says: 'the online section says 2 pairs but has 1',
  },
  {
    name: 'HCD distinct y count disagreeing',
    run: hcd('0\n#\n2,2\n4,3\n4,5\n'),
    error: ConstraintParseError,
    at: 'h.txt:3:1',
    says: 'the online section says 2 distinct y but its pairs have 1',
  },
  {
    name: 'HCD pair naming a node out of range',
    run: hcd('0\n#\n1,1\n4,9\n', 5),
    error: ConstraintModelError,
    at: 'h.txt:4:3',
    says: 'online HCD pair names node 9, but there are 5 nodes',
  },
  // Hardekopf solution files
  {
    name: 'empty solution file',
    run: solution(''),
    error: ConstraintParseError,
    at: 's.txt:1:1',
    says: 'empty file',
  },
  {
    name: "solution line missing '=>'",
    run: solution('3\n[0, 1] [2]\n'),
    error: ConstraintParseError,
    at: 's.txt:2:8',
    says: "missing '=>' between the variables and their points-to set (found '[2]')",
  },
  {
    name: "solution list missing its ']'",
    run: solution('3\n[0, 1 => [2]\n'),
    error: ConstraintParseError,
    at: 's.txt:2:7',
    says: "expected ',' or ']' in the list of variables, found '=>'",
  },
  {
    name: 'solution variable out of range',
    run: solution('3\n[0, 5] => []\n'),
    error: ConstraintModelError,
    at: 's.txt:2:5',
    says: 'variable 5 is not a node: line 1 says there are 3',
  },
  {
    name: 'solution variable in two classes',
    run: solution('3\n[0] => []\n[1, 0] => [2]\n'),
    error: ConstraintParseError,
    at: 's.txt:3:1',
    says: 'variable 0 is already in the class on line 2',
  },
  {
    name: 'solution for another node count',
    run: solution('3\n[0] => []\n', 4),
    error: ConstraintModelError,
    at: 's.txt:1:1',
    says: 'the solution is for 3 nodes but the program has 4',
  },
  // gpumorph-constraints text
  {
    name: 'empty text file',
    run: () => parseConstraintText('', { file: 't.txt' }),
    error: ConstraintParseError,
    at: 't.txt:1:1',
    says: 'empty file',
  },
  {
    name: 'text format of another version',
    run: () => parseConstraintText('# v2\ngpumorph-constraints 2\n', { file: 't.txt' }),
    error: ConstraintParseError,
    at: 't.txt:2:22',
    says: 'unsupported gpumorph-constraints version 2',
  },
  {
    name: 'text without a nodes line',
    run: () => parseConstraintText('gpumorph-constraints 1\n0 = 1\n', { file: 't.txt' }),
    error: ConstraintParseError,
    at: 't.txt:2:1',
    says: "expected 'nodes N' before any declaration or constraint",
  },
  {
    name: 'unknown node name',
    run: text('p = &y\n'),
    error: ConstraintParseError,
    at: 't.txt:5:6',
    says: 'unknown node name "y"',
  },
  {
    name: 'name shared by two nodes',
    run: text('node 2 p\nx = p\n'),
    error: ConstraintParseError,
    at: 't.txt:6:5',
    says: 'the name "p" belongs to several nodes; refer to the node by its id',
  },
  {
    name: 'bad number in the text format',
    run: text('12ab = p\n'),
    error: ConstraintParseError,
    at: 't.txt:5:1',
    says: "bad number '12ab'",
  },
  {
    name: 'missing source in the text format',
    run: text('p = \n'),
    error: ConstraintParseError,
    at: 't.txt:5:5',
    says: 'expected the source node (a name or an id), found end of line',
  },
  {
    name: 'unclosed *( in the text format',
    run: text('p = *(p + 0\n'),
    error: ConstraintParseError,
    at: 't.txt:5:12',
    says: "expected ')' closing *(… + offset), found end of line",
  },
  {
    name: 'node id out of range in the text format',
    run: text('p = 5\n'),
    error: ConstraintModelError,
    at: 't.txt:5:5',
    says: 'source node 5 is not a node (there are 3)',
  },
  {
    name: 'address of a non-object in the text format',
    run: text('x = &p\n'),
    error: ConstraintModelError,
    at: 't.txt:5:6',
    says: 'takes the address of 1, which is not an object',
  },
  {
    name: 'offset past every object in the text format',
    run: text('p = *(x + 3)\n'),
    error: ConstraintModelError,
    at: 't.txt:5:11',
    says: 'offset 3 is past every object (the largest has 1 fields)',
  },
  {
    name: 'object past the last node in the text format',
    run: text('node 2 s fields 2\n'),
    error: ConstraintModelError,
    at: 't.txt:5:17',
    says: 'object 2 has 2 fields, running past the last node 2',
  },
  {
    name: 'node declared after a constraint',
    run: text('p = &x\nnode 2 q\n'),
    error: ConstraintParseError,
    at: 't.txt:6:1',
    says: 'node declarations come before the first constraint',
  },
  // gpumorph-constraints JSON
  {
    name: 'empty JSON file',
    run: json(' \n'),
    error: ConstraintParseError,
    at: 'j.json:1:1',
    says: 'empty file',
  },
  {
    name: 'invalid JSON (a missing comma)',
    run: json(`${JSON_HEAD}  "functions": []\n  "constraints": []\n}\n`),
    error: ConstraintParseError,
    at: 'j.json:7:3',
    says: "invalid JSON: expected ',' or '}'",
  },
  {
    name: 'JSON of another format',
    run: json('{ "format": "gpumorph-points-to", "version": 1 }'),
    error: ConstraintParseError,
    at: 'j.json:1:13',
    says: 'not a gpumorph-constraints document: "format" is "gpumorph-points-to"',
  },
  {
    name: 'JSON with an unknown key',
    run: json(`${JSON_HEAD}  "constraint": []\n}\n`),
    error: ConstraintParseError,
    at: 'j.json:6:17',
    says: 'unknown key "constraint"',
  },
  {
    name: 'JSON constraint of an unknown kind',
    run: json(`${JSON_HEAD}  "constraints": [\n    ["addr", 1, 0],\n    ["jump", 1, 0]\n  ]\n}\n`),
    error: ConstraintParseError,
    at: 'j.json:8:6',
    says: 'unknown kind "jump" (one of addr, copy, load, store, offset)',
  },
  {
    name: 'JSON constraint missing a field',
    run: json(`${JSON_HEAD}  "constraints": [["copy", 1]]\n}\n`),
    error: ConstraintParseError,
    at: 'j.json:6:19',
    says: 'a constraint is [kind, dst, src] or [kind, dst, src, offset], found 2 values',
  },
  {
    name: 'JSON node id out of range',
    run: json(`${JSON_HEAD}  "constraints": [["copy", 1, 9]]\n}\n`),
    error: ConstraintModelError,
    at: 'j.json:6:31',
    says: 'constraint 0: source 9 is not a node (there are 3)',
  },
  {
    name: 'JSON address of a non-object',
    run: json(`${JSON_HEAD}  "constraints": [["addr", 0, 2]]\n}\n`),
    error: ConstraintModelError,
    at: 'j.json:6:31',
    says: 'takes the address of 2, which is not an object',
  },
  {
    name: 'JSON offset past every object',
    run: json(`${JSON_HEAD}  "constraints": [["load", 1, 0, 4]]\n}\n`),
    error: ConstraintModelError,
    at: 'j.json:6:34',
    says: 'offset 4 is past every object',
  },
  // gpumorph-points-to
  {
    name: "points-to line missing '=>'",
    run: pointsTo('0 1 2\n'),
    error: ConstraintParseError,
    at: 'p.txt:3:6',
    says: "missing '=>' between the variables and their points-to set (found end of line)",
  },
  {
    name: 'points-to ids out of order',
    run: pointsTo('2 1 => 0\n'),
    error: ConstraintParseError,
    at: 'p.txt:3:3',
    says: 'variable 1 does not come after 2',
  },
  {
    name: 'points-to range running backwards',
    run: pointsTo('0 => 2-1\n'),
    error: ConstraintParseError,
    at: 'p.txt:3:6',
    says: 'range 2-1 runs backwards',
  },
  {
    name: 'points-to id out of range',
    run: pointsTo('0 => 1 5\n'),
    error: ConstraintModelError,
    at: 'p.txt:3:8',
    says: 'object 5 is not a node: the file says there are 3',
  },
  {
    name: 'points-to variable in two classes',
    run: pointsTo('0-1 => 2\n1 =>\n'),
    error: ConstraintParseError,
    at: 'p.txt:4:1',
    says: 'variable 1 is already in the class on line 3',
  },
  {
    name: 'points-to file without its header',
    run: () => parsePointsTo('nodes 3\n', { file: 'p.txt' }),
    error: ConstraintParseError,
    at: 'p.txt:1:1',
    says: "not a points-to file: expected 'gpumorph-points-to 1', found 'nodes'",
  },
];

/** The error `run` throws (it must throw). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, but the input was accepted');
}

/** `file:line:column` of a parse or model error. */
function where(error: unknown): string {
  if (error instanceof ConstraintParseError) return `${error.file}:${error.line}:${error.column}`;
  if (error instanceof ConstraintModelError && error.position) {
    const { file, line, column } = error.position;
    return `${file}:${line}:${column}`;
  }
  return 'no position';
}

describe('malformed input', () => {
  it.each(cases)('$name: $at', ({ run, error, at, says }) => {
    const e = thrown(run);
    expect(e).toBeInstanceOf(error);
    expect(where(e)).toBe(at);
    expect((e as Error).message.startsWith(`${at}: `)).toBe(true);
    expect((e as Error).message).toContain(says);
  });

  it('a truncated gzip keeps the decompressor error as its cause', () => {
    const e = thrown(() => parseHardekopfNodes(truncatedGzip, { file: 'ex_nodes.txt.gz' }));
    expect((e as Error).cause).toMatchObject({ code: 'Z_BUF_ERROR' });
  });

  it('readHardekopf positions an error in the truncated file it read', async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), 'gpumorph-io-'));
    try {
      await fs.copyFile(`${FIXTURES}tiny_nodes.txt`, `${dir}/t_nodes.txt`);
      const gz = readFileSync(`${FIXTURES}tiny_constraints_after_hcd.txt.gz`);
      await fs.writeFile(`${dir}/t_constraints_after_hcd.txt.gz`, gz.subarray(0, gz.length - 12));
      const e = await readHardekopf({ prefix: `${dir}/t` }).catch((error: unknown) => error);
      expect(e).toBeInstanceOf(ConstraintParseError);
      expect((e as ConstraintParseError).file).toBe(`${dir}/t_constraints_after_hcd.txt.gz`);
      expect((e as ConstraintParseError).reason).toContain('the gzip stream is truncated or corrupt');
    } finally {
      await fs.rm(dir, { recursive: true });
    }
  });

  it("the linux kind of input reads with { nonObjectAddress: 'make-object' }, making the node an object", () => {
    const program = parseHardekopfConstraints('1,0,0,0,0\n0,3,1,0,0\n', NODES, {
      nonObjectAddress: 'make-object',
    });
    expect(program.objectSize[3]).toBe(1);
    expect(NODES.objectSize[3]).toBe(0);
  });
});
