/**
 * The device side of one delta-engine solve: its buffers ({@link DeltaBuffers}), their first
 * contents ({@link allocateDelta}), and the batches of rounds until no item is left, growing the
 * member pool or the item buffer when a batch reports that it ran out ({@link runDeltaBatches}).
 * @module
 */
import { BufferUsage, type GpuContext, type Kernel } from '@gpumorph/gpu-allocator';
import { CfaAbortedError, CfaEngineError } from '../errors';
import type { CfaBufferPool } from './buffer-pool';
import type { WebGpuSolveOptions } from './delta';
import {
  DELTA_STATE,
  DELTA_STATE_WORDS,
  type DeltaGeometry,
  deltaParams,
  ITEM_WORDS,
} from './kernels/delta.wgsl';

/**
 * The buffers of one solve: every one it creates is destroyed at the end, except the store taken
 * from a {@link CfaBufferPool}, which goes back to the pool when the solve finished.
 *
 * @example
 * ```ts
 * const buffers = new DeltaBuffers(ctx, options.bufferPool);
 * try { … await buffers.create('items', bytes, BufferUsage.STORAGE) … } finally { buffers.finish(solved); }
 * ```
 */
export class DeltaBuffers {
  readonly #ctx: GpuContext;
  readonly #pool: CfaBufferPool | undefined;
  readonly #owned = new Set<GPUBuffer>();
  readonly #pooled = new Set<GPUBuffer>();
  /** Bytes of the buffers held now. */
  deviceBytes = 0;
  /** Bytes of the store taken from the pool (cleared, not allocated). */
  reusedStoreBytes = 0;

  constructor(ctx: GpuContext, pool: CfaBufferPool | undefined) {
    if (pool && pool.ctx !== ctx) throw new CfaEngineError('bufferPool belongs to another GPU context');
    this.#ctx = ctx;
    this.#pool = pool;
  }

  /** A new buffer of at least `size` bytes (16 or more, whole words), with `data` written. */
  create = async (label: string, size: number, usage: number, data?: Uint32Array): Promise<GPUBuffer> => {
    const bytes = Math.max(16, Math.ceil(size / 4) * 4);
    const b = await this.#ctx.createBuffer({
      label,
      size: bytes,
      usage: usage | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
    });
    this.#owned.add(b);
    this.deviceBytes += bytes;
    if (data) await this.#ctx.writeBuffer(b, 0, data);
    return b;
  };

  /** A store binding: from the pool when there is one, else a new buffer. */
  async store(label: string, size: number): Promise<GPUBuffer> {
    if (!this.#pool) return this.create(label, size, BufferUsage.STORAGE);
    const bytes = Math.max(16, Math.ceil(size / 4) * 4);
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    const { buffer, reused } = await this.#pool.take(label, bytes, usage);
    this.#pooled.add(buffer);
    this.deviceBytes += bytes;
    if (reused) this.reusedStoreBytes += bytes;
    return buffer;
  }

  /** Destroys a buffer this solve created (one that grew). */
  release(b: GPUBuffer): void {
    this.#owned.delete(b);
    this.deviceBytes -= b.size;
    b.destroy();
  }

  /** Copies `bytes` between buffers in a command buffer of its own. */
  async copy(
    label: string,
    from: GPUBuffer,
    fromOffset: number,
    to: GPUBuffer,
    toOffset: number,
    bytes: number,
  ) {
    if (bytes === 0) return;
    const ctx = this.#ctx;
    const command = await ctx.guard(label, () => {
      const encoder = ctx.device.createCommandEncoder({ label });
      encoder.copyBufferToBuffer(from, fromOffset, to, toOffset, bytes);
      return encoder.finish();
    });
    await ctx.submit(label, [command]);
  }

  /** Destroys what the solve created; a finished solve's pooled store waits in the pool, a failed one's goes. */
  finish(solved: boolean): void {
    for (const b of this.#owned) b.destroy();
    for (const b of this.#pooled) {
      if (solved && this.#pool) this.#pool.give(b);
      else b.destroy();
    }
  }
}

/** The pipelines of one solve: the persistent kernel, and in grid mode the round's phases. */
export interface DeltaKernels {
  readonly main: Kernel;
  /** Grid mode: the phases of a round, in dispatch order (empty in workgroup mode). */
  readonly gridPhases: readonly { readonly kernel: Kernel; readonly workgroups: number }[];
  /** Grid mode: the batch's closing dispatch. */
  readonly gridClose: Kernel | undefined;
}

/** The buffers the kernels bind, and the capacities of those that grow. */
export interface DeltaDevice {
  readonly params: GPUBuffer;
  readonly state: GPUBuffer;
  readonly graph: GPUBuffer;
  readonly marks: GPUBuffer;
  readonly memIndex: GPUBuffer;
  pool: GPUBuffer;
  items: GPUBuffer;
  readonly stores: readonly GPUBuffer[];
  readonly storeNames: readonly string[];
  itemCapacity: number;
  poolCapacity: number;
}

/**
 * Creates and fills the buffers of a solve: the uniform, the state (capacities set), the index,
 * the marks, the member index and pool, the items and the store (cleared on the GPU).
 *
 * @example
 * ```ts
 * const device = await allocateDelta(ctx, buffers, g, graph, storeNames, storeBytes, options, m.calls);
 * ```
 */
export async function allocateDelta(
  ctx: GpuContext,
  buffers: DeltaBuffers,
  g: DeltaGeometry,
  graph: Uint32Array,
  storeNames: readonly string[],
  storeBytes: readonly number[],
  options: WebGpuSolveOptions,
  calls: number,
): Promise<DeltaDevice> {
  const S = BufferUsage.STORAGE;
  const { maxItems, maxPool } = deltaLimits(ctx);
  const itemCapacity = Math.min(maxItems, Math.max(1, options.itemCapacity ?? Math.max(4096, calls)));
  const poolCapacity = Math.min(maxPool, Math.max(1, options.poolCapacity ?? Math.max(4096, 4 * calls)));
  const V = 2 * g.lams;
  const params = await buffers.create('eigencfa delta params', 64, BufferUsage.UNIFORM, deltaParams(g));
  const state = await buffers.create('eigencfa delta state', DELTA_STATE_WORDS * 4, S);
  const graphBuffer = await buffers.create('eigencfa delta index', graph.length * 4, S, graph);
  // Summary (a bit per nonzero store word), dirty marks, and the top summary (a bit per nonzero summary word).
  // Paged, the summary and the dirty marks are in the pages.
  const topWords = V * Math.ceil(g.summaryWords / 32);
  const marksWords = (g.paging ? 0 : 2 * V * g.summaryWords) + topWords;
  const marks = await buffers.create('eigencfa delta marks', marksWords * 4, S);
  const memIndex = await buffers.create('eigencfa delta member index', g.funRows * (1 + g.segments) * 4, S);
  const pool = await buffers.create('eigencfa delta member pool', poolCapacity * 4, S);
  const items = await buffers.create('eigencfa delta items', 2 * itemCapacity * ITEM_WORDS * 4, S);
  const stores: GPUBuffer[] = [];
  for (const [k, bytes] of storeBytes.entries())
    stores.push(await buffers.store(`eigencfa ${storeNames[k]}`, bytes));
  // Every store is cleared here, a reused one because it holds the last solve's sets, a new one so
  // that zeroing it counts as setup rather than being left to Dawn's lazy initialisation inside the
  // first dispatch. (The first solve on a new store still ran slower than later ones on the H100
  // in the bench: 197 ms against 38 ms at n = 1792.)
  const clear = await ctx.guard('eigencfa clear store', () => {
    const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa clear store' });
    for (const b of stores) encoder.clearBuffer(b);
    return encoder.finish();
  });
  await ctx.submit('eigencfa clear store', [clear]);
  const init = new Uint32Array(DELTA_STATE_WORDS);
  init[DELTA_STATE.itemCapacity] = itemCapacity;
  init[DELTA_STATE.poolCapacity] = poolCapacity;
  await ctx.writeBuffer(state, 0, init);
  return {
    params,
    state,
    graph: graphBuffer,
    marks,
    memIndex,
    pool,
    items,
    stores,
    storeNames,
    itemCapacity,
    poolCapacity,
  };
}

/** The largest item buffer half and member pool one binding holds. */
function deltaLimits(ctx: GpuContext): { maxItems: number; maxPool: number } {
  const deviceBinding = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  return {
    maxItems: Math.floor(deviceBinding / (2 * ITEM_WORDS * 4)),
    maxPool: Math.floor(deviceBinding / 4),
  };
}

function bindGroup(ctx: GpuContext, kernels: DeltaKernels, d: DeltaDevice): Promise<GPUBindGroup> {
  return ctx.guard('eigencfa delta bind group', () =>
    kernels.main.bindGroup({
      params: d.params,
      state: d.state,
      graph: d.graph,
      marks: d.marks,
      memIndex: d.memIndex,
      pool: d.pool,
      items: d.items,
      ...Object.fromEntries(d.stores.map((b, k) => [d.storeNames[k], b])),
    } as never),
  );
}

/** One batch in one command buffer: the persistent kernel, then (grid mode) `rounds` rounds of grid phases. */
function encodeBatch(ctx: GpuContext, kernels: DeltaKernels, group: GPUBindGroup, rounds: number) {
  return ctx.guard('eigencfa delta', () => {
    const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa delta' });
    const pass = encoder.beginComputePass({ label: 'eigencfa delta' });
    pass.setBindGroup(0, group);
    pass.setPipeline(kernels.main.pipeline);
    pass.dispatchWorkgroups(1);
    if (kernels.gridClose) {
      for (let r = 0; r < rounds; r++) {
        for (const phase of kernels.gridPhases) {
          pass.setPipeline(phase.kernel.pipeline);
          pass.dispatchWorkgroups(phase.workgroups);
        }
      }
      pass.setPipeline(kernels.gridClose.pipeline);
      pass.dispatchWorkgroups(1);
    }
    pass.end();
    return encoder.finish();
  });
}

/** The member pool ran out: a larger pool with the members so far (members keep their indices). */
async function growPool(ctx: GpuContext, buffers: DeltaBuffers, d: DeltaDevice, s: Uint32Array) {
  const { maxPool } = deltaLimits(ctx);
  const need = (s[DELTA_STATE.poolNext] as number) + (s[DELTA_STATE.poolDemand] as number);
  const wanted = Math.min(maxPool, Math.max(2 * d.poolCapacity, 2 * need));
  if (wanted < need)
    throw new CfaEngineError(`the member pool needs ${need} members, more than one binding holds`);
  const next = await buffers.create('eigencfa delta member pool', wanted * 4, BufferUsage.STORAGE);
  const kept = Math.min(s[DELTA_STATE.poolNext] as number, d.poolCapacity) * 4;
  await buffers.copy('eigencfa grow members', d.pool, 0, next, 0, kept);
  buffers.release(d.pool);
  d.pool = next;
  const from = d.poolCapacity;
  d.poolCapacity = wanted;
  await ctx.writeBuffer(d.state, DELTA_STATE.poolOverflow * 4, Uint32Array.of(0));
  await ctx.writeBuffer(d.state, DELTA_STATE.poolCapacity * 4, Uint32Array.of(wanted));
  return { from, to: wanted };
}

/** The item buffer ran out: a larger one with the current half's items; the dirty words are recovered next. */
async function growItems(ctx: GpuContext, buffers: DeltaBuffers, d: DeltaDevice, s: Uint32Array) {
  const { maxItems } = deltaLimits(ctx);
  const wanted = Math.min(maxItems, Math.max(2 * d.itemCapacity, 2 * (s[DELTA_STATE.itemPeak] as number)));
  if (wanted <= d.itemCapacity)
    throw new CfaEngineError(`a round needs more items than one binding holds (${d.itemCapacity})`);
  const next = await buffers.create('eigencfa delta items', 2 * wanted * ITEM_WORDS * 4, BufferUsage.STORAGE);
  const parity = s[DELTA_STATE.parity] as number;
  const bytes = (s[DELTA_STATE.count] as number) * ITEM_WORDS * 4;
  const half = (capacity: number) => parity * capacity * ITEM_WORDS * 4;
  await buffers.copy('eigencfa grow items', d.items, half(d.itemCapacity), next, half(wanted), bytes);
  buffers.release(d.items);
  d.items = next;
  const from = d.itemCapacity;
  d.itemCapacity = wanted;
  const update = new Uint32Array(DELTA_STATE_WORDS);
  update.set(s);
  update[DELTA_STATE.itemOverflow] = 0;
  update[DELTA_STATE.itemCapacity] = wanted;
  update[DELTA_STATE.recover] = 1;
  await ctx.writeBuffer(d.state, 0, update);
  return { from, to: wanted };
}

/** Thrown inside a solve when the paged store's pool is full: the solve starts again with more pages. */
export class PagePoolFull extends Error {
  constructor(readonly demand: number) {
    super('the page pool is full');
  }
}

/**
 * Dispatches batch after batch until a batch ends with no items left; returns the last state read
 * back, the batches and the times a buffer grew. Throws {@link PagePoolFull} when a paged store's
 * pool is full.
 *
 * @example
 * ```ts
 * const { state, batches, grows } = await runDeltaBatches(ctx, buffers, device, kernels, options);
 * ```
 */
export async function runDeltaBatches(
  ctx: GpuContext,
  buffers: DeltaBuffers,
  d: DeltaDevice,
  kernels: DeltaKernels,
  options: WebGpuSolveOptions,
): Promise<{ state: Uint32Array; batches: number; grows: number }> {
  const grid = kernels.gridClose !== undefined;
  let group = await bindGroup(ctx, kernels, d);
  let batch = Math.max(1, grid ? (options.gridRoundsPerBatch ?? 64) : (options.roundsPerBatch ?? 512));
  const maxBatch = Math.max(batch, grid ? 256 : (options.maxRoundsPerBatch ?? 1 << 16));
  let batches = 0;
  let grows = 0;
  for (;;) {
    if (options.signal?.aborted) throw new CfaAbortedError('CFA cancelled', { cause: options.signal.reason });
    // Grid mode: the persistent kernel only makes the first items or recovers dirty words (no
    // rounds); `batch` rounds follow as grid dispatches.
    await ctx.writeBuffer(d.state, DELTA_STATE.maxRounds * 4, Uint32Array.of(grid ? 0 : batch));
    await ctx.submit('eigencfa delta', [await encodeBatch(ctx, kernels, group, batch)]);
    batches++;
    const s = new Uint32Array(await ctx.readBuffer(d.state, 0, DELTA_STATE_WORDS * 4));
    if (s[DELTA_STATE.pageOverflow]) throw new PagePoolFull(s[DELTA_STATE.pageNext] as number);
    if (s[DELTA_STATE.segmentOverflow]) {
      throw new CfaEngineError(
        'a member list passed its last segment (more than 4·|Lam| members): the index is inconsistent',
      );
    }
    const count = s[DELTA_STATE.count] as number;
    options.onBatch?.(s[DELTA_STATE.rounds] as number, count > 0);
    // A round whose segments did not fit was undone before it started; items past the buffer are
    // dirty marks: grow, and run on.
    const overflow = s[DELTA_STATE.poolOverflow] ? 'members' : s[DELTA_STATE.itemOverflow] ? 'items' : null;
    if (overflow !== null) {
      const { from, to } = await (overflow === 'members' ? growPool : growItems)(ctx, buffers, d, s);
      options.onGrow?.(overflow, from, to);
      grows++;
      group = await bindGroup(ctx, kernels, d);
      continue;
    }
    if (count === 0) return { state: s, batches, grows };
    batch = Math.min(maxBatch, batch * 2);
  }
}
