import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import {
  type CfaMatrices,
  compileScheme,
  createCfaBufferPool,
  createCfaMatrices,
  createCfaSolver,
  firstDifference,
  parseExpectedStore,
  readMatricesDir,
  solveCfa,
  solveCpuSparse,
  solveWebGpu,
  storeGeometry,
  vanHornMairson,
} from '../src/index';
import { randomSchemeProgram } from '../src/testing/programs';
import { examplePrograms, fixtureDir, fixtureSizes, readExample } from './data';

/** The sizes carried as fixtures (smallest … 16, each with its expected store): small enough for lavapipe. */
const small = fixtureSizes;

describeGpu('WebGPU engine', (gpu) => {
  it.each(small)('n = %s: WebGPU == CPU == expected-store.rkt', async (n) => {
    const dir = fixtureDir(n);
    const m = await readMatricesDir(dir);
    const cpu = solveCpuSparse(m);
    const { store } = await solveWebGpu(gpu.ctx, m);
    expect(firstDifference(store, cpu.store)).toBeUndefined();
    const expected = parseExpectedStore(readFileSync(resolve(dir, 'expected-store.rkt'), 'utf8'));
    expect(firstDifference(store, expected)).toBeUndefined();
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

  it('following function rows at once (the default) gives the same fixpoint in fewer rounds; both ways with pools growing from one', async () => {
    const vhm = compileScheme(vanHornMairson(16)).matrices;
    const cpu = solveCpuSparse(vhm).store;
    const plain = await solveWebGpu(gpu.ctx, vhm, { followFunctionRows: false });
    const followed = await solveWebGpu(gpu.ctx, vhm, { followFunctionRows: true });
    expect(firstDifference(plain.store, cpu)).toBeUndefined();
    expect(firstDifference(followed.store, cpu)).toBeUndefined();
    expect(followed.statistics.rounds).toBeLessThan(plain.statistics.rounds);
    const interp = compileScheme(readExample('interp.scm')).matrices;
    for (const followFunctionRows of [false, true]) {
      const grown = await solveWebGpu(gpu.ctx, interp, {
        followFunctionRows,
        itemCapacity: 1,
        poolCapacity: 1,
      });
      expect(grown.statistics.grows).toBeGreaterThan(0);
      expect(firstDifference(grown.store, solveCpuSparse(interp).store)).toBeUndefined();
    }
  });

  it('a follow budget hands the rest of a chain to later rounds and gives the same fixpoint, both modes', async () => {
    const vhm = compileScheme(vanHornMairson(16)).matrices;
    const cpu = solveCpuSparse(vhm).store;
    for (const mode of ['workgroup', 'grid'] as const) {
      const rounds: number[] = [];
      for (const followBudget of [1, 3, 2 ** 32 - 1]) {
        const { store, statistics } = await solveWebGpu(gpu.ctx, vhm, {
          mode,
          followBudget,
          gridWorkgroups: 3,
        });
        expect(firstDifference(store, cpu)).toBeUndefined();
        rounds.push(statistics.rounds);
      }
      // Budgets of one and three joins stop following sooner than no budget at all.
      expect(rounds[0]).toBeGreaterThan(rounds[2] as number);
      expect(rounds[1]).toBeGreaterThan(rounds[2] as number);
    }
  });

  it('a buffer pool hands the store to the next solve of the same size, cleared first', async () => {
    const m = compileScheme(vanHornMairson(16)).matrices;
    // The same lambdas (so the same store size) with half the calls: a smaller fixpoint, which a
    // store left uncleared from m would spoil.
    const half = Math.floor(m.calls / 2);
    const smaller: CfaMatrices = {
      ...m,
      calls: half,
      fun: m.fun.slice(0, half),
      arg1: m.arg1.slice(0, half),
      arg2: m.arg2.slice(0, half),
    };
    const cpuM = solveCpuSparse(m).store;
    const cpuSmaller = solveCpuSparse(smaller).store;
    expect(cpuSmaller.size).toBeLessThan(cpuM.size);
    const other = compileScheme(vanHornMairson(8)).matrices;
    const pool = createCfaBufferPool(gpu.ctx);
    try {
      const first = await solveWebGpu(gpu.ctx, m, { bufferPool: pool });
      expect(first.statistics.reusedStoreBytes).toBe(0);
      expect(pool.heldBytes).toBe(first.statistics.storeBytes);
      const second = await solveWebGpu(gpu.ctx, smaller, { bufferPool: pool });
      expect(second.statistics.reusedStoreBytes).toBe(first.statistics.storeBytes);
      expect(firstDifference(second.store, cpuSmaller)).toBeUndefined();
      // A store of another size is allocated, and the pool then holds both.
      const third = await solveWebGpu(gpu.ctx, other, { bufferPool: pool });
      expect(third.statistics.reusedStoreBytes).toBe(0);
      expect(firstDifference(third.store, solveCpuSparse(other).store)).toBeUndefined();
      expect(pool.heldBytes).toBe(first.statistics.storeBytes + third.statistics.storeBytes);
      const viaSolver = await solveCfa(m, { engine: 'webgpu', gpu: gpu.ctx, webgpu: { bufferPool: pool } });
      expect(firstDifference(viaSolver.store, cpuM)).toBeUndefined();
      expect(viaSolver.statistics.counters.reusedStoreBytes).toBe(first.statistics.storeBytes);
    } finally {
      pool.destroy();
    }
    expect(pool.heldBytes).toBe(0);
  });

  it('lambda ids past store word 1024 (rows whose nonzero-word summary needs two top words), both modes', async () => {
    // n = 32 with every lambda l renumbered stride·l + 1100, so its ids pass word 1024 of a store of
    // about 35,000 lambdas, most of them unused.
    const base = compileScheme(vanHornMairson(32)).matrices;
    const stride = Math.ceil(34_000 / base.lams);
    const lams = stride * (base.lams - 1) + 1100 + 1;
    const renumber = (row: number) => {
      const kind = Math.floor(row / base.lams);
      return kind * lams + stride * (row % base.lams) + 1100;
    };
    // Four calls on unused lambdas A, B, C, D, G, H (H past word 1024) where only the top summary
    // finds H. c0 = (A H B) puts H in a_A and B in b_A at once; c6 = (G D C) puts C in b_G, a row
    // with a member list, so c2 = (b_G D b_A) passes B on to b_C one round later, after a_A's item
    // has gone by; c1 = (b_C a_A D) then pairs with B, and H reaches a_B only through the join of
    // all of a_A.
    const [A, B, C, D, G] = [1, 2, 3, 4, 5];
    const H = lams - 2;
    const a = (l: number) => lams + l;
    const b = (l: number) => 2 * lams + l;
    const extra = { fun: [A, G, b(G), b(C)], arg1: [H, D, D, a(A)], arg2: [B, C, b(A), D] };
    const m: CfaMatrices = {
      ...base,
      lams,
      vars: 2 * lams,
      rows: 3 * lams,
      calls: base.calls + extra.fun.length,
      fun: Uint32Array.from([...base.fun.map(renumber), ...extra.fun]),
      arg1: Uint32Array.from([...base.arg1.map(renumber), ...extra.arg1]),
      arg2: Uint32Array.from([...base.arg2.map(renumber), ...extra.arg2]),
    };
    expect(Math.floor(H / 32)).toBeGreaterThan(1024);
    const cpu = solveCpuSparse(m).store;
    expect(Array.from(cpu.row(a(B)))).toEqual([H]);
    for (const mode of ['workgroup', 'grid'] as const) {
      const { store } = await solveWebGpu(gpu.ctx, m, { mode, gridWorkgroups: 3 });
      expect(firstDifference(store, cpu)).toBeUndefined();
    }
  });

  it.each(small)('grid mode, n = %s: several workgroups per round give the CPU fixpoint', async (n) => {
    const m = await readMatricesDir(fixtureDir(n));
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

  it("a program whose dense store passes the device's storage bindings runs on the paged store", async () => {
    // A long chain (λl's body applies its first formal to its second) with enough lambdas that the
    // dense store does not fit the binding limit of this device.
    const limit = gpu.ctx.limits.maxStorageBuffersPerShaderStage;
    const maxBinding = Math.min(gpu.ctx.limits.maxStorageBufferBindingSize, gpu.ctx.limits.maxBufferSize);
    let lams = 1 << 14;
    while (storeGeometry(lams, lams + 1, maxBinding).chunks + 6 <= limit) lams *= 2;
    const fun = new Uint32Array(lams + 1);
    const arg1 = new Uint32Array(lams + 1);
    const arg2 = new Uint32Array(lams + 1);
    [fun[0], arg1[0], arg2[0]] = [0, 1, 0];
    for (let l = 0; l < lams; l++)
      [fun[l + 1], arg1[l + 1], arg2[l + 1]] = [lams + l, 2 * lams + l, lams + l];
    const m = createCfaMatrices({ lams, fun, arg1, arg2 });
    await expect(solveWebGpu(gpu.ctx, m, { store: 'dense' })).rejects.toThrow(/storage buffers/);
    const { store, statistics } = await solveCfa(m, { engine: 'auto', gpu: gpu.ctx });
    expect(statistics.engine).toBe('webgpu');
    expect(statistics.counters.pagedStore).toBe(1);
    expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
    expect(Array.from(store.row(lams))).toEqual([1]);
  });
});
