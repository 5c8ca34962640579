import { describeGpu, gpuRequired } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import type { DoctorReport } from '../src/commands/doctor';
import { JS_STACK_LINE, runCliCaptured, spawnCli } from './helpers';

describe('gpumorph doctor --json (spawned)', () => {
  it('exits by itself with status 0 and a passing report', async () => {
    const run = await spawnCli(['doctor', '--json']);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(report.ok).toBe(true);
    if (gpuRequired()) expect(report.adapter).not.toBeNull();
    if (report.adapter) {
      expect(report.selfCheck.length).toBeGreaterThanOrEqual(4);
      for (const check of report.selfCheck) expect(check, check.detail).toMatchObject({ pass: true });
      expect(report.limits?.maxStorageBufferBindingSize).toBeGreaterThan(0);
    } else {
      expect(report.selfCheck).toEqual([]);
    }
  });
});

// Pointing the Vulkan loader at a driver file that does not exist hides every Vulkan adapter from
// Dawn, which is how a machine without GPU or Mesa looks (Dawn uses Vulkan on Linux).
const NO_VULKAN = { VK_DRIVER_FILES: '/nonexistent/gpumorph-no-driver.json', VK_ICD_FILENAMES: undefined };

describe.runIf(process.platform === 'linux')('gpumorph doctor without an adapter', () => {
  it('explains the CPU fallback and the software adapter, and exits 0', async () => {
    const run = await spawnCli(['doctor'], { env: { ...NO_VULKAN, GPUMORPH_REQUIRE_GPU: undefined } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No WebGPU adapter found');
    expect(run.stdout).toContain('CPU engine');
    expect(run.stdout).toContain('apt-get install -y -t bookworm-backports mesa-vulkan-drivers');
  });

  it('prints adapter: null and ok: true with --json', async () => {
    const run = await spawnCli(['doctor', '--json'], {
      env: { ...NO_VULKAN, GPUMORPH_REQUIRE_GPU: undefined },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      adapter: null,
      features: null,
      limits: null,
      selfCheck: [],
      ok: true,
    });
  });

  it('fails with status 3 (the GPU) and one error line under GPUMORPH_REQUIRE_GPU=1', async () => {
    const run = await spawnCli(['doctor'], { env: { ...NO_VULKAN, GPUMORPH_REQUIRE_GPU: '1' } });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: no WebGPU adapter/m);
    // Still the way to a software adapter, before the error.
    expect(run.stderr).toContain('apt-get install -y -t bookworm-backports mesa-vulkan-drivers');
    expect(
      run.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('error:')),
    ).toHaveLength(1);
    expect(run.stderr).not.toMatch(JS_STACK_LINE);
  });
});

describeGpu('gpumorph doctor (in process)', (gpu) => {
  it('self-checks the workgroup-memory path with --no-subgroups', async () => {
    expect(gpu.available).toBe(true);
    const run = await runCliCaptured(['doctor', '--json', '--no-subgroups']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as DoctorReport;
    expect(report.features?.subgroups).toBe(false);
    expect(report.selfCheck.map((c) => c.name).join('\n')).toContain('per workgroup');
    for (const check of report.selfCheck) expect(check, check.detail).toMatchObject({ pass: true });
  });

  it('prints the adapter, the limits and the self-check for people', async () => {
    const run = await runCliCaptured(['doctor']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(gpu.ctx.adapter.description);
    expect(run.stdout).toMatch(/maxStorageBufferBindingSize\s+\d/);
    expect(run.stdout).toMatch(/^ {2}pass {2}allocate: 4096 invocations/m);
    expect(run.stdout).not.toContain('FAIL');
    expect(run.stdout).toMatch(/^ok: /m);
  });
});
