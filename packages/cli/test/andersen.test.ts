import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parsePointsTo } from '@gpumorph/andersen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hardekopfFixtures } from '../../../test/data';
import type { AndersenSolveReport } from '../src/commands/andersen';
import { gpuForEngine } from '../src/gpu';
import { repoRoot, runCliCaptured, spawnCli } from './helpers';

const example = resolve(repoRoot, 'examples/andersen/callbacks.constraints.txt');
/** `ex` of the PPoPP'12 suite, carried as a fixture. */
const data = hardekopfFixtures;
let dir = '';
/** The engine `auto` picks here under the CLI's one rule (a hardware adapter, or GPUMORPH_REQUIRE_GPU=1). */
let autoEngine: 'cpu' | 'webgpu' = 'cpu';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpumorph-andersen-'));
  const gpu = await gpuForEngine('auto');
  autoEngine = gpu ? 'webgpu' : 'cpu';
  gpu?.destroy();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gpumorph andersen solve', () => {
  it('solves the README example and prints its points-to sets by name', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--input', example, '--print']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`engine          ${autoEngine}`);
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
    expect(report.engine).toBe(autoEngine);
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

  it('checks every node: a reference with no classes is not exact, one of another size is refused', async () => {
    const empty = join(dir, 'empty.pts');
    await writeFile(empty, 'gpumorph-points-to 1\nnodes 32\n');
    const none = await runCliCaptured(['andersen', 'solve', '--input', example, '--verify', empty, '--json']);
    expect(none.code).toBe(1);
    const report = JSON.parse(none.stdout) as AndersenSolveReport;
    // Every variable with a non-empty set differs from the empty set the reference gives it.
    expect(report.result.verification).toMatchObject({ exact: false, checked: 32 });
    expect(report.result.verification?.differing).toBeGreaterThan(0);
    const smaller = join(dir, 'smaller.pts');
    await writeFile(smaller, 'gpumorph-points-to 1\nnodes 31\n');
    const sized = await runCliCaptured(['andersen', 'solve', '--input', example, '--verify', smaller]);
    expect(sized.code).toBe(2);
    expect(sized.stderr).toContain(`${smaller}:2:`);
    expect(sized.stderr).toContain('the solution is for 31 nodes but the program has 32');
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
  }, 300_000);

  it("solves ex from the PPoPP'12 suite by prefix and verifies every variable exactly (node 1's contents empty)", async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--input', join(data, 'ex'), '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as AndersenSolveReport;
    expect(report.sizes.nodes).toBe(11078);
    expect(report.sizes.hcd).toEqual({ offlineMerges: 1574, onlinePairs: 110 });
    expect(report.result.opaqueObjects).toEqual({ nodes: [1], contents: 'empty' });
    expect(report.result.verification?.exact).toBe(true);
    expect(report.result.verification?.checked).toBe(11078);
    expect(report.result.verification?.ignored).toEqual([]);
  }, 180_000);

  it('takes the files by role as well', async () => {
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
  }, 180_000);

  it("solves raw constraints with --offline-hcd exactly, leaving a shipped table's merges out", async () => {
    // p = *p; r = p; *p = r; r = &o, with a shipped table that merges p into r (a cycle through *p
    // that never closes: p points nowhere). Node 1 is the opaque i2p object of the files.
    const prefix = join(dir, 'refcycle');
    await writeFile(`${prefix}_nodes.txt`, '5\n1\n0\n0,1,0\n1,1,0\n2,0,0\n3,0,0\n4,0,0\n');
    await writeFile(`${prefix}_constraints.txt`, '1,1,1,1,0\n0,0,2,0,0\n1,3,2,1,0\n2,3,3,2,0\n3,2,3,3,0\n');
    await writeFile(`${prefix}_hcd.txt`, '1\n3,2\n# online\n1,1\n2,2\n');
    const solve = async (extra: string[], out: string) => {
      const args = ['andersen', 'solve', '--input', prefix, '--constraint-set', 'raw', '--engine', 'cpu'];
      const run = await runCliCaptured([...args, ...extra, '--out', join(dir, out)]);
      expect(run.code).toBe(0);
      const written = parsePointsTo(await readFile(join(dir, out)), { file: out });
      const sets = new Map<number, number[]>();
      for (const c of written.classes) for (const v of c.variables) sets.set(v, [...c.pointsTo]);
      return [0, 1, 2, 3, 4].map((v) => sets.get(v) ?? []);
    };
    const exact = await solve(['--no-hcd'], 'plain.pts');
    expect(exact).toEqual([[], [], [0], [], []]);
    expect(await solve(['--offline-hcd'], 'offline.pts')).toEqual(exact);
    // The shipped table itself merges p into r: p gets {o}, and so does o through *p = r.
    expect(await solve([], 'shipped.pts')).toEqual([[0], [], [0], [0], []]);
  }, 180_000);

  it('runs --offline-hcd and --hvn on the GPU with --offline-engine webgpu: the same sets as on the CPU', async () => {
    const args = ['andersen', 'solve', '--input', join(data, 'ex'), '--engine', 'cpu', '--json'];
    const sets = async (extra: string[], out: string) => {
      const run = await runCliCaptured([...args, ...extra, '--out', join(dir, out)]);
      return { run, text: run.code === 0 ? await readFile(join(dir, out), 'utf8') : '' };
    };
    const cpu = await sets(['--offline-hcd', '--hvn'], 'ex-offline-cpu.pts');
    expect(cpu.run.code).toBe(0);
    const gpu = await sets(['--offline-hcd', '--hvn', '--offline-engine', 'webgpu'], 'ex-offline-gpu.pts');
    if (gpu.run.code === 0) {
      expect((JSON.parse(gpu.run.stdout) as AndersenSolveReport).result.verification?.exact).toBe(true);
      expect(gpu.text).toBe(cpu.text);
    } else {
      expect(gpu.run.code).toBe(3);
      expect(gpu.run.stderr).toContain('no WebGPU adapter');
    }
  }, 300_000);
});

describe('gpumorph andersen solve usage', () => {
  it('asks for an input with the usage status 2', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--nodes', 'x_nodes.txt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('give --input <prefix|file>, or both --nodes and --constraints');
  });

  it('refuses --offline-engine without an offline pass to run (status 2)', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--input', example, '--offline-engine', 'webgpu']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--offline-engine chooses where --offline-hcd and --hvn run');
  });

  it('reports a missing file by name, as an input error (status 2)', async () => {
    const run = await runCliCaptured(['andersen', 'solve', '--input', join(dir, 'nowhere')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nowhere');
  });
});
