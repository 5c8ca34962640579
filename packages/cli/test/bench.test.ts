import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSuiteNames, benchSuites } from '@gpumorph/bench';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hardekopfFixtures } from '../../../test/data';
import type { BenchFile } from '../src/commands/bench';
import { runCliCaptured, spawnCli } from './helpers';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpumorph-bench-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bench registry', () => {
  it('holds the allocator suite under its own name', () => {
    expect(benchSuiteNames()).toContain('allocator');
    for (const name of benchSuiteNames()) expect(benchSuites[name]?.name).toBe(name);
  });
});

describe('gpumorph bench', () => {
  it('bench allocator --quick --json writes the report and prints its table', async () => {
    const file = join(dir, 'nested', 'allocator.json');
    const run = await runCliCaptured(['bench', 'allocator', '--quick', '--json', file]);
    expect(run.stderr).not.toMatch(/^error:/m);
    expect(run.code).toBe(0);
    const written = JSON.parse(await readFile(file, 'utf8')) as BenchFile;
    expect(written.node).toBe(process.version);
    expect(Number.isNaN(Date.parse(written.date))).toBe(false);
    expect(written.reports.map((r) => r.suite)).toEqual(['allocator']);
    const rows = written.reports[0]?.rows ?? [];
    expect(rows.some((row) => row.engine === 'cpu')).toBe(true);
    if (written.adapter) expect(rows.some((row) => row.engine === 'webgpu')).toBe(true);
    for (const row of rows) expect(row.medianMs).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/^case\s+size\s+engine\s+median ms\s+runs\s+method/m);
    expect(run.stdout).toContain('adapter: ');
  });

  it('--engine cpu runs no GPU rows and records no adapter', async () => {
    const file = join(dir, 'cpu.json');
    const run = await runCliCaptured(['bench', '--quick', '--engine', 'cpu', '--json', file]);
    expect(run.code).toBe(0);
    const written = JSON.parse(await readFile(file, 'utf8')) as BenchFile;
    expect(written.adapter).toBeNull();
    expect(written.reports.map((r) => r.suite)).toEqual(benchSuiteNames());
    const rows = written.reports.flatMap((report) => report.rows);
    expect(rows.length).toBeGreaterThan(0);
    // CPU engines and CPU baselines (e.g. typedfastbitset) only: no WebGPU row, every row timed on the CPU.
    for (const row of rows) {
      expect(row.engine).not.toBe('webgpu');
      expect(row.method).toBe('cpu');
    }
  });

  it('GPUMORPH_ANDERSEN_PROCESSES=2 runs the andersen suite in two processes and reports their spread', async () => {
    const data = join(dir, 'data');
    await mkdir(join(data, 'andersen'), { recursive: true });
    await symlink(hardekopfFixtures, join(data, 'andersen/hardekopf'));
    const file = join(dir, 'processes.json');
    const run = await spawnCli(['bench', 'andersen', '--quick', '--engine', 'cpu', '--json', file], {
      env: { GPUMORPH_DATA: data, GPUMORPH_ANDERSEN_PROCESSES: '2' },
      timeoutMs: 300_000,
    });
    expect(run.stderr).not.toMatch(/^error:/m);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('process 1 (cold): ');
    expect(run.stderr).toContain('process 2 (after-gpu): ');
    const written = JSON.parse(await readFile(file, 'utf8')) as BenchFile;
    const rows = written.reports[0]?.rows ?? [];
    expect(rows.map((row) => [row.case, row.engine, row.runs])).toEqual([['ex', 'cpu', 2]]);
    const m = rows[0]?.metrics ?? {};
    const p1 = m['solve ms p1 (cold)'] as number;
    const p2 = m['solve ms p2 (after-gpu)'] as number;
    expect(p1).toBeGreaterThan(0);
    expect(p2).toBeGreaterThan(0);
    expect(m['solve spread']).toBeCloseTo(Math.max(p1, p2) / Math.min(p1, p2), 9);
    expect(m['end-to-end median ms']).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/solve spread/);
  }, 320_000);
});
