import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AndersenLlReport } from '../src/commands/andersen-ll';
import { runCliCaptured } from './helpers';

/** `int a, b; int *pick(int c) { return c ? &a : &b; }` with checks, as clang writes it after mem2reg. */
const MODULE = `@a = dso_local global i32 0, align 4
@b = dso_local global i32 0, align 4
@handler = dso_local global ptr @pick, align 8

define dso_local ptr @pick(i32 noundef %c) #0 {
entry:
  %tobool = icmp ne i32 %c, 0
  %cond = select i1 %tobool, ptr @a, ptr @b
  ret ptr %cond
}

define dso_local i32 @main() #0 {
entry:
  %f = load ptr, ptr @handler, align 8
  %p = call ptr %f(i32 noundef 1)
  call void @MAYALIAS(ptr noundef %p, ptr noundef @a)
  call void @NOALIAS(ptr noundef @a, ptr noundef @b)
  call void @NOALIAS(ptr noundef %p, ptr noundef @b)
  ret i32 0
}

declare void @MAYALIAS(ptr noundef, ptr noundef) #1
declare void @NOALIAS(ptr noundef, ptr noundef) #1
`;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gpumorph-ll-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gpumorph andersen ll', () => {
  it('prints the JSON report with the call graph and the judged checks; exits 1 when one fails', async () => {
    const file = join(dir, 'pick.ll');
    await writeFile(file, MODULE);
    const run = await runCliCaptured(['andersen', 'll', file, '--json', '--alias-report', '--engine', 'cpu']);
    const report = JSON.parse(run.stdout) as AndersenLlReport;
    expect(report.engine).toBe('cpu');
    expect(report.result.callGraph['@main']).toEqual(['@pick']); // checks are questions, not calls
    expect(report.result.checks?.map((c) => [c.kind, c.function, c.irLine, c.result, c.pass])).toEqual([
      ['MAYALIAS', 'main', 16, 'may', true],
      ['NOALIAS', 'main', 17, 'no', true],
      // p may be &a or &b: the analysis (rightly) says may-alias, so this NOALIAS fails.
      ['NOALIAS', 'main', 18, 'may', false],
    ]);
    expect([report.result.passed, report.result.failed]).toEqual([2, 1]);
    expect(report.ok).toBe(false);
    expect(run.code).toBe(1);
  });

  it('exits 0 and prints the indirect calls when every check holds', async () => {
    const file = join(dir, 'pick-ok.ll');
    await writeFile(file, MODULE.replace('call void @NOALIAS(ptr noundef %p, ptr noundef @b)\n', ''));
    const run = await runCliCaptured(['andersen', 'll', file, '--alias-report']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/@main at ir line 15 → @pick/);
    expect(run.stdout).toContain('2 checks found (calls to @MAYALIAS, @NOALIAS): 2 passed, 0 failed');
  });

  it('judges checks the module defines (a header with bodies), and counts them', async () => {
    const file = join(dir, 'defined.ll');
    const defined = MODULE.replace(
      'declare void @MAYALIAS(ptr noundef, ptr noundef) #1\ndeclare void @NOALIAS(ptr noundef, ptr noundef) #1\n',
      'define void @MAYALIAS(ptr %p, ptr %q) {\n  ret void\n}\ndefine void @NOALIAS(ptr %p, ptr %q) {\n  ret void\n}\n',
    );
    expect(defined).not.toBe(MODULE);
    await writeFile(file, defined);
    const run = await runCliCaptured(['andersen', 'll', file, '--json', '--alias-report', '--engine', 'cpu']);
    const report = JSON.parse(run.stdout) as AndersenLlReport;
    expect(report.result.checkFunctions).toEqual(['@MAYALIAS', '@NOALIAS']);
    expect(report.result.checks?.map((c) => [c.kind, c.result, c.pass])).toEqual([
      ['MAYALIAS', 'may', true],
      ['NOALIAS', 'no', true],
      ['NOALIAS', 'may', false],
    ]);
    expect(run.code).toBe(1);
  });

  it('fails a report that checks nothing, saying so', async () => {
    const file = join(dir, 'no-checks.ll');
    await writeFile(file, MODULE.replace(/ {2}call void @(MAYALIAS|NOALIAS).*\n/g, ''));
    const run = await runCliCaptured(['andersen', 'll', file, '--alias-report', '--engine', 'cpu']);
    expect(run.stdout).toContain('no alias checks found');
    expect(run.code).toBe(1);
    const json = await runCliCaptured([
      'andersen',
      'll',
      file,
      '--alias-report',
      '--json',
      '--engine',
      'cpu',
    ]);
    const report = JSON.parse(json.stdout) as AndersenLlReport;
    expect([report.result.checks, report.ok, json.code]).toEqual([[], false, 1]);
  });

  it('links several modules by symbol: call graph (DOT, JSON) and alias queries across files', async () => {
    const main = join(dir, 'main.ll');
    const util = join(dir, 'util.ll');
    await writeFile(
      main,
      `@x = dso_local global i32 0
declare ptr @get(ptr)
define internal ptr @local(ptr %p) {
  ret ptr %p
}
define dso_local i32 @main() {
  %r = call ptr @get(ptr @x)
  %s = call ptr @local(ptr %r)
  ret i32 0
}
`,
    );
    await writeFile(
      util,
      `@y = dso_local global i32 0
define internal ptr @local(ptr %p) {
  ret ptr @y
}
define dso_local ptr @get(ptr %p) {
  %q = call ptr @local(ptr %p)
  ret ptr %p
}
`,
    );
    const dot = await runCliCaptured([
      'andersen',
      'll',
      main,
      util,
      '--call-graph',
      'dot',
      '--engine',
      'cpu',
    ]);
    expect(dot.code).toBe(0);
    expect(dot.stdout).toContain('"@main" -> "@get";');
    expect(dot.stdout).toContain('"@main" -> "@local";');
    expect(dot.stdout).toMatch(/"@get" -> "@\\"local<.*util\.ll>\\"";/);
    const json = await runCliCaptured([
      'andersen',
      'll',
      main,
      util,
      '--json',
      '--engine',
      'cpu',
      '--alias',
      '%s in @main,@x',
      '--alias',
      '%s in @main,@y',
    ]);
    const report = JSON.parse(json.stdout) as AndersenLlReport;
    expect(report.input.files).toEqual([main, util]);
    expect(report.result.queries?.map((q) => [q.result, q.aPointsTo])).toEqual([
      ['may', ['@x']],
      ['no', ['@x']],
    ]);
    const bad = await runCliCaptured(['andersen', 'll', main, util, '--alias', '%nope in @main,@x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("no value named '%nope in @main'");
  });

  it('rejects two modules that define one external symbol, with the position', async () => {
    const a = join(dir, 'dup-a.ll');
    const b = join(dir, 'dup-b.ll');
    await writeFile(a, 'define i32 @f() {\n  ret i32 0\n}\n');
    await writeFile(b, '\ndefine i32 @f() {\n  ret i32 1\n}\n');
    const run = await runCliCaptured(['andersen', 'll', a, b]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${b}:2:1: @f is defined here and in ${a}:1`);
  });

  it('reports malformed IR with file:line:column and no stack trace', async () => {
    const file = join(dir, 'bad.ll');
    await writeFile(file, 'define i32 @main() {\nentry:\n  %x = load ptr, ptr @g ?\n}\n');
    const run = await runCliCaptured(['andersen', 'll', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:3:25: unexpected character '?'`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
