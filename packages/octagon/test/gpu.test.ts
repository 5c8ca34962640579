import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  createOctagonDomain,
  createOctagonGpu,
  joinArray,
  meetArray,
  Octagon,
  type OctagonKind,
  Rational,
} from '../src/index';
import { constraintsArb, randomHalf } from './arbitraries';

/** Every GPU cell ≥ the exact cell; equal when `equal`; twins equal (coherence of the dense result). */
function compare(gpu: Octagon<number>, exact: Octagon<Rational>, equal: boolean): void {
  if (exact.isEmpty()) return; // the GPU may only be less precise: anything is above ⊥
  expect(gpu.isEmpty()).toBe(false);
  const g = gpu.toDense('raw') as number[];
  const x = exact.toDense('closed') as Rational[];
  const N = 2 * gpu.dim;
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      const gv = Rational.fromNumber(g[i * N + j] as number);
      const c = gv.compare(x[i * N + j] as Rational);
      expect(c).toBeGreaterThanOrEqual(0);
      if (equal) expect(c).toBe(0);
    }
  }
}

describeGpu('octagon WebGPU engine', (fixture) => {
  for (const kind of ['int', 'real'] as OctagonKind[]) {
    it(`dense closure (${kind}): equals the exact engine on integer inputs, emptiness agrees`, async () => {
      const gpu = createOctagonGpu(fixture.ctx);
      const F = createOctagonDomain({ engine: 'f64', kind });
      const X = createOctagonDomain({ engine: 'exact', kind });
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 40 }),
          fc.infiniteStream(fc.integer({ min: 0, max: 1e9 })),
          async (n, seeds) => {
            const cons =
              fc.sample(constraintsArb(n, 3 * n, -2, 30), {
                numRuns: 1,
                seed: seeds.next().value as number,
              })[0] ?? [];
            const g = await gpu.close(F.fromConstraints(n, cons));
            const x = X.fromConstraints(n, cons);
            expect(g.isEmpty()).toBe(x.isEmpty());
            compare(g, x, true);
          },
        ),
        { numRuns: 8 },
      );
      gpu.destroy();
    });

    it(`batched closure (${kind}): many octagons in one dispatch equal the exact engine`, async () => {
      const gpu = createOctagonGpu(fixture.ctx);
      const F = createOctagonDomain({ engine: 'f64', kind });
      const X = createOctagonDomain({ engine: 'exact', kind });
      for (const n of [4, 16, 24]) {
        const batch = fc.sample(constraintsArb(n, 2 * n, -1, 30), { numRuns: 10, seed: n });
        const out = await gpu.closeBatch(batch.map((c) => F.fromConstraints(n, c)));
        batch.forEach((cons, k) => {
          const x = X.fromConstraints(n, cons);
          expect((out[k] as Octagon<number>).isEmpty()).toBe(x.isEmpty());
          compare(out[k] as Octagon<number>, x, true);
        });
      }
      gpu.destroy();
    });
  }

  it.each([
    [200, 32],
    [60, 64],
  ] as const)(
    'dense random octagon of %i variables, tile %i: several blocked rounds and padding match the f64 engine',
    async (n, tile) => {
      const gpu = createOctagonGpu(fixture.ctx, { tile });
      // Both formats at tile 32 (lavapipe's default); integers only at tile 64 (the H100's: the same
      // generated code with a larger unroll, costly to compile on lavapipe).
      for (const kind of tile === 32 ? (['int', 'real'] as const) : (['int'] as const)) {
        const F = createOctagonDomain({ engine: 'f64', kind });
        const half = randomHalf(n, 99);
        const o = new Octagon(F.bounds, kind, n, half, false);
        const g = await gpu.close(o);
        const c = o.close();
        expect(g.isEmpty()).toBe(c.isEmpty());
        if (!c.isEmpty())
          expect(Array.from(g.rawMatrix() as Float64Array)).toEqual(
            Array.from(c.closedMatrix() as Float64Array),
          );
      }
      gpu.destroy();
    },
  );

  it('batched closure of octagons too large for workgroup memory (storage-buffer path) matches the f64 engine', async () => {
    const gpu = createOctagonGpu(fixture.ctx);
    for (const kind of ['int', 'real'] as const) {
      const F = createOctagonDomain({ engine: 'f64', kind });
      const n = 100; // 200×200 cells: 160 KB, beyond any workgroup memory
      const os = [1, 2, 3].map((seed) => new Octagon(F.bounds, kind, n, randomHalf(n, seed), false));
      const out = await gpu.closeBatch(os);
      os.forEach((o, k) => {
        expect(Array.from(out[k]?.rawMatrix() as Float64Array)).toEqual(
          Array.from(o.closedMatrix() as Float64Array),
        );
      });
    }
    gpu.destroy();
  });

  it('the device matrix is coherent after closure (m[i][j] = m[j̄][ī] cell by cell, diagonal 0)', async () => {
    const gpu = createOctagonGpu(fixture.ctx);
    for (const kind of ['int', 'real'] as const) {
      const F = createOctagonDomain({ engine: 'f64', kind });
      const n = 30;
      const cons = fc.sample(constraintsArb(n, 80, 0, 50), { numRuns: 1, seed: 5 })[0] ?? [];
      const frac = kind === 'real' ? cons.map((c) => ({ ...c, c: Number(c.c) / 3 })) : cons;
      const dbm = await gpu.upload(F.fromConstraints(n, frac));
      const empty = await gpu.closeDbm(dbm);
      expect(empty).toBe(false);
      const bytes = await fixture.ctx.readBuffer(dbm.buffer);
      const m = kind === 'int' ? new Int32Array(bytes) : new Float32Array(bytes);
      const w = dbm.stride;
      let bad = 0;
      for (let i = 0; i < 2 * n; i++) {
        if (m[i * w + i] !== 0) bad++;
        for (let j = 0; j < 2 * n; j++) if (m[i * w + j] !== m[(j ^ 1) * w + (i ^ 1)]) bad++;
      }
      expect(bad).toBe(0);
      dbm.destroy();
    }
    gpu.destroy();
  });

  it('real octagons with fractional constants: GPU (f32, outward) ⊒ exact', async () => {
    const gpu = createOctagonGpu(fixture.ctx);
    const F = createOctagonDomain({ engine: 'f64', kind: 'real' });
    const X = createOctagonDomain({ engine: 'exact', kind: 'real' });
    const n = 40; // 3 tile rounds at tile 32: the last phase meets panels off the exact grid
    for (const cons of fc.sample(constraintsArb(n, 100, 0, 40), { numRuns: 4, seed: 3 })) {
      const frac = cons.map((c) => ({ ...c, c: Rational.of(BigInt(Number(c.c)) * 10n + 1n, 3n) }));
      const g = await gpu.close(
        F.fromConstraints(
          n,
          frac.map((c) => ({ ...c, c: c.c.toNumber('up') })),
        ),
      );
      compare(g, X.fromConstraints(n, frac), false);
    }
    gpu.destroy();
  });

  it('join, meet, widening and narrowing kernels match the CPU operators', async () => {
    const gpu = createOctagonGpu(fixture.ctx);
    for (const kind of ['int', 'real'] as const) {
      const F = createOctagonDomain({ engine: 'f64', kind });
      const [c1, c2] = fc.sample(constraintsArb(6, 14, 0, 20), { numRuns: 2, seed: 11 });
      const a = F.fromConstraints(6, c1 ?? []);
      const b = F.fromConstraints(6, c2 ?? []);
      expect((await gpu.elementwise('join', a, b)).equals(a.join(b))).toBe(true);
      expect((await gpu.elementwise('meet', a, b)).equals(a.meet(b))).toBe(true);
      expect((await gpu.elementwise('widen', a, b)).equals(a.widen(b))).toBe(true);
      expect((await gpu.elementwise('narrow', a, b)).equals(a.narrow(b))).toBe(true);
      // cell for cell, with the left argument closed (default) and as built
      const raw = (o: { rawMatrix(): ArrayLike<number> | null }) => Array.from(o.rawMatrix() ?? []);
      const cs = fc.sample(constraintsArb(6, 14, 0, 20), { numRuns: 3, seed: 12 });
      const os = cs.map((c) => F.fromConstraints(6, c));
      expect((await gpu.reduce('join', os)).equals(joinArray(os))).toBe(true);
      expect(raw(await gpu.reduce('meet', os))).toEqual(raw(meetArray(os)));
      for (const left of ['closed', 'raw'] as const) {
        expect(raw(await gpu.elementwise('widen', a, b, { left }))).toEqual(raw(a.widen(b, [], { left })));
        expect(raw(await gpu.elementwise('narrow', a, b, { left }))).toEqual(raw(a.narrow(b, { left })));
      }
    }
    gpu.destroy();
  });

  it('guard and x := x + c kernels match the CPU operators', async () => {
    const gpu = createOctagonGpu(fixture.ctx);
    const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
    const o = F.fromConstraints(5, [
      { i: 0, si: 1, j: 1, sj: -1, c: 3 },
      { i: 2, si: -1, c: 4 },
    ]).close();
    await gpu.prepareTransfer('i32', 'guard');
    await gpu.prepareTransfer('i32', 'shift');
    const dbm = await gpu.upload(o, 'closed');
    const guard = { i: 1, si: 1 as const, j: 3, sj: 1 as const, c: 7 };
    const encoder = fixture.ctx.device.createCommandEncoder();
    gpu.encodeGuard(encoder, dbm, guard);
    gpu.encodeShift(encoder, dbm, 0, 5);
    fixture.ctx.queue.submit([encoder.finish()]);
    const got = await gpu.download(dbm, false);
    dbm.destroy();
    expect(got.equals(o.guard(guard).assignVar(0, 1, 0, 5))).toBe(true);
    gpu.destroy();
  });
});
