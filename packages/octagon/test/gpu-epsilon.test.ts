import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  addEpsilon,
  addEpsilonBin,
  createOctagonDomain,
  createOctagonGpu,
  gpuAddEpsilon,
  gpuAddEpsilonBin,
  type OctagonKind,
  type Rational,
} from '../src/index';
import { constraintsArb } from './arbitraries';

describeGpu('octagon add_epsilon on the GPU', (fixture) => {
  const cases: [OctagonKind, string][] = [
    ['int', '1/10'],
    ['int', '3'],
    ['real', '1/4'],
    ['real', '1/3'],
  ];
  it.each(cases)(
    '%s octagons, ε = %s: the CPU cells (floored on integers, at or above on reals)',
    async (kind, eps) => {
      const gpu = createOctagonGpu(fixture.ctx);
      const F = createOctagonDomain({ engine: 'f64', kind });
      const X = createOctagonDomain({ engine: 'exact', kind });
      try {
        await fc.assert(
          fc.asyncProperty(
            fc
              .integer({ min: 1, max: 12 })
              .chain((n) => fc.tuple(fc.constant(n), constraintsArb(n, 2 * n, -6, 20))),
            async ([n, cs]) => {
              const o = F.fromConstraints(n, cs);
              const cpu = addEpsilon(o, eps);
              const got = await gpuAddEpsilon(gpu, o, eps);
              expect(got.isEmpty()).toBe(cpu.isEmpty());
              if (cpu.isEmpty()) return;
              const g = got.toDense('raw') as number[];
              const c = cpu.toDense('raw') as number[];
              if (kind === 'real') {
                // f32, increment rounded up: at or above the CPU cell by cell (equal on the exact grid)
                for (let p = 0; p < g.length; p++)
                  expect(g[p] as number).toBeGreaterThanOrEqual(c[p] as number);
                if (eps === '1/4') expect(g).toEqual(c);
              } else {
                // i32 adds ⌊ε·max⌋ to integer cells: ⌊c + ε·max⌋, the exact engine's cells floored
                // (over integer variables the same points)
                const exact = addEpsilon(X.fromConstraints(n, cs), eps).rawMatrix() as Rational[];
                const want = exact.map((r) => (r.isInf ? Infinity : Number(r.floor().num)));
                expect(Array.from(got.rawMatrix() as Float64Array)).toEqual(want);
              }
            },
          ),
          { numRuns: 25 },
        );
      } finally {
        gpu.destroy();
      }
    },
  );

  it.each(['int', 'real'] as OctagonKind[])('add_epsilon_bin (%s): the CPU cells', async (kind) => {
    const gpu = createOctagonGpu(fixture.ctx);
    const F = createOctagonDomain({ engine: 'f64', kind });
    const X = createOctagonDomain({ engine: 'exact', kind });
    const eps = kind === 'int' ? '1/3' : '1/4';
    try {
      await fc.assert(
        fc.asyncProperty(
          fc
            .integer({ min: 1, max: 10 })
            .chain((n) =>
              fc.tuple(fc.constant(n), constraintsArb(n, 2 * n, -6, 20), constraintsArb(n, 2 * n, -6, 20)),
            ),
          async ([n, ca, cb]) => {
            const got = await gpuAddEpsilonBin(gpu, F.fromConstraints(n, ca), F.fromConstraints(n, cb), eps);
            const exact = addEpsilonBin(X.fromConstraints(n, ca), X.fromConstraints(n, cb), eps);
            expect(got.isEmpty()).toBe(exact.isEmpty());
            if (exact.isEmpty()) return;
            const cells = exact.rawMatrix() as Rational[];
            // integers: the exact cells floored (the same points); reals on the exact grid: equal
            const want = cells.map((r) =>
              r.isInf ? Infinity : kind === 'int' ? Number(r.floor().num) : r.toNumber('up'),
            );
            expect(Array.from(got.rawMatrix() as Float64Array)).toEqual(want);
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      gpu.destroy();
    }
  });

  it('the empty octagon stays empty; a negative ε is refused', async () => {
    const gpu = createOctagonGpu(fixture.ctx);
    const F = createOctagonDomain({ engine: 'f64', kind: 'int' });
    try {
      expect((await gpuAddEpsilon(gpu, F.bottom(3), 1)).isEmpty()).toBe(true);
      await expect(gpuAddEpsilon(gpu, F.top(2), -1)).rejects.toThrow(RangeError);
    } finally {
      gpu.destroy();
    }
  });
});
