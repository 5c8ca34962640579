// solveAndersen's result in the shape every analysis shares (docs/architecture.md): engine,
// timings, statistics.
import { describe, expect, it } from 'vitest';
import { createConstraintBuilder, solveAndersen } from '../src/index';

describe('solveAndersen result', () => {
  it('says which engine ran and where the time went', async () => {
    const b = createConstraintBuilder();
    const x = b.object('x');
    const [p, q] = [b.variable('p'), b.variable('q')];
    b.addressOf(p, x).copy(q, p);
    const result = await solveAndersen(b.build(), { engine: 'cpu' });
    expect(result.engine).toBe('cpu');
    expect([...result.pointsTo(q)]).toEqual([x]);
    const { totalMs, setupMs, solveMs, readbackMs } = result.timings;
    expect(solveMs).toBe(result.statistics.solveMs);
    expect([setupMs, readbackMs]).toEqual([0, 0]);
    expect(totalMs).toBeGreaterThanOrEqual(solveMs);
  });
});
