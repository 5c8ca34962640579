import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseExpectedStore } from '@gpumorph/eigencfa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vhmFixtures } from '../../../test/data';
import type { CfaReport } from '../src/commands/cfa';
import { repoRoot, runCliCaptured, spawnCli } from './helpers';

const example = resolve(repoRoot, 'examples/eigencfa/regex.scm');
/** The smallest Van Horn–Mairson sizes of the EigenCFA benchmark, carried as fixtures. */
const data = vhmFixtures;
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpumorph-cfa-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gpumorph cfa', () => {
  it('prints flow sets of source variables and callees of call sites', async () => {
    const run = await runCliCaptured(['cfa', example, '--engine', 'cpu']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('engine          cpu');
    expect(run.stdout).toMatch(/r1@.*regex\.scm:4:14 ← \{λ@.*regex\.scm:3:21, λ@.*regex\.scm:2:24\}/);
    expect(run.stdout).toMatch(/\(seq …\)@.*regex\.scm:10:13 → \{λ\(seq\)@.*regex\.scm:4:1\}/);
  });

  it('--json holds engine, sizes, timings, the store and the source-level results', async () => {
    const run = await runCliCaptured(['cfa', example, '--engine', 'cpu', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as CfaReport;
    expect(report.engine).toBe('cpu');
    expect(report.sizes.vars).toBe(2 * report.sizes.lams);
    expect(report.result.store).toHaveLength(3 * report.sizes.lams);
    expect(report.result.store[0]).toEqual([0]);
    expect(report.timings.solveMs).toBeGreaterThanOrEqual(0);
    expect(report.result.variables?.find((v) => v.name === 'loop')?.flow).toEqual([
      expect.stringMatching(/^λ\(loop\)@/),
    ]);
  });

  it('--matrices: the store equals expected-store.rkt (n = 8)', async () => {
    const run = await runCliCaptured(['cfa', '--matrices', join(data, '8'), '--engine', 'cpu', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as CfaReport;
    const expected = parseExpectedStore(await readFile(join(data, '8/expected-store.rkt'), 'utf8'));
    expect(report.result.store).toEqual(expected.toArrays());
    expect(report.sizes).toMatchObject({ lams: 260, vars: 520, calls: 261, terms: 1041 });
  });

  it('names file, line and column of an unsupported form, without a stack trace', async () => {
    const bad = join(dir, 'bad.scm');
    await writeFile(bad, '(define (f x)\n  (delay x))\n');
    const run = await spawnCli(['cfa', bad, '--engine', 'cpu']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${bad}:2:3: unsupported form 'delay'`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for exactly one input', async () => {
    const none = await runCliCaptured(['cfa']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give a Scheme file or --matrices <dir>');
  });
});
