import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeProgram, parseProgram } from '../src/index';
import { observations, pointKey, random, runConcrete, type State, satisfies } from './concrete';

const examples = join(dirname(fileURLToPath(import.meta.url)), '../../../examples/octagon');
const read = (name: string) => readFileSync(join(examples, name), 'utf8');

const programs: [string, string][] = [
  ['unproved.oct', read('unproved.oct')],
  ['backward.oct', read('backward.oct')],
  ['count.oct', read('count.oct')],
  ['a countdown', 'x = [0, 100]; y = x; i = 0; while (i < x) { i = i + 1; y = y - 1; } assert(y >= 5);'],
  [
    'two branches',
    'a = [-20, 20]; b = [-20, 20]; if (a < b) { c = b - a; } else { c = a - b; } assert(c <= 30);',
  ],
  [
    'reals and division',
    'real t, u; t = [0, 10]; u = t + 0.5; q = t / 2; r = q % 3; i = u; assert(u - t <= 0.25 || i <= 7);',
  ],
];

describe('backward mode (substitution from each assertion)', () => {
  it.each(programs)('%s: every failing run stays inside the backward invariants', async (_, source) => {
    const r = await analyzeProgram(source, { engine: 'exact', backward: true });
    const backward = r.backward ?? [];
    expect(backward.length).toBe(r.assertions.filter((a) => a.kind === 'assert').length);
    const program = parseProgram(source);
    let failing = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const trace: [string, State][] = [];
      const failed = runConcrete(program, random(seed), observations(), 3000, 200, trace);
      if (failed === null) continue;
      failing++;
      const b = backward.find((x) => `${x.pos.line}:${x.pos.column}` === failed);
      if (!b) throw new Error(`no backward analysis of the assertion at ${failed}`);
      expect(b.proved).toBe(false);
      const points = new Map(
        b.points.map((p) => [
          pointKey(null, p.pos.line, p.pos.column, p.label.startsWith('loop head') ? 'head' : 'before'),
          p,
        ]),
      );
      for (const [key, state] of trace) {
        const p = points.get(key);
        if (!p) continue; // 'end' and procedure points have no backward invariant
        if (p.constraints === null)
          throw new Error(`${key}: a failing run passes where the backward mode says ⊥`);
        for (const c of p.constraints) {
          if (!satisfies(state, r.variables, c))
            throw new Error(`${key}: a failing run's state violates ${p.invariant}`);
        }
      }
    }
    // the proved assertions have an empty backward entry; the others were seen failing
    for (const b of backward) if (b.proved) expect(b.entry).toBe('⊥');
    if (backward.some((b) => !b.proved && r.assertions.find((a) => a.pos === b.pos)?.proved === false))
      expect(failing).toBeGreaterThan(0);
  });

  it('narrows the inputs that may fail an assertion', async () => {
    const r = await analyzeProgram(read('backward.oct'), { engine: 'exact', backward: true });
    const [b] = r.backward ?? [];
    expect(b?.proved).toBe(false);
    // before the loop the failing runs have n >= 12
    const loop = b?.points.find((p) => p.label.startsWith('before i = 0'));
    expect(loop?.invariant).toBe('{ n >= 12, n <= 20 }');
  });
});
