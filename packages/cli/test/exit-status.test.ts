// Every command keeps to the documented exit statuses (packages/cli/README.md): 0 success, 1 a
// check failed, 2 usage or input error, 3 the GPU (missing where required, or failed), 4 a bug.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCliCaptured, spawnCli } from './helpers';

const example = (path: string) => join(repoRoot, 'examples', path);
const missing = join(repoRoot, 'examples', 'no-such-file');
// As in doctor.test.ts: a Vulkan driver file that does not exist hides every adapter from Dawn.
const NO_VULKAN = { VK_DRIVER_FILES: '/nonexistent/gpumorph-no-driver.json', VK_ICD_FILENAMES: undefined };

describe('exit status 2: an input file that cannot be read', () => {
  it.each([
    ['andersen solve', ['andersen', 'solve', '--input', missing]],
    ['andersen ll', ['andersen', 'll', `${missing}.ll`]],
    ['cfa (Scheme)', ['cfa', `${missing}.scm`, '--engine', 'cpu']],
    ['cfa (matrices)', ['cfa', '--matrices', missing, '--engine', 'cpu']],
    ['octagon', ['octagon', `${missing}.oct`, '--engine', 'f64']],
  ])('%s', async (_, args) => {
    const run = await runCliCaptured(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('no-such-file');
    expect(run.stderr).not.toContain('unexpected error');
  });
});

describe('exit status 2: a constraint file that breaks a rule of the model, with its position', () => {
  const program = (lines: string) => `gpumorph-constraints 1\nnodes 3\nnode 0 fields 1\n${lines}`;
  it.each([
    ['a node id past the last node', program('1 = &0\n2 = &7\n'), ':5:6:'],
    ['the address of a node that is not an object', program('1 = &2\n'), ':4:6:'],
    ['an offset past every object', program('1 = &0\n2 = *(1 + 5)\n'), ':5:11:'],
    ['fields past the last node', 'gpumorph-constraints 1\nnodes 3\nnode 1 fields 5\n', ':3:15:'],
  ])('%s', async (_, text, position) => {
    const dir = await mkdtemp(join(tmpdir(), 'gpumorph-model-'));
    const file = join(dir, 'program.txt');
    await writeFile(file, text);
    try {
      const run = await runCliCaptured(['andersen', 'solve', '--input', file, '--engine', 'cpu']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${file}${position}`);
      expect(run.stderr).not.toContain('unexpected error');
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('exit status 1: the analysis ran and a check failed', () => {
  it('octagon: an unproved assertion (and --json says ok: false)', async () => {
    const run = await runCliCaptured([
      'octagon',
      example('octagon/unproved.oct'),
      '--engine',
      'f64',
      '--json',
    ]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ command: 'octagon', ok: false });
  });
});

describe('exit status 0 and ok: true from every analysis command', () => {
  it.each([
    [
      'andersen solve',
      ['andersen', 'solve', '--input', example('andersen/callbacks.constraints.txt'), '--engine', 'cpu'],
    ],
    ['cfa', ['cfa', example('eigencfa/church.scm'), '--engine', 'cpu']],
    ['octagon', ['octagon', example('octagon/count.oct'), '--engine', 'f64']],
  ])('%s --json has the common shape', async (command, args) => {
    const run = await runCliCaptured([...args, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual([
      'command',
      'input',
      'engine',
      'adapter',
      'sizes',
      'timings',
      'result',
      'ok',
    ]);
    expect(report).toMatchObject({ command, adapter: null, ok: true });
    for (const [name, ms] of Object.entries(report.timings as Record<string, number | null>)) {
      expect(name).toMatch(/Ms$/);
      if (ms !== null) expect(ms).toBeGreaterThanOrEqual(0);
    }
  });
});

describe.runIf(process.platform === 'linux')('exit status 3: no adapter where one is required', () => {
  it.each([
    [
      'andersen solve',
      ['andersen', 'solve', '--input', example('andersen/callbacks.constraints.txt'), '--engine', 'webgpu'],
    ],
    ['cfa', ['cfa', example('eigencfa/church.scm'), '--engine', 'webgpu']],
    ['octagon', ['octagon', example('octagon/count.oct'), '--engine', 'webgpu']],
  ])('%s --engine webgpu', async (_, args) => {
    const run = await spawnCli(args, { env: { ...NO_VULKAN, GPUMORPH_REQUIRE_GPU: undefined } });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^error: no WebGPU adapter/m);
  });
});
