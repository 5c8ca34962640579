import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeModule } from '../src/index';
import { CORPUS_DIR, compileCorpusProgram, requireClang } from './llvm/compile';

// Random C++ class hierarchies (virtual bases among them) with objects that escape to unknown
// code or are copied, constructors that call helpers (some of which make a virtual call on the
// object under construction) and virtual calls through base pointers. The generator knows each object's class, so it knows which override
// every call runs: a MAYALIAS of the call's result and that override's global is a real alias,
// which the analysis must never answer no-alias, at -O0 + mem2reg and at -O2.

const METHODS = ['f0', 'f1'] as const;

interface Program {
  /** Parent of class i (i > 0), a lower index. */
  readonly parents: readonly number[];
  /** Methods class i overrides (the root defines both). */
  readonly overrides: readonly (readonly boolean[])[];
  /** What class i's constructor calls: nothing, a counting helper, or a virtual call on this. */
  readonly constructors: readonly ('plain' | 'count' | 'peek')[];
  /** Whether class i derives from its parent virtually. */
  readonly virtualBases: readonly boolean[];
  readonly objects: readonly {
    readonly type: number;
    readonly storage: 'local' | 'heap' | 'global';
    readonly escapes: boolean;
    readonly method: number;
    readonly throughHelper: boolean;
    /** Whether the program also copies the object (its class's copy constructor) and calls on the copy. */
    readonly copied: boolean;
  }[];
  /** A class unknown code's factory returns an object of. */
  readonly unknownClass: number;
}

const program: fc.Arbitrary<Program> = fc.integer({ min: 2, max: 5 }).chain((classes) =>
  fc.record({
    parents: fc.tuple(
      ...Array.from({ length: classes }, (_, i) => fc.integer({ min: 0, max: Math.max(0, i - 1) })),
    ),
    overrides: fc.tuple(...Array.from({ length: classes }, () => fc.tuple(fc.boolean(), fc.boolean()))),
    constructors: fc.tuple(
      ...Array.from({ length: classes }, () =>
        fc.constantFrom('plain' as const, 'count' as const, 'peek' as const),
      ),
    ),
    virtualBases: fc.tuple(...Array.from({ length: classes }, () => fc.boolean())),
    objects: fc.array(
      fc.record({
        type: fc.integer({ min: 0, max: classes - 1 }),
        storage: fc.constantFrom('local' as const, 'heap' as const, 'global' as const),
        escapes: fc.boolean(),
        method: fc.integer({ min: 0, max: 1 }),
        throughHelper: fc.boolean(),
        copied: fc.boolean(),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    unknownClass: fc.integer({ min: 0, max: classes - 1 }),
  }),
);

/** The class whose definition of `method` an object of class `type` runs. */
function resolve(p: Program, type: number, method: number): number {
  let c = type;
  while (c !== 0 && !p.overrides[c]?.[method]) c = p.parents[c] as number;
  return c;
}

/** Classes from the root down to `type`. */
function chain(p: Program, type: number): number[] {
  const classes = [type];
  while (classes[0] !== 0) classes.unshift(p.parents[classes[0] as number] as number);
  return classes;
}

function source(p: Program): string {
  const lines = ['#include "aliascheck.h"', 'int counter;', 'static void count(int k) { counter += k; }'];
  for (let c = 0; c < p.parents.length; c++) lines.push(`int g${c}_0, g${c}_1;`);
  lines.push('struct C0;', 'static int *seen;', 'static void peek(C0 *self);');
  for (let c = 0; c < p.parents.length; c++) {
    const base = c === 0 ? '' : ` : ${p.virtualBases[c] ? 'virtual ' : ''}C${p.parents[c]}`;
    const body = { plain: '', count: `count(${c});`, peek: 'peek(this);' }[p.constructors[c] ?? 'plain'];
    const methods = METHODS.flatMap((name, m) =>
      c === 0 || p.overrides[c]?.[m]
        ? [
            `  ${c === 0 ? 'virtual ' : ''}int *${name}()${c === 0 ? '' : ' override'} { return &g${c}_${m}; }`,
          ]
        : [],
    );
    lines.push(`struct C${c}${base} {`, `  C${c}() { ${body} }`, ...methods);
    if (c === 0) lines.push('  virtual ~C0() {}');
    lines.push('};');
  }
  lines.push('static void peek(C0 *self) { seen = self->f0(); }');
  lines.push('static int *call0(C0 *s) { return s->f0(); }', 'static int *call1(C0 *s) { return s->f1(); }');
  lines.push('extern "C" void observe(C0 *);', 'extern "C" C0 *make(int);');
  p.objects.forEach((o, j) => {
    if (o.storage === 'global') lines.push(`C${o.type} object${j};`);
  });
  lines.push('int main(int argc, char **) {');
  p.objects.forEach((o, j) => {
    if (o.storage === 'local') lines.push(`  C${o.type} object${j};`);
    lines.push(`  C${o.type} *q${j} = ${o.storage === 'heap' ? `new C${o.type}` : `&object${j}`};`);
    lines.push(`  C0 *p${j} = q${j};`);
    if (o.escapes) lines.push(`  observe(p${j});`);
  });
  p.objects.forEach((o, j) => {
    const target = `&g${resolve(p, o.type, o.method)}_${o.method}`;
    const call = o.throughHelper ? `call${o.method}(p${j})` : `p${j}->f${o.method}()`;
    lines.push(`  int *r${j} = ${call};`, `  MAYALIAS(r${j}, ${target});`);
    if (o.copied)
      lines.push(
        `  C${o.type} copy${j}(*q${j});`,
        `  C0 *c${j} = &copy${j};`,
        `  int *s${j} = c${j}->f${o.method}();`,
        `  MAYALIAS(s${j}, ${target});`,
      );
  });
  lines.push('  int *u = make(argc)->f0();', `  MAYALIAS(u, &g${resolve(p, p.unknownClass, 0)}_0);`);
  // While class c of an object's chain is constructed, peek() runs c's f0; at the end `seen` holds
  // what the last such constructor saw (globals are constructed before main's objects).
  let last: number | undefined;
  const order = [
    ...p.objects.filter((o) => o.storage === 'global'),
    ...p.objects.filter((o) => o.storage !== 'global'),
  ];
  for (const o of order)
    for (const c of chain(p, o.type)) if (p.constructors[c] === 'peek') last = resolve(p, c, 0);
  if (last !== undefined) lines.push(`  MAYALIAS(seen, &g${last}_0);`);
  lines.push('  return counter;', '}');
  return `${lines.join('\n')}\n`;
}

const haveClang = requireClang('generated C++ hierarchies');
const folder = mkdtempSync(join(tmpdir(), 'gpumorph-cxx-generated-'));
copyFileSync(join(CORPUS_DIR, 'aliascheck.h'), join(folder, 'aliascheck.h'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe.skipIf(!haveClang)('generated C++ hierarchies compiled by clang++-16', () => {
  it('never answers no-alias for the override a virtual call really runs', async () => {
    let count = 0;
    await fc.assert(
      fc.asyncProperty(program, async (p) => {
        const file = join(folder, `generated${count++}.cpp`);
        writeFileSync(file, source(p));
        for (const level of ['O0', 'O2'] as const) {
          const ll = await compileCorpusProgram(file, level);
          const report = (
            await analyzeModule(await readFile(ll, 'utf8'), { file: ll, engine: 'cpu' })
          ).aliasReport();
          expect(report.checks.length).toBeGreaterThan(0);
          expect({
            level,
            source: source(p),
            unsound: report.checks.filter((c) => c.result === 'no'),
          }).toEqual({
            level,
            source: source(p),
            unsound: [],
          });
        }
      }),
      { numRuns: 30, seed: 51 },
    );
  }, 600_000);
});
