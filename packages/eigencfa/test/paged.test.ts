import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  CfaEngineError,
  type CfaMatrices,
  compileScheme,
  createCfaMatrices,
  firstDifference,
  readMatricesDir,
  solveCfa,
  solveCpuSparse,
  solveWebGpu,
  storeGeometry,
  vanHornMairson,
} from '../src/index';
import { randomSchemeProgram } from '../src/testing/programs';
import { fixtureDir, fixtureSizes, readExample } from './data';

/** Storage bindings a kernel may have besides the store's (the delta kernel's other six). */
const OTHER_BINDINGS = 6;

/**
 * Van Horn–Mairson n = `n` renumbered so that its lambda ids spread over about `spread`: a store of
 * mostly empty rows, large dense, with few members.
 */
function spreadProgram(n: number, spread: number, offset: number): CfaMatrices {
  const base = compileScheme(vanHornMairson(n)).matrices;
  const stride = Math.ceil(spread / base.lams);
  const lams = stride * (base.lams - 1) + offset + 1;
  const renumber = (row: number) => Math.floor(row / base.lams) * lams + stride * (row % base.lams) + offset;
  return createCfaMatrices({
    lams,
    fun: base.fun.map(renumber),
    arg1: base.arg1.map(renumber),
    arg2: base.arg2.map(renumber),
  });
}

describeGpu('WebGPU engine, paged store', (gpu) => {
  it.each(fixtureSizes)('n = %s: the paged store == CPU', async (n) => {
    const m = await readMatricesDir(fixtureDir(n));
    const { store, statistics } = await solveWebGpu(gpu.ctx, m, { store: 'paged' });
    expect(statistics.storeLayout).toBe('paged');
    expect(statistics.pages).toBeGreaterThan(0);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('a store whose dense form needs more bindings than a kernel has runs paged, its pool grown by solving again', async () => {
    // 70,000 rows of 1,090 words: 306 MB dense, 19 bindings of 16 MiB.
    const m = spreadProgram(4, 34_000, 1100);
    const maxBindingBytes = 16 * 2 ** 20;
    const room = gpu.ctx.limits.maxStorageBuffersPerShaderStage - OTHER_BINDINGS;
    expect(storeGeometry(m.lams, m.calls, maxBindingBytes).chunks).toBeGreaterThan(room);
    await expect(solveWebGpu(gpu.ctx, m, { store: 'dense', maxBindingBytes })).rejects.toThrow(
      CfaEngineError,
    );
    const { store, statistics } = await solveWebGpu(gpu.ctx, m, { maxBindingBytes, pageCapacity: 64 });
    expect(statistics.storeLayout).toBe('paged');
    expect(statistics.restarts).toBeGreaterThan(0);
    expect(statistics.pages).toBeGreaterThan(64);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('grid mode: page table and page pool over several 16 KiB bindings, item buffer and member pool grown from one, readback in slices', async () => {
    // 1,037 lambdas: rows of 33 words, two summary words, so 4,148 table entries.
    const m = spreadProgram(8, 1000, 0);
    const maxBindingBytes = 16 * 1024;
    const pagesPerBinding = Math.floor(maxBindingBytes / (35 * 4));
    // The table over two bindings, and more pages than one binding holds.
    const tableEntries = 2 * m.lams * Math.ceil(Math.ceil(m.lams / 32) / 32);
    expect(Math.ceil((tableEntries * 4) / maxBindingBytes)).toBe(2);
    const { store, statistics } = await solveWebGpu(gpu.ctx, m, {
      maxBindingBytes,
      pageCapacity: 4 * pagesPerBinding,
      itemCapacity: 1,
      poolCapacity: 1,
      mode: 'grid',
      gridWorkgroups: 3,
    });
    expect(statistics.storeLayout).toBe('paged');
    expect(statistics.pages).toBeGreaterThan(pagesPerBinding);
    expect(statistics.storeChunks).toBeGreaterThanOrEqual(2 + 2);
    expect(statistics.grows).toBeGreaterThan(0);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('grid mode is refused over a dense store of several bindings; the workgroup kernels keep it', async () => {
    // (Auto picks the paged store for the grid kernels then; the grid test above runs paged.)
    const m = spreadProgram(8, 1000, 0);
    const maxBindingBytes = 64 * 1024;
    const chunks = storeGeometry(m.lams, m.calls, maxBindingBytes).chunks;
    expect(chunks).toBeGreaterThan(1);
    expect(chunks).toBeLessThanOrEqual(10);
    await expect(solveWebGpu(gpu.ctx, m, { maxBindingBytes, mode: 'grid', store: 'dense' })).rejects.toThrow(
      CfaEngineError,
    );
    const workgroup = await solveWebGpu(gpu.ctx, m, { maxBindingBytes, mode: 'workgroup' });
    expect(workgroup.statistics.storeLayout).toBe('dense');
    expect(workgroup.statistics.storeChunks).toBe(chunks);
    expect(firstDifference(workgroup.store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('random programs on the paged store == CPU (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 5 }), async (seed, size) => {
        const m = compileScheme(randomSchemeProgram(seed, size)).matrices;
        const { store } = await solveWebGpu(gpu.ctx, m, {
          store: 'paged',
          pageCapacity: 64,
          itemCapacity: 1,
        });
        expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
      }),
      { numRuns: 6 },
    );
  });

  it('an interpreter through solveCfa with a paged store: counters say so', async () => {
    const m = compileScheme(readExample('interp.scm')).matrices;
    const result = await solveCfa(m, { engine: 'webgpu', gpu: gpu.ctx, webgpu: { store: 'paged' } });
    expect(result.statistics.counters.pagedStore).toBe(1);
    expect(firstDifference(result.store, solveCpuSparse(m).store)).toBeUndefined();
  });

  it('auto runs the CPU engine when not even the page table fits the store bindings', async () => {
    const m = compileScheme(vanHornMairson(16)).matrices;
    // Store bindings of 256 bytes: the page table alone needs more of them than a kernel may have.
    const webgpu = { maxBindingBytes: 256 };
    await expect(solveCfa(m, { engine: 'webgpu', gpu: gpu.ctx, webgpu })).rejects.toThrow(CfaEngineError);
    const { store, statistics } = await solveCfa(m, { engine: 'auto', gpu: gpu.ctx, webgpu });
    expect(statistics.engine).toBe('cpu');
    expect(statistics.fallback).toMatch(/storage buffers/);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
  });
});
