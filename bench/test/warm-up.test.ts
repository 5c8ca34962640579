import { describe, expect, it } from 'vitest';
import { steadyRuns, type WarmUpPolicy, warmUntilSteady } from '../src/warm-up.js';

/**
 * A clock that the fake runs advance by the times given, in turn; past the end the last one
 * repeats, or with `cycle` the list starts again.
 */
function scripted(timesMs: readonly number[], cycle = false) {
  let clock = 0;
  let calls = 0;
  return {
    now: () => clock,
    run: async () => {
      clock += timesMs[cycle ? calls % timesMs.length : Math.min(calls, timesMs.length - 1)] as number;
      calls++;
    },
    calls: () => calls,
  };
}

const policy: WarmUpPolicy = { minRuns: 2, minMs: 1000, maxMs: 10_000, window: 3, tolerance: 0.05 };

describe('warm-up', () => {
  it('steadyRuns looks at the last window only', () => {
    expect(steadyRuns([500, 100, 100, 104], 3, 0.05)).toBe(true);
    expect(steadyRuns([100, 100, 106], 3, 0.05)).toBe(false);
    expect(steadyRuns([100, 100], 3, 0.05)).toBe(false);
  });

  it('runs past a ramp until the runs agree, and for the minimum time', async () => {
    // A clock ramp: slow runs first, then steady at 100 ms.
    const s = scripted([400, 300, 200, 150, 100, 100, 100]);
    const report = await warmUntilSteady(s.run, policy, s.now);
    expect(report.steady).toBe(true);
    expect(report.lastRunsMs).toEqual([100, 100, 100]);
    expect(report.runs).toBe(s.calls());
    // 1,150 ms of ramp, then three steady runs: the minimum time is met before they agree.
    expect(report.runs).toBe(7);
    expect(report.ms).toBe(1350);
  });

  it('keeps running for the minimum time when short runs agree at once', async () => {
    const s = scripted([20]);
    const report = await warmUntilSteady(s.run, policy, s.now);
    expect(report).toMatchObject({ runs: 50, ms: 1000, steady: true });
  });

  it('takes the time a run gives for itself', async () => {
    const s = scripted([100]);
    const report = await warmUntilSteady(
      async () => {
        await s.run();
        return 40;
      },
      policy,
      s.now,
    );
    expect(report).toMatchObject({ runs: 10, ms: 1000, steady: true, lastRunsMs: [40, 40, 40] });
  });

  it('stops at the maximum time and says it is not steady', async () => {
    const s = scripted([100, 300], true);
    const report = await warmUntilSteady(s.run, { ...policy, maxMs: 2000 }, s.now);
    expect(report).toMatchObject({ runs: 10, ms: 2000, steady: false });
    expect(report.lastRunsMs).toEqual([300, 100, 300]);
  });
});
