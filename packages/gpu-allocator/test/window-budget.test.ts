import { describe, expect, it } from 'vitest';
import { createElementPool, PoolCapacityError, WindowBudget } from '../src/index';
import { describeGpu } from '../src/testing/index';

describe('WindowBudget', () => {
  it('gives a pool the windows the others do not use', () => {
    const budget = new WindowBudget(7);
    const a = {};
    const b = {};
    budget.use(a, 5);
    expect(budget.available(b)).toBe(2);
    budget.use(b, 1);
    expect(budget.available(a)).toBe(6);
    budget.use(b, 0);
    expect(budget.available(a)).toBe(7);
  });
});

describeGpu('pools sharing a window budget', (gpu) => {
  it('grow into the windows another pool leaves free, and say which limit stops them', async () => {
    if (!gpu.available) return;
    // 16-byte elements, 16 to a window (the smallest the 256-byte binding alignment allows).
    const options = { elementWords: 4, windowElements: 16, maxWindows: 3 } as const;
    const budget = new WindowBudget(3);
    const pts = await createElementPool(gpu.ctx, {
      name: 'pts',
      capacity: 16,
      ...options,
      windowBudget: budget,
    });
    const edg = await createElementPool(gpu.ctx, {
      name: 'edg',
      capacity: 16,
      ...options,
      windowBudget: budget,
    });
    expect(pts.maxCapacity).toBe(32);
    expect(await pts.grow(32)).toBe(32);
    expect(pts.geometry.windows).toBe(2);
    expect(edg.maxCapacity).toBe(16);
    const error = await pts.grow(40).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PoolCapacityError);
    expect(String((error as Error).message)).toMatch(
      /needs 40 elements but may grow to 32 at most \(2 binding window/,
    );
    edg.destroy();
    expect(pts.maxCapacity).toBe(48);
    expect(await pts.grow(48)).toBe(48);
    expect(pts.geometry.windows).toBe(3);
    pts.destroy();
  });
});
