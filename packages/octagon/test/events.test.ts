import { describe, expect, it } from 'vitest';
import { type AnalyzerIterationEvent, analyzeProgram, createProgramAnalyzer } from '../src/index';

const twoLoops = `i = 0;
while (i < 10) { i = i + 1; }
j = 0;
while (j < i) { j = j + 2; }
assert(j <= 11);`;

describe('octagon analysis events (the events every analysis emits)', () => {
  it('phases setup, analyze, done; one iteration per loop-head iteration; done with the statistics', async () => {
    const analyzer = createProgramAnalyzer(twoLoops, { engine: 'exact' });
    const phases: [string, number][] = [];
    const iterations: AnalyzerIterationEvent[] = [];
    const done: unknown[] = [];
    analyzer.on('phase', (phase, round) => phases.push([phase, round]));
    analyzer.on('iteration', (event) => iterations.push(event));
    analyzer.on('done', (statistics) => done.push(statistics));
    const result = await analyzer.analyze();
    const total = result.statistics.loopIterations;
    expect(total).toBeGreaterThanOrEqual(2);
    expect(phases).toEqual([
      ['setup', 0],
      ['analyze', 0],
      ['done', total],
    ]);
    expect(iterations.map((e) => e.round)).toEqual(Array.from({ length: total }, (_, k) => k + 1));
    expect(new Set(iterations.map((e) => e.loop.line))).toEqual(new Set([2, 4]));
    for (const [k, e] of iterations.entries()) {
      expect(e.elapsedMs).toBeGreaterThanOrEqual(k === 0 ? 0 : (iterations[k - 1]?.elapsedMs ?? 0));
    }
    expect(done).toEqual([result.statistics]);
    expect(result.assertions.every((a) => a.proved)).toBe(true);
  });

  it('analyzeProgram takes the same events as onPhase and onIteration', async () => {
    const phases: string[] = [];
    let rounds = 0;
    const result = await analyzeProgram(twoLoops, {
      onPhase: (phase) => phases.push(phase),
      onIteration: ({ round }) => {
        rounds = round;
      },
    });
    expect(phases).toEqual(['setup', 'analyze', 'done']);
    expect(rounds).toBe(result.statistics.loopIterations);
  });

  it('an analyzer runs once', async () => {
    const analyzer = createProgramAnalyzer('x = 1;');
    await analyzer.analyze();
    await expect(analyzer.analyze()).rejects.toThrow(/called once/);
  });
});
