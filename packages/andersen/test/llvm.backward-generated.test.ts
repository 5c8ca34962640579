import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeModule } from '../src/index';
import { CORPUS_DIR, compileCorpusProgram, requireClang } from './llvm/compile';

// Random C programs that step from one pointer field of a struct to another by an amount known
// only at run time (`argc` is 1 when the test program would run), backwards or forwards, in the
// ways C writes it: `char *` minus an offset, plus a negated or negative product, `~`, a
// container_of helper with the offset as an argument, an element pointer minus a count. The
// generator knows the field each step lands on: a MAYALIAS of the result and that field (and of
// what the field holds) is a real alias, never to be answered no-alias, at -O0 and at -O2.

const STEPS = ['charMinus', 'charPlusNegated', 'charPlusComplement', 'ownerHelper', 'elementMinus'] as const;

interface Step {
  readonly from: number;
  readonly to: number;
  readonly kind: (typeof STEPS)[number];
}

interface Program {
  readonly fields: number;
  readonly storage: 'local' | 'global' | 'heap';
  readonly steps: readonly Step[];
}

const program: fc.Arbitrary<Program> = fc.integer({ min: 2, max: 6 }).chain((fields) =>
  fc.record({
    fields: fc.constant(fields),
    storage: fc.constantFrom('local' as const, 'global' as const, 'heap' as const),
    steps: fc.array(
      fc.record({
        from: fc.integer({ min: 0, max: fields - 1 }),
        to: fc.integer({ min: 0, max: fields - 1 }),
        kind: fc.constantFrom(...STEPS),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  }),
);

/** The expression of step `k`, an `int **` at field `to` when `argc` is 1. */
function stepExpression(step: Step): string {
  const bytes = (step.from - step.to) * 8; // may be negative: then the step goes forwards
  const start = `(char *)&s->f${step.from}`;
  switch (step.kind) {
    case 'charMinus':
      return `(int **)(${start} - (long)${bytes} * argc)`;
    case 'charPlusNegated':
      return `(int **)(${start} + -(long)${bytes} * argc)`;
    case 'charPlusComplement':
      return `(int **)(${start} + ~((long)${bytes} * argc - 1))`;
    case 'ownerHelper':
      return `owner(&s->f${step.from}, (long)${bytes} * argc)`;
    case 'elementMinus':
      return `&s->f${step.from} - (long)${step.from - step.to} * argc`;
  }
}

function source(p: Program): string {
  const fields = Array.from({ length: p.fields }, (_, k) => k);
  const lines = ['#include <stdlib.h>', '#include "aliascheck.h"'];
  lines.push(`int ${fields.map((k) => `g${k}`).join(', ')};`);
  lines.push(`struct S { ${fields.map((k) => `int *f${k};`).join(' ')} };`);
  lines.push('static int **owner(int **field, long back) { return (int **)((char *)field - back); }');
  if (p.storage === 'global') lines.push('struct S global_s;');
  lines.push('int main(int argc, char **argv) {', '  (void)argv;');
  if (p.storage === 'local') lines.push('  struct S local_s;', '  struct S *s = &local_s;');
  else if (p.storage === 'global') lines.push('  struct S *s = &global_s;');
  else lines.push('  struct S *s = malloc(sizeof *s);', '  if (!s) return 1;');
  for (const k of fields) lines.push(`  s->f${k} = &g${k};`);
  p.steps.forEach((step, j) => {
    lines.push(`  int **r${j} = ${stepExpression(step)};`);
    lines.push(`  MAYALIAS(r${j}, &s->f${step.to});`, `  MAYALIAS(*r${j}, &g${step.to});`);
  });
  lines.push(`  return ${p.steps.map((_, j) => `**r${j}`).join(' + ')};`, '}');
  return `${lines.join('\n')}\n`;
}

const haveClang = requireClang('generated C pointer steps');
const folder = mkdtempSync(join(tmpdir(), 'gpumorph-backward-generated-'));
copyFileSync(join(CORPUS_DIR, 'aliascheck.h'), join(folder, 'aliascheck.h'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe.skipIf(!haveClang)('generated C pointer steps compiled by clang-16', () => {
  it('never answers no-alias for the field a step back or forth by a run-time amount lands on', async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(program, async (p) => {
        const file = join(folder, `generated${count++}.c`);
        writeFileSync(file, source(p));
        for (const level of ['O0', 'O2'] as const) {
          const ll = await compileCorpusProgram(file, level);
          const report = (
            await analyzeModule(await readFile(ll, 'utf8'), { file: ll, engine: 'cpu' })
          ).aliasReport();
          expect(report.checks.length).toBe(2 * p.steps.length);
          const unsound = report.checks.filter((check) => check.result === 'no');
          expect({ level, source: source(p), unsound }).toEqual({ level, source: source(p), unsound: [] });
        }
      }),
      { numRuns: 30, seed: 51 },
    );
  }, 600_000);
});
