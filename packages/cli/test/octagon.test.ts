import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OctagonReport } from '../src/commands/octagon';
import { repoRoot, runCliCaptured } from './helpers';

const example = (name: string) => join(repoRoot, 'examples/octagon', name);

describe('gpumorph octagon', () => {
  it('prints the invariants and the proved assertions; exits 0 when all are proved', async () => {
    const run = await runCliCaptured(['octagon', example('count.oct'), '--engine', 'f64']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('loop head of while (i < 100)');
    expect(run.stdout).toContain('{ i >= 0, i <= 100 }');
    expect(run.stdout).toMatch(/proved assertion at .*count\.oct:6:1: assert\(i == 100\);/);
    expect(run.stdout).toContain('1 of 1 checks proved (f64 engine');
  });

  it('--json reports array-bound checks; exits 1 when a check is not proved', async () => {
    const run = await runCliCaptured(['octagon', example('unproved.oct'), '--engine', 'exact', '--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as OctagonReport;
    expect(report.engine).toBe('exact');
    expect(report.ok).toBe(false);
    expect(report.result.assertions.map((a) => [a.kind, a.proved])).toEqual([
      ['bounds', false],
      ['assert', false],
    ]);
  });

  it('reports a syntax error with file:line:column and exit status 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gpumorph-octagon-'));
    try {
      const file = join(dir, 'bad.oct');
      await writeFile(file, 'x = 1;\ny = ;\n');
      const run = await runCliCaptured(['octagon', file, '--engine', 'f64']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/error: .*bad\.oct:2:5: expected an expression, found ';'/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
