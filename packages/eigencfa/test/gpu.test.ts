import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  compileScheme,
  createCfaSolver,
  firstDifference,
  parseExpectedStore,
  readMatricesDir,
  solveCfa,
  solveCpuSparse,
  solveWebGpu,
  solveWebGpuRounds,
  storeGeometry,
  vanHornMairson,
} from '../src/index';
import { randomSchemeProgram } from '../src/testing/programs';
import { examplePrograms, expectedSizes, readExample, vhmDir, vhmSizes } from './data';

/** Data-folder sizes lavapipe solves quickly. */
const small = vhmSizes.filter((n) => n === 'smallest' || Number(n) <= 64);

describeGpu('WebGPU engine', (gpu) => {
  it.each(small)('n = %s: WebGPU == CPU (== expected-store.rkt where shipped)', async (n) => {
    const dir = resolve(vhmDir as string, n);
    const m = await readMatricesDir(dir);
    const cpu = solveCpuSparse(m);
    const { store } = await solveWebGpu(gpu.ctx, m);
    expect(firstDifference(store, cpu.store)).toBeUndefined();
    if (expectedSizes.includes(n)) {
      const expected = parseExpectedStore(readFileSync(resolve(dir, 'expected-store.rkt'), 'utf8'));
      expect(firstDifference(store, expected)).toBeUndefined();
    }
  });

  it('n = 64 with the store split over four buffers, one round per dispatch at first', async () => {
    const m = compileScheme(vanHornMairson(64)).matrices;
    const rowsPerChunk = Math.ceil((2 * m.lams) / 4);
    expect(storeGeometry(m.lams, m.calls, 2 ** 30, rowsPerChunk).chunks).toBe(4);
    const { store, statistics } = await solveWebGpu(gpu.ctx, m, { rowsPerChunk, roundsPerBatch: 1 });
    expect(statistics.storeChunks).toBe(4);
    expect(statistics.batches).toBeGreaterThan(1);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('grows the item buffer and the member pool in place when they run out (capacities of one)', async () => {
    const m = compileScheme(readExample('interp.scm')).matrices;
    const grows: string[] = [];
    const { store, statistics } = await solveWebGpu(gpu.ctx, m, {
      itemCapacity: 1,
      poolCapacity: 1,
      onGrow: (what, from, to) => {
        expect(to).toBeGreaterThan(from);
        grows.push(what);
      },
    });
    expect(grows).toContain('items');
    expect(grows).toContain('members');
    expect(statistics.grows).toBe(grows.length);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('a small workgroup runs the same fixpoint', async () => {
    const m = compileScheme(vanHornMairson(16)).matrices;
    const { store } = await solveWebGpu(gpu.ctx, m, { threads: 32 });
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('following function rows at once gives the same fixpoint in fewer rounds, and with pools growing from one', async () => {
    const vhm = compileScheme(vanHornMairson(16)).matrices;
    const plain = await solveWebGpu(gpu.ctx, vhm);
    const followed = await solveWebGpu(gpu.ctx, vhm, { followFunctionRows: true });
    expect(firstDifference(followed.store, solveCpuSparse(vhm).store)).toBeUndefined();
    expect(followed.statistics.rounds).toBeLessThan(plain.statistics.rounds);
    const interp = compileScheme(readExample('interp.scm')).matrices;
    const grown = await solveWebGpu(gpu.ctx, interp, {
      followFunctionRows: true,
      itemCapacity: 1,
      poolCapacity: 1,
    });
    expect(grown.statistics.grows).toBeGreaterThan(0);
    expect(firstDifference(grown.store, solveCpuSparse(interp).store)).toBeUndefined();
  });

  it.each(small)('grid mode, n = %s: several workgroups per round give the CPU fixpoint', async (n) => {
    const m = await readMatricesDir(resolve(vhmDir as string, n));
    const { store, statistics } = await solveWebGpu(gpu.ctx, m, { mode: 'grid', gridWorkgroups: 3 });
    expect(statistics.gridWorkgroups).toBe(3);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('grid mode: item buffer and member pool grow from one, a round undone and rerun, one round per batch', async () => {
    for (const m of [
      compileScheme(readExample('interp.scm')).matrices,
      compileScheme(vanHornMairson(16)).matrices,
    ]) {
      const grows: string[] = [];
      const { store, statistics } = await solveWebGpu(gpu.ctx, m, {
        mode: 'grid',
        gridWorkgroups: 2,
        gridRoundsPerBatch: 1,
        itemCapacity: 1,
        poolCapacity: 1,
        onGrow: (what) => grows.push(what),
      });
      expect(grows).toContain('items');
      expect(grows).toContain('members');
      expect(statistics.batches).toBeGreaterThan(statistics.grows);
      expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
    }
  });

  it('grid mode on random programs == CPU (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 5 }), async (seed, size) => {
        const m = compileScheme(randomSchemeProgram(seed, size)).matrices;
        const { store } = await solveWebGpu(gpu.ctx, m, { mode: 'grid', gridWorkgroups: 4 });
        expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
      }),
      { numRuns: 10 },
    );
  });

  it('the round engine: n = 16 == CPU, and its pair buffer grows without restarting', async () => {
    const m = compileScheme(vanHornMairson(16)).matrices;
    const grows: number[] = [];
    // A capacity below the first round's pairs forces growth.
    const { store, statistics } = await solveWebGpuRounds(gpu.ctx, m, {
      pairCapacity: 1,
      onGrow: (_f, to) => grows.push(to),
    });
    expect(grows.length).toBeGreaterThan(0);
    expect(statistics.rounds).toBeGreaterThan(1);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
    const viaSolver = await solveCfa(m, { engine: 'webgpu', gpu: gpu.ctx, webgpu: { method: 'rounds' } });
    expect(firstDifference(viaSolver.store, store)).toBeUndefined();
    expect(viaSolver.statistics.counters.roundsRun).toBeGreaterThan(0);
  });

  it.each(examplePrograms)('%s: WebGPU == CPU', async (name) => {
    const m = compileScheme(readExample(name), { file: name }).matrices;
    const { store } = await solveCfa(m, { engine: 'webgpu', gpu: gpu.ctx });
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('random programs: WebGPU == CPU (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 5 }), async (seed, size) => {
        const m = compileScheme(randomSchemeProgram(seed, size)).matrices;
        const { store } = await solveWebGpu(gpu.ctx, m);
        expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
      }),
      { numRuns: 15 },
    );
  });

  it('emits phases and iterations, and an aborted signal cancels', async () => {
    const m = compileScheme(vanHornMairson(8)).matrices;
    const solver = createCfaSolver(m, { engine: 'auto', gpu: gpu.ctx });
    expect(solver.engine).toBe('webgpu');
    const phases: string[] = [];
    let iterations = 0;
    solver.on('phase', (p) => phases.push(p));
    solver.on('iteration', () => iterations++);
    const result = await solver.solve();
    expect(phases).toEqual(['setup', 'solve', 'readback', 'done']);
    expect(iterations).toBeGreaterThan(0);
    expect(result.statistics.counters.rounds).toBeGreaterThan(0);
    const controller = new AbortController();
    controller.abort();
    await expect(solveCfa(m, { engine: 'webgpu', gpu: gpu.ctx, signal: controller.signal })).rejects.toThrow(
      /cancelled/,
    );
  });
});
