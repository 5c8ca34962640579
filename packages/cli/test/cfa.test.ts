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
    await writeFile(bad, '(define (f x)\n  (define-syntax m (lambda (y) y)) x)\n');
    const run = await spawnCli(['cfa', bad, '--engine', 'cpu']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${bad}:2:20: define-syntax: only syntax-rules transformers are supported (m)`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('asks for exactly one input', async () => {
    const none = await runCliCaptured(['cfa']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give a Scheme file or --matrices <dir>');
  });
});

describe('gpumorph cfa on rejected programs', () => {
  it('--json prints every error as JSON and exits with status 2', async () => {
    const file = join(dir, 'unbound.scm');
    await writeFile(file, '(define (f x) (g x))\n(h 1)\n');
    const run = await runCliCaptured(['cfa', file, '--engine', 'cpu', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      command: 'cfa',
      input: { kind: 'scheme', path: file },
      ok: false,
      errors: [
        { file, line: 1, column: 16, message: "unbound variable 'g'" },
        { file, line: 2, column: 2, message: "unbound variable 'h'" },
      ],
    });
    expect(run.stderr).toContain(`${file}:1:16: unbound variable 'g'`);
  });

  it('imports a user library from a file beside the program', async () => {
    await writeFile(
      join(dir, 'twice.sld'),
      '(define-library (twice) (export twice) (import (scheme base)) (begin (define (twice f) (lambda (x) (f (f x))))))',
    );
    const file = join(dir, 'main.scm');
    await writeFile(file, '(import (scheme base) (twice))\n((twice (lambda (n) n)) 1)\n');
    const run = await runCliCaptured(['cfa', file, '--engine', 'cpu', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as CfaReport;
    expect(report.result.variables?.find((v) => v.name === 'f')?.flow).toEqual([`λ@${file}:2:9`]);
  });
});
