import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JS_STACK_LINE, repoRoot, runCliCaptured, spawnCli } from './helpers';

describe('usage errors', () => {
  it('an unknown command exits 2 with one error line and no stack trace', async () => {
    const run = await spawnCli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: unknown command 'frobnicate'/m);
    expect(run.stderr).not.toMatch(JS_STACK_LINE);
  });

  it('an unknown bench suite exits 2 and names the known suites', async () => {
    const run = await spawnCli(['bench', 'nonsense']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: unknown bench suite 'nonsense' \(known: .*\ballocator\b.*\)/m);
    expect(run.stderr).not.toMatch(JS_STACK_LINE);
  });

  it.each([
    [['bench', '--engine', 'gpu'], /--engine <list>.*'gpu' is invalid/],
    [['doctor', '--frob'], /unknown option '--frob'/],
    [['bench', 'allocator', 'nonsense', 'more'], /unknown bench suites 'nonsense', 'more'/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runCliCaptured(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('no command prints the help on stderr and exits 2', async () => {
    const run = await runCliCaptured([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: gpumorph');
    expect(run.stderr).toContain('doctor');
    expect(run.stderr).toContain('bench');
  });

  it('--help exits 0 and lists the commands', async () => {
    const run = await runCliCaptured(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/doctor/);
    expect(run.stdout).toMatch(/bench/);
  });
});

describe('andersen solve: options that contradict one another or mean nothing together', () => {
  const example = join(repoRoot, 'examples/andersen/callbacks.constraints.txt');
  const prefix = join(repoRoot, 'packages/andersen/test/fixtures/tiny');
  it.each([
    [['--input', example, '--nodes', 'x_nodes.txt'], /--input names the whole input; .*--nodes/],
    [['--input', prefix, '--hcd', 'x_hcd.txt'], /cannot be combined with --hcd/],
    [
      ['--input', example, '--constraint-set', 'raw'],
      /--constraint-set chooses a file of a Hardekopf prefix/,
    ],
    [
      ['--nodes', 'a', '--constraints', 'b', '--constraint-set', 'raw'],
      /with --nodes and --constraints, name the file/,
    ],
    [['--input', example, '--print', '--json'], /--print writes text, --json one JSON object/],
    [['--input', example, '--no-hcd'], /has no HCD table/],
    [['--input', prefix, '--no-hcd'], /--no-hcd needs --constraint-set raw/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runCliCaptured(['andersen', 'solve', '--engine', 'cpu', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('refuses --out naming an input (by any path) and leaves the input as it was', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gpumorph-out-'));
    try {
      const input = join(dir, 'program.txt');
      const text = await readFile(example, 'utf8');
      await writeFile(input, text);
      await symlink(input, join(dir, 'link.txt'));
      const reference = join(dir, 'reference.pts');
      expect((await runCliCaptured(['andersen', 'solve', '--input', input, '--out', reference])).code).toBe(
        0,
      );
      const pts = await readFile(reference, 'utf8');
      for (const [out, verify] of [
        [input, undefined],
        [join(dir, 'link.txt'), undefined],
        [join(dir, '.', 'program.txt'), undefined],
        [reference, reference],
      ] as const) {
        const run = await runCliCaptured([
          'andersen',
          'solve',
          '--input',
          input,
          '--out',
          out,
          ...(verify ? ['--verify', verify] : []),
        ]);
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(/--out .* would write over the input/);
      }
      expect(await readFile(input, 'utf8')).toBe(text);
      expect(await readFile(reference, 'utf8')).toBe(pts);
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
