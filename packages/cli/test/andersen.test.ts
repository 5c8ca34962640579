import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parsePointsTo } from '@gpumorph/andersen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AndersenSolveReport } from '../src/commands/andersen';
import { repoRoot, runCliCaptured, spawnCli } from './helpers';

const example = resolve(repoRoot, 'examples/andersen/callbacks.constraints.txt');
const data = resolve(repoRoot, '../shared/data/andersen/hardekopf');
const hasData = existsSync(join(data, 'ex_nodes.txt.gz'));
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpumorph-andersen-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gpumorph andersen solve', () => {
  it('solves the README example and prints its points-to sets by name', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--input', example, '--print']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('engine          cpu');
    // The indirect call h->fn(h->arg) in run() reaches both handlers, each seeing both nodes.
    expect(run.stdout).toContain('run.fn -> {on_a, on_b}');
    expect(run.stdout).toContain('on_a.p -> {n1, n2}');
    expect(run.stdout).toContain('n1.data -> {a, b}');
    expect(run.stdout).toContain('main.it -> {n1, n2}');
  });

  it('writes --json and --out (gpumorph-points-to 1) that reads back to the same sets', async () => {
    const out = join(dir, 'callbacks.pts');
    const run = await runCliCaptured(['andersen', 'solve', '--input', example, '--json', '--out', out]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as AndersenSolveReport;
    expect(report.engine).toBe('cpu');
    expect(report.sizes.nodes).toBe(32);
    expect(report.sizes.constraints).toEqual({
      total: 22,
      addressOf: 8,
      copy: 7,
      load: 4,
      store: 3,
      offset: 0,
    });
    expect(report.result.verification).toBeNull();
    expect(report.result.iterations).toBeGreaterThan(0);
    expect(report.sizes.peakMemoryBytes).toBeGreaterThan(0);
    expect(report.result.pointsToEdges).toBe(40);
    const written = parsePointsTo(await readFile(out), { file: out });
    const total = written.classes.reduce((sum, c) => sum + c.variables.length * c.pointsTo.length, 0);
    expect(total).toBe(40);
  });

  it('verifies against a gpumorph-points-to file and fails with status 1 on a difference', async () => {
    const good = join(dir, 'good.pts');
    await runCliCaptured(['andersen', 'solve', '--input', example, '--out', good]);
    const ok = await runCliCaptured(['andersen', 'solve', '--input', example, '--verify', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/verification\s+exact: 32 variables/);
    // A wrong reference: run.fn (node 26) said to reach on_a (11) only, not on_b (14) too.
    const text = await readFile(good, 'utf8');
    expect(text).toMatch(/^26 => 11 14$/m);
    const bad = join(dir, 'bad.pts');
    await writeFile(bad, text.replace(/^26 => 11 14$/m, '26 => 11'));
    const failed = await runCliCaptured(['andersen', 'solve', '--input', example, '--verify', bad]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('1 of 32 variables differ');
  });

  it('names file, line and column of a malformed input, without a stack trace', async () => {
    const broken = join(dir, 'broken.txt');
    await writeFile(broken, 'gpumorph-constraints 1\nnodes 2\np = &&q\n');
    const run = await spawnCli(['andersen', 'solve', '--input', broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${broken}:3:`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('solves with --engine webgpu on an adapter, and refuses with a clear error without one', async () => {
    const run = await runCliCaptured([
      'andersen',
      'solve',
      '--input',
      example,
      '--engine',
      'webgpu',
      '--json',
    ]);
    if (run.code === 0) {
      const report = JSON.parse(run.stdout) as AndersenSolveReport;
      expect(report.engine).toBe('webgpu');
      expect(report.adapter).not.toBeNull();
    } else {
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('no WebGPU adapter');
    }
  }, 120_000);

  it.skipIf(!hasData)(
    "solves ex from the PPoPP'12 suite by prefix and verifies every variable exactly (node 1's contents empty)",
    async () => {
      const run = await runCliCaptured(['andersen', 'solve', '--input', join(data, 'ex'), '--json']);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout) as AndersenSolveReport;
      expect(report.sizes.nodes).toBe(11078);
      expect(report.sizes.hcd).toEqual({ offlineMerges: 1574, onlinePairs: 110 });
      expect(report.result.opaqueObjects).toEqual({ nodes: [1], contents: 'empty' });
      expect(report.result.verification?.exact).toBe(true);
      expect(report.result.verification?.checked).toBe(11078);
      expect(report.result.verification?.ignored).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!hasData)(
    'takes the files by role as well',
    async () => {
      const run = await runCliCaptured([
        'andersen',
        'solve',
        '--nodes',
        join(data, 'ex_nodes.txt.gz'),
        '--constraints',
        join(data, 'ex_constraints_after_hcd.txt.gz'),
        '--hcd',
        join(data, 'ex_hcd.txt.gz'),
        '--verify',
        join(data, 'ex_correct_soln_001.txt.gz'),
        '--json',
      ]);
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as AndersenSolveReport).result.verification?.exact).toBe(true);
    },
    60_000,
  );
});

describe('gpumorph andersen solve usage', () => {
  it('asks for an input with the usage status 2', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--nodes', 'x_nodes.txt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('give --input <prefix|file>, or both --nodes and --constraints');
  });

  it('reports a missing file by name, as an input error (status 2)', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--input', join(dir, 'nowhere')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nowhere');
  });
});
