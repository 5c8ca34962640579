import { describe, expect, it } from 'vitest';
import {
  type CfaIterationEvent,
  compileScheme,
  createCfaSolver,
  solveCfa,
  vanHornMairson,
} from '../src/index';

describe('eigencfa solve events (the events every analysis emits), CPU engine', () => {
  it('phases with the rounds so far, iterations with round and elapsedMs, done with the statistics', async () => {
    // Large enough for the CPU worklist to report progress (every 65,536 steps).
    const m = compileScheme(vanHornMairson(256)).matrices;
    const solver = createCfaSolver(m, { engine: 'cpu' });
    const phases: [string, number][] = [];
    const iterations: CfaIterationEvent[] = [];
    const done: unknown[] = [];
    solver.on('phase', (phase, round) => phases.push([phase, round]));
    solver.on('iteration', (event) => iterations.push(event));
    solver.on('done', (statistics) => done.push(statistics));
    const result = await solver.solve();
    const steps = result.statistics.counters.steps ?? 0;
    expect(steps).toBeGreaterThan(65_536);
    expect(phases).toEqual([
      ['setup', 0],
      ['solve', 0],
      ['done', steps],
    ]);
    expect(iterations.length).toBe(Math.floor(steps / 65_536));
    for (const [k, e] of iterations.entries()) {
      expect(e).toMatchObject({ engine: 'cpu', round: (k + 1) * 65_536 });
      expect(e.elapsedMs).toBeGreaterThan(0);
    }
    expect(done).toEqual([result.statistics]);
  });

  it('solveCfa takes the same events as onPhase and onIteration', async () => {
    const phases: string[] = [];
    const rounds: number[] = [];
    await solveCfa(compileScheme(vanHornMairson(256)).matrices, {
      engine: 'cpu',
      onPhase: (phase) => phases.push(phase),
      onIteration: ({ round }) => rounds.push(round),
    });
    expect(phases).toEqual(['setup', 'solve', 'done']);
    expect(rounds.length).toBeGreaterThan(0);
  });
});
