import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type AnalysisResult, analyzeProgram, OctagonParseError, parseProgram } from '../src/index';
import { checkSound, observations, random, runConcrete } from './concrete';

const examples = join(dirname(fileURLToPath(import.meta.url)), '../../../examples/octagon');
const read = (name: string) => readFileSync(join(examples, name), 'utf8');

/** Verdicts per example (one per assertion or bounds check, main program first) and summaries. */
const cases: [string, boolean[], Record<string, string>][] = [
  ['factorial.oct', [true], { fact: '{ @ret >= 1 }' }],
  [
    'sum.oct',
    [true, true],
    { sum: '{ n@in - @ret <= 0, @ret >= 0 }', inc: '{ x@in - @ret <= -1, -x@in + @ret <= 1 }' },
  ],
  ['mccarthy91.oct', [true, true], { mc91: '{ n@in - @ret <= 10, @ret >= 91 }' }],
  ['nested-loops.oct', [true, true, true], {}],
  ['bubble-sort.oct', [true, true, true, true, true], {}],
  ['heapsort.oct', [true, true, true, true, true, true, true, true], {}],
];

describe.each(['exact', 'f64'] as const)('classic numeric programs on the %s engine', (engine) => {
  it.each(cases)('%s: verdicts and summaries', async (name, verdicts, summaries) => {
    const r = await analyzeProgram(read(name), { engine, file: name });
    expect(r.assertions.map((a) => a.proved)).toEqual(verdicts);
    expect(Object.fromEntries(r.procedures.map((p) => [p.name, p.summary]))).toEqual(summaries);
  });
});

describe('soundness: concrete runs satisfy the computed invariants', () => {
  const all = [
    ...cases.map(([name]) => name),
    'count.oct',
    'array-fill.oct',
    'relational.oct',
    'binary-search.oct',
    'unproved.oct',
  ];
  it.each(all)('%s (200 random runs)', async (name) => {
    const source = read(name);
    const r = await analyzeProgram(source, { engine: 'exact', file: name });
    const seen = observations();
    const program = parseProgram(source, name);
    for (let seed = 1; seed <= 200; seed++) runConcrete(program, random(seed), seen);
    expect(seen.states.size).toBeGreaterThan(2);
    expect(checkSound(r, seen)).toBeGreaterThan(0);
  });

  it('the check catches an invariant that is too small', async () => {
    const source = 'x = [0, 10]; y = x + 1; assert(y <= 11);';
    const r = await analyzeProgram(source, { engine: 'exact' });
    const seen = observations();
    for (let seed = 1; seed <= 50; seed++) runConcrete(parseProgram(source), random(seed), seen);
    const wrong: AnalysisResult = {
      ...r,
      points: r.points.map((p) =>
        p.label.startsWith('before assert') ? { ...p, constraints: [{ i: 1, si: 1, c: 5 }] } : p,
      ),
    };
    expect(() => checkSound(wrong, seen)).toThrow(/violates/);
  });
});

describe('procedures in the language', () => {
  it('rejects calls of unknown procedures, wrong arities, stray returns and duplicates', () => {
    expect(() => parseProgram('x = f(1);', 'p.oct')).toThrow(/p.oct:1:5: call of 'f', which is no procedure/);
    expect(() => parseProgram('proc f(a) { return a; } x = f(1, 2);')).toThrow(
      /'f' takes 1 argument, given 2/,
    );
    expect(() => parseProgram('return 1;')).toThrow(OctagonParseError);
    expect(() => parseProgram('proc f() { return 0; } proc f() { return 1; }')).toThrow(/defined twice/);
  });

  it('a procedure that never returns makes its callers unreachable after the call', async () => {
    const r = await analyzeProgram('proc loop(n) { while (true) { n = n + 1; } } x = 0; loop(x); y = 1;', {
      engine: 'exact',
    });
    expect(r.procedures[0]?.summary).toBe('⊥');
    expect(r.points.find((p) => p.label === 'before y = 1;')?.invariant).toBe('⊥');
  });

  it('passes arguments by value and keeps the caller’s relations', async () => {
    const source = `
      proc next(a) { a = a + 1; return a; }
      x = [0, 5]; y = x; z = next(x);
      assert(x == y); assert(z == x + 1); assert(z <= 6);`;
    const r = await analyzeProgram(source, { engine: 'exact' });
    expect(r.assertions.map((a) => a.proved)).toEqual([true, true, true]);
  });
});
