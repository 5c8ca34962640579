import { describe, expect, it } from 'vitest';
import { acquireGpu, createElementPool, runAllocationProbe } from '../src/index';

describe('smoke', () => {
  it('allocates', async () => {
    const ctx = await acquireGpu({ require: true });
    if (!ctx) throw new Error('none');
    const pool = await createElementPool(ctx, { name: 'p', capacity: 1000 });
    const req = new Uint32Array(300).fill(2);
    const out = await runAllocationProbe(ctx, pool, req);
    console.log(String(ctx), out.slice(0, 20), await pool.readHeader());
    expect(new Set(out).size).toBe(600);
    ctx.destroy();
  });
});
