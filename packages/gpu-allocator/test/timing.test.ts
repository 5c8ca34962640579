import { describe, expect, it } from 'vitest';
import { BufferUsage, copyKernel, measureGpu, median } from '../src/index';
import { describeGpu } from '../src/testing/index';

for (const timestampQuery of [true, false]) {
  describeGpu(
    `measureGpu (timestamp-query ${timestampQuery ? 'on' : 'off'})`,
    (gpu) => {
      it('times labelled passes of real work', async () => {
        const ctx = gpu.ctx;
        const bytes = 1 << 20;
        const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
        const a = await ctx.createBuffer({ label: 'a', size: bytes, usage });
        const b = await ctx.createBuffer({ label: 'b', size: bytes, usage });
        await ctx.writeBuffer(
          a,
          0,
          Uint32Array.from({ length: bytes / 4 }, (_, i) => i * 3),
        );
        const copy = await copyKernel(ctx);
        const timing = await measureGpu(ctx, (encoder, timer) => {
          for (const label of ['first', 'second']) {
            const pass = timer.beginComputePass(encoder, label);
            copy.encode(pass, a, b, bytes);
            pass.end();
          }
        });
        const expected = ctx.features.timestampQuery ? 'timestamp' : 'wall-clock';
        expect(timing.method).toBe(expected);
        if (timing.method === 'timestamp') {
          expect(timing.passes.map((p) => p.label)).toEqual(['first', 'second']);
          for (const p of timing.passes) expect(p.ms).toBeGreaterThan(0);
        } else {
          expect(timing.passes).toEqual([]);
        }
        expect(timing.totalMs).toBeGreaterThan(0);
        // The copy really ran.
        const back = new Uint32Array(await ctx.readBuffer(b, bytes - 16, 16));
        expect([...back]).toEqual([0, 1, 2, 3].map((k) => (bytes / 4 - 4 + k) * 3));
        a.destroy();
        b.destroy();
      });
    },
    { acquire: { timestampQuery } },
  );
}

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });
});
