import {
  BufferUsage,
  createElementPool,
  type ElementPool,
  type GpuContext,
  type PageToucher,
  WindowBudget,
} from '@gpumorph/gpu-allocator';
import { poolWindowShares } from '../layout';
import type { SolverSettings } from '../options';
import { releaseSorts, type WorklistSorts } from '../worklist/sorts';

/** The worklist's key and source buffers. */
export interface PairBuffers {
  readonly keys: GPUBuffer;
  readonly values: GPUBuffer;
}

/**
 * What a solve holds on the GPU — its buffers, pools and worklist sorts — and where each goes when
 * the solver is destroyed: back to the context for the next solve (`keep`: `keepBuffers` with a
 * context the solver was given) or freed.
 *
 * @example
 * ```ts
 * const resources = new SolveResources(ctx, false);
 * const control = await resources.buffer('andersen control', words, BufferUsage.STORAGE);
 * await resources.clearKept();
 * resources.destroy();
 * ```
 */
export class SolveResources {
  readonly ctx: GpuContext;
  /** Whether buffers, sorts and upload arrays are taken from the context and left there. */
  readonly keep: boolean;
  #buffers: GPUBuffer[] = [];
  #pools: ElementPool[] = [];
  /** Kept buffers and the byte from which each is still to be cleared (see {@link clearKept}). */
  #keptToClear: { buffer: GPUBuffer; from: number }[] = [];
  /** The worklist's sorts (their scratch buffers): kept on the context by destroy(), or freed. */
  sorts: WorklistSorts | undefined;
  /** The context's page-touching workers for the final readback, asked for once the sets grow large. */
  toucher: Promise<PageToucher | undefined> | undefined;

  constructor(ctx: GpuContext, keep: boolean) {
    this.ctx = ctx;
    this.keep = keep;
  }

  /** The bytes of every buffer the solve holds (pools and sorts not included). */
  get bufferBytes(): number {
    let bytes = 0;
    for (const buffer of this.#buffers) bytes += buffer.size;
    return bytes;
  }

  /** Gives every buffer, pool and sort back (see the class). */
  destroy(): void {
    for (const buffer of this.#buffers) {
      if (this.keep) this.ctx.releaseBuffer(buffer);
      else buffer.destroy();
    }
    for (const pool of this.#pools) pool.destroy();
    if (this.sorts) releaseSorts(this.ctx, this.sorts, this.keep);
    this.sorts = undefined;
    this.#buffers = [];
    this.#pools = [];
    this.toucher = undefined;
  }

  /**
   * A buffer of at least `size` bytes that holds `data` from byte 0 and zeros after it: one the
   * context kept (see {@link GpuContext.reuseBuffer}; `destroy()` hands them back), cleared on the
   * GPU, or a new one. Creating linux's (about 200 MB with the worklist) took tens of milliseconds
   * of each solve on the H100 machine; a clear there is microseconds of GPU time.
   */
  async buffer(label: string, data: Uint32Array, usage: number, size = data.byteLength): Promise<GPUBuffer> {
    // Only the bytes after the data need clearing: the clear and the write touch different bytes,
    // so they may reach the GPU in either order.
    const buffer = await this.reuse(label, Math.max(16, size), usage, data.byteLength);
    if (data.byteLength > 0) await this.ctx.writeBuffer(buffer, 0, data);
    return buffer;
  }

  /**
   * A kept buffer whose bytes from `keepBytes` on are to be cleared to zero (by
   * {@link clearKept}, which the caller awaits before anything reads them), or a new one; freed
   * by `destroy()`.
   */
  async reuse(label: string, size: number, usage: number, keepBytes = 0): Promise<GPUBuffer> {
    if (!this.keep) {
      // A new buffer is zero: nothing to clear.
      const buffer = await this.ctx.createBuffer({ label, size, usage: usage | BufferUsage.COPY_DST });
      this.#buffers.push(buffer);
      return buffer;
    }
    // The kernels bind whole buffers: a kept one may be larger than asked, not past one binding.
    const maxSize = Math.max(size, Math.min(2 * size, this.ctx.limits.maxStorageBufferBindingSize));
    const { buffer, reused } = await this.ctx.reuseBuffer({
      label,
      size,
      maxSize,
      usage: usage | BufferUsage.COPY_DST,
    });
    this.#buffers.push(buffer);
    if (reused && keepBytes < buffer.size) this.#keptToClear.push({ buffer, from: keepBytes });
    return buffer;
  }

  /**
   * Clears what {@link reuse} left to clear, in one submission: one each cost the setup a
   * submission and an error scope's round trip per buffer, eight of them a solve.
   */
  async clearKept(): Promise<void> {
    const clears = this.#keptToClear;
    if (clears.length === 0) return;
    this.#keptToClear = [];
    await this.ctx.guard(`clear ${clears.length} kept buffers`, () => {
      const encoder = this.ctx.device.createCommandEncoder({ label: 'andersen clear kept buffers' });
      for (const { buffer, from } of clears) encoder.clearBuffer(buffer, from);
      this.ctx.queue.submit([encoder.finish()]);
    });
  }

  /** The worklist's key and source buffers for `capacity` pairs (replacing `old`). */
  async createPairs(capacity: number, old?: PairBuffers, valueCapacity = capacity): Promise<PairBuffers> {
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
    // The labels name the capacities: the kernels' bind group is looked up by them (compiledKey).
    const keys = await this.reuse(`andersen pair keys ${capacity}`, capacity * 4, usage);
    const values = await this.reuse(`andersen pair sources ${valueCapacity}`, valueCapacity * 4, usage);
    await this.clearKept();
    if (old && this.keep) {
      this.#buffers = this.#buffers.filter((b) => b !== old.keys && b !== old.values);
      // Work already submitted that reads them runs first (the queue's order).
      this.ctx.releaseBuffer(old.keys);
      this.ctx.releaseBuffer(old.values);
    }
    // Otherwise they stay in #buffers, freed with the rest by destroy(): kernels recorded ahead
    // for them may still be in flight.
    return { keys, values };
  }

  /**
   * The points-to and edge pools, empty, with room for the initial sets (`pointsElements` and
   * `edgeElements`, at most one element a pair) and the default or asked-for start; each pool's
   * `grow` events go to `onGrow`.
   */
  async createPools(
    options: SolverSettings,
    n: number,
    pointsElements: number,
    edgeElements: number,
    onGrow: (event: { pool: string; from: number; to: number }) => void,
  ): Promise<{ points: ElementPool; edges: ElementPool }> {
    const ctx = this.ctx;
    // The two pools share the storage bindings the kernels leave for windows: each may grow into
    // the windows the other does not use (linux's points-to pool outgrew a fixed five of seven).
    const windowRoom = poolWindowShares(ctx.limits.maxStorageBuffersPerShaderStage).room;
    const windowBudget = new WindowBudget(windowRoom);
    const pointsWindows = windowRoom - 1;
    const edgeWindows = windowRoom - 1;
    const initial = options.initialPoolElements;
    // Every kernel writes all the words of an element it allocates, so a kept buffer's stale
    // contents are harmless.
    const reuseBuffers = this.keep;
    const windowOption = {
      ...(options.windowElements !== undefined ? { windowElements: options.windowElements } : {}),
      ...(options.maxPoolElements !== undefined ? { maxCapacity: options.maxPoolElements } : {}),
    };
    const points = await createElementPool(ctx, {
      name: 'pts',
      capacity: Math.max(pointsElements + 1, initial ?? Math.max(4096, 4 * pointsElements, 8 * n)),
      maxWindows: pointsWindows,
      windowBudget,
      reuseBuffers,
      ...windowOption,
    });
    this.#pools.push(points);
    const edges = await createElementPool(ctx, {
      name: 'edg',
      capacity: Math.min(
        Math.max(edgeElements + 1, initial ?? Math.max(4096, 4 * edgeElements, n >> 1)),
        // With small windows (tests) the edge pool starts in one window (it may grow into more).
        options.windowElements !== undefined
          ? Math.max(edgeElements + 1, options.windowElements)
          : Number.POSITIVE_INFINITY,
      ),
      maxWindows: edgeWindows,
      windowBudget,
      reuseBuffers,
      ...windowOption,
    });
    this.#pools.push(edges);
    for (const pool of [points, edges]) {
      pool.on('grow', ({ pool: name, from, to }) => onGrow({ pool: name, from, to }));
    }
    return { points, edges };
  }
}
