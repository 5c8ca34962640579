/**
 * The round engine (the first WebGPU engine, kept for comparison; {@link ./delta} is the default):
 * all selected call sites of a round in parallel, word-parallel joins with
 * atomicOr into full-width bitset rows (so a row never overflows and nothing restarts), work only
 * for calls whose rows changed in the previous round, many rounds per command buffer with the
 * round counter, selection counts and dispatch sizes kept on the GPU (indirect dispatches); the
 * host reads one small state buffer per batch of rounds.
 * @module
 */
import { BufferUsage, type GpuContext, ShaderStage } from '@gpumorph/gpu-allocator';
import { CfaAbortedError, CfaEngineError } from '../errors';
import type { CfaMatrices } from '../matrix/program';
import type { CfaStore } from '../store';
import { expandWgsl, propagateWgsl, selectWgsl } from './kernels/rounds.wgsl';
import { mainBindings, ROUND_STRIDE, STATE, STATE_WORDS, storeGeometry, WORKGROUP } from './layout';
import { readStoreRows } from './readback';

/** Pipelines and layouts of the round kernels, per device. */
const PIPELINES = new WeakMap<
  GPUDevice,
  {
    layouts: Map<
      string,
      Promise<{ group0: GPUBindGroupLayout; group1: GPUBindGroupLayout; pipeline: GPUPipelineLayout }>
    >;
    pipelines: Map<string, Promise<GPUComputePipeline>>;
  }
>();

function readEnv(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

/** Options of {@link solveWebGpuRounds}. */
export interface WebGpuRoundsOptions {
  readonly signal?: AbortSignal | undefined;
  /** Rounds in the first command buffer; later batches double up to `maxRoundsPerBatch`. */
  readonly roundsPerBatch?: number;
  readonly maxRoundsPerBatch?: number;
  /** Cap on variable rows per store buffer (tests use it to exercise the chunked store). */
  readonly rowsPerChunk?: number;
  /** Workgroups of the expand and propagate dispatches (default 256, about two per SM of an H100; 8 on software adapters). */
  readonly workgroups?: number;
  /** Initial capacity of the (call, λ) pair buffer. */
  readonly pairCapacity?: number;
  /** After each batch: rounds so far and whether the store changed in the last round. */
  readonly onBatch?: ((rounds: number, changed: boolean) => void) | undefined;
  /** When the pair buffer grows (capacity in pairs). */
  readonly onGrow?: ((from: number, to: number) => void) | undefined;
}

/** Counters and times of one WebGPU run. */
export interface WebGpuRoundsStatistics {
  /** Rounds until a round changed nothing (that round included). */
  readonly rounds: number;
  /** Rounds dispatched (the last batch may run no-op rounds past the fixpoint). */
  readonly roundsRun: number;
  readonly batches: number;
  /** Most (call, λ) pairs of one round. */
  readonly peakPairs: number;
  readonly storeChunks: number;
  readonly storeBytes: number;
  /** Wall clock from the first submit until the fixpoint was seen (batches of rounds, state reads). */
  readonly solveMs: number;
  /** Uploading the look-up vectors and building pipelines. */
  readonly setupMs: number;
  /** Turning the bitsets into sorted rows and reading them back. */
  readonly readbackMs: number;
}

/**
 * Solves on the GPU with whole-row joins, three dispatches per round, and returns the store as sorted rows (the same as the CPU engine's).
 *
 * @example
 * ```ts
 * const ctx = await acquireGpu();
 * if (ctx) {
 *   const { store, statistics } = await solveWebGpuRounds(ctx, await readMatricesDir('…/vhm/64'));
 *   console.log(statistics.rounds, store.size);
 * }
 * ```
 */
export async function solveWebGpuRounds(
  ctx: GpuContext,
  m: CfaMatrices,
  options: WebGpuRoundsOptions = {},
): Promise<{ store: CfaStore; statistics: WebGpuRoundsStatistics }> {
  const setupStart = performance.now();
  const maxBinding = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  const g = storeGeometry(m.lams, m.calls, maxBinding, options.rowsPerChunk);
  const storageLimit = ctx.limits.maxStorageBuffersPerShaderStage;
  if (g.chunks + 7 > storageLimit) {
    throw new CfaEngineError(
      `the store (${2 * m.lams} rows × ${g.words} words = ${((2 * m.lams * g.words * 4) / 2 ** 30).toFixed(2)} GiB) needs ${g.chunks} ` +
        `buffers of at most ${maxBinding} bytes, but a kernel may bind only ${storageLimit} storage buffers (7 besides the store)`,
    );
  }
  const main = mainBindings(g);
  // Group 0: the main bindings; group 1: the round number at a dynamic offset (one entry per round).
  // Layouts and pipelines are cached per device, by the layout's shape and by the WGSL source.
  let cache = PIPELINES.get(ctx.device);
  if (!cache) {
    cache = { layouts: new Map(), pipelines: new Map() };
    PIPELINES.set(ctx.device, cache);
  }
  const pipelineCache = cache;
  let layoutsPromise = pipelineCache.layouts.get(main.key);
  if (!layoutsPromise) {
    layoutsPromise = ctx.guard('eigencfa layouts', () => {
      const group0 = ctx.device.createBindGroupLayout({ label: main.label, entries: main.entries() });
      const group1 = ctx.device.createBindGroupLayout({
        label: 'eigencfa round',
        entries: [
          {
            binding: 0,
            visibility: ShaderStage.COMPUTE,
            buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: 16 },
          },
        ],
      });
      const pipeline = ctx.device.createPipelineLayout({
        label: 'eigencfa rounds',
        bindGroupLayouts: [group0, group1],
      });
      return { group0, group1, pipeline };
    });
    pipelineCache.layouts.set(main.key, layoutsPromise);
    layoutsPromise.catch(() => pipelineCache.layouts.delete(main.key));
  }
  const layouts = await layoutsPromise;
  const build = async (label: string, code: string): Promise<GPUComputePipeline> => {
    if (readEnv('GPUMORPH_DUMP_WGSL') === '1') console.error(`// ===== WGSL: ${label}\n${code}`);
    let module: GPUShaderModule | undefined;
    await ctx.guard(label, () => {
      module = ctx.device.createShaderModule({ label, code });
    });
    try {
      return await ctx.device.createComputePipelineAsync({
        label,
        layout: layouts.pipeline,
        compute: { module: module as GPUShaderModule, entryPoint: 'main' },
      });
    } catch (cause) {
      const info = await module?.getCompilationInfo().catch(() => undefined);
      const lines = (info?.messages ?? []).map((x) => `${x.lineNum}:${x.linePos} ${x.message}`).join('; ');
      throw new CfaEngineError(
        `pipeline ${label}: ${cause instanceof Error ? cause.message : String(cause)} ${lines}`,
        { cause },
      );
    }
  };
  const pipeline = (label: string, code: string): Promise<GPUComputePipeline> => {
    const key = `${main.key}|${code}`;
    let p = pipelineCache.pipelines.get(key);
    if (!p) {
      p = build(label, code);
      pipelineCache.pipelines.set(key, p);
      p.catch(() => pipelineCache.pipelines.delete(key));
    }
    return p;
  };
  const [select, expand, propagate] = await Promise.all([
    pipeline('eigencfa select', selectWgsl(main.wgsl(), g)),
    pipeline('eigencfa expand', expandWgsl(main.wgsl(), g)),
    pipeline('eigencfa propagate', propagateWgsl(main.wgsl(), g)),
  ]);
  const owned: GPUBuffer[] = [];
  const buffer = async (label: string, size: number, usage: number, data?: Uint32Array) => {
    const b = await ctx.createBuffer({
      label,
      size: Math.max(16, size),
      usage: usage | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
    });
    owned.push(b);
    if (data) await ctx.writeBuffer(b, 0, data);
    return b;
  };
  try {
    const S = BufferUsage.STORAGE;
    // pairs × words threads must stay below 2^31 (u32 thread indices); calls that do not fit retry.
    const maxPairs = Math.max(1, Math.floor(2 ** 31 / g.words));
    let capacity = Math.min(maxPairs, Math.max(1, options.pairCapacity ?? Math.max(2 * m.calls, 4096)));
    const state = await buffer('eigencfa state', STATE_WORDS * 4, S);
    const init = new Uint32Array(STATE_WORDS);
    init[STATE.pairCapacity] = capacity;
    await ctx.writeBuffer(state, 0, init);
    const fun = await buffer('eigencfa Fun', m.calls * 4, S, m.fun);
    const arg1 = await buffer('eigencfa Arg1', m.calls * 4, S, m.arg1);
    const arg2 = await buffer('eigencfa Arg2', m.calls * 4, S, m.arg2);
    const changedAt = await buffer('eigencfa changedAt', 2 * m.lams * 4, S);
    // The selected calls, then one retry flag per call.
    const active = await buffer('eigencfa active calls', 2 * m.calls * 4, S);
    const stores: GPUBuffer[] = [];
    for (let k = 0; k < g.chunks; k++) {
      const rows = Math.min(g.rowsPerChunk, 2 * m.lams - k * g.rowsPerChunk);
      stores.push(await buffer(`eigencfa store chunk ${k}`, rows * g.words * 4, S));
    }
    let pairs = await buffer('eigencfa pairs', capacity * 8, S);
    const batch0 = options.roundsPerBatch ?? 16;
    const maxBatch = Math.max(batch0, options.maxRoundsPerBatch ?? 256);
    // Two round-number buffers, so one batch's can be written while the other's runs.
    const roundBuffers = [
      await buffer('eigencfa rounds A', maxBatch * ROUND_STRIDE, BufferUsage.UNIFORM),
      await buffer('eigencfa rounds B', maxBatch * ROUND_STRIDE, BufferUsage.UNIFORM),
    ];
    const roundGroups = roundBuffers.map((b) =>
      ctx.device.createBindGroup({
        label: 'eigencfa round',
        layout: layouts.group1,
        entries: [{ binding: 0, resource: { buffer: b, offset: 0, size: 16 } }],
      }),
    );
    const storeResources = () => Object.fromEntries(stores.map((b, k) => [`store${k}`, b]));
    const mainGroup = () =>
      ctx.device.createBindGroup({
        label: 'eigencfa main',
        layout: layouts.group0,
        entries: main.bindGroupEntries({
          state,
          fun,
          arg1,
          arg2,
          changedAt,
          activeCalls: active,
          pairs,
          ...storeResources(),
        } as never),
      });
    let group = await ctx.guard('eigencfa bind group', mainGroup);
    const selectGroups = Math.ceil(m.calls / WORKGROUP);
    const selectGrid =
      selectGroups <= 65_535 ? [selectGroups, 1] : [65_535, Math.ceil(selectGroups / 65_535)];
    // expand and propagate loop over their items: a fixed grid (small on software adapters).
    const workGroups = options.workgroups ?? (ctx.adapter.software ? 8 : 256);
    const setupMs = performance.now() - setupStart;

    const solveStart = performance.now();
    let batch = batch0;
    let batches = 0;
    let nextRound = 1;
    let peakPairs = 0;
    let fixpointRound = 0;
    const encodeBatch = (first: number, count: number, slot: number) => {
      const numbers = new Uint32Array((count * ROUND_STRIDE) / 4);
      for (let r = 0; r < count; r++) numbers[(r * ROUND_STRIDE) / 4] = first + r;
      ctx.queue.writeBuffer(roundBuffers[slot] as GPUBuffer, 0, numbers);
      return ctx.guard('eigencfa rounds', () => {
        const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa rounds' });
        const pass = encoder.beginComputePass({ label: 'eigencfa rounds' });
        pass.setBindGroup(0, group);
        for (let r = 0; r < count; r++) {
          pass.setBindGroup(1, roundGroups[slot] as GPUBindGroup, [r * ROUND_STRIDE]);
          pass.setPipeline(select);
          pass.dispatchWorkgroups(selectGrid[0] as number, selectGrid[1] as number);
          pass.setPipeline(expand);
          pass.dispatchWorkgroups(workGroups);
          pass.setPipeline(propagate);
          pass.dispatchWorkgroups(workGroups);
        }
        pass.end();
        return encoder.finish();
      });
    };
    let slot = 0;
    let command = await encodeBatch(nextRound, batch, slot);
    for (;;) {
      if (options.signal?.aborted)
        throw new CfaAbortedError('CFA cancelled', { cause: options.signal.reason });
      await ctx.submit('eigencfa rounds', [command]);
      batches++;
      const last = nextRound + batch - 1;
      nextRound = last + 1;
      // Encode the next batch while the GPU runs this one (dropped if this one reaches the fixpoint).
      const nextBatch = Math.min(maxBatch, batch * 2);
      const pending = encodeBatch(nextRound, nextBatch, 1 - slot);
      pending.catch(() => {});
      const s = new Uint32Array(await ctx.readBuffer(state, 0, STATE_WORDS * 4));
      peakPairs = Math.max(peakPairs, s[STATE.pairPeak] as number);
      // Changes in round r are labelled r + 1: the last round changed the store iff the label is past it.
      const changed = (s[STATE.changedRound] as number) > last;
      fixpointRound = changed ? last + 1 : Math.max(1, s[STATE.changedRound] as number);
      options.onBatch?.(last, changed);
      if (s[STATE.overflow]) {
        // Grow the pair buffer in place of a restart: the calls that did not fit were flagged to retry.
        await pending;
        const wanted = Math.min(maxPairs, Math.max(2 * capacity, 2 * (s[STATE.pairPeak] as number)));
        await ctx.writeBuffer(state, STATE.overflow * 4, Uint32Array.of(0));
        if (wanted > capacity) {
          options.onGrow?.(capacity, wanted);
          capacity = wanted;
          const previous = pairs;
          pairs = await buffer('eigencfa pairs', capacity * 8, S);
          previous.destroy();
          group = await ctx.guard('eigencfa bind group', mainGroup);
          await ctx.writeBuffer(state, STATE.pairCapacity * 4, Uint32Array.of(capacity));
        }
        // At the thread-index limit the flagged calls simply retry.
        command = await encodeBatch(nextRound, batch, 1 - slot);
        slot = 1 - slot;
        continue;
      }
      if (!changed) {
        await pending;
        break;
      }
      batch = nextBatch;
      slot = 1 - slot;
      command = await pending;
    }
    const rounds = nextRound - 1;
    const solveMs = performance.now() - solveStart;

    const readStart = performance.now();
    const store = await readStoreRows(ctx, g, stores, buffer);
    const readbackMs = performance.now() - readStart;
    return {
      store,
      statistics: {
        rounds: fixpointRound,
        roundsRun: rounds,
        batches,
        peakPairs,
        storeChunks: g.chunks,
        storeBytes: 2 * m.lams * g.words * 4,
        solveMs,
        setupMs,
        readbackMs,
      },
    };
  } finally {
    for (const b of owned) b.destroy();
  }
}
