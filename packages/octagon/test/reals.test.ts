import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeEngines } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { analyzeProgram, OctagonParseError, parseProgram, programTypes, typeOf } from '../src/index';
import { checkSound, observations, pointKey, random, runConcrete, type State, satisfies } from './concrete';

const examples = join(dirname(fileURLToPath(import.meta.url)), '../../../examples/octagon');

describe('reals and division in the language', () => {
  it('reads real declarations and parameters, decimals and the roundings of / and %', () => {
    const p = parseProgram('real x, y; proc f(real a, n) { return a / n; } x = 2.5 /_i,-oo 2; y = x %_r 3;');
    expect(p.body[0]).toMatchObject({ kind: 'var', names: ['x', 'y'], type: 'real' });
    expect(p.procedures[0]?.paramTypes).toEqual(['real', 'int']);
    expect(p.body[1]).toMatchObject({
      kind: 'assign',
      value: {
        kind: 'bin',
        op: '/',
        round: { type: 'int', dir: 'down' },
        left: { kind: 'decimal', text: '2.5' },
      },
    });
    expect(p.body[2]).toMatchObject({ value: { op: '%', round: { type: 'real' } } });
    const types = programTypes(p);
    expect(types.anyReal).toBe(true);
    expect(types.scopes.get('f')?.get('@ret')).toBe('real');
    // a / b of integers is an integer (C); with a real or `_r`, a real
    const main = types.scopes.get(null) ?? new Map();
    const e = (src: string) => {
      const s = parseProgram(`real x; v = ${src};`).body[1];
      return typeOf((s as { value: Parameters<typeof typeOf>[0] }).value, main);
    };
    expect([e('7 / 2'), e('x / 2'), e('7 /_r 2'), e('x /_i,n 2'), e('0.5 * 2')]).toEqual([
      'int',
      'real',
      'real',
      'int',
      'real',
    ]);
  });

  it('rejects a variable declared both int and real, and an unknown rounding', () => {
    expect(() => programTypes(parseProgram('var x;\nreal x;', 't.oct'))).toThrow(
      /t.oct:2:1: 'x' declared both int and real/,
    );
    expect(() => programTypes(parseProgram('proc f(real a) { var a; return a; }'))).toThrow(
      OctagonParseError,
    );
    expect(() => parseProgram('x = 1 /_q 2;')).toThrow(OctagonParseError);
  });

  const cases: [string, string, boolean[]][] = [
    [
      'a real quarter',
      'real x, y; x = [0, 10]; y = x / 4; assert(y <= 2.5); assert(y >= 0); assert(y < 2.5);',
      [true, true, false],
    ],
    [
      'C division and remainder',
      'n = [0, 100]; q = n / 3; r = n % 3; assert(q >= 0); assert(q <= 33); assert(r <= 2);',
      [true, true, true],
    ],
    [
      'directed roundings',
      'n = [-7, 7]; a = n /_i,-oo 2; b = n /_i,+oo 2; assert(a >= -4); assert(b <= 4); assert(a <= 3);',
      [true, true, true],
    ],
    [
      'a real loop, truncated',
      'real t; t = 0; while (t < 10) { t = t + 0.5; } assert(t <= 10.5); i = t; assert(i <= 10);',
      [true, true],
    ],
    [
      'truncation of negatives',
      'real t; t = [-2.5, -0.5]; i = t; assert(i <= 0); assert(i >= -2); assert(i <= -1);',
      [true, true, false],
    ],
  ];
  it.each(cases)('%s: verdicts on both engines', async (_, source, verdicts) => {
    for (const engine of ['exact', 'f64'] as const) {
      const r = await analyzeProgram(source, { engine });
      expect(r.assertions.map((a) => a.proved)).toEqual(verdicts);
    }
  });

  it('procedures with real parameters and returns: concrete runs inside the invariants', async () => {
    const source = `
      proc scale(real v, k) { real w; w = v * k; return w / 2; }
      proc clamp(real v) { if (v > 9.5) { v = 9.5; } return v; }
      real a, r;
      a = [0, 4]; n = [-3, 3];
      r = scale(a, n); i = scale(a, n); c = clamp(r); h = clamp(a + 7);
      assert(i <= r + 1); assert(c <= 9); assert(h <= 9); assert(h >= 8);`;
    for (const engine of ['exact', 'f64'] as const) {
      const r = await analyzeProgram(source, { engine });
      expect(r.procedures.map((p) => p.variables)).toEqual([
        ['v', 'k', 'w', 'v@in', 'k@in', '@ret'],
        ['v', 'v@in', '@ret'],
      ]);
      expect(r.assertions.map((a) => a.proved)).toEqual([false, true, true, false]);
      const seen = observations();
      const program = parseProgram(source);
      for (let seed = 1; seed <= 200; seed++) runConcrete(program, random(seed), seen);
      expect(checkSound(r, seen)).toBeGreaterThan(0);
    }
  });

  it('the example program: verdicts, and concrete runs inside the invariants', async () => {
    const source = readFileSync(join(examples, 'reals.oct'), 'utf8');
    const r = await analyzeProgram(source, { engine: 'exact', file: 'reals.oct' });
    expect(r.assertions.map((a) => a.proved)).toEqual([true, true, true, true, false]);
    const seen = observations();
    const program = parseProgram(source, 'reals.oct');
    for (let seed = 1; seed <= 200; seed++) runConcrete(program, random(seed), seen);
    expect(checkSound(r, seen)).toBeGreaterThan(0);
    expect(seen.failed.size).toBeGreaterThan(0); // the unproved assertion does fail
  });

  it('checks each division by a non-literal divisor; the unproved ones divide by 0 concretely', async () => {
    const source = `real r, q;
      n = [1, 9]; m = [0, 9]; r = [1, 2];
      a = 100 / n;
      b = 100 % m;
      c = 7 / 3;
      q = 1 / r;
      d = 10 / (n - 1);`;
    for (const engine of ['exact', 'f64'] as const) {
      const r = await analyzeProgram(source, { engine });
      const checks = r.assertions.filter((a) => a.kind === 'division');
      // a, b, q and d: the literal divisor of c needs no check.
      expect(checks.map((a) => [a.pos.line, a.proved])).toEqual([
        [3, true],
        [4, false],
        [6, true],
        [7, false],
      ]);
      const seen = observations();
      const program = parseProgram(source);
      for (let seed = 1; seed <= 200; seed++) runConcrete(program, random(seed), seen);
      expect(checkSound(r, seen)).toBeGreaterThan(0);
      const failedLines = new Set([...seen.failed].map((key) => Number(key.split(':')[0])));
      expect(failedLines).toEqual(new Set([4, 7]));
    }
  });
});

describeEngines('reals on the GPU engine', ['webgpu'], (fixture) => {
  it('reals.oct: the verdicts and invariants of the f64 engine (mixed octagons close on the CPU)', async () => {
    const source = readFileSync(join(examples, 'reals.oct'), 'utf8');
    const r = await analyzeProgram(source, { engine: 'webgpu', gpu: fixture.ctx, file: 'reals.oct' });
    const cpu = await analyzeProgram(source, { engine: 'f64', file: 'reals.oct' });
    expect(r.assertions.map((a) => a.proved)).toEqual([true, true, true, true, false]);
    expect(r.points.map((p) => p.invariant)).toEqual(cpu.points.map((p) => p.invariant));
  });
});

/** A random program over integers i0, i1 and reals r0, r1, with `/`, `%`, every rounding, loops. */
function randomProgram(seed: number): string {
  const rand = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const vars = ['i0', 'i1', 'r0', 'r1'];
  const roundings = ['', '', '_r', '_i,0', '_i,n', '_i,+oo', '_i,-oo', '_i,?'];
  const expr = (depth: number): string => {
    const r = rand();
    if (depth === 0 || r < 0.35) {
      const leaf = rand();
      if (leaf < 0.55) return pick(vars);
      if (leaf < 0.8) return `${Math.floor(rand() * 19) - 9}`;
      return pick(['0.5', '1.25', '2.75', '-1.5', '3']);
    }
    const op = pick(['+', '-', '*', '/', '/', '%']);
    const suffix = op === '/' || op === '%' ? pick(roundings) : '';
    return `(${expr(depth - 1)} ${op}${suffix} ${expr(depth - 1)})`;
  };
  const cond = () => `${expr(1)} ${pick(['<', '<=', '>', '>=', '==', '!='])} ${expr(1)}`;
  let loops = 0;
  const stmts = (n: number, depth: number): string[] => {
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      const r = rand();
      if (depth > 0 && r < 0.15)
        out.push(
          `if (${cond()}) { ${stmts(2, depth - 1).join(' ')} } else { ${stmts(1, depth - 1).join(' ')} }`,
        );
      else if (depth > 0 && r < 0.3) {
        const c = `k${loops++}`;
        out.push(
          `${c} = 0; while (${c} < ${1 + Math.floor(rand() * 4)}) { ${stmts(2, depth - 1).join(' ')} ${c} = ${c} + 1; }`,
        );
      } else if (r < 0.45) out.push(`assert(${cond()});`);
      else out.push(`${pick(vars)} = ${expr(2)};`);
    }
    return out;
  };
  const body = stmts(6, 2).join('\n');
  return `real r0, r1;\ni0 = [-6, 6]; i1 = [0, 9]; r0 = [-2.5, 3.5]; r1 = [0.25, 4];\n${body}\n`;
}

describe('soundness on random programs with reals, / and %', () => {
  it.each(['exact', 'f64'] as const)('%s: 40 programs, 60 concrete runs each', async (engine) => {
    let checked = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const source = randomProgram(seed);
      const r = await analyzeProgram(source, { engine, wideningDelay: 1 });
      const seen = observations();
      const program = parseProgram(source);
      for (let run = 1; run <= 60; run++) runConcrete(program, random(seed * 1000 + run), seen);
      try {
        checked += checkSound(r, seen);
      } catch (error) {
        throw new Error(`program ${seed}:\n${source}\n${(error as Error).message}`);
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('backward (exact): every failing run stays inside the backward invariants of its assertion', async () => {
    let failing = 0;
    for (let seed = 1; seed <= 25; seed++) {
      const source = randomProgram(seed);
      const r = await analyzeProgram(source, { engine: 'exact', wideningDelay: 1, backward: true });
      const program = parseProgram(source);
      for (let run = 1; run <= 40; run++) {
        const trace: [string, State][] = [];
        const failed = runConcrete(program, random(seed * 1000 + run), observations(), 3000, 200, trace);
        if (failed === null) continue;
        failing++;
        const b = r.backward?.find((x) => `${x.pos.line}:${x.pos.column}` === failed);
        if (!b) throw new Error(`program ${seed}: no backward analysis of the assertion at ${failed}`);
        const points = new Map(
          b.points.map((p) => [
            pointKey(null, p.pos.line, p.pos.column, p.label.startsWith('loop head') ? 'head' : 'before'),
            p,
          ]),
        );
        for (const [key, state] of trace) {
          const p = points.get(key);
          if (!p) continue;
          const inside = p.constraints?.every((c) => satisfies(state, r.variables, c)) ?? false;
          if (!inside)
            throw new Error(`program ${seed}:\n${source}\n${key}: a failing run leaves ${p.invariant}`);
        }
      }
    }
    expect(failing).toBeGreaterThan(20);
  });
});
