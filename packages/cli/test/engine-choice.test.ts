// One rule for every analysis command (src/gpu.ts): `auto` uses a hardware adapter or the CPU
// engine, never a software one; GPUMORPH_REQUIRE_GPU=1 is honoured by every command and named in
// an error only when it is set; a GPU engine that cannot run the input falls back under `auto`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GpuContext } from '@gpumorph/gpu-allocator';
import { GpuLimitError } from '@gpumorph/gpu-allocator';
import { afterAll, describe, expect, it } from 'vitest';
import { withCpuFallback } from '../src/gpu';
import { repoRoot, runCliCaptured, spawnCli } from './helpers';

const example = (path: string) => join(repoRoot, 'examples', path);
// As in doctor.test.ts: a Vulkan driver file that does not exist hides every adapter from Dawn.
const NO_VULKAN = { VK_DRIVER_FILES: '/nonexistent/gpumorph-no-driver.json', VK_ICD_FILENAMES: undefined };
// Written at load time: it.each reads the command lines before any hook runs.
const dir = mkdtempSync(join(tmpdir(), 'gpumorph-engine-'));
const ll = join(dir, 'p.ll');
writeFileSync(ll, '@a = global i32 0\n@p = global ptr @a\n');
afterAll(() => rm(dir, { recursive: true }));

const commands = () =>
  [
    ['andersen solve', ['andersen', 'solve', '--input', example('andersen/callbacks.constraints.txt')]],
    ['andersen ll', ['andersen', 'll', ll]],
    ['cfa', ['cfa', example('eigencfa/church.scm')]],
    ['octagon', ['octagon', example('octagon/count.oct')]],
  ] as const;

describe.runIf(process.platform === 'linux')('GPUMORPH_REQUIRE_GPU=1 without an adapter', () => {
  it.each(commands())('%s exits 3 and names the variable', async (_, args) => {
    const run = await spawnCli(args, { env: { ...NO_VULKAN, GPUMORPH_REQUIRE_GPU: '1' } });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^error: no WebGPU adapter .*GPUMORPH_REQUIRE_GPU=1 forbids falling back/m);
  });

  it('--engine webgpu without it blames the option, not the variable', async () => {
    const run = await spawnCli(['andersen', 'll', ll, '--engine', 'webgpu'], {
      env: { ...NO_VULKAN, GPUMORPH_REQUIRE_GPU: undefined },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('--engine webgpu needs one');
    expect(run.stderr).not.toContain('GPUMORPH_REQUIRE_GPU');
  });
});

describe('auto never picks a software adapter', () => {
  it.each(commands())('%s --engine auto --json reports a hardware adapter or none', async (_, args) => {
    const saved = process.env.GPUMORPH_REQUIRE_GPU;
    delete process.env.GPUMORPH_REQUIRE_GPU;
    try {
      const run = await runCliCaptured([...args, '--engine', 'auto', '--json']);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout) as { engine: string; adapter: string | null };
      if (report.adapter !== null) expect(report.adapter).toContain('(hardware');
      else expect(['cpu', 'f64']).toContain(report.engine);
    } finally {
      if (saved !== undefined) process.env.GPUMORPH_REQUIRE_GPU = saved;
    }
  });
});

describe('withCpuFallback', () => {
  const gpu = {} as GpuContext;
  const tooBig = () =>
    Promise.reject(new GpuLimitError('buffer too large', 'maxBufferSize', 2 ** 40, 2 ** 30));
  const capture = () => {
    let text = '';
    return { io: { stderr: { write: (s: string) => (text += s) }, color: false }, text: () => text };
  };

  it('runs the CPU engine with one warning under auto', async () => {
    const saved = process.env.GPUMORPH_REQUIRE_GPU;
    delete process.env.GPUMORPH_REQUIRE_GPU;
    try {
      const out = capture();
      await expect(withCpuFallback('auto', gpu, out.io, tooBig, async () => 'cpu')).resolves.toBe('cpu');
      expect(out.text()).toMatch(/^warning: the WebGPU engine cannot run this input \(buffer too large\)/);
    } finally {
      if (saved !== undefined) process.env.GPUMORPH_REQUIRE_GPU = saved;
    }
  });

  it('keeps the error with --engine webgpu, under GPUMORPH_REQUIRE_GPU=1, and for other errors', async () => {
    const saved = process.env.GPUMORPH_REQUIRE_GPU;
    try {
      const out = capture();
      delete process.env.GPUMORPH_REQUIRE_GPU;
      await expect(withCpuFallback('webgpu', gpu, out.io, tooBig, async () => 'cpu')).rejects.toThrow(
        GpuLimitError,
      );
      const bug = () => Promise.reject(new TypeError('a bug'));
      await expect(withCpuFallback('auto', gpu, out.io, bug, async () => 'cpu')).rejects.toThrow(TypeError);
      process.env.GPUMORPH_REQUIRE_GPU = '1';
      await expect(withCpuFallback('auto', gpu, out.io, tooBig, async () => 'cpu')).rejects.toThrow(
        GpuLimitError,
      );
      expect(out.text()).toBe('');
    } finally {
      if (saved === undefined) delete process.env.GPUMORPH_REQUIRE_GPU;
      else process.env.GPUMORPH_REQUIRE_GPU = saved;
    }
  });
});
