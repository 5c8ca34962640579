import { GpuLimitError } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { expect, it } from 'vitest';
import {
  type ConstraintProgram,
  createConstraintBuilder,
  createGpuSolver,
  type GpuSolverOptions,
  solveAndersen,
} from '../src/index';

/**
 * One pointer to `objects` objects (each holding a pointer to its own target) and `loads` loads
 * through it: the round that resolves the loads emits `loads × objects` worklist pairs at once.
 */
function wideLoads(objects: number, loads: number): ConstraintProgram {
  const b = createConstraintBuilder();
  const p = b.variable('p');
  for (let i = 0; i < objects; i++) {
    const o = b.object(`o${i}`);
    b.addressOf(p, o);
    b.addressOf(o, b.object(`t${i}`));
  }
  for (let i = 0; i < loads; i++) b.load(b.variable(`x${i}`), p);
  return b.build();
}

describeGpu('Andersen WebGPU engine at the worklist’s largest size', (gpu) => {
  const solve = async (program: ConstraintProgram, options: Omit<GpuSolverOptions, 'gpu'>) => {
    const solver = await createGpuSolver(program, { ...options, gpu: gpu.ctx });
    const worklistSizes: number[] = [];
    solver.on('grow', ({ pool, to }) => {
      if (pool === 'worklist') worklistSizes.push(to);
    });
    try {
      return { result: await solver.solve(), worklistSizes };
    } finally {
      solver.destroy();
    }
  };

  it('grows the worklist no further than a binding holds, and stays exact', async () => {
    const program = wideLoads(600, 5);
    // 3,000 pairs in one round: doubling would ask for 6,000; a binding of 4,000 holds them.
    const { result, worklistSizes } = await solve(program, {
      '~unstable': { initialPairCapacity: 16, maxWorklistPairs: 4000 },
    });
    expect(worklistSizes.length).toBeGreaterThan(0);
    expect(Math.max(...worklistSizes)).toBeLessThanOrEqual(4000);
    const cpu = await solveAndersen(program, { engine: 'cpu' });
    for (let v = 0; v < program.nodeCount; v++) expect([...result.pointsTo(v)]).toEqual([...cpu.pointsTo(v)]);
  }, 300_000);

  it('says so, with a typed error, when one round emits more pairs than a binding holds', async () => {
    const program = wideLoads(600, 5);
    const failure = await solve(program, {
      '~unstable': { initialPairCapacity: 16, maxWorklistPairs: 1000 },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GpuLimitError);
    expect(failure).toMatchObject({ limit: 'maxStorageBufferBindingSize', available: 4000 });
    expect((failure as GpuLimitError).requested).toBeGreaterThan(4000);
    expect((failure as Error).message).toMatch(/CPU engine/);
  }, 300_000);

  it('engine auto answers on the CPU where the device cannot hold a round, and says why', async () => {
    const program = wideLoads(600, 5);
    const tuning = { initialPairCapacity: 16, maxWorklistPairs: 1000 };
    const solved = await solveAndersen(program, { engine: 'auto', gpu: gpu.ctx, '~unstable': tuning });
    expect(solved.engine).toBe('cpu');
    expect(solved.statistics.fallback).toMatch(/worklist pairs/);
    const cpu = await solveAndersen(program, { engine: 'cpu' });
    expect(cpu.statistics.fallback).toBeUndefined();
    for (let v = 0; v < program.nodeCount; v++) expect([...solved.pointsTo(v)]).toEqual([...cpu.pointsTo(v)]);
    // Asked for by name, the WebGPU engine does not fall back.
    await expect(
      solveAndersen(program, { engine: 'webgpu', gpu: gpu.ctx, '~unstable': tuning }),
    ).rejects.toBeInstanceOf(GpuLimitError);
  }, 300_000);
});
