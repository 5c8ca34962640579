import {
  BufferUsage,
  dispatchGrid,
  encodeDispatch,
  type GpuContext,
  type Kernel,
} from '@gpumorph/gpu-allocator';
import { type CachedPlan, PlanCache } from '../common/plan-cache';
import { mergePassKernelWgsl, mergeWorkgroupBytes, tileSortKernelWgsl } from './kernels/merge.wgsl';
import {
  HOST_COUNT,
  MERGE_PARAM_SLOT_BYTES,
  MERGE_PARAM_SLOT_WORDS,
  mergeSortInPlaceLayout,
  mergeSortLayout,
  writeMergeSortParams,
} from './layout';

/** What one {@link MergeSort} sorts: pairs `(keys[i], values[i])`, by key and then by value. */
export interface MergeSortOptions {
  /** `count` u32 keys (usage STORAGE); sorted in place. */
  keys: GPUBuffer;
  /** `count` u32 values (usage STORAGE), the pairs' second words; sorted in place with the keys. */
  values: GPUBuffer;
  /** Number of pairs, from offset 0 of the buffers; with `countFrom`, the most. */
  count: number;
  /**
   * Read the number of pairs on the GPU, when the commands run: the u32 at byte `offset` of
   * `buffer` (usage STORAGE; 4-aligned). The sort is planned and dispatched for `count`; a larger
   * number read is taken as `count`. The pairs past it are left alone, so that commands recorded
   * before the count is known sort whatever it turns out to be.
   */
  countFrom?: { buffer: GPUBuffer; offset: number } | undefined;
}

/**
 * Kernel shape, for tests (small tiles reach many merge passes with small inputs).
 * @internal
 */
export interface MergeSortTuning {
  /** Invocations per workgroup (power of two, default 256). */
  readonly workgroupSize?: number;
  /** Pairs per invocation (power of two ≥ 2, default 8, halved until the tile fits workgroup memory). */
  readonly itemsPerThread?: number;
}

/** Options of {@link createMergeSort}. */
export interface MergeSortCreateOptions {
  /** @internal Kernel shape, for tests. */
  readonly tuning?: MergeSortTuning;
}

interface MergeConfig {
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  readonly tile: number;
  readonly maxPerDimension: number;
}

/** The dispatches of one (count, count word) pair and their parameter slots (slot 0: the tiles, p + 1: merge pass p). */
interface MergePlan extends CachedPlan {
  readonly count: number;
  readonly tiles: number;
  readonly mergePasses: number;
}

/** Plans kept per sorter, and the bind-group sets (one per set of arrays sorted) each keeps. */
const PLAN_LIMITS = { plans: 32, bufferSets: 4 };
const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && (n & (n - 1)) === 0;
}

/**
 * Sort of u32 key–value pairs by key and then by value on the GPU, in `1 + ⌈log₂ tiles⌉`
 * dispatches: each workgroup sorts a tile of 2,048 pairs in workgroup memory (a bitonic network),
 * then each merge pass merges pairs of sorted runs, every workgroup writing 2,048 outputs at
 * their ranks (it finds its piece of both runs by a binary search on the merge path). The
 * number of pairs may be read on the GPU when the commands run (`countFrom`), so the sort can be
 * recorded before the kernels that fill the arrays have run, without a copy of the count.
 *
 * Where it pays against {@link RadixSort}: pairs of two 32-bit words (a radix sort needs eight
 * 8-bit passes, or two sorts, for 64 bits) and short arrays — a radix pass is three to five
 * dispatches and a merge pass one, and each dispatch costs the host its validation and recording.
 * Not stable (equal pairs are indistinguishable anyway).
 *
 * @example
 * ```ts
 * const sort = createMergeSort(ctx);
 * await sort.run({ keys, values, count: n }); // pairs sorted in place
 * sort.destroy();
 * ```
 */
export class MergeSort {
  readonly #ctx: GpuContext;
  readonly #options: MergeSortCreateOptions;
  #config: MergeConfig | undefined;
  #kernels: { tiles: Kernel; tilesInPlace: Kernel; merge: Kernel } | undefined;
  #preparing: Promise<void> | undefined;
  readonly #plans: PlanCache<MergePlan>;
  #scratch: { keys: GPUBuffer; values: GPUBuffer } | undefined;
  readonly #retired: GPUBuffer[] = [];
  #hostCount: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: MergeSortCreateOptions = {}) {
    this.#ctx = ctx;
    this.#options = options;
    this.#plans = new PlanCache(ctx, 'gm merge sort params', PLAN_LIMITS);
  }

  /** Pairs one workgroup sorts (and one merge workgroup writes); undefined before {@link prepare}. */
  get tile(): number | undefined {
    return this.#config?.tile;
  }

  /**
   * Bytes of GPU memory the sorter holds: its scratch arrays and parameter buffers (replaced
   * scratch included, which it frees in {@link destroy}).
   *
   * @example
   * ```ts
   * console.log(`merge sort scratch: ${sort.gpuBytes / 2 ** 20} MiB`);
   * ```
   */
  get gpuBytes(): number {
    let bytes = (this.#scratch?.keys.size ?? 0) + (this.#scratch?.values.size ?? 0);
    for (const b of this.#retired) bytes += b.size;
    return bytes + this.#plans.gpuBytes + (this.#hostCount?.size ?? 0);
  }

  /** Merge passes a sort of `count` pairs records (after {@link prepare}). */
  mergePassesFor(count: number): number {
    const config = this.#config;
    if (!config) throw new Error('MergeSort.mergePassesFor before prepare()');
    return count <= 1 ? 0 : Math.ceil(Math.log2(Math.ceil(count / config.tile)));
  }

  /**
   * Compiles the kernels and allocates scratch arrays for up to `count` pairs, so that
   * {@link encode} can be called synchronously.
   *
   * @example
   * ```ts
   * await sort.prepare({ count: 1 << 20 });
   * ```
   */
  async prepare(o: { count: number }): Promise<void> {
    this.#assertAlive();
    checkCount(o.count);
    this.#preparing ??= this.#compile();
    await this.#preparing;
    if (o.count > 1 && (this.#scratch?.keys.size ?? 0) < o.count * 4) {
      await this.#ctx.guard('gm merge sort buffers', () => this.#ensureScratch(o.count));
    }
  }

  /**
   * Records the sort into `encoder`: one compute pass (or one per dispatch, when `passes` supplies
   * them, e.g. `measureGpu`'s timer). The result ends in `o.keys` / `o.values`: the tiles are
   * sorted in place when the number of merge passes is even, into the scratch when it is odd, and
   * the merges ping-pong back. Call {@link prepare} first (it compiles the kernels; a larger
   * `o.count` than prepared gets its scratch arrays here).
   *
   * @example
   * ```ts
   * await sort.prepare({ count: capacity });
   * sort.encode(encoder, { keys, values, count: capacity, countFrom: { buffer: counter, offset: 0 } });
   * ```
   */
  encode(
    encoder: GPUCommandEncoder,
    o: MergeSortOptions,
    passes?: { beginComputePass(encoder: GPUCommandEncoder, label: string): GPUComputePassEncoder },
  ): void {
    this.#assertAlive();
    const config = this.#config;
    const kernels = this.#kernels;
    if (!config || !kernels)
      throw new Error('MergeSort.encode before prepare(): call prepare() or run() first');
    checkCount(o.count);
    if (o.count <= 1) return;
    const bytes = o.count * 4;
    for (const [what, buffer] of [
      ['keys', o.keys],
      ['values', o.values],
    ] as const) {
      if (buffer.size < bytes)
        throw new RangeError(
          `MergeSort: ${what} buffer '${buffer.label}' has ${buffer.size} bytes, needs ${bytes}`,
        );
    }
    if (o.keys === o.values) throw new RangeError('MergeSort: keys and values must be two buffers');
    const maxBinding = this.#ctx.limits.maxStorageBufferBindingSize;
    if (bytes > maxBinding)
      throw new RangeError(
        `MergeSort: ${o.count} pairs need bindings of ${bytes} bytes, over the device's ${maxBinding}`,
      );
    const countFrom = o.countFrom;
    if (countFrom && (countFrom.offset % 4 !== 0 || countFrom.offset + 4 > countFrom.buffer.size))
      throw new RangeError(
        `MergeSort: countFrom offset ${countFrom.offset} is not a 4-aligned word of '${countFrom.buffer.label}' (${countFrom.buffer.size} bytes)`,
      );
    // The kernels read the count through a storage binding of the buffer's first bytes.
    if (countFrom && countFrom.offset + 4 > maxBinding)
      throw new RangeError(
        `MergeSort: countFrom offset ${countFrom.offset} is past what one binding of '${countFrom.buffer.label}' reaches (${maxBinding} bytes)`,
      );
    if (countFrom && (countFrom.buffer.usage & BufferUsage.STORAGE) === 0)
      throw new TypeError(
        `MergeSort: countFrom buffer '${countFrom.buffer.label}' lacks STORAGE usage (the kernels read the count from it)`,
      );
    // A sort recorded on a guess may be larger than any prepared: its scratch is made here (as
    // prepare would, without its error scope).
    this.#ensureScratch(o.count);
    const scratch = this.#scratch as { keys: GPUBuffer; values: GPUBuffer };
    const plan = this.#plan(config, o.count, countFrom ? countFrom.offset / 4 : HOST_COUNT);
    const countBuffer = countFrom?.buffer ?? this.#hostCountBuffer();
    // Each array bound whole, or as much of it as one binding takes (the pairs fit, checked above).
    const whole = (buffer: GPUBuffer): GPUBufferBinding => ({
      buffer,
      size: Math.min(buffer.size, Math.floor(maxBinding / 4) * 4),
    });
    const caller = { keys: o.keys, values: o.values };
    const spare = scratch;
    const groups = this.#plans.groups(plan, [o.keys, o.values, scratch.keys, scratch.values, countBuffer]);
    const group = groups.group;
    const slot = (s: number): GPUBufferBinding => ({
      buffer: plan.params,
      offset: s * MERGE_PARAM_SLOT_BYTES,
      size: MERGE_PARAM_SLOT_BYTES,
    });
    const count_src = whole(countBuffer);
    let shared: GPUComputePassEncoder | undefined;
    const begin = (label: string) => {
      if (passes) return passes.beginComputePass(encoder, label);
      shared ??= encoder.beginComputePass({ label: 'gm merge sort' });
      return shared;
    };
    const end = (pass: GPUComputePassEncoder) => {
      if (pass !== shared) pass.end();
    };
    const grid = (workgroups: number) => dispatchGrid(workgroups, config.maxPerDimension);
    // An even number of merges ends where the tiles were sorted: sort them in place.
    const odd = plan.mergePasses % 2 === 1;
    const tilePass = begin('gm merge sort tiles');
    if (odd) {
      tilePass.setPipeline(kernels.tiles.pipeline);
      tilePass.setBindGroup(
        0,
        group(() =>
          kernels.tiles.bindGroup({
            params: slot(0),
            count_src,
            src_keys: whole(caller.keys),
            src_values: whole(caller.values),
            dst_keys: whole(spare.keys),
            dst_values: whole(spare.values),
          }),
        ),
      );
    } else {
      tilePass.setPipeline(kernels.tilesInPlace.pipeline);
      tilePass.setBindGroup(
        0,
        group(() =>
          kernels.tilesInPlace.bindGroup({
            params: slot(0),
            count_src,
            keys: whole(caller.keys),
            values: whole(caller.values),
          }),
        ),
      );
    }
    encodeDispatch(tilePass, grid(plan.tiles));
    end(tilePass);
    let from = odd ? spare : caller;
    for (let p = 0; p < plan.mergePasses; p++) {
      const to = from === caller ? spare : caller;
      const source = from;
      const pass = begin(`gm merge sort merge ${p}`);
      pass.setPipeline(kernels.merge.pipeline);
      pass.setBindGroup(
        0,
        group(() =>
          kernels.merge.bindGroup({
            params: slot(p + 1),
            count_src,
            src_keys: whole(source.keys),
            src_values: whole(source.values),
            dst_keys: whole(to.keys),
            dst_values: whole(to.values),
          }),
        ),
      );
      encodeDispatch(pass, grid(plan.tiles));
      end(pass);
      from = to;
    }
    shared?.end();
    groups.keep();
  }

  /**
   * Sorts `o.keys` / `o.values` in place: prepares, encodes into one command buffer, submits and
   * waits for the GPU to finish.
   *
   * @example
   * ```ts
   * await sort.run({ keys, values, count: n });
   * ```
   */
  async run(o: MergeSortOptions): Promise<void> {
    await this.prepare({ count: o.count });
    const ctx = this.#ctx;
    await ctx.guard('gm merge sort', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'gm merge sort' });
      this.encode(encoder, o);
      ctx.queue.submit([encoder.finish()]);
    });
    await ctx.idle();
  }

  /**
   * Frees the scratch and parameter buffers (the caller's arrays are left alone).
   *
   * @example
   * ```ts
   * sort.destroy();
   * ```
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#scratch?.keys.destroy();
    this.#scratch?.values.destroy();
    this.#scratch = undefined;
    for (const b of this.#retired) b.destroy();
    this.#plans.destroy();
    this.#hostCount?.destroy();
    this.#kernels = undefined;
  }

  /** One line describing the kernel shape, for logs. */
  toString(): string {
    const c = this.#config;
    return c
      ? `MergeSort (tiles of ${c.workgroupSize}×${c.itemsPerThread} pairs, bitonic in workgroup memory)`
      : 'MergeSort (not prepared)';
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new Error('MergeSort used after destroy()');
  }

  async #compile(): Promise<void> {
    const ctx = this.#ctx;
    const t = this.#options.tuning ?? {};
    const workgroupSize = t.workgroupSize ?? Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup);
    if (!isPowerOfTwo(workgroupSize) || workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup)
      throw new RangeError(
        `MergeSort: workgroup size ${workgroupSize} must be a power of two the device allows`,
      );
    let itemsPerThread = t.itemsPerThread ?? 8;
    if (!isPowerOfTwo(itemsPerThread) || itemsPerThread < 2)
      throw new RangeError(`MergeSort: items per thread ${itemsPerThread} must be a power of two ≥ 2`);
    const memory = ctx.limits.maxComputeWorkgroupStorageSize;
    while (itemsPerThread > 2 && mergeWorkgroupBytes({ workgroupSize, itemsPerThread }) > memory)
      itemsPerThread /= 2;
    if (mergeWorkgroupBytes({ workgroupSize, itemsPerThread }) > memory)
      throw new RangeError(
        `MergeSort: no tile of ${workgroupSize} invocations fits ${memory} bytes of workgroup memory`,
      );
    const shape = { workgroupSize, itemsPerThread };
    const [tiles, tilesInPlace, merge] = await Promise.all([
      ctx.kernels.get({
        label: 'gm merge sort tiles',
        code: tileSortKernelWgsl({ ...shape, inPlace: false }),
        layout: mergeSortLayout,
      }),
      ctx.kernels.get({
        label: 'gm merge sort tiles in place',
        code: tileSortKernelWgsl({ ...shape, inPlace: true }),
        layout: mergeSortInPlaceLayout,
      }),
      ctx.kernels.get({
        label: 'gm merge sort merge',
        code: mergePassKernelWgsl(shape),
        layout: mergeSortLayout,
      }),
    ]);
    this.#kernels = {
      tiles: tiles as unknown as Kernel,
      tilesInPlace: tilesInPlace as unknown as Kernel,
      merge: merge as unknown as Kernel,
    };
    this.#config = {
      workgroupSize,
      itemsPerThread,
      tile: workgroupSize * itemsPerThread,
      maxPerDimension: ctx.limits.maxComputeWorkgroupsPerDimension,
    };
  }

  #plan(config: MergeConfig, count: number, countWord: number): MergePlan {
    const key = `${count}|${countWord}`;
    const cached = this.#plans.get(key);
    if (cached) return cached;
    const tiles = Math.ceil(count / config.tile);
    const mergePasses = Math.ceil(Math.log2(tiles));
    const words = new Uint32Array((mergePasses + 1) * MERGE_PARAM_SLOT_WORDS);
    writeMergeSortParams(words, 0, { count, countWord, width: 0 });
    for (let p = 0; p < mergePasses; p++)
      writeMergeSortParams(words, p + 1, { count, countWord, width: config.tile * 2 ** p });
    return this.#plans.add(key, words, (params) => ({
      count,
      tiles,
      mergePasses,
      params,
      bindGroups: new Map(),
    }));
  }

  #ensureScratch(count: number): void {
    const current = this.#scratch;
    const bytes = count * 4;
    if (current && current.keys.size >= bytes) return;
    // Commands encoded earlier may still use the old arrays: retire them, free them in destroy().
    if (current) this.#retired.push(current.keys, current.values);
    const size = Math.max(256, Math.ceil(Math.max(bytes, (current?.keys.size ?? 0) * 1.5) / 256) * 256);
    const device = this.#ctx.device;
    this.#scratch = {
      keys: device.createBuffer({ label: 'gm merge sort scratch keys', size, usage: STORAGE }),
      values: device.createBuffer({ label: 'gm merge sort scratch values', size, usage: STORAGE }),
    };
  }

  #hostCountBuffer(): GPUBuffer {
    this.#hostCount ??= this.#ctx.device.createBuffer({
      label: 'gm merge sort count (unused: the host gives it)',
      size: 16,
      usage: BufferUsage.STORAGE,
    });
    return this.#hostCount;
  }
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 0 || count > 0xffff_ffff)
    throw new RangeError(`MergeSort: bad count ${count}`);
}

/**
 * Creates a {@link MergeSort} for `ctx`. Sorting needs `count × 8` bytes of scratch (keys and
 * values).
 *
 * @example
 * ```ts
 * const sort = createMergeSort(ctx);
 * await sort.run({ keys, values, count: n });
 * sort.destroy();
 * ```
 */
export function createMergeSort(ctx: GpuContext, options: MergeSortCreateOptions = {}): MergeSort {
  return new MergeSort(ctx, options);
}
