/**
 * What the fuzzer feeds: every CLI analysis command with its example inputs as seeds and a
 * dictionary of tokens its language uses (mutations insert them), and the fixed regression cases
 * of the reliability contract, each with the exit status it must give.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScheme, formatMat, formatParams } from '@gpumorph/eigencfa';

/** The monorepo root. */
export const repoRoot = join(import.meta.dirname, '..', '..');

/** An engine the fuzzer runs every case on. */
export type FuzzEngine = 'cpu' | 'webgpu';

/** A CLI command fed one mutated input file. */
export interface CliTarget {
  readonly name: string;
  /** File name of the input (its extension picks the format). */
  readonly file: string;
  /** Texts mutations start from. */
  readonly seeds: readonly string[];
  /** Tokens mutations insert. */
  readonly dictionary: readonly string[];
  /** Other files the command reads, written unchanged into the case's folder. */
  readonly extras?: Readonly<Record<string, string>>;
  /** The command line for `input`, on `engine`, in `dir` (where the extras are). */
  argv(input: string, engine: FuzzEngine, dir: string): string[];
}

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const filesOf = (dir: string, ext: string) =>
  readdirSync(join(repoRoot, dir))
    .filter((name) => name.endsWith(ext))
    .sort()
    .map((name) => read(join(dir, name)));

/** `int a, b; int *pick(int c) { return c ? &a : &b; }` through a function pointer, as clang writes it. */
export const LL_SEED = `@a = dso_local global i32 0, align 4
@b = dso_local global i32 0, align 4
@handler = dso_local global ptr @pick, align 8
%struct.node = type { ptr, i32 }

define dso_local ptr @pick(i32 noundef %c) #0 {
entry:
  %tobool = icmp ne i32 %c, 0
  %cond = select i1 %tobool, ptr @a, ptr @b
  ret ptr %cond
}

define dso_local i32 @main() #0 {
entry:
  %n = alloca %struct.node, align 8
  %f = load ptr, ptr @handler, align 8
  %p = call ptr %f(i32 noundef 1)
  %next = getelementptr inbounds %struct.node, ptr %n, i32 0, i32 0
  store ptr %p, ptr %next, align 8
  call void @MAYALIAS(ptr noundef %p, ptr noundef @a)
  ret i32 0
}

declare void @MAYALIAS(ptr noundef, ptr noundef) #1
`;

/** The four files of a data-folder program (church.scm compiled), by file name. */
export function matrixFiles(): Readonly<Record<string, string>> {
  if (matrixTexts) return matrixTexts;
  const { matrices } = compileScheme(read('examples/eigencfa/church.scm'));
  matrixTexts = {
    'program-params.lst': `${formatParams(matrices)}\n`,
    'Fun.mat': formatMat(matrices.fun),
    'Arg1.mat': formatMat(matrices.arg1),
    'Arg2.mat': formatMat(matrices.arg2),
  };
  return matrixTexts;
}
let matrixTexts: Readonly<Record<string, string>> | undefined;

const engineFlag = (engine: FuzzEngine, cpu = 'cpu') => ['--engine', engine === 'cpu' ? cpu : 'webgpu'];

/** The CLI commands, each with its seeds. */
export function cliTargets(): CliTarget[] {
  const matrices = matrixFiles();
  const constraintSeeds = [
    read('examples/andersen/callbacks.constraints.txt'),
    read('packages/andersen/test/fixtures/example.constraints.txt'),
  ];
  return [
    {
      name: 'andersen solve (text)',
      file: 'program.txt',
      seeds: constraintSeeds,
      dictionary: [
        'nodes ',
        'node ',
        ' fields ',
        ' function',
        ' = &',
        ' = *',
        '*(',
        ' + ',
        '#',
        '"',
        '4294967295',
        '99999999999',
        '\n',
        ' = ',
      ],
      argv: (input, engine) => ['andersen', 'solve', '--input', input, ...engineFlag(engine)],
    },
    {
      name: 'andersen solve (JSON)',
      file: 'program.json',
      seeds: [read('packages/andersen/test/fixtures/example.constraints.json')],
      dictionary: [
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '"nodeCount"',
        '"constraints"',
        '-1',
        '1e400',
        'null',
        '4294967296',
        '"',
      ],
      argv: (input, engine) => ['andersen', 'solve', '--input', input, ...engineFlag(engine)],
    },
    {
      name: 'andersen solve --verify',
      file: 'reference.pts',
      seeds: [read('packages/andersen/test/fixtures/example.points-to.txt')],
      extras: { 'example.constraints.txt': read('packages/andersen/test/fixtures/example.constraints.txt') },
      dictionary: ['=>', '-', ' ', '\n', 'nodes ', '4294967295', '#'],
      argv: (input, engine, dir) => [
        'andersen',
        'solve',
        '--input',
        join(dir, 'example.constraints.txt'),
        '--verify',
        input,
        ...engineFlag(engine),
      ],
    },
    {
      name: 'andersen ll',
      file: 'module.ll',
      seeds: [LL_SEED],
      dictionary: [
        '%x',
        '@a',
        'ptr ',
        'getelementptr ',
        'call ',
        'store ',
        'load ',
        'define ',
        '{',
        '}',
        '(',
        ')',
        ', ',
        'asm ',
        'callbr ',
        '%struct.undefined',
      ],
      argv: (input, engine) => ['andersen', 'll', input, ...engineFlag(engine)],
    },
    ...(['program-params.lst', 'Fun.mat'] as const).map(
      (file): CliTarget => ({
        name: `cfa --matrices (${file})`,
        file,
        seeds: [matrices[file] as string],
        extras: Object.fromEntries(Object.entries(matrices).filter(([name]) => name !== file)),
        dictionary: ['(', ')', ' ', '\n', '0', '-1', '4294967295', '99999999999', '1.5', ';'],
        argv: (_, engine, dir) => ['cfa', '--matrices', dir, ...engineFlag(engine)],
      }),
    ),
    {
      name: 'cfa',
      file: 'program.scm',
      seeds: filesOf('examples/eigencfa', '.scm'),
      dictionary: [
        '(',
        ')',
        '(lambda (x) ',
        '(define ',
        '(let ',
        'call/cc',
        "'",
        '#t',
        '"',
        '#\\',
        '.',
        ' x',
        '1e99',
      ],
      argv: (input, engine) => ['cfa', input, ...engineFlag(engine)],
    },
    {
      name: 'octagon',
      file: 'program.oct',
      seeds: filesOf('examples/octagon', '.oct'),
      dictionary: [
        '(',
        ')',
        '{',
        '}',
        'while (',
        'if (',
        'assert(',
        ' + ',
        ' * ',
        '-',
        '!',
        '[',
        ']',
        '?',
        '12345678901234567890123456789012345678901234567890',
        ';',
      ],
      argv: (input, engine) => ['octagon', input, ...engineFlag(engine, 'f64')],
    },
  ];
}

/** A fixed case: files to write, the command line, and the exit status it must give. */
export interface RegressionCase {
  readonly name: string;
  readonly files: Readonly<Record<string, string>>;
  /** The exit status it must give. */
  readonly status: number;
  /** The status on the webgpu engine when it differs (an engine less precise, soundly). */
  readonly webgpuStatus?: number;
  /** Also run in its own process in every fuzzing run (the crashes at exit were there). */
  readonly ownProcess?: boolean;
  /** `{dir}` in an argument is the case's folder. */
  readonly argv: (engine: FuzzEngine) => string[];
}

const constraints = (lines: string) => `gpumorph-constraints 1\nnodes 3\nnode 0 fields 1\n${lines}`;

/** The commands of the reliability issue, fixed: each with the status the contract demands. */
export function regressionCases(): RegressionCase[] {
  const example = read('examples/andersen/callbacks.constraints.txt');
  const andersen = (file: string, engine: FuzzEngine, ...more: string[]) => [
    'andersen',
    'solve',
    '--input',
    `{dir}/${file}`,
    ...engineFlag(engine),
    ...more,
  ];
  return [
    {
      name: 'cfa: unbound variable',
      files: { 'p.scm': '(define (f x) (g x))\n(f 1)\n' },
      status: 2,
      ownProcess: true,
      argv: (e) => ['cfa', '{dir}/p.scm', ...engineFlag(e)],
    },
    {
      name: 'cfa: unclosed list',
      files: { 'p.scm': '(lambda (x)\n' },
      status: 2,
      argv: (e) => ['cfa', '{dir}/p.scm', ...engineFlag(e)],
    },
    {
      name: 'octagon: missing expression',
      files: { 'p.oct': 'x = 1;\nassert(x <= \n' },
      status: 2,
      ownProcess: true,
      argv: (e) => ['octagon', '{dir}/p.oct', ...engineFlag(e, 'f64')],
    },
    {
      name: 'andersen: node id past the last',
      files: { 'p.txt': constraints('1 = &0\n2 = &7\n') },
      status: 2,
      argv: (e) => andersen('p.txt', e),
    },
    {
      name: 'andersen: & of a non-object',
      files: { 'p.txt': constraints('1 = &2\n') },
      status: 2,
      argv: (e) => andersen('p.txt', e),
    },
    {
      name: 'andersen: offset past every object',
      files: { 'p.txt': constraints('1 = &0\n2 = *(1 + 5)\n') },
      status: 2,
      argv: (e) => andersen('p.txt', e),
    },
    {
      name: 'andersen: fields past the last node',
      files: { 'p.txt': 'gpumorph-constraints 1\nnodes 3\nnode 1 fields 5\n' },
      status: 2,
      argv: (e) => andersen('p.txt', e),
    },
    {
      name: 'andersen: nodes 200000000',
      files: { 'p.txt': 'gpumorph-constraints 1\nnodes 200000000\n' },
      status: 2,
      argv: (e) => andersen('p.txt', e),
    },
    {
      name: 'andersen: nodes 2000000000',
      files: { 'p.txt': 'gpumorph-constraints 1\nnodes 2000000000\n' },
      status: 2,
      argv: (e) => andersen('p.txt', e),
    },
    {
      name: 'octagon: a flat 10^4-term sum',
      files: { 'p.oct': `a = 1;\nx = ${Array(10_000).fill('a').join(' + ')};\n` },
      status: 2,
      argv: (e) => ['octagon', '{dir}/p.oct', ...engineFlag(e, 'f64')],
    },
    {
      name: 'octagon: 10^5-deep nesting',
      files: { 'p.oct': `x = ${'('.repeat(100_000)}1${')'.repeat(100_000)};\n` },
      status: 2,
      argv: (e) => ['octagon', '{dir}/p.oct', ...engineFlag(e, 'f64')],
    },
    {
      name: 'octagon: a 50-digit literal, exact',
      files: { 'p.oct': `x = ${'9'.repeat(50)};\nassert(x == ${'9'.repeat(50)});\n` },
      // Split in two tokens, it was a parse error (2); the float engine cannot prove it (1).
      status: 0,
      webgpuStatus: 1,
      argv: (e) => ['octagon', '{dir}/p.oct', '--engine', e === 'cpu' ? 'exact' : 'webgpu'],
    },
    {
      name: 'octagon: 300 variables (61 s before the limit)',
      files: { 'p.oct': Array.from({ length: 300 }, (_, i) => `v${i} = ${i};\n`).join('') },
      status: 2,
      argv: (e) => ['octagon', '{dir}/p.oct', ...engineFlag(e, 'f64')],
    },
    {
      name: 'cfa --matrices: 999999999 lambdas in a short file',
      files: { ...matrixFiles(), 'program-params.lst': '999999999 1999999998 193 32\n' },
      status: 2,
      argv: (e) => ['cfa', '--matrices', '{dir}', ...engineFlag(e)],
    },
    {
      name: 'andersen: --verify against no classes',
      files: { 'p.txt': example, 'r.pts': 'gpumorph-points-to 1\nnodes 32\n' },
      status: 1,
      argv: (e) => andersen('p.txt', e, '--verify', '{dir}/r.pts'),
    },
    {
      name: 'andersen: --verify of another size',
      files: { 'p.txt': example, 'r.pts': 'gpumorph-points-to 1\nnodes 31\n' },
      status: 2,
      argv: (e) => andersen('p.txt', e, '--verify', '{dir}/r.pts'),
    },
    {
      name: 'andersen: --out names the input',
      files: { 'p.txt': example },
      status: 2,
      argv: (e) => andersen('p.txt', e, '--out', '{dir}/p.txt'),
    },
    {
      name: 'andersen: --input with --nodes',
      files: { 'p.txt': example },
      status: 2,
      argv: (e) => andersen('p.txt', e, '--nodes', '{dir}/p.txt'),
    },
    {
      name: 'andersen: --constraint-set raw on a file',
      files: { 'p.txt': example },
      status: 2,
      argv: (e) => andersen('p.txt', e, '--constraint-set', 'raw'),
    },
    {
      name: 'andersen: --print with --json',
      files: { 'p.txt': example },
      status: 2,
      argv: (e) => andersen('p.txt', e, '--print', '--json'),
    },
  ];
}
