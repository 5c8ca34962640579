import { BufferUsage, createElementPool } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { MEMBERS_PER_ELEMENT } from '@gpumorph/sparse-bitvector';
import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { teamWorkgroupSize } from '../src/gpu/layout';
import { solverModuleWgsl } from '../src/gpu/module/module';
import {
  type SolverKernelParams,
  smallSortCapacity,
  smallSortWorkgroupBytes,
} from '../src/gpu/module/solver.wgsl';
import {
  type AndersenResult,
  type ConstraintProgram,
  computeOfflineHcd,
  createConstraintBuilder,
  createGpuSolver,
  EngineUnavailableError,
  type GpuSolver,
  type GpuSolverOptions,
  type GpuSolverTuning,
  HARDEKOPF_REFERENCE_CONVENTIONS,
  type HcdPairs,
  type IterationEvent,
  readHardekopf,
  SolveAbortedError,
  type SolvePhase,
  solveAndersen,
  verifySolution,
} from '../src/index';
import { constraintProgram } from '../src/testing/index';
import { benchmarkPrefix } from './benchmarks';

/** `struct S { int *f; int *g; } s; int x, y; int *p, **pp, *q, *r, *t, *u;` with fields, loads and stores. */
function smallProgram() {
  const b = createConstraintBuilder();
  const s = b.object('s', { fields: 2 });
  const x = b.object('x');
  const y = b.object('y');
  const p = b.object('p');
  const pp = b.variable('pp');
  const q = b.variable('q');
  const r = b.variable('r');
  const t = b.variable('t');
  const u = b.variable('u');
  b.addressOf(p, x).addressOf(pp, p).store(pp, b.variable('w')).addressOf(q, s);
  b.offset(r, q, 1).store(r, p).load(t, q, 1).load(u, pp);
  const v = b.variable('v');
  b.addressOf(v, y).offset(b.variable('far'), v, 1); // y has one field: never applies
  b.copy(t, u).copy(u, t); // a cycle
  return { program: b.build(), s, x, p, pp, q, r, t, u };
}

/**
 * A hub that 1,200 pointers are copied into (in chains, so that sources keep gaining for a few
 * rounds), merged offline with 300 members that each load, store and offset through it, stores
 * through the hub that give every object many copy sources of its own, and 200 mirrors of one
 * pointer copied into the hub (equal ΔPs).
 */
function hubProgram() {
  const b = createConstraintBuilder();
  const hub = b.variable('hub');
  const objects = Array.from({ length: 400 }, (_, i) => b.object(`o${i}`, { fields: 2 }));
  const sources = Array.from({ length: 1200 }, (_, i) => b.variable(`s${i}`));
  sources.forEach((s, i) => {
    b.addressOf(s, objects[(i * 7) % objects.length] as number);
    b.copy(hub, s);
    if (i % 6 !== 5) b.copy(s, sources[i + 1] as number);
  });
  const members = Array.from({ length: 300 }, (_, j) => b.variable(`m${j}`));
  members.forEach((m, j) => {
    const s = sources[(j * 11) % sources.length] as number;
    if (j % 3 === 0) b.load(m, s, j % 2);
    else if (j % 3 === 1) b.store(m, s, j % 2);
    else b.offset(m, s, 1);
  });
  b.store(hub, sources[3] as number).load(b.variable('sink'), hub, 1);
  // 200 mirrors of one pointer: the hub pulls 200 equal ΔPs in the same rounds (ΔP-equivalence).
  const common = b.variable('common');
  for (let i = 0; i < 5; i++) b.addressOf(common, objects[i * 13] as number);
  b.copy(common, sources[600] as number);
  for (let j = 0; j < 200; j++) {
    const mirror = b.variable(`mirror${j}`);
    b.copy(mirror, common).copy(hub, mirror);
  }
  const offlineMerges = new Uint32Array(2 * members.length);
  members.forEach((m, j) => {
    offlineMerges[2 * j] = m;
    offlineMerges[2 * j + 1] = hub;
  });
  return { program: b.build(), hcd: { offlineMerges, online: new Uint32Array(0) } satisfies HcdPairs };
}

/** The solver's options and its tuning side by side, as the tests write them. */
type TestOptions = Omit<GpuSolverOptions, '~unstable'> & GpuSolverTuning;

/** {@link TestOptions} as `createGpuSolver` takes them: the tuning under `'~unstable'`. */
function solverOptions(options: TestOptions): GpuSolverOptions {
  const { gpu, hcd, signal, initialPoolElements, profile, keepBuffers, touchReadback, ...tuning } = options;
  return { gpu, hcd, signal, initialPoolElements, profile, keepBuffers, touchReadback, '~unstable': tuning };
}

/** The node named `hub`. */
function hub(program: ConstraintProgram): number {
  return program.names?.indexOf('hub') ?? -1;
}

/** Every node's set from the GPU result equals the CPU engine's. */
async function expectSameAsCpu(program: ConstraintProgram, gpu: AndersenResult, hcd?: HcdPairs) {
  const cpu = await solveAndersen(program, { engine: 'cpu', hcd });
  for (let v = 0; v < program.nodeCount; v++) {
    const got = gpu.pointsTo(v);
    const want = cpu.pointsTo(v);
    if (got.length !== want.length || got.some((m, i) => m !== want[i])) {
      expect({ node: v, pointsTo: [...got] }).toEqual({ node: v, pointsTo: [...want] });
    }
  }
}

describe('engine selection without an adapter', () => {
  const noAdapter = { requestAdapter: async () => null } as unknown as GPU;
  it('webgpu throws EngineUnavailableError instead of running on the CPU', async () => {
    await expect(
      solveAndersen(smallProgram().program, {
        engine: 'webgpu',
        acquire: { gpu: noAdapter, require: false },
      }),
    ).rejects.toBeInstanceOf(EngineUnavailableError);
  });
  it('auto falls back to the CPU engine', async () => {
    const result = await solveAndersen(smallProgram().program, { acquire: { gpu: noAdapter } });
    expect(result.engine).toBe('cpu');
  });
});

/** The workgroup-memory path's kernels take lavapipe minutes to compile on a cold shader cache. */
const slowGpuTests = process.env.GPUMORPH_SLOW_GPU_TESTS === '1';

describe('team workgroup size', () => {
  it('holds the teams asked for, rounded to a power of two, as far as the device allows', () => {
    expect(teamWorkgroupSize(32, 2, 1024)).toBe(64);
    expect(teamWorkgroupSize(32, 3, 1024)).toBe(128);
    expect(teamWorkgroupSize(8, 2, 256)).toBe(64);
    expect(teamWorkgroupSize(32, 64, 1024)).toBe(1024);
    expect(teamWorkgroupSize(128, 4, 256)).toBe(256);
    fc.assert(
      fc.property(
        fc.constantFrom(4, 8, 16, 32, 64, 128),
        fc.integer({ min: 0, max: 100 }),
        fc.constantFrom(128, 256, 512, 1024),
        (largest, asked, limit) => {
          const size = teamWorkgroupSize(largest, asked, limit);
          const width = Math.max(32, largest);
          expect(size % width).toBe(0);
          expect(Number.isInteger(Math.log2(size / width))).toBe(true);
          expect(size).toBeLessThanOrEqual(Math.max(width, limit));
          expect(size / width).toBeLessThanOrEqual(
            Math.max(1, 2 ** Math.round(Math.log2(Math.max(1, asked)))),
          );
        },
      ),
    );
  });
});

describeGpu('WebGPU Andersen engine', (gpu) => {
  // Compiles the kernels once (about a minute on lavapipe with a cold shader cache), so that no
  // test's own time limit pays for it.
  beforeAll(async () => {
    if (!gpu.available) return;
    const solver = await createGpuSolver(smallProgram().program, { gpu: gpu.ctx });
    await solver.solve();
    solver.destroy();
  }, 600_000);

  // A test past its time limit is failed but its body runs on, solving on gpu.ctx and taking its
  // kept buffers beside the tests after it; vitest aborts the test's signal then, so its solves
  // stop at their next round.
  let testSignal: AbortSignal | undefined;
  beforeEach(({ signal }) => {
    testSignal = signal;
  });

  const solve = async (
    program: ConstraintProgram,
    options: Omit<TestOptions, 'gpu'> = {},
    listen?: (solver: GpuSolver) => void,
  ) => {
    const solver = await createGpuSolver(
      program,
      solverOptions({ signal: testSignal, ...options, gpu: gpu.ctx }),
    );
    listen?.(solver);
    try {
      return { result: await solver.solve(), solver };
    } finally {
      solver.destroy();
    }
  };

  it('follows address-of, offsets, loads, stores and cycles through struct fields', async () => {
    const { program, s, x, p, pp, q, r, t, u } = smallProgram();
    const result = await solveAndersen(program, { engine: 'webgpu', gpu: gpu.ctx });
    expect(result.engine).toBe('webgpu');
    expect([...result.pointsTo(p)]).toEqual([x]);
    expect([...result.pointsTo(pp)]).toEqual([p]);
    expect([...result.pointsTo(q)]).toEqual([s]);
    expect([...result.pointsTo(r)]).toEqual([s + 1]);
    expect([...result.pointsTo(s + 1)]).toEqual([x]);
    expect([...result.pointsTo(t)]).toEqual([x]);
    expect([...result.pointsTo(u)]).toEqual([x]);
    expect(result.pointsTo(program.names?.indexOf('far') ?? -1)).toHaveLength(0);
    expect(result.gpu?.gpuBytes).toBeGreaterThan(0);
    await expectSameAsCpu(program, result);
  });

  it('builds the initial sets from repeated address-of and copy constraints, and counts only the copy edges rules add', async () => {
    const b = createConstraintBuilder();
    const o1 = b.object('o1');
    const o2 = b.object('o2');
    const d = b.object('d');
    const [a, c, e, p] = ['a', 'c', 'e', 'p'].map((name) => b.variable(name)) as [
      number,
      number,
      number,
      number,
    ];
    const bb = b.variable('b');
    b.addressOf(a, o1).addressOf(a, o1).addressOf(a, o2).copy(bb, a).copy(bb, a).copy(c, bb).copy(c, c);
    b.addressOf(p, d).store(p, a).load(e, p);
    const program = b.build();
    for (const options of [{}, { initialPoolElements: 1, initialPairCapacity: 16 }]) {
      const { result } = await solve(program, options);
      for (const v of [a, bb, c, d, e]) expect([...result.pointsTo(v)]).toEqual([o1, o2]);
      // *p = a adds d ⊇ a, e = *p adds e ⊇ d; the four initial copies (one a repeat, one a
      // self-copy) are not counted.
      expect(result.statistics.copyEdgesAdded).toBe(2);
      await expectSameAsCpu(program, result);
    }
  });

  it('builds initial sets of more pairs than one workgroup sorts (the merge sort, the radix sort) from tiny pools', async () => {
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 600 }, (_, i) => b.object(`o${i}`));
    const pointers = Array.from({ length: 40 }, (_, i) => b.variable(`p${i}`));
    // 3,000 address-of pairs (some repeated) and 400 copies, in an order the sort must undo.
    for (let i = 0; i < 3000; i++)
      b.addressOf(pointers[(i * 17) % 40] as number, objects[(i * 31) % 600] as number);
    for (let i = 0; i < 400; i++)
      b.copy(pointers[(i * 7) % 40] as number, pointers[(i * 13 + 5) % 40] as number);
    const program = b.build();
    expect(program.constraints.length).toBeGreaterThan(smallSortCapacity(8));
    // The merge sort in tiles of 2,048 (the default) and of 256 pairs (3,400 pairs: four merge
    // passes), and the radix sort.
    const variants = [
      {},
      { mergeSortTuning: { workgroupSize: 64, itemsPerThread: 4 } },
      { mergeSortPairs: 0 },
    ];
    for (const variant of variants) {
      const { result } = await solve(program, { initialPoolElements: 2, ...variant });
      // Each pointer's own 75 pairs name 15 distinct objects (31 · 40 ≡ 40 mod 600), before any copy.
      for (const pointer of pointers) expect(result.pointsTo(pointer).length).toBeGreaterThanOrEqual(15);
      await expectSameAsCpu(program, result);
    }
  });

  it('lays the final sets out again when they outgrow the worklist, and reads them back whole either way', async () => {
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 4 * MEMBERS_PER_ELEMENT }, (_, i) => b.object(`o${i}`));
    // 200 distinct sets of four elements each (an object from each element's range of members),
    // and 20 copies of them that share their copy: 800 elements of 32 words.
    const pointers = Array.from({ length: 200 }, (_, i) => {
      const p = b.variable(`p${i}`);
      for (let k = 0; k < 4; k++) b.addressOf(p, objects[MEMBERS_PER_ELEMENT * k + i] as number);
      return p;
    });
    for (let i = 0; i < 20; i++) b.copy(b.variable(`q${i}`), pointers[i * 7] as number);
    const program = b.build();
    // The default worklist (4 words a node: 16,240) is too small for them; one of 2^15 is not.
    const layouts: number[] = [];
    for (const initialPairCapacity of [undefined, 2 ** 15]) {
      const { result, solver } = await solve(program, { initialPairCapacity });
      for (const pointer of pointers) expect(result.pointsTo(pointer).length).toBe(4);
      expect(solver.report?.sharedSets).toBe(20);
      expect(result.statistics.pointsToElements).toBe(220 * 4);
      await expectSameAsCpu(program, result);
      layouts.push(solver.report?.liveLayouts ?? 0);
    }
    expect(layouts).toEqual([2, 1]);
  });

  it('equals the CPU engine on random programs, with and without HCD, from tiny pools and worklists', async () => {
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 60, maxConstraints: 120 }),
        fc.constantFrom<'none' | 'merge' | 'online'>('none', 'merge', 'online'),
        fc.boolean(),
        fc.boolean(),
        // The merge tree's kernels on one team or as many as the nodes.
        fc.constantFrom(1, undefined),
        fc.boolean(),
        // The fixed kernels of a submission recorded while the GPU runs the one before, or not.
        fc.boolean(),
        // Pools and worklist grown ahead, or only when they run out (in the rules or the update).
        fc.boolean(),
        // The options that change the kernels' code, in sets that give each option both of its
        // values (each set is a module that lavapipe compiles in 20–30 s on a cold shader cache):
        // - the shortcuts (the ΔP pulls' sources screened by the delta_bits bitmap, equal sets read
        //   back once) or none (each source looked up, each representative's set read);
        // - two subgroup teams per workgroup or one.
        fc.constantFrom<[boolean, number]>([true, 2], [false, 1]),
        // Worklists past sort_small's by the merge sort (default) or the radix sort.
        fc.constantFrom<0 | undefined>(0, undefined),
        async (
          program,
          mode,
          compositeSort,
          compactReadback,
          mergeTeams,
          smallSort,
          ahead,
          growAheadOff,
          [shortcuts, teamsPerWorkgroup],
          mergeSortPairs,
        ) => {
          const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
          const { result, solver } = await solve(program, {
            hcd,
            initialPoolElements: 2,
            initialPairCapacity: 16,
            compositeSort,
            compactReadback,
            mergeTeams,
            smallSort,
            deltaBitmap: shortcuts,
            shareEqualSets: shortcuts,
            encodeAhead: ahead,
            sortAhead: ahead,
            growAhead: growAheadOff ? { below: 0, to: 1 } : undefined,
            teamsPerWorkgroup,
            mergeSortPairs,
          });
          await expectSameAsCpu(program, result, hcd);
          if (ahead) expect(solver.report?.host.encodeAhead).toBeGreaterThan(0);
          else expect(solver.report?.host.encodeAhead).toBe(0);
          // Compacted, exactly the distinct sets of the representatives cross the bus (and the
          // union–find, the counts and the leaders): one 128-byte element per 960-member range a
          // set touches, each set once however many representatives have it.
          const n = result.nodeCount;
          let elements = 0;
          const distinct = new Map<string, number>();
          let representativesWithSets = 0;
          for (let v = 0; v < n; v++) {
            if (result.representative(v) === v) {
              const members = [...result.pointsTo(v)];
              const count = new Set(members.map((m) => Math.floor(m / 960))).size;
              elements += count;
              if (count > 0) representativesWithSets++;
              if (count > 0) distinct.set(members.join(','), count);
            }
          }
          expect(result.statistics.pointsToElements).toBe(elements);
          if (compactReadback && !shortcuts) {
            expect(solver.report?.readbackBytes).toBe(elements * 128 + 8 * n);
            expect(solver.report?.sharedSets).toBe(0);
          } else if (compactReadback) {
            const distinctElements = [...distinct.values()].reduce((a, b) => a + b, 0);
            expect(solver.report?.readbackBytes).toBe(distinctElements * 128 + 12 * n);
            expect(solver.report?.sharedSets).toBe(representativesWithSets - distinct.size);
          } else {
            expect(solver.report?.readbackBytes).toBeGreaterThanOrEqual(elements * 128 + 8 * n);
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 600_000);

  it('carries new pointees across two copy edges a round with the second hop, and equals the CPU engine without it or with any budget', async () => {
    // A chain of 12 copies from &x, stored into a field of y and loaded from it into a second chain
    // of 12 (the store's and the load's copy edges come only as the solve goes): the hop makes a
    // round cross two copy edges of a chain, not one.
    const b = createConstraintBuilder();
    const x = b.object('x');
    const y = b.object('y', { fields: 2 });
    const chain = Array.from({ length: 12 }, (_, i) => b.variable(`c${i}`));
    b.addressOf(chain[0] as number, x);
    for (let i = 1; i < chain.length; i++) b.copy(chain[i] as number, chain[i - 1] as number);
    const box = b.variable('box');
    b.addressOf(box, y).store(box, chain[11] as number, 1);
    const tail = Array.from({ length: 12 }, (_, i) => b.variable(`t${i}`));
    b.load(tail[0] as number, box, 1);
    for (let i = 1; i < tail.length; i++) b.copy(tail[i] as number, tail[i - 1] as number);
    const program = b.build();
    const rounds: Record<string, number> = {};
    for (const [name, hop] of [
      ['off', false],
      ['every round', {}],
      ['one pull from one slot', { pulls: 1, slots: 1 }],
      ['the default (the tail only)', undefined],
    ] as const) {
      const { result } = await solve(program, { hop, initialPoolElements: 2 });
      expect(Array.from(result.pointsTo(tail[11] as number))).toEqual([x]);
      await expectSameAsCpu(program, result);
      rounds[name] = result.statistics.rounds;
    }
    // 22 copy edges end to end: one a round without the hop, two with it (the edges that the load
    // and the store make come a round after their pointer's set, either way).
    expect(rounds.off).toBeGreaterThanOrEqual(24);
    expect(rounds['every round']).toBeLessThanOrEqual(Math.ceil((rounds.off as number) / 2) + 3);
    expect(rounds['one pull from one slot']).toBe(rounds['every round']);
    // Only the rounds of the store and the load push worklist pairs: the chains' rounds push none,
    // so they count as the tail, and the default hops in them too.
    expect(rounds['the default (the tail only)']).toBeLessThanOrEqual(
      Math.ceil((rounds.off as number) / 2) + 3,
    );
  });

  it('equals the CPU engine on random programs with an unbounded second hop, a one-pull one, one in some rounds only (two ways) and one between short sets', async () => {
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 60, maxConstraints: 120 }),
        fc.constantFrom<'none' | 'online'>('none', 'online'),
        // Unbounded, one pull, the default budget in only the rounds after one of at most 4 pairs
        // or of at most half the most pairs of a round (the update recorded with and without the
        // hop, as rounds alternate), and only between short sets (an N of at most 2 elements into
        // a P of at most 1).
        fc.constantFrom<NonNullable<GpuSolverTuning['hop']>>(
          { pulls: 1_000_000, slots: 1_000_000 },
          { pulls: 1, slots: 1 },
          { maxPairs: 4 },
          { tail: 0.5 },
          { setElements: 2, pointsElements: 1 },
        ),
        async (program, mode, hop) => {
          const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
          const { result } = await solve(program, {
            hcd,
            hop,
            initialPoolElements: 2,
            initialPairCapacity: 16,
          });
          await expectSameAsCpu(program, result, hcd);
        },
      ),
      { numRuns: 20 },
    );
  }, 600_000);

  it('equals the CPU engine in buffers kept from the solves before it, and in kept buffers of random words', async () => {
    const ctx = gpu.ctx;
    const reuse = vi.spyOn(ctx, 'reuseBuffer');
    const take = vi.spyOn(ctx.retained, 'take');
    const taken = () => take.mock.results.filter((r) => r.value !== undefined).length;
    try {
      await fc.assert(
        fc.asyncProperty(
          constraintProgram({ maxNodes: 60, maxConstraints: 120 }),
          constraintProgram({ maxNodes: 60, maxConstraints: 120 }),
          fc.integer({ min: 1, max: 2 ** 31 }),
          async (first, second, seed) => {
            ctx.retained.trim();
            await solve(first, { keepBuffers: true });
            // The second program starts in what the first left where sizes allow, and its worklist
            // sort is the first one's.
            reuse.mockClear();
            const options = { initialPairCapacity: 16, keepBuffers: true };
            await expectSameAsCpu(second, (await solve(second, options)).result);
            // Then in kept buffers of exactly the sizes it asks for, full of pseudo-random words
            // (0xffffffff, the lists' end, among them): each must be cleared or fully written.
            const asked = reuse.mock.calls.map(([descriptor]) => descriptor);
            ctx.retained.trim();
            let state = seed;
            for (const { size, usage } of asked) {
              const words = new Uint32Array(Math.ceil(size / 4));
              for (let i = 0; i < words.length; i++) {
                state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
                words[i] = state % 5 === 0 ? 0xffff_ffff : state % 3 === 0 ? state % 64 : state;
              }
              const buffer = await ctx.createBuffer({ label: 'leftover', size: words.byteLength, usage });
              if ((usage & BufferUsage.COPY_DST) !== 0) await ctx.writeBuffer(buffer, 0, words);
              ctx.releaseBuffer(buffer);
            }
            const before = taken();
            const { result } = await solve(second, options);
            // Every buffer the solver asked the context for came from the kept ones: both head
            // tables, the nodes, rules, control words, parameters and the worklist's two arrays.
            expect(asked.length).toBeGreaterThanOrEqual(8);
            expect(taken() - before).toBeGreaterThanOrEqual(asked.length);
            await expectSameAsCpu(second, result);
          },
        ),
        { numRuns: 12 },
      );
    } finally {
      reuse.mockRestore();
      take.mockRestore();
      ctx.retained.trim();
    }
  });

  it('frees its buffers when destroyed, and leaves them on the context only with keepBuffers', async () => {
    const ctx = gpu.ctx;
    const { program } = smallProgram();
    ctx.retained.trim();
    const plain = await solve(program);
    expect(plain.solver.report?.touchedReadback).toBe(false);
    expect(ctx.retained.count).toBe(0);
    const kept = await solve(program, { keepBuffers: true });
    const left = ctx.retained.count;
    expect(left).toBeGreaterThan(0);
    await expectSameAsCpu(program, kept.result);
    // Without keepBuffers a solve neither takes them nor leaves its own.
    const again = await solve(program);
    expect(ctx.retained.count).toBe(left);
    await expectSameAsCpu(program, again.result);
    ctx.retained.trim();
  });

  it("equals the CPU engine when its pools start in kept buffers full of another user's words", async () => {
    const ctx = gpu.ctx;
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
    const take = vi.spyOn(ctx.retained, 'take');
    try {
      await fc.assert(
        fc.asyncProperty(
          constraintProgram({ maxNodes: 60, maxConstraints: 120 }),
          fc.constantFrom<'none' | 'online'>('none', 'online'),
          fc.integer({ min: 1, max: 2 ** 31 }),
          async (program, mode, seed) => {
            // Kept buffers of every pool size from 1 to 64 elements, filled with pseudo-random
            // words (0xffffffff among them, the lists' end), so that any pool the solve makes or
            // grows to within that range starts in one.
            ctx.retained.trim();
            let state = seed;
            for (let elements = 1; elements <= 64; elements++) {
              const words = new Uint32Array(32 * elements);
              for (let i = 0; i < words.length; i++) {
                state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
                words[i] = state % 7 === 0 ? 0xffff_ffff : state;
              }
              const buffer = await ctx.createBuffer({ label: 'leftover', size: words.byteLength, usage });
              await ctx.writeBuffer(buffer, 0, words);
              ctx.releaseBuffer(buffer);
            }
            const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
            const taken = take.mock.results.filter((r) => r.value !== undefined).length;
            const { result } = await solve(program, {
              hcd,
              initialPoolElements: 2,
              initialPairCapacity: 16,
              keepBuffers: true,
            });
            // Both pools started in kept buffers.
            expect(
              take.mock.results.filter((r) => r.value !== undefined).length - taken,
            ).toBeGreaterThanOrEqual(2);
            await expectSameAsCpu(program, result, hcd);
          },
        ),
        { numRuns: 20 },
      );
    } finally {
      take.mockRestore();
      ctx.retained.trim();
    }
  }, 600_000);

  it('equals the CPU engine with member ids across many elements (objects of up to 30 fields)', async () => {
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 3000, maxConstraints: 200, maxFields: 30, names: false }),
        fc.constantFrom<'none' | 'merge' | 'online'>('none', 'merge', 'online'),
        // One team per rule and online pair, or several, each decoding every 2nd or 3rd element.
        fc.constantFrom(1, 2, 3),
        async (program, mode, split) => {
          const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
          const { result } = await solve(program, {
            hcd,
            initialPoolElements: 8,
            ruleSplit: split,
            hookSplit: split,
          });
          await expectSameAsCpu(program, result, hcd);
        },
      ),
      { numRuns: 15 },
    );
  }, 600_000);

  it.each([1, 2, 3, 16])(
    'decodes a ΔP of five elements for a load, a store, an offset and an online pair with %i team(s) each',
    async (split) => {
      // p points to objects 1,000 ids apart (one element each, all in p's first ΔP): every team of
      // a split must take its own elements, or some field, copy edge or hook goes missing.
      const b = createConstraintBuilder();
      const p = b.variable('p');
      const x = b.variable('x');
      const y = b.variable('y');
      const z = b.variable('z');
      const s = b.object('s');
      const objects: number[] = [];
      const targets: number[] = [];
      for (let k = 0; k < 5; k++) {
        for (let filler = 0; filler < 996; filler++) b.variable(`f${k}_${filler}`);
        objects.push(b.object(`o${k}`, { fields: 2 }));
        targets.push(b.object(`t${k}`));
      }
      objects.forEach((o, k) => {
        b.addressOf(p, o);
        b.addressOf(o, targets[k] as number);
      });
      b.addressOf(y, s);
      b.load(x, p).store(p, y).offset(z, p, 1);
      const program = b.build();
      // The online pair (p, x): *p lies on a cycle with x, so every object p points to joins x's class.
      const hcd = { offlineMerges: new Uint32Array(0), online: Uint32Array.of(x, p) };
      const { result } = await solve(program, { ruleSplit: split, hookSplit: split, hcd });
      await expectSameAsCpu(program, result, hcd);
      expect(result.pointsTo(z)).toHaveLength(5);
      for (const o of objects) expect(result.representative(o)).toBe(result.representative(x));
    },
  );

  it('strides over an active list that outgrew the teams launched for it (listFloorItems 1)', async () => {
    // A chain p0 → p1 → … → p6 carries one pointee a round, so each list holds a node or two;
    // then 300 copies q_i = p6 pull at once, each loads r_i = *q_i and stores *q_i = y: the
    // pull, pending, delta and segment lists jump to hundreds of items while their readers were
    // launched for twice the last round's few. A team that took only its first item would lose
    // the other q_i's and r_i's pointees.
    const b = createConstraintBuilder();
    const o = b.object('o');
    const s = b.object('s');
    const y = b.variable('y');
    b.addressOf(y, s);
    const chain = [b.variable('p0')];
    b.addressOf(chain[0] as number, o);
    for (let i = 1; i <= 6; i++) {
      const next = b.variable(`p${i}`);
      b.copy(next, chain[i - 1] as number);
      chain.push(next);
    }
    const q: number[] = [];
    const r: number[] = [];
    for (let i = 0; i < 300; i++) {
      q.push(b.variable(`q${i}`));
      r.push(b.variable(`r${i}`));
      b.copy(q[i] as number, chain[6] as number);
      b.load(r[i] as number, q[i] as number);
      b.store(q[i] as number, y);
    }
    const program = b.build();
    const { result } = await solve(program, { listFloorItems: 1 });
    await expectSameAsCpu(program, result);
    for (const v of q) expect([...result.pointsTo(v)]).toEqual([o]);
    for (const v of r) expect([...result.pointsTo(v)]).toEqual([s]);
  });

  it('equals the CPU engine when every kernel is launched as one workgroup (grid caps of 1)', async () => {
    // Every team and thread kernel strides over its items; one workgroup must still reach them
    // all (a kernel that covered only its first grid's worth would lose nodes, pulls or pairs).
    // Programs of about 1,400 nodes: more items than a thread workgroup's 256 invocations.
    const wideProgram = (seed: number) => {
      let state = seed >>> 0;
      const next = (bound: number) => {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        return (state >>> 8) % bound;
      };
      const b = createConstraintBuilder();
      const objects = Array.from({ length: 200 }, (_, i) => b.object(`o${i}`, { fields: 1 + (i % 3) }));
      const vars = Array.from({ length: 1000 }, (_, i) => b.variable(`v${i}`));
      const pick = () => vars[next(vars.length)] as number;
      for (const v of vars) if (next(4) === 0) b.addressOf(v, objects[next(objects.length)] as number);
      for (let i = 0; i < 1600; i++) {
        const kind = next(10);
        if (kind < 5) b.copy(pick(), pick());
        else if (kind < 7) b.load(pick(), pick(), next(3));
        else if (kind < 9) b.store(pick(), pick(), next(3));
        else b.offset(pick(), pick(), next(3));
      }
      return b.build();
    };
    for (const [seed, gridCaps] of [
      [1, { team: 1, thread: 1 }],
      [2, { team: 2, thread: 3 }],
      [3, { team: 1, thread: 1 }],
    ] as const) {
      const program = wideProgram(seed);
      const { result } = await solve(program, { gridCaps });
      await expectSameAsCpu(program, result);
    }
  });

  it('starts every active list again each round (lists that grew past their arrays over the rounds)', async () => {
    // A chain p0 → … → p39 whose every node also takes the address of an object of its own, and
    // loads and stores through it: in round k every node from p_k on gains a pointee, so each
    // round's delta, pull, pending and segment lists hold most of the chain, and over the 40
    // rounds together many times the 200-odd nodes their arrays hold. A list whose count is not
    // set back to 0 once its readers ran writes past its array into the next one.
    const b = createConstraintBuilder();
    const y = b.variable('y');
    b.addressOf(y, b.object('s'));
    const chain: number[] = [];
    for (let i = 0; i < 40; i++) {
      const p = b.variable(`p${i}`);
      const loaded = b.variable(`r${i}`);
      b.addressOf(p, b.object(`o${i}`));
      if (i > 0) b.copy(p, chain[i - 1] as number);
      b.load(loaded, p).store(p, y);
      chain.push(p);
    }
    const program = b.build();
    // Without the second copy hop, which would take the chain two edges a round.
    const { result } = await solve(program, { hop: false });
    expect(result.statistics.rounds).toBeGreaterThanOrEqual(40);
    await expectSameAsCpu(program, result);
    expect(result.pointsTo(chain[39] as number)).toHaveLength(40);
  });

  it('pulls a ΔP over several element bases minus P(r), base by base', async () => {
    // Objects at ids 960·k + 100 (bases 0–3, the same bit of each element). r already points to
    // o0 and o3 when the ΔP {o0, o1, o2, o3} of a source arrives (three copies later):
    // subtracting an element of P(r) from a src element of another base would drop o1 or o2.
    const b = createConstraintBuilder();
    const objects: number[] = [];
    let last = -1;
    for (let k = 0; k < 4; k++) {
      while (last < 960 * k + 99) last = b.variable(`f${last + 1}`);
      last = b.object(`o${k}`);
      objects.push(last);
    }
    expect(objects).toEqual([100, 1060, 2020, 2980]);
    const r = b.variable('r');
    const early = b.variable('early');
    b.addressOf(early, objects[0] as number)
      .addressOf(early, objects[3] as number)
      .copy(r, early);
    const chain = Array.from({ length: 4 }, (_, i) => b.variable(`t${i}`));
    for (const o of objects) b.addressOf(chain[0] as number, o);
    for (let i = 1; i < chain.length; i++) b.copy(chain[i] as number, chain[i - 1] as number);
    b.copy(r, chain[chain.length - 1] as number);
    const program = b.build();
    const { result } = await solve(program);
    expect([...result.pointsTo(r)]).toEqual(objects);
    await expectSameAsCpu(program, result);
  });

  it.each([
    { name: 'a table of twice the rules' },
    { name: 'one slot (every signature probes the same slot)', deltaTableSlots: 1 },
    { name: 'every signature hashed alike', collideHashes: true },
  ])('runs one rule per signature and skips its equals, never one that differs: $name', async (table) => {
    // Five pointers with equal ΔPs (one leader) feed rules that share a signature in pairs, and
    // rules that differ from them in one part only: the kind, the offset or the class written.
    // Skipping any of the latter loses a pointee, a field or a copy edge.
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 4 }, (_, i) => b.object(`o${i}`, { fields: 3 }));
    const pointers = Array.from({ length: 5 }, (_, i) => b.variable(`y${i}`));
    const [y0, y1, y2, y3, y4] = pointers as [number, number, number, number, number];
    objects.forEach((o, i) => {
      for (let f = 0; f < 3; f++) b.addressOf(o + f, b.object(`t${i}_${f}`));
      for (const y of pointers) b.addressOf(y, o);
    });
    const x = b.variable('x');
    const w = b.variable('w');
    const v = b.variable('v');
    const s1 = b.variable('s1');
    const s2 = b.variable('s2');
    b.addressOf(s1, b.object('a')).addressOf(s2, b.object('c'));
    b.load(x, y0, 0).load(x, y1, 0); // one signature
    b.load(x, y2, 1); // another offset
    b.offset(x, y3, 1); // another kind (x, y + 1 as an offset, not a load)
    b.load(w, y4, 0); // another class written
    b.offset(v, y0, 2).offset(v, y1, 2); // one signature
    b.store(y0, s1, 2).store(y1, s1, 2); // one signature
    b.store(y2, s2, 2); // another source (the class a store's pairs carry)
    b.store(y3, s1, 1); // another offset
    // Another ΔP (another leader): z0 has the objects, z1 one more of its own.
    const u = b.variable('u');
    const z0 = b.variable('z0');
    const z1 = b.variable('z1');
    const own = b.object('own');
    b.addressOf(own, b.object('t_own'));
    for (const o of objects) b.addressOf(z0, o);
    b.addressOf(z1, own).load(u, z0, 0).load(u, z1, 0);
    const program = b.build();
    const { name: _, ...options } = table;
    const { result, solver } = await solve(program, options);
    await expectSameAsCpu(program, result);
    const pointees = (node: number) => [...result.pointsTo(node)];
    // t_0 and t_1 of each object through the loads, a stored into every field 1, o + 1 by offset.
    expect(pointees(x)).toHaveLength(4 + 4 + 1 + 4);
    expect(pointees(w)).toHaveLength(4);
    expect(pointees(u)).toHaveLength(5);
    expect(pointees(v)).toEqual(objects.map((o) => o + 2));
    for (const o of objects) expect(result.pointsTo(o + 2)).toHaveLength(3); // t_2, a and c
    const shared = solver.report?.sharedRules ?? 0;
    if (table.deltaTableSlots === 1) expect(shared).toBeLessThanOrEqual(3);
    else expect(shared).toBeGreaterThanOrEqual(3);
    const { result: unshared, solver: plain } = await solve(program, { ...options, shareRules: false });
    expect(plain.report?.sharedRules).toBe(0);
    for (let node = 0; node < program.nodeCount; node++) {
      expect([...unshared.pointsTo(node)]).toEqual([...result.pointsTo(node)]);
    }
  });

  it.each([
    {
      name: 'one pull per chunk, at most 7 chunks (a 2-level merge tree of fan-in 4)',
      pullChunk: 1,
      maxPullChunks: 7,
      pullChunkCapacity: 1 << 16,
    },
    {
      name: 'one pull per chunk, at most 7 chunks folded in pairs (a 3-level merge tree)',
      pullChunk: 1,
      maxPullChunks: 7,
      pullChunkCapacity: 1 << 16,
      partialMergeFanIn: 2 as const,
    },
    {
      name: 'three pulls per chunk, up to 1,024 chunks',
      pullChunk: 3,
      maxPullChunks: 1024,
      pullChunkCapacity: 1 << 16,
    },
    {
      name: 'three pulls per chunk, up to 1,024 chunks folded 16 at a time',
      pullChunk: 3,
      maxPullChunks: 1024,
      pullChunkCapacity: 1 << 16,
      partialMergeFanIn: 16 as const,
    },
    {
      name: 'a chunk capacity of 10 (most representatives refused, run unsplit)',
      pullChunk: 1,
      maxPullChunks: 64,
      pullChunkCapacity: 10,
    },
    {
      name: 'a ΔP table of two slots (unequal ΔPs collide)',
      pullChunk: 4,
      maxPullChunks: 32,
      pullChunkCapacity: 1 << 16,
      deltaTableSlots: 2,
    },
    {
      name: 'tiny pools (split pulls and merges re-run)',
      pullChunk: 2,
      maxPullChunks: 16,
      initialPoolElements: 2,
      pullChunkCapacity: 1 << 16,
    },
    {
      name: 'tiny pools, chunks folded 8 at a time',
      pullChunk: 1,
      maxPullChunks: 100,
      initialPoolElements: 2,
      pullChunkCapacity: 1 << 16,
      partialMergeFanIn: 8 as const,
    },
  ])(
    'splits a representative with 1,200 copy sources and 300 members over teams: $name',
    async (split) => {
      const { program, hcd } = hubProgram();
      const { name: _, ...options } = split;
      const { result, solver } = await solve(program, { hcd, ...options });
      const report = solver.report?.pullSplit;
      expect(report?.extraChunks).toBeGreaterThan(0);
      expect(report?.skippedEqualDeltas).toBeGreaterThan(0);
      expect(report?.maxChunks).toBeGreaterThan(1);
      expect(report?.maxChunks).toBeLessThanOrEqual(split.maxPullChunks);
      if (split.pullChunkCapacity < 1 << 16) expect(report?.refused).toBeGreaterThan(0);
      else expect(report?.refused).toBe(0);
      if (split.initialPoolElements !== undefined) expect(solver.report?.reruns).toBeGreaterThan(0);
      expect(result.pointsTo(hub(program)).length).toBeGreaterThan(300);
      await expectSameAsCpu(program, result, hcd);
    },
    120_000,
  );

  it('refuses a partial-merge fan-in that is not 2, 4, 8 or 16', async () => {
    const { program } = smallProgram();
    for (const partialMergeFanIn of [0, 1, 3, 32]) {
      await expect(
        createGpuSolver(program, solverOptions({ gpu: gpu.ctx, partialMergeFanIn: partialMergeFanIn as 2 })),
      ).rejects.toThrow(/partialMergeFanIn must be 2, 4, 8 or 16/);
    }
  });

  it('equals the CPU engine on random programs with pulls split into chunks and a tiny ΔP table', async () => {
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 60, maxConstraints: 160 }),
        fc.constantFrom<'none' | 'merge' | 'online'>('none', 'merge', 'online'),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 40 }),
        // A ΔP table of one to four slots: unequal ΔPs collide and must be told apart.
        fc.integer({ min: 1, max: 4 }),
        // One pull per chunk splits the most; 1,000 keeps all of a representative's pulls on one
        // team, whose record of pulled ΔPs then skips the most.
        fc.constantFrom(1, 2, 1000),
        // The worklist's pair table of two or four slots (repeats collide, probes run out), or the default.
        fc.constantFrom(2, 4, undefined),
        // The kernels that look for work among all nodes run over the GPU's lists of those with
        // work, or sweep every node (activeLists: the pull list's representatives and the extra
        // chunks after them).
        fc.boolean(),
        // The lists' readers launched for at least one item (twice what the list held when last
        // read back: a list that more than doubled is strided over by fewer teams than items), or
        // for at least the default 8,192 (more than these programs ever list).
        fc.constantFrom(1, undefined),
        async (
          program,
          mode,
          maxPullChunks,
          pullChunkCapacity,
          deltaTableSlots,
          pullChunk,
          pairTableSlots,
          activeLists,
          listFloorItems,
        ) => {
          const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
          const options = {
            hcd,
            initialPoolElements: 2,
            initialPairCapacity: 16,
            pullChunk,
            maxPullChunks,
            pullChunkCapacity,
            deltaTableSlots,
            pairTableSlots,
            activeLists,
            listFloorItems,
          };
          const { result } = await solve(program, options);
          await expectSameAsCpu(program, result, hcd);
          if (mode === 'online') {
            // hcd_hook skips the pointees already in the target's class: the same classes as when
            // it hooks every one (the sets alone would not tell: HCD merges only nodes whose sets
            // end equal).
            const { result: hooked } = await solve(program, { ...options, hcdSkipJoined: false });
            expect(result.statistics.hcdMerges).toBe(hooked.statistics.hcdMerges);
            for (let v = 0; v < result.nodeCount; v++) {
              expect(result.representative(v)).toBe(hooked.representative(v));
            }
          }
        },
      ),
      { numRuns: 32 },
    );
  }, 600_000);

  it('merges worklist runs that repeat each source hundreds of times (copies skipped by search)', async () => {
    // Loads x = *y_i and stores *y_i = z through many pointers y_i into the same few objects: the
    // worklist holds each (x, object) and (object, z) pair once per pointer, so each key's sorted run
    // is long stretches of one source, which the merge jumps over.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.uniqueArray(fc.nat({ max: 5 }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 3 }),
        // Sorted by the (key, source) word, or by source and then by key (pairs in two words).
        fc.boolean(),
        async (objectCount, pointees, sinks, compositeSort) => {
          const b = createConstraintBuilder();
          const objects = Array.from({ length: objectCount }, (_, i) => b.object(`o${i}`));
          // Each object points to a target of its own, so that x loses one for every copy edge
          // (a run's source) that goes missing.
          objects.forEach((o, i) => {
            b.addressOf(o, b.object(`t${i}`));
          });
          const x = b.variable('x');
          const zs = Array.from({ length: sinks }, (_, j) => b.variable(`z${j}`));
          zs.forEach((z, j) => {
            b.addressOf(z, objects[j % objectCount] as number);
          });
          pointees.forEach((targets, i) => {
            const y = b.variable(`y${i}`);
            for (const o of targets) b.addressOf(y, objects[o % objectCount] as number);
            b.load(x, y);
            for (const z of zs) b.store(y, z);
          });
          const program = b.build();
          const { result } = await solve(program, {
            initialPoolElements: 4,
            initialPairCapacity: 16,
            smallSort: pointees.length % 2 === 0,
            compositeSort,
            // Every pointer's rules run (pointers with equal ΔPs would share theirs), and every
            // pair is pushed however often it repeats, so that the runs repeat their sources.
            shareRules: false,
            dedupePairs: false,
          });
          await expectSameAsCpu(program, result);
        },
      ),
      { numRuns: 25 },
    );
  }, 600_000);

  it('pushes a repeated worklist pair once per attempt, whatever the size of its table', async () => {
    // Loads x = *y_i through 40 pointers into the same three objects, each rule run (shareRules
    // off): without the table, every pointer pushes the three (x, object) pairs.
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 3 }, (_, i) => b.object(`o${i}`));
    objects.forEach((o, i) => {
      b.addressOf(o, b.object(`t${i}`));
    });
    const x = b.variable('x');
    for (let i = 0; i < 40; i++) {
      const y = b.variable(`y${i}`);
      for (const o of objects) b.addressOf(y, o);
      b.load(x, y);
    }
    const program = b.build();
    const pushed = async (options: Omit<TestOptions, 'gpu'>) => {
      const { result, solver } = await solve(program, { shareRules: false, ...options });
      await expectSameAsCpu(program, result);
      return solver.report?.pairs ?? Number.NaN;
    };
    expect(await pushed({ dedupePairs: false })).toBe(40 * 3);
    expect(await pushed({})).toBe(3);
    // Two slots: the three pairs cannot all have one, so some repeats are pushed (and merged).
    const tiny = await pushed({ pairTableSlots: 2 });
    expect(tiny).toBeGreaterThan(3);
    expect(tiny).toBeLessThan(40 * 3);
  });

  it('sorts worklists of up to 1,024 or 2,048 pairs in one workgroup and longer ones with the merge sort or the radix sort', async () => {
    // x_j = *y for `loads` variables x_j, y pointing to `objects` objects: one round pushes
    // loads × objects pairs (400 to 4,096), on both sides of the one-workgroup sort's capacity.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 20, max: 64 }),
        fc.integer({ min: 20, max: 64 }),
        fc.boolean(),
        // Pairs per invocation: the default 8 (2,048 pairs), or 4 (1,024 pairs).
        fc.constantFrom<4 | undefined>(4, undefined),
        // Longer worklists by the merge sort (default) or the radix sort.
        fc.constantFrom<0 | undefined>(0, undefined),
        async (loads, objectCount, compositeSort, smallSortItems, mergeSortPairs) => {
          const b = createConstraintBuilder();
          const y = b.variable('y');
          const objects = Array.from({ length: objectCount }, (_, i) => b.object(`o${i}`));
          objects.forEach((o, i) => {
            b.addressOf(y, o);
            b.addressOf(o, objects[(i * 7) % objectCount] as number);
          });
          for (let j = 0; j < loads; j++) b.load(b.variable(`x${j}`), y);
          const program = b.build();
          // (Rounds not queued, whose sorts the host plans from the counts it read; sort_small on,
          // which by default runs only with the radix sort.)
          const { result, solver } = await solve(program, {
            compositeSort,
            smallSort: true,
            smallSortItems,
            mergeSortPairs,
            pipelineRounds: false,
          });
          await expectSameAsCpu(program, result);
          // The round that pushes the pairs sorts them in one workgroup up to the capacity, with the
          // merge sort (or the radix sort) past it (no other round has a worklist to sort).
          const sorts = solver.report?.sorts;
          // (Pairs per invocation: 8, or 4 where workgroup memory is short, times 256.)
          const fits = (items: number) =>
            gpu.ctx.limits.maxComputeWorkgroupStorageSize >= smallSortWorkgroupBytes(items);
          const capacity = smallSortCapacity(smallSortItems ?? [8, 4].find(fits) ?? 4);
          // One sorted round: no earlier round for a guess to come from (ahead: 0).
          if (loads * objectCount <= capacity)
            expect(sorts).toEqual({ small: 1, merge: 0, radix: 0, ahead: 0 });
          else if (mergeSortPairs === 0) expect(sorts).toEqual({ small: 0, merge: 0, radix: 1, ahead: 0 });
          else expect(sorts).toEqual({ small: 0, merge: 1, radix: 0, ahead: 0 });
        },
      ),
      { numRuns: 12 },
    );
  }, 600_000);

  /**
   * One load chain per depth: p_0 = &o_0, p_{i+1} = *p_i through objects o_i = &o_{i+1}. Every other
   * round each chain still running pushes one pair (rounds that push alternate with rounds that
   * only pull).
   */
  const loadChains = (depths: readonly number[]): ConstraintProgram => {
    const b = createConstraintBuilder();
    depths.forEach((depth, c) => {
      const objects = Array.from({ length: depth + 1 }, (_, i) => b.object(`o${c}_${i}`));
      for (let i = 0; i < depth; i++) b.addressOf(objects[i] as number, objects[i + 1] as number);
      let pointer = b.variable(`p${c}_0`);
      b.addressOf(pointer, objects[0] as number);
      for (let i = 1; i <= depth; i++) {
        const next = b.variable(`p${c}_${i}`);
        b.load(next, pointer);
        pointer = next;
      }
    });
    return b.build();
  };

  /**
   * A binary tree of loads, y = *x twice under each x, over a chain of objects: round k pushes 2^k
   * pairs. With `cyclic`, *x = y too under each x (an online HCD pair: y joins *x's class).
   */
  const loadTree = (depth: number, cyclic: boolean, fanIn = false): ConstraintProgram => {
    const b = createConstraintBuilder();
    const objects = Array.from({ length: depth + 1 }, (_, i) => b.object(`o${i}`));
    for (let i = 0; i < depth; i++) b.addressOf(objects[i] as number, objects[i + 1] as number);
    let level = [b.variable('t')];
    b.addressOf(level[0] as number, objects[0] as number);
    for (let d = 1; d <= depth; d++) {
      const parents = level;
      level = parents.flatMap((parent, p) =>
        [0, 1].map((side) => {
          const child = b.variable(`t${d}_${parent}_${side}`);
          b.load(child, parent);
          if (cyclic) b.store(parent, child);
          // With fanIn, copies from the parent and its sibling: two pulls a round, so that the
          // partial-merge levels have chunks to fold.
          if (fanIn) for (const from of [parent, parents[p ^ 1] ?? parent]) b.copy(child, from);
          return child;
        }),
      );
    }
    return b.build();
  };

  it('sorts a short worklist with the merge sort by default, and with sort_small where the radix sort is the worklist sort', async () => {
    // x_j = *y for 30 variables, y pointing to 30 objects: one round pushes 900 pairs.
    const b = createConstraintBuilder();
    const y = b.variable('y');
    const objects = Array.from({ length: 30 }, (_, i) => b.object(`o${i}`));
    for (const o of objects) b.addressOf(y, o);
    objects.forEach((o, i) => {
      b.addressOf(o, objects[(i * 7) % 30] as number);
    });
    for (let j = 0; j < 30; j++) b.load(b.variable(`x${j}`), y);
    const program = b.build();
    const byDefault = await solve(program, { pipelineRounds: false });
    await expectSameAsCpu(program, byDefault.result);
    expect(byDefault.solver.report?.sorts).toEqual({ small: 0, merge: 1, radix: 0, ahead: 0 });
    const radix = await solve(program, { pipelineRounds: false, mergeSortPairs: 0 });
    await expectSameAsCpu(program, radix.result);
    expect(radix.solver.report?.sorts).toEqual({ small: 1, merge: 0, radix: 0, ahead: 0 });
  });

  it('sorts a worklist that halved with the sort recorded ahead for the round before (merge, radix, both)', async () => {
    // 8 chains of depth 3 and 8 of depth 6: three sorted rounds sort 16 pairs, then three sort 8
    // (a sort planned for 8 pairs), the first of them with the sort recorded for 16.
    const program = loadChains([...Array<number>(8).fill(3), ...Array<number>(8).fill(6)]);
    for (const [mergeSortPairs, merge, radix] of [
      [undefined, 6, 0],
      [0, 0, 6],
      // The merge sort up to 8 pairs: the round after the halving sorts with the radix sort
      // recorded for 16, the two after it with the merge sort.
      [8, 2, 4],
    ] as const) {
      // Rounds not queued: each sort recorded on the guess of the round before. Without the
      // second copy hop, which would carry the chains two copies a round in their quiet rounds
      // and change which rounds sort what.
      const { result, solver } = await solve(program, {
        smallSort: false,
        mergeSortPairs,
        pipelineRounds: false,
        hop: false,
      });
      expect(solver.report?.pairs).toBe(3 * 16 + 3 * 8);
      // Every sort but the first was recorded ahead, the one after the halving included.
      expect(solver.report?.sorts).toEqual({ small: 0, merge, radix, ahead: 5 });
      await expectSameAsCpu(program, result);
    }
  });

  it('uses the sort recorded ahead on the guess of the last round, and only when the guess holds', async () => {
    // 8 chains of depth 6: the rounds that sort sort the same number of pairs, so the guess holds
    // from the second on.
    const program = loadChains(Array<number>(8).fill(6));
    for (const smallSort of [false, true]) {
      // Rounds not queued (pipelineRounds, the default, queues each round's sort on a guess).
      // Without the second copy hop (see the test before).
      const guessed = await solve(program, { smallSort, pipelineRounds: false, hop: false });
      await expectSameAsCpu(program, guessed.result);
      const sorts = guessed.solver.report?.sorts;
      expect(sorts?.ahead).toBeGreaterThan(0);
      // Each sort recorded ahead is one of the sorts counted; the first sorted round had no guess.
      expect(sorts?.ahead).toBeLessThan((sorts?.small ?? 0) + (sorts?.merge ?? 0) + (sorts?.radix ?? 0));
      expect(smallSort ? (sorts?.merge ?? 0) + (sorts?.radix ?? 0) : sorts?.small).toBe(0);
      const unguessed = await solve(program, {
        smallSort,
        sortAhead: false,
        pipelineRounds: false,
        hop: false,
      });
      expect(unguessed.solver.report?.sorts).toEqual({ ...sorts, ahead: 0 });
      for (let v = 0; v < program.nodeCount; v++) {
        expect([...unguessed.result.pointsTo(v)]).toEqual([...guessed.result.pointsTo(v)]);
      }
    }
  });

  it('runs the next rules behind the update when the host has nothing to do first, and holds them back otherwise (rulesAhead)', async () => {
    // 8 chains of depth 6: rounds that only propagate (the rules run ahead), and a last, quiet one
    // (held back: the host stops).
    const chains = loadChains(Array<number>(8).fill(6));
    const ahead = await solve(chains);
    await expectSameAsCpu(chains, ahead.result);
    const counts = ahead.solver.report?.rulesAhead ?? { ran: 0, skipped: 0 };
    expect(counts.ran).toBeGreaterThan(0);
    expect(counts.skipped).toBeGreaterThan(0);
    // The chains merge nothing: one queued submission behind each update (the last one's held
    // back: the host stops).
    expect(counts.ran + counts.skipped).toBe(
      ahead.result.statistics.rounds + (ahead.solver.report?.reruns ?? 0),
    );
    // The host's time from the rules' counts to the update's submit is measured, and is part of
    // the host's time (it reads the counts, plans and submits in between).
    const host = ahead.solver.report?.host;
    expect(host?.react).toBeGreaterThan(0);
    expect(host?.react).toBeLessThan(ahead.result.statistics.solveMs);
    const waiting = await solve(chains, { rulesAhead: false });
    expect(waiting.solver.report?.rulesAhead).toEqual({ ran: 0, skipped: 0 });
    expect(waiting.result.statistics.rounds).toBe(ahead.result.statistics.rounds);
    for (let v = 0; v < chains.nodeCount; v++) {
      expect([...ahead.result.pointsTo(v)]).toEqual([...waiting.result.pointsTo(v)]);
    }
    // Random programs with online HCD (rounds that merge, so folds must go first) from tiny pools
    // and worklists (updates redone, pools grown ahead, the worklist grown): every held-back
    // submission is checked to have returned at once, and the sets equal the CPU engine's.
    let ran = 0;
    let skipped = 0;
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 50, maxConstraints: 140 }),
        fc.constantFrom<'none' | 'online'>('none', 'online'),
        fc.constantFrom(2, 64),
        // Folds queued with the rules that take only classes their levels fold into one root, up
        // to 8 roots a class (the default), or any class (merge_data folds every root left).
        fc.constantFrom(0, 3, 31),
        async (program, mode, initialPoolElements, foldRootLevels) => {
          const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
          const { result, solver } = await solve(program, {
            hcd,
            initialPoolElements,
            initialPairCapacity: 16,
            pullChunk: 1,
            foldRootLevels,
          });
          await expectSameAsCpu(program, result, hcd);
          const report = solver.report?.rulesAhead ?? { ran: 0, skipped: 0 };
          ran += report.ran;
          skipped += report.skipped;
        },
      ),
      { numRuns: 30 },
    );
    expect(ran).toBeGreaterThan(0);
    expect(skipped).toBeGreaterThan(0);
  }, 600_000);

  it('queues whole rounds two deep, and holds back those queued behind a round the host must finish (pipelineRounds)', async () => {
    // 8 chains of depth 6 sort 8 pairs a round: sort_small holds them; a radix sort planned for
    // half the most pairs of the last two rounds falls short every time.
    const chains = loadChains(Array<number>(8).fill(6));
    const waiting = await solve(chains, { pipelineRounds: false });
    const queued = await solve(chains, { pipelineRounds: true, timeSubmissions: true });
    // On by default.
    expect((await solve(chains)).solver.report?.guessedRounds.held).toBeGreaterThan(0);
    await expectSameAsCpu(chains, queued.result);
    const report = queued.solver.report;
    expect(report?.guessedRounds.held).toBeGreaterThan(0);
    expect(report?.rulesAhead.ran).toBeGreaterThan(0);
    // The last round is quiet: the round queued behind it is held back (and checked to have been).
    expect(report?.rulesAhead.skipped).toBeGreaterThan(0);
    expect(queued.result.statistics.rounds).toBe(waiting.result.statistics.rounds);
    expect(report?.reruns).toBe(0);
    // Fewer submissions: a round that ran as queued needs none of the host's.
    expect(report?.host.submissions).toBeLessThan(waiting.solver.report?.host.submissions ?? 0);
    if (gpu.ctx.features.timestampQuery) {
      expect(report?.submissionSpans?.idleBeforeMs['queued round']).toBeGreaterThanOrEqual(0);
      expect(report?.submissionSpans?.submissions).toBe(report?.host.submissions);
    }
    const tree = loadTree(7, false);
    const treeWaiting = await solve(tree, { smallSort: false, pipelineRounds: false });
    const short = await solve(tree, { pipelineRounds: true, smallSort: false });
    await expectSameAsCpu(tree, short.result);
    expect(short.solver.report?.guessedRounds.missed).toBeGreaterThan(0);
    // A round whose guess fell short is finished by the sort and update alone, and the round
    // queued behind it, held back, runs afterwards: no rules run twice, the same rounds.
    expect(short.solver.report?.reruns).toBe(0);
    expect(short.result.statistics.rounds).toBe(treeWaiting.result.statistics.rounds);
    for (let v = 0; v < tree.nodeCount; v++) {
      expect([...short.result.pointsTo(v)]).toEqual([...treeWaiting.result.pointsTo(v)]);
    }
    // Random programs with online HCD (merging rounds: folds queued on a guess) from tiny pools
    // and worklists (updates redone, pools grown, the worklist overflowing a guessed sort), with
    // guesses that hold or fall short (no room: the smallest radix sort prepared; a partial-merge
    // level fewer than the last two rounds needed).
    let held = 0;
    let skipped = 0;
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 50, maxConstraints: 140 }),
        fc.constantFrom<'none' | 'online'>('none', 'online'),
        fc.constantFrom(2, 64),
        fc.constantFrom(0, 2),
        fc.boolean(),
        fc.constantFrom(1, 4),
        fc.constantFrom(-1, 1),
        fc.constantFrom<0 | undefined>(0, undefined),
        async (
          program,
          mode,
          initialPoolElements,
          queueRoom,
          smallSort,
          maxPullChunks,
          queueExtraLevels,
          mergeSortPairs,
        ) => {
          const hcd = mode === 'none' ? undefined : computeOfflineHcd(program, { refCycleVariables: mode });
          const { result, solver } = await solve(program, {
            hcd,
            pipelineRounds: true,
            initialPoolElements,
            initialPairCapacity: 16,
            pullChunk: 1,
            maxPullChunks,
            queueRoom,
            queueExtraLevels,
            smallSort,
            mergeSortPairs,
          });
          await expectSameAsCpu(program, result, hcd);
          held += solver.report?.guessedRounds.held ?? 0;
          skipped += solver.report?.rulesAhead.skipped ?? 0;
        },
      ),
      { numRuns: 30 },
    );
    expect(held).toBeGreaterThan(0);
    expect(skipped).toBeGreaterThan(0);
    // The random programs are small (few pairs, rare misses): trees whose rounds double their
    // pairs, with and without HCD merges, from tiny pools, miss their guesses.
    for (const cyclic of [false, true]) {
      for (const [maxPullChunks, fanIn] of [
        [1, false],
        [4, false],
        [4, true],
      ] as const) {
        const program = loadTree(6, cyclic, fanIn);
        const hcd = cyclic ? computeOfflineHcd(program, { refCycleVariables: 'online' }) : undefined;
        const { result, solver } = await solve(program, {
          hcd,
          pipelineRounds: true,
          initialPoolElements: 2,
          initialPairCapacity: 16,
          pullChunk: 1,
          maxPullChunks,
          queueRoom: 0,
          // With fanIn, levels to spare: the sort's misses then find levels queued that were
          // needed, and ran (the host runs only those past them).
          queueExtraLevels: fanIn ? 1 : -1,
          smallSort: false,
        });
        await expectSameAsCpu(program, result, hcd);
        expect(solver.report?.guessedRounds.missed).toBeGreaterThan(0);
        if (cyclic) expect(result.statistics.hcdMerges).toBeGreaterThan(0);
      }
    }
  }, 600_000);

  it('times each submission on the GPU when asked, and says how long the GPU waited between them', async () => {
    const { solver } = await solve(loadChains([3, 5, 7]), { timeSubmissions: true });
    const spans = solver.report?.submissionSpans;
    if (!gpu.ctx.features.timestampQuery) {
      expect(spans).toBeUndefined();
      return;
    }
    // Every submission of the solve was timed (the iterations' and the readback's).
    expect(spans?.submissions).toBe(solver.report?.host.submissions);
    expect(spans?.busyMs).toBeGreaterThan(0);
    expect(spans?.idleMs).toBeGreaterThan(0);
    expect(spans?.busyEachMs).toHaveLength(spans?.submissions ?? -1);
    const summed = (spans?.busyEachMs ?? []).reduce((a, b) => a + b, 0);
    expect(summed).toBeCloseTo(spans?.busyMs ?? -1, 6);
    // The idle time split by what the GPU waited for adds up to the whole; the chains' rounds
    // wait for their updates (after the host read the rules' counts).
    const idleBefore = spans?.idleBeforeMs ?? {
      rules: -1,
      'queued rules': -1,
      'queued round': -1,
      update: -1,
      other: -1,
    };
    for (const ms of Object.values(idleBefore)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(Object.values(idleBefore).reduce((a, b) => a + b, 0)).toBeCloseTo(spans?.idleMs ?? -1, 6);
    expect(idleBefore.update).toBeGreaterThan(0);
    const untimed = await solve(loadChains([3, 5, 7]));
    expect(untimed.solver.report?.submissionSpans).toBeUndefined();
  });

  it('folds a class that gains dozens of members in one round (the children tree, any depth)', async () => {
    // y = *x and *x = y put *x on a cycle with y (an online HCD pair): every object x points to
    // joins y's class in the round x's set arrives, each with sets of its own to fold in.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 70 }),
        fc.array(fc.tuple(fc.nat({ max: 69 }), fc.nat({ max: 69 })), { maxLength: 60 }),
        fc.constantFrom<number | undefined>(0, 1, 2, undefined),
        fc.boolean(),
        fc.constantFrom<number | undefined>(1, 3, undefined),
        async (objectCount, links, mergeTreeLevels, tinyPools, mergeTeams) => {
          const b = createConstraintBuilder();
          const x = b.variable('x');
          const y = b.variable('y');
          const objects = Array.from({ length: objectCount }, (_, i) => b.object(`o${i}`));
          const targets = Array.from({ length: objectCount }, (_, i) => b.object(`t${i}`));
          objects.forEach((o, i) => {
            b.addressOf(x, o);
            if (i % 3 !== 0) b.addressOf(o, targets[i] as number);
          });
          for (const [from, to] of links) {
            b.copy(objects[from % objectCount] as number, objects[to % objectCount] as number);
          }
          b.load(y, x).store(x, y);
          const program = b.build();
          const hcd = computeOfflineHcd(program, { refCycleVariables: 'online' });
          const { result } = await solve(program, {
            hcd,
            mergeTreeLevels,
            mergeTeams,
            ...(tinyPools ? { initialPoolElements: 2 } : {}),
          });
          await expectSameAsCpu(program, result, hcd);
          expect(result.statistics.hcdMerges).toBeGreaterThan(0);
        },
      ),
      { numRuns: 30 },
    );
  }, 600_000);

  it('lays out hundreds of new children of two classes in one round, and of one of them again later', async () => {
    // Each class's children take positions from an atomic count that merge_data sets back to 0
    // once they are folded: y's class gains 300 objects in one round and 150 more three rounds
    // later (through a chain into x), w's class 200 in the first round. Every object points to a
    // target of its own, so a child left out of the layout, or put in a stale position, loses one;
    // every tenth also copies from a pointer whose target arrives through a chain of four after it
    // merged, so a fold that lost a child's copy⁻¹ sources (E, F) loses that target.
    const b = createConstraintBuilder();
    const [x, y, u, w] = ['x', 'y', 'u', 'w'].map((name) => b.variable(name)) as [
      number,
      number,
      number,
      number,
    ];
    const chain = ['c1', 'c2', 'c3'].map((name) => b.variable(name)) as [number, number, number];
    const group = (prefix: string, count: number, pointer: number) =>
      Array.from({ length: count }, (_, i) => {
        const o = b.object(`${prefix}${i}`);
        b.addressOf(pointer, o).addressOf(o, b.object(`${prefix}t${i}`));
        if (i % 10 === 0) {
          const late = [1, 2, 3, 4].map((k) => b.variable(`${prefix}${i}.late${k}`));
          b.addressOf(late[0] as number, b.object(`${prefix}late${i}`));
          for (let k = 1; k < 4; k++) b.copy(late[k] as number, late[k - 1] as number);
          b.copy(o, late[3] as number);
        }
        return o;
      });
    group('a', 300, x);
    group('b', 200, u);
    group('c', 150, chain[2]);
    b.copy(chain[1], chain[2]).copy(chain[0], chain[1]).copy(x, chain[0]);
    b.load(y, x).store(x, y).load(w, u).store(u, w);
    const program = b.build();
    const hcd = computeOfflineHcd(program, { refCycleVariables: 'online' });
    for (const options of [{}, { initialPoolElements: 2 }, { mergeTeams: 3 }]) {
      const { result } = await solve(program, { hcd, ...options });
      await expectSameAsCpu(program, result, hcd);
      expect(result.statistics.hcdMerges).toBeGreaterThanOrEqual(650);
      // Every object of both groups of x ended in y's class: y points to all 450 targets and the
      // 45 late ones.
      expect(result.pointsTo(y)).toHaveLength(450 + 45);
    }
  }, 600_000);

  it('equals the CPU engine on random fan-ins, where every skipped pull would be lost', async () => {
    // Pointers s_i copied into one hub, some of them gaining a second set a round later from a
    // pointer t_i that reaches the hub only through s_i: a ΔP pull the hub wrongly skipped would be
    // lost for good. Sets are drawn from few objects, so many ΔPs are equal and many are not.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.tuple(
            fc.uniqueArray(fc.nat({ max: 7 }), { minLength: 1, maxLength: 3 }),
            fc.uniqueArray(fc.nat({ max: 7 }), { maxLength: 3 }),
          ),
          { minLength: 2, maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(1, 2, 1000),
        // Every set hashed alike: only the equality check keeps unequal ΔPs (and, in the readback,
        // unequal final sets) from sharing a leader.
        fc.boolean(),
        async (objectCount, leaves, deltaTableSlots, pullChunk, collideHashes) => {
          const b = createConstraintBuilder();
          const hubNode = b.variable('hub');
          const objects = Array.from({ length: objectCount }, (_, i) => b.object(`o${i}`));
          leaves.forEach(([now, later], i) => {
            const s = b.variable(`s${i}`);
            for (const o of now) b.addressOf(s, objects[o % objectCount] as number);
            if (later.length > 0) {
              const t = b.variable(`t${i}`);
              for (const o of later) b.addressOf(t, objects[o % objectCount] as number);
              b.copy(s, t);
            }
            b.copy(hubNode, s);
          });
          const program = b.build();
          const { result } = await solve(program, {
            pullChunk,
            deltaTableSlots,
            maxPullChunks: 4,
            collideHashes,
          });
          await expectSameAsCpu(program, result);
        },
      ),
      { numRuns: 24 },
    );
  }, 600_000);

  /** 20 pointers to 10 of 40 two-field objects each, with stores, loads and copies among them. */
  function storesAndLoads() {
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 40 }, (_, i) => b.object(`o${i}`, { fields: 2 }));
    const pointers = Array.from({ length: 20 }, (_, i) => b.variable(`p${i}`));
    pointers.forEach((p, i) => {
      for (let k = 0; k < 10; k++) b.addressOf(p, objects[(i * 7 + k * 3) % objects.length] as number);
      b.store(p, pointers[(i + 1) % pointers.length] as number, k1(i));
      b.load(pointers[(i + 3) % pointers.length] as number, p, k1(i + 1));
      b.copy(pointers[(i + 5) % pointers.length] as number, p);
    });
    return b.build();
  }

  it('grows both pools and the store worklist when they run out, and says so', async () => {
    const program = storesAndLoads();
    const solver = await createGpuSolver(
      program,
      solverOptions({
        gpu: gpu.ctx,
        initialPoolElements: 1,
        initialPairCapacity: 16,
      }),
    );
    const grown = new Set<string>();
    solver.on('grow', ({ pool }) => grown.add(pool));
    try {
      const result = await solver.solve();
      expect([...grown].sort()).toEqual(['edg', 'pts', 'worklist']);
      expect(solver.report?.reruns).toBeGreaterThan(0);
      await expectSameAsCpu(program, result);
    } finally {
      solver.destroy();
    }
  });

  it('grows a pool the rules ran out of before any update, and runs an update that alone ran short again by itself', async () => {
    // Growing ahead off: the pools grow only when they run out, in the rules or in the update.
    // Rounds not queued: the update redone by itself is the host-driven path this tests.
    const program = storesAndLoads();
    const { result, solver } = await solve(program, {
      initialPoolElements: 1,
      initialPairCapacity: 16,
      growAhead: { below: 0, to: 1 },
      pipelineRounds: false,
    });
    const report = solver.report;
    const updateRedos = report?.updateRedos ?? 0;
    expect(updateRedos).toBeGreaterThan(0);
    // And the rules ran again too (for the worklist or a pool), with no update in between.
    expect(report?.reruns).toBeGreaterThan(updateRedos);
    await expectSameAsCpu(program, result);
  });

  it('grows the worklist ahead of rounds that would overflow it', async () => {
    // Four objects travel down a copy chain q0 → q1 → … one pointer a round, and q_t has t + 1
    // loads of its own: round t pushes 4(t + 1) pairs, more every round.
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 4 }, (_, i) => b.object(`o${i}`));
    const chain = Array.from({ length: 30 }, (_, t) => b.variable(`q${t}`));
    for (const o of objects) b.addressOf(chain[0] as number, o);
    chain.forEach((q, t) => {
      if (t > 0) b.copy(q, chain[t - 1] as number);
      for (let j = 0; j <= t; j++) b.load(b.variable(`x${t}_${j}`), q, 0);
    });
    const program = b.build();
    const run = async (growAhead?: GpuSolverTuning['growAhead']) => {
      const worklist: number[] = [];
      const { result, solver } = await solve(program, { initialPairCapacity: 16, growAhead }, (s) =>
        s.on('grow', ({ pool, to }) => {
          if (pool === 'worklist') worklist.push(to);
        }),
      );
      await expectSameAsCpu(program, result);
      return { reruns: solver.report?.reruns ?? 0, worklist };
    };
    const ahead = await run();
    const off = await run({ below: 0, to: 1 });
    expect(off.reruns).toBeGreaterThan(0);
    expect(ahead.reruns).toBeLessThan(off.reruns);
    expect(ahead.worklist.length).toBeGreaterThan(0);
  });

  it('works with a points-to pool spread over two bindings (windows)', async () => {
    // Eight pointers in a copy cycle, each given eight of 64 objects: the points-to pool takes more
    // than one window of 64 elements. (Kernels for several windows take lavapipe long to compile.)
    const b = createConstraintBuilder();
    const objects = Array.from({ length: 64 }, (_, i) => b.object(`o${i}`, { fields: 1 }));
    const pointers = Array.from({ length: 8 }, (_, i) => b.variable(`p${i}`));
    pointers.forEach((p, i) => {
      for (let k = 0; k < 8; k++) b.addressOf(p, objects[(i * 29 + 7 * k) % 64] as number);
      b.copy(pointers[(i + 1) % pointers.length] as number, p);
    });
    const program = b.build();
    const { result, solver } = await solve(program, { initialPoolElements: 128, windowElements: 64 });
    expect(solver.report?.pointsPool.used).toBeGreaterThan(64);
    await expectSameAsCpu(program, result);
    // The module of a pool over several windows is the slowest lavapipe compiles: 407 s of one
    // run beside a load of about 15 on two cores (a limit ends a hung test, never judges speed).
  }, 1_800_000);

  it('grows ahead of need only as far as a pool may grow', async () => {
    // A guess of growth far past the pools' largest size (five and three windows of 64 elements
    // here) stops at that size instead of failing the solve, which fits.
    const { program } = smallProgram();
    const { result, solver } = await solve(program, {
      windowElements: 64,
      initialPoolElements: 8,
      growAhead: { below: 1e6, to: 1e6 },
    });
    await expectSameAsCpu(program, result);
    expect(solver.report?.pointsPool.capacity).toBeGreaterThan(64);
    expect(solver.report?.pointsPool.capacity).toBeLessThanOrEqual(64 * 8);
    // Modules for pools of up to five windows: past 600 s on lavapipe beside a load of about 15.
  }, 1_800_000);

  it('emits setup, one wave and one iteration event per round, then done', async () => {
    const solver = await createGpuSolver(smallProgram().program, { gpu: gpu.ctx });
    const phases: SolvePhase[] = [];
    const rounds: IterationEvent[] = [];
    let done = 0;
    solver.on('phase', (phase) => phases.push(phase));
    solver.on('iteration', (event) => rounds.push(event));
    solver.on('done', (statistics) => {
      done = statistics.rounds;
    });
    try {
      await solver.solve();
    } finally {
      solver.destroy();
    }
    expect(phases[0]).toBe('setup');
    expect(phases.at(-1)).toBe('done');
    expect(phases.filter((p) => p === 'wave')).toHaveLength(rounds.length);
    expect(rounds.map((r) => r.round)).toEqual(rounds.map((_, i) => i + 1));
    expect(rounds.at(-1)?.propagated).toBe(0);
    expect(done).toBe(rounds.length);
  });

  it('puts the GPU milliseconds per kernel of each round on its iteration event when profiling', async () => {
    const solver = await createGpuSolver(smallProgram().program, { gpu: gpu.ctx, profile: true });
    const rounds: IterationEvent[] = [];
    solver.on('iteration', (event) => rounds.push(event));
    try {
      await solver.solve();
    } finally {
      solver.destroy();
    }
    const report = solver.report;
    expect(rounds.length).toBeGreaterThan(1);
    if (!gpu.ctx.features.timestampQuery) {
      // Without timestamp queries nothing is timed: neither the rounds nor the report.
      expect(rounds.every((r) => r.kernelMs === undefined)).toBe(true);
      expect(report?.kernelMs).toBeUndefined();
      return;
    }
    // Every round ran the pulls (pull_rules: pull_sources and member_rules in one dispatch); the
    // rounds' shares add up to the report's totals, less what the final readback's kernels took
    // after the last round.
    for (const r of rounds) expect(Object.keys(r.kernelMs ?? {})).toContain('pull_rules');
    const summed: Record<string, number> = {};
    for (const r of rounds) {
      for (const [kernel, ms] of Object.entries(r.kernelMs ?? {}))
        summed[kernel] = (summed[kernel] ?? 0) + ms;
    }
    for (const [kernel, ms] of Object.entries(report?.kernelMs ?? {})) {
      if (kernel.startsWith('live_')) expect(summed[kernel]).toBeUndefined();
      // delta_clear runs only to empty the leader table for live_leaders, after the last round:
      // in the rounds delta_bits empties the tables.
      else if (kernel === 'delta_clear') expect(summed[kernel]).toBeUndefined();
      else expect(summed[kernel]).toBeCloseTo(ms, 6);
    }
    // The phases split the same milliseconds: ΔP-equivalence (delta_leaders, and delta_clear
    // before the readback) apart from the rules.
    const phases = report?.phaseMs;
    const kernels = report?.kernelMs ?? {};
    expect(kernels.delta_leaders).toBeGreaterThan(0);
    expect(phases?.equivalence).toBeCloseTo((kernels.delta_clear ?? 0) + (kernels.delta_leaders ?? 0), 6);
    expect(phases?.equivalence).toBeGreaterThan(0);
    const phaseTotal = Object.values(phases ?? {}).reduce((a, b) => a + b, 0);
    const kernelTotal = Object.values(kernels).reduce((a, b) => a + b, 0);
    expect(phaseTotal).toBeCloseTo(kernelTotal, 6);
  });

  it('rejects with SolveAbortedError when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user'));
    await expect(
      solveAndersen(smallProgram().program, { engine: 'webgpu', gpu: gpu.ctx, signal: controller.signal }),
    ).rejects.toBeInstanceOf(SolveAbortedError);
  });

  it('stops a running solve when the signal aborts', async () => {
    const input = await readHardekopf({ prefix: benchmarkPrefix('ex') });
    const controller = new AbortController();
    const solver = await createGpuSolver(
      input.program,
      solverOptions({
        gpu: gpu.ctx,
        hcd: input.hcd,
        signal: controller.signal,
      }),
    );
    let rounds = 0;
    solver.on('iteration', () => {
      rounds++;
      if (rounds === 2) controller.abort('enough');
    });
    try {
      const error = await solver.solve().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SolveAbortedError);
      expect((error as SolveAbortedError).cause).toBe('enough');
      expect(rounds).toBe(2);
    } finally {
      solver.destroy();
    }
  }, 300_000);

  it("ex (PPoPP'12 suite): identical to the CPU engine and to the reference solution", async () => {
    const input = await readHardekopf({ prefix: benchmarkPrefix('ex') });
    if (!input.solution) throw new Error('the reference solution is missing');
    const result = await solveAndersen(input.program, { engine: 'webgpu', gpu: gpu.ctx, hcd: input.hcd });
    const report = verifySolution(result, input.solution, { ignore: HARDEKOPF_REFERENCE_CONVENTIONS });
    expect(report.differences).toEqual([]);
    expect(report.exact).toBe(true);
    expect(report.checked).toBe(input.program.nodeCount - 1);
    await expectSameAsCpu(input.program, result, input.hcd);
    // The same, read back into memory that worker threads touched first (forced: ex is small).
    const touched = await createGpuSolver(
      input.program,
      solverOptions({
        gpu: gpu.ctx,
        hcd: input.hcd,
        touchReadback: true,
        touchedReadbackBytes: 0,
      }),
    );
    try {
      const again = await touched.solve();
      expect(touched.report?.touchedReadback).toBe(true);
      expect(verifySolution(again, input.solution, { ignore: HARDEKOPF_REFERENCE_CONVENTIONS }).exact).toBe(
        true,
      );
      await expectSameAsCpu(input.program, again, input.hcd);
    } finally {
      touched.destroy();
    }
  }, 300_000);
});

describeGpu(
  'WebGPU Andersen engine',
  (gpu) => {
    // Every team function of 32-invocation workgroup teams has barriers, so every loop bound of a
    // team kernel must be workgroup-uniform: three sweeps over the active lists lost that once, the
    // module failed to compile without subgroups, and only the slow suite below (whose pipelines
    // take minutes to build on lavapipe) saw it. Tint checks uniformity when it makes the module,
    // which takes a fraction of a second: here with the options that change the WGSL.
    it.each<{ name: string; params: Partial<SolverKernelParams> }>([
      { name: 'the defaults', params: {} },
      { name: 'no active lists', params: { activeLists: false } },
      { name: 'no ΔP bitmap, no rule list', params: { deltaBitmap: false, ruleList: false } },
      { name: 'the second hop, fan-in 16', params: { hop: { pulls: 2, slots: 60 }, partialMergeBits: 4 } },
      { name: 'queued updates gated', params: { gateUpdate: true } },
      { name: 'no shared sets or rules', params: { shareEqualSets: false, shareRules: false } },
    ])('compiles its module for workgroup-memory teams (no subgroups): $name', async ({ params }) => {
      const ctx = gpu.ctx;
      const points = await createElementPool(ctx, { name: 'pts', capacity: 64, maxWindows: 5 });
      const edges = await createElementPool(ctx, { name: 'edg', capacity: 64, maxWindows: 2 });
      try {
        const { code } = solverModuleWgsl(points, edges, {
          team: 'workgroup',
          teamWorkgroupSize: 32,
          laneWords: 1,
          ruleSplit: 4,
          hookSplit: 16,
          partialMergeBits: 2,
          ...params,
        });
        ctx.device.pushErrorScope('validation');
        const module = ctx.device.createShaderModule({ code });
        const info = await module.getCompilationInfo();
        const error = await ctx.device.popErrorScope();
        const errors = info.messages
          .filter((m) => m.type === 'error')
          .map((m) => `${m.lineNum}: ${m.message}`);
        expect(errors).toEqual([]);
        expect(error).toBeNull();
      } finally {
        points.destroy();
        edges.destroy();
      }
    });

    it.skipIf(!slowGpuTests)(
      'equals the CPU engine on random programs and the split hub with workgroup-memory teams (GPUMORPH_SLOW_GPU_TESTS=1)',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            constraintProgram({ maxNodes: 25, maxConstraints: 40 }),
            fc.boolean(),
            fc.boolean(),
            async (program, h, split) => {
              const hcd = h ? computeOfflineHcd(program) : undefined;
              const solver = await createGpuSolver(
                program,
                solverOptions({
                  gpu: gpu.ctx,
                  hcd,
                  initialPoolElements: 2,
                  // Split every representative's pulls (one pull per chunk, at most five chunks).
                  ...(split ? { pullChunk: 1, maxPullChunks: 5, pullChunkCapacity: 64 } : {}),
                }),
              );
              try {
                await expectSameAsCpu(program, await solver.solve(), hcd);
              } finally {
                solver.destroy();
              }
            },
          ),
          { numRuns: 6 },
        );
        const { program, hcd } = hubProgram();
        const solver = await createGpuSolver(
          program,
          solverOptions({
            gpu: gpu.ctx,
            hcd,
            pullChunk: 2,
            maxPullChunks: 16,
            pullChunkCapacity: 1 << 16,
          }),
        );
        try {
          const result = await solver.solve();
          expect(solver.report?.pullSplit.maxChunks).toBeGreaterThan(1);
          await expectSameAsCpu(program, result, hcd);
        } finally {
          solver.destroy();
        }
      },
      900_000,
    );
  },
  { subgroups: false },
);

/** An offset 0 or 1 by parity (fields of two-field objects). */
function k1(i: number): number {
  return i % 2;
}
