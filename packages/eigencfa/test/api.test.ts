// solveCfa's result in the shape every analysis shares (docs/architecture.md): engine, timings,
// statistics.
import { describe, expect, it } from 'vitest';
import { compileScheme, solveCfa, vanHornMairson } from '../src/index';

describe('solveCfa result', () => {
  it('says which engine ran and where the time went', async () => {
    const m = compileScheme(vanHornMairson(8)).matrices;
    const result = await solveCfa(m, { engine: 'cpu' });
    expect(result.engine).toBe('cpu');
    expect(result.statistics.engine).toBe('cpu');
    const { totalMs, setupMs, solveMs, readbackMs } = result.timings;
    expect(solveMs).toBe(result.statistics.solveMs);
    expect([setupMs, readbackMs]).toEqual([0, 0]);
    expect(totalMs).toBeGreaterThanOrEqual(solveMs);
    expect(Number.isFinite(totalMs)).toBe(true);
  });
});
