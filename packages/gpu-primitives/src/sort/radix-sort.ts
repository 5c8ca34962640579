import {
  BufferUsage,
  dispatchGrid,
  encodeDispatch,
  type GpuContext,
  type Kernel,
} from '@gpumorph/gpu-allocator';
import { type CachedPlan, PlanCache } from '../common/plan-cache';
import { subgroupLayoutIsLinear } from '../common/subgroup-layout';
import { histogramKernelWgsl } from './kernels/histogram.wgsl';
import { tableReduceKernelWgsl, tableScanKernelWgsl } from './kernels/scan.wgsl';
import { scatterKernelWgsl, scatterWorkgroupBytes } from './kernels/scatter.wgsl';
import {
  histogramLayout,
  MAX_SCATTER_WINDOWS,
  PARAM_SLOT_BYTES,
  PARAM_SLOT_WORDS,
  scanBlockLayout,
  scanReduceLayout,
  scatterLayout,
  writeScanParams,
  writeSortParams,
} from './layout';
import { checkSortBits, type SortBits } from './reference';

/** What one sort works on. */
export interface SortOptions {
  /**
   * `count` u32 keys (usage STORAGE; COPY_DST when the pass count is odd and the count is the
   * host's; COPY_SRC for a one-pass sort with `countFrom`); sorted in place.
   */
  keys: GPUBuffer;
  /** u32 payload moved with the keys (e.g. indices); same usage as `keys`. */
  values?: GPUBuffer | undefined;
  /** Number of keys (and values) to sort, from offset 0 of the buffers; with `countFrom`, the most. */
  count: number;
  /** Sort by bits [start, end) of the key only; default 0..32. Fewer bits = fewer passes. */
  bits?: { start: number; end: number } | undefined;
  /**
   * Read the number of keys on the GPU, when the commands run: the u32 at byte `offset` of
   * `buffer` (usage COPY_SRC; 4-aligned). It must not exceed `count`, for which the sort is
   * planned and dispatched (tiles past the number read do nothing), and may be 0. The keys past it
   * are left alone, and so are all of them when it is 0 or 1, so that commands recorded before
   * the count is known (a worklist's sort recorded while the kernels that fill it run) sort
   * whatever it turns out to be. Prepare with `countFromGpu: true`.
   */
  countFrom?: { buffer: GPUBuffer; offset: number } | undefined;
}

/** What {@link RadixSort.prepare} readies: a sort of up to `count` keys. */
export interface SortPrepareOptions {
  count: number;
  withValues: boolean;
  bits?: SortBits | undefined;
  /** Sorts that read their count on the GPU (`countFrom`) and have an odd pass count use a second scratch array. */
  countFromGpu?: boolean | undefined;
}

/**
 * Shape of the kernels. Defaults are tuned for large sorts on a discrete GPU; tests shrink them
 * to reach many tiles, many binding windows and folded grids with small inputs.
 * @internal
 */
export interface RadixSortTuning {
  /** Bits per digit (1…8, default 8): a pass sorts by this many bits. */
  readonly radixBits?: number;
  /** Invocations per workgroup of the histogram and scatter kernels (power of two ≥ 2^radixBits, default 256). */
  readonly workgroupSize?: number;
  /** Keys per invocation (default 16, lowered until the workgroup memory and binding windows fit). */
  readonly itemsPerThread?: number;
  /** Virtual group size of the workgroup-memory ranking path (default 16). */
  readonly groupSize?: number;
  /** Folds grids above this many workgroups per dimension (default the device limit). */
  readonly maxWorkgroupsPerDimension?: number;
  /** Use the subgroup path when the device allows it (default true). */
  readonly subgroups?: boolean;
  /** Invocations per workgroup of the histogram-table scan (power of two, default 256). */
  readonly scanWorkgroupSize?: number;
  /** Table elements per invocation of the scan (default 16). */
  readonly scanItemsPerThread?: number;
}

/** Options of {@link createRadixSort}. */
export interface RadixSortOptions {
  /**
   * Largest binding of the keys and values (bytes): longer arrays are bound as several windows.
   * Default `ctx.limits.maxStorageBufferBindingSize`.
   */
  readonly maxBindingBytes?: number;
  /** @internal Kernel shape, for tests. */
  readonly tuning?: RadixSortTuning;
}

/** Resolved kernel shape of one {@link RadixSort}. */
interface SortConfig {
  readonly radixBits: number;
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  readonly tile: number;
  readonly subgroups: boolean;
  readonly maxGroups: number;
  readonly groupSize: number;
  /** Keys per binding window of the keys and values. */
  readonly windowKeys: number;
  readonly maxPerDimension: number;
  readonly scanWorkgroupSize: number;
  readonly scanItems: number;
}

/** Dispatch plan of one (count, bits) pair, with its uniform buffer of per-dispatch parameters. */
interface SortPlan extends CachedPlan {
  readonly count: number;
  readonly numTiles: number;
  /** Source/destination windows of the keys: first key, key count, first tile, tiles. */
  readonly windows: readonly { firstKey: number; keys: number; firstTile: number; tiles: number }[];
  /** Destination windows bound per scatter dispatch. */
  readonly scatterWindows: number;
  readonly passes: readonly {
    readonly histSlots: readonly number[];
    /** [source window][destination group] */
    readonly scatterSlots: readonly (readonly number[])[];
  }[];
  /** Table-scan levels: level 0 is the table. */
  readonly levels: readonly { length: number; blocks: number; reduceSlot: number; scanSlot: number }[];
  /** Whether the GPU writes the count of each slot (`countFrom`): such plans are never shared with host-counted sorts. */
  readonly countFromGpu: boolean;
}

type AnyKernel = Kernel;

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a / gcd(a, b)) * b;
}

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && (n & (n - 1)) === 0;
}

/**
 * Stable LSD radix sort of u32 keys, or of key–value pairs, on the GPU. Each pass sorts by one
 * digit (8 bits by default) with reduce-then-scan, so no workgroup ever waits on another:
 * per-tile digit histograms → one exclusive scan of the digit-major histogram table → a scatter
 * in which each tile ranks its keys stably (subgroup ballots, or workgroup memory without the
 * `subgroups` feature) and writes them to their global positions, grouped by digit.
 *
 * Pipelines are compiled on first use ({@link RadixSort.prepare}) and cached; the ping-pong and
 * table buffers are kept between calls and grown when a larger sort comes. The parameters and
 * bind groups of the last 64 sort sizes are kept too (a prepare of a size seen before returns
 * without waiting on the device, and its encode creates nothing); submit what
 * {@link RadixSort.encode} recorded before encoding 64 other sizes.
 *
 * @example
 * ```ts
 * const sort = createRadixSort(ctx);
 * await sort.run({ keys, values, count: n }); // keys and values sorted in place
 * sort.destroy();
 * ```
 */
export class RadixSort {
  readonly #ctx: GpuContext;
  readonly #options: RadixSortOptions;
  #config: Promise<SortConfig> | undefined;
  #resolved: SortConfig | undefined;
  readonly #kernels = new Map<string, AnyKernel>();
  readonly #plans: PlanCache<SortPlan>;
  readonly #buffers = new Map<string, GPUBuffer>();
  readonly #retired: GPUBuffer[] = [];
  #dummy: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: RadixSortOptions = {}) {
    this.#ctx = ctx;
    this.#options = options;
    this.#plans = new PlanCache(ctx, 'gm radix sort params', PLAN_LIMITS);
  }

  /**
   * Bytes of GPU memory the sorter holds: its scratch arrays, histogram tables and parameter
   * buffers (buffers it replaced included, which it frees in {@link destroy}).
   *
   * @example
   * ```ts
   * console.log(`sort scratch: ${sort.gpuBytes / 2 ** 20} MiB`);
   * ```
   */
  get gpuBytes(): number {
    let bytes = 0;
    for (const b of this.#buffers.values()) bytes += b.size;
    for (const b of this.#retired) bytes += b.size;
    return bytes + this.#plans.gpuBytes + (this.#dummy?.size ?? 0);
  }

  /** The kernel shape chosen for this device (after the first {@link prepare}). */
  get config(): Readonly<SortConfig> | undefined {
    return this.#resolved;
  }

  /**
   * Compiles the pipelines and allocates the scratch buffers a sort of this shape needs, so that
   * {@link encode} can be called synchronously.
   *
   * @example
   * ```ts
   * await sort.prepare({ count: 1 << 26, withValues: true });
   * ```
   */
  async prepare(o: SortPrepareOptions): Promise<void> {
    this.#assertAlive();
    const config = await this.#getConfig();
    const bits = checkSortBits(o.bits);
    checkCount(o.count);
    const passes = passCount(bits, config.radixBits);
    if (o.count <= 1 || passes === 0) return;
    const countFromGpu = o.countFromGpu === true;
    const plan = this.#plan(config, o.count, bits, countFromGpu);
    const ctx = this.#ctx;
    const scan = {
      workgroupSize: config.scanWorkgroupSize,
      itemsPerThread: config.scanItems,
      subgroups: config.subgroups,
    };
    const shape = {
      workgroupSize: config.workgroupSize,
      itemsPerThread: config.itemsPerThread,
      radixBits: config.radixBits,
    };
    const wanted: [string, () => Promise<AnyKernel>][] = [
      [
        'histogram',
        () =>
          ctx.kernels.get({
            label: 'gm radix sort histogram',
            code: histogramKernelWgsl(shape),
            layout: histogramLayout,
          }) as unknown as Promise<AnyKernel>,
      ],
      [
        'reduce',
        () =>
          ctx.kernels.get({
            label: 'gm radix sort scan reduce',
            code: tableReduceKernelWgsl(scan),
            layout: scanReduceLayout,
          }) as unknown as Promise<AnyKernel>,
      ],
      [
        'scan',
        () =>
          ctx.kernels.get({
            label: 'gm radix sort scan block',
            code: tableScanKernelWgsl(scan),
            layout: scanBlockLayout,
          }) as unknown as Promise<AnyKernel>,
      ],
      [
        scatterName(plan.scatterWindows, o.withValues),
        () =>
          ctx.kernels.get({
            label: `gm radix sort scatter ${plan.scatterWindows}w${o.withValues ? ' kv' : ''}`,
            code: scatterKernelWgsl({
              ...shape,
              windows: plan.scatterWindows,
              withValues: o.withValues,
              subgroups: config.subgroups,
              maxGroups: config.maxGroups,
              groupSize: config.groupSize,
            }),
            layout: scatterLayout(plan.scatterWindows, o.withValues),
          }) as unknown as Promise<AnyKernel>,
      ],
    ];
    const missing = wanted.filter(([name]) => !this.#kernels.has(name));
    if (missing.length > 0) {
      await Promise.all(
        missing.map(async ([name, build]) => {
          if (!this.#kernels.has(name)) this.#kernels.set(name, await build());
        }),
      );
    }
    // Sorts of a size seen before need nothing new: no error scope, no wait on the device.
    if (this.#buffersShort(plan, o.withValues, passes)) {
      await ctx.guard('gm radix sort buffers', () => this.#ensureBuffers(plan, o.withValues, passes));
    }
  }

  /**
   * Records the sort into `encoder` (one compute pass, or one per radix pass when `passes` times
   * them, plus a copy back when the number of passes is odd); the result ends in `o.keys` / `o.values`. Call {@link prepare} with
   * the same count, `withValues` and bits (and `countFromGpu` for `countFrom`) first. `passes` may supply `beginComputePass` (e.g.
   * `measureGpu`'s timer) to time each pass. With `countFrom`, copies of the count into the
   * plan's parameters come first, and an odd number of passes goes through a second scratch array
   * instead of copying back, so nothing is written past the count.
   *
   * @example
   * ```ts
   * await sort.prepare({ count, withValues: true });
   * const encoder = ctx.device.createCommandEncoder();
   * sort.encode(encoder, { keys, values, count });
   * ctx.queue.submit([encoder.finish()]);
   * // Up to `capacity` keys, as many as the u32 at byte 0 of `counter` says when it runs:
   * await sort.prepare({ count: capacity, withValues: true, countFromGpu: true });
   * sort.encode(encoder2, { keys, values, count: capacity, countFrom: { buffer: counter, offset: 0 } });
   * ```
   */
  encode(
    encoder: GPUCommandEncoder,
    o: SortOptions,
    passes?: { beginComputePass(encoder: GPUCommandEncoder, label: string): GPUComputePassEncoder },
  ): void {
    this.#assertAlive();
    const config = this.#resolved;
    if (!config) throw new Error('RadixSort.encode before prepare(): call prepare() or run() first');
    const bits = checkSortBits(o.bits);
    checkCount(o.count);
    const passTotal = passCount(bits, config.radixBits);
    if (o.count <= 1 || passTotal === 0) return;
    const withValues = o.values !== undefined;
    const bytes = o.count * 4;
    if (o.keys.size < bytes)
      throw new RangeError(
        `RadixSort: keys buffer '${o.keys.label}' has ${o.keys.size} bytes, needs ${bytes}`,
      );
    if (o.values && o.values.size < bytes)
      throw new RangeError(
        `RadixSort: values buffer '${o.values.label}' has ${o.values.size} bytes, needs ${bytes}`,
      );
    const countFrom = o.countFrom;
    if (countFrom && (countFrom.offset % 4 !== 0 || countFrom.offset + 4 > countFrom.buffer.size))
      throw new RangeError(
        `RadixSort: countFrom offset ${countFrom.offset} is not a 4-aligned word of '${countFrom.buffer.label}' (${countFrom.buffer.size} bytes)`,
      );
    if (countFrom && (countFrom.buffer.usage & BufferUsage.COPY_SRC) === 0)
      throw new TypeError(
        `RadixSort: countFrom buffer '${countFrom.buffer.label}' lacks COPY_SRC usage (the count is copied into the sort's parameters)`,
      );
    if (countFrom && passTotal === 1) {
      // The one pass reads a copy of the arrays (a pass cannot sort in place).
      for (const buffer of [o.keys, o.values]) {
        if (buffer && (buffer.usage & BufferUsage.COPY_SRC) === 0)
          throw new TypeError(
            `RadixSort: '${buffer.label}' lacks COPY_SRC usage, which a one-pass sort with countFrom needs`,
          );
      }
    }
    const plan = this.#plan(config, o.count, bits, countFrom !== undefined);
    const get = (name: string) => {
      const kernel = this.#kernels.get(name);
      if (!kernel) throw new Error(`RadixSort.encode: kernel '${name}' not prepared; call prepare() first`);
      return kernel;
    };
    const histogram = get('histogram');
    const reduce = get('reduce');
    const scan = get('scan');
    const scatter = get(scatterName(plan.scatterWindows, withValues));
    this.#ensureBuffers(plan, withValues, passTotal);
    const altKeys = this.#buffers.get('alt keys') as GPUBuffer;
    const altValues = withValues ? (this.#buffers.get('alt values') as GPUBuffer) : undefined;
    // Where each pass reads and writes: ping-pong between the caller's arrays and the scratch; a
    // GPU-counted sort with an odd number of passes goes through a second scratch array instead of
    // copying the whole capacity back (which would overwrite keys past the count).
    const throughSecond = countFrom !== undefined && passTotal % 2 === 1;
    const route: { keys: GPUBuffer; values: GPUBuffer | undefined }[] = [];
    const caller = { keys: o.keys, values: o.values };
    const alt = { keys: altKeys, values: altValues };
    if (throughSecond) {
      if (passTotal === 1) {
        // One pass cannot sort in place: copy the capacity aside first (harmless past the count).
        encoder.copyBufferToBuffer(o.keys, 0, altKeys, 0, bytes);
        if (o.values && altValues) encoder.copyBufferToBuffer(o.values, 0, altValues, 0, bytes);
        route.push(alt, caller);
      } else {
        const second = {
          keys: this.#buffers.get('second keys') as GPUBuffer,
          values: withValues ? (this.#buffers.get('second values') as GPUBuffer) : undefined,
        };
        route.push(caller);
        for (let p = 1; p < passTotal; p++) route.push(p % 2 === 1 ? alt : second);
        route.push(caller);
      }
    } else {
      for (let p = 0; p <= passTotal; p++) route.push(p % 2 === 0 ? caller : alt);
    }
    if (countFrom) {
      // Every histogram and scatter slot reads its count from its own parameters.
      const countSlots = plan.passes.flatMap((info) => [...info.histSlots, ...info.scatterSlots.flat()]);
      for (const s of countSlots) {
        encoder.copyBufferToBuffer(countFrom.buffer, countFrom.offset, plan.params, s * PARAM_SLOT_BYTES, 4);
      }
    }
    const table = this.#buffers.get('table') as GPUBuffer;
    const levelBuffer = (i: number): GPUBufferBinding => ({
      buffer: i === 0 ? table : (this.#buffers.get(`level ${i}`) as GPUBuffer),
      size: (plan.levels[i]?.length ?? 1) * 4,
    });
    const tableBinding = levelBuffer(0);
    const dummy = this.#dummyBuffer();
    const slot = (s: number): GPUBufferBinding => ({
      buffer: plan.params,
      offset: s * PARAM_SLOT_BYTES,
      size: PARAM_SLOT_BYTES,
    });
    const window = (buffer: GPUBuffer, w: number): GPUBufferBinding => {
      const win = plan.windows[w] as SortPlan['windows'][number];
      return { buffer, offset: win.firstKey * 4, size: win.keys * 4 };
    };
    // The same plan over the same buffers binds the same groups: reuse them (a worklist sorted
    // every round at a handful of sizes would otherwise create dozens of bind groups a round).
    const groups = this.#plans.groups(plan, [
      ...route.flatMap((step) => [step.keys, step.values]),
      table,
      dummy,
      ...plan.levels.map((_, i) => levelBuffer(i).buffer),
    ]);
    const group = groups.group;
    const grid = (n: number) => dispatchGrid(n, config.maxPerDimension);
    // Untimed, every radix pass goes into one compute pass: WebGPU orders dispatches and makes
    // their writes visible within a pass, and each compute pass costs the host more to record than
    // the dispatches in it (the Andersen engine sorts its worklist up to twice a round).
    let shared: GPUComputePassEncoder | undefined;
    const begin = (label: string) => {
      if (passes) return passes.beginComputePass(encoder, label);
      shared ??= encoder.beginComputePass({ label: 'gm radix sort' });
      return shared;
    };
    const end = (pass: GPUComputePassEncoder) => {
      if (pass !== shared) pass.end();
    };

    for (let p = 0; p < passTotal; p++) {
      const { keys: srcKeys, values: srcValues } = route[p] as (typeof route)[number];
      const { keys: dstKeys, values: dstValues } = route[p + 1] as (typeof route)[number];
      const info = plan.passes[p] as SortPlan['passes'][number];
      const pass = begin(`gm radix sort pass ${p}`);
      // Per-tile histograms.
      pass.setPipeline(histogram.pipeline);
      plan.windows.forEach((win, w) => {
        pass.setBindGroup(
          0,
          group(() =>
            histogram.bindGroup({
              params: slot(info.histSlots[w] as number),
              src_keys: window(srcKeys, w),
              table: tableBinding,
            }),
          ),
        );
        encodeDispatch(pass, grid(win.tiles));
      });
      // Exclusive scan of the table: block sums up the levels, then scans down.
      const levels = plan.levels;
      pass.setPipeline(reduce.pipeline);
      for (let i = 0; i + 1 < levels.length; i++) {
        const level = levels[i] as SortPlan['levels'][number];
        pass.setBindGroup(
          0,
          group(() =>
            reduce.bindGroup({
              scan_params: slot(level.reduceSlot),
              scan_data: levelBuffer(i),
              scan_sums: levelBuffer(i + 1),
            }),
          ),
        );
        encodeDispatch(pass, grid(level.blocks));
      }
      pass.setPipeline(scan.pipeline);
      for (let i = levels.length - 1; i >= 0; i--) {
        const level = levels[i] as SortPlan['levels'][number];
        pass.setBindGroup(
          0,
          group(() =>
            scan.bindGroup({
              scan_params: slot(level.scanSlot),
              scan_data: levelBuffer(i),
              scan_carry: i + 1 < levels.length ? levelBuffer(i + 1) : { buffer: dummy, size: 256 },
            }),
          ),
        );
        encodeDispatch(pass, grid(level.blocks));
      }
      // Scatter, each source window once per group of bound destination windows.
      pass.setPipeline(scatter.pipeline);
      const k = plan.scatterWindows;
      plan.windows.forEach((win, w) => {
        const slots = info.scatterSlots[w] as readonly number[];
        slots.forEach((s, q) => {
          const resources: Record<string, GPUBufferBinding> = {
            params: slot(s),
            table: tableBinding,
            src_keys: window(srcKeys, w),
          };
          if (srcValues) resources.src_values = window(srcValues, w);
          for (let j = 0; j < k; j++) {
            const d = q * k + j;
            if (d < plan.windows.length) {
              resources[`dst_keys_${j}`] = window(dstKeys, d);
              if (dstValues) resources[`dst_values_${j}`] = window(dstValues, d);
            } else {
              // Slots past the last window get disjoint pieces of a spare buffer; no key maps to them.
              resources[`dst_keys_${j}`] = { buffer: dummy, offset: 256 * (1 + j), size: 256 };
              resources[`dst_values_${j}`] = { buffer: dummy, offset: 256 * (1 + k + j), size: 256 };
            }
          }
          pass.setBindGroup(
            0,
            group(() => scatter.bindGroup(resources)),
          );
          encodeDispatch(pass, grid(win.tiles));
        });
      });
      end(pass);
    }
    shared?.end();
    groups.keep();
    if (passTotal % 2 === 1 && !throughSecond) {
      encoder.copyBufferToBuffer(altKeys, 0, o.keys, 0, bytes);
      if (o.values && altValues) encoder.copyBufferToBuffer(altValues, 0, o.values, 0, bytes);
    }
  }

  /**
   * Sorts `o.keys` (and `o.values`) in place: prepares, encodes into one command buffer, submits
   * and waits for the GPU to finish.
   *
   * @example
   * ```ts
   * await sort.run({ keys, values, count, bits: { start: 0, end: 16 } });
   * ```
   */
  async run(o: SortOptions): Promise<void> {
    await this.prepare({ count: o.count, withValues: o.values !== undefined, bits: o.bits });
    const ctx = this.#ctx;
    await ctx.guard('gm radix sort', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'gm radix sort' });
      this.encode(encoder, o);
      ctx.queue.submit([encoder.finish()]);
    });
    await ctx.idle();
  }

  /**
   * Frees the scratch and parameter buffers (the caller's keys and values are left alone).
   *
   * @example
   * ```ts
   * sort.destroy();
   * ```
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const b of this.#buffers.values()) b.destroy();
    for (const b of this.#retired) b.destroy();
    this.#plans.destroy();
    this.#dummy?.destroy();
    this.#buffers.clear();
    this.#kernels.clear();
  }

  /** One line describing the kernel shape, for logs. */
  toString(): string {
    const c = this.#resolved;
    if (!c) return 'RadixSort (not prepared)';
    return `RadixSort (${c.radixBits}-bit digits, tiles of ${c.workgroupSize}×${c.itemsPerThread}, ${
      c.subgroups ? 'subgroup' : `workgroup-memory (groups of ${c.groupSize})`
    } ranking, windows of ${c.windowKeys} keys)`;
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new Error('RadixSort used after destroy()');
  }

  #getConfig(): Promise<SortConfig> {
    this.#config ??= this.#chooseConfig().then((c) => {
      this.#resolved = c;
      return c;
    });
    return this.#config;
  }

  async #chooseConfig(): Promise<SortConfig> {
    const ctx = this.#ctx;
    const t = this.#options.tuning ?? {};
    const radixBits = t.radixBits ?? 8;
    if (!Number.isInteger(radixBits) || radixBits < 1 || radixBits > 8)
      throw new RangeError(`RadixSort: radixBits ${radixBits} not in 1…8`);
    const radix = 1 << radixBits;
    const workgroupSize = t.workgroupSize ?? 256;
    if (!isPowerOfTwo(workgroupSize) || workgroupSize < Math.max(2, radix))
      throw new RangeError(`RadixSort: workgroup size ${workgroupSize} must be a power of two ≥ ${radix}`);
    if (workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup)
      throw new RangeError(`RadixSort: workgroup size ${workgroupSize} exceeds the device's limit`);
    const groupSize = Math.min(t.groupSize ?? 16, workgroupSize);
    if (!isPowerOfTwo(groupSize))
      throw new RangeError(`RadixSort: group size ${groupSize} not a power of two`);
    const minSg = ctx.adapter.subgroupMinSize || 4;
    const maxSg = ctx.adapter.subgroupMaxSize || 128;
    const subgroups =
      (t.subgroups ?? true) &&
      (await subgroupLayoutIsLinear(ctx)) &&
      maxSg <= 128 &&
      maxSg <= workgroupSize &&
      workgroupSize % maxSg === 0;
    const maxGroups = workgroupSize / (subgroups ? minSg : groupSize);
    const maxBindingBytes = Math.min(
      this.#options.maxBindingBytes ?? ctx.limits.maxStorageBufferBindingSize,
      ctx.limits.maxStorageBufferBindingSize,
    );
    const alignKeys = Math.max(1, ctx.limits.minStorageBufferOffsetAlignment / 4);
    const memory = ctx.limits.maxComputeWorkgroupStorageSize;
    let items = t.itemsPerThread ?? 16;
    const fits = (n: number) =>
      scatterWorkgroupBytes({ workgroupSize, itemsPerThread: n, radixBits, maxGroups, subgroups }) <=
        memory &&
      lcm(workgroupSize * n, alignKeys) * 4 <= maxBindingBytes &&
      workgroupSize * n < 65_536;
    while (items > 1 && !fits(items)) items = Math.floor(items / 2);
    if (!fits(items))
      throw new RangeError(
        `RadixSort: no tile of ${workgroupSize} invocations fits ${memory} bytes of workgroup memory and bindings of ${maxBindingBytes} bytes`,
      );
    const tile = workgroupSize * items;
    const align = lcm(tile, alignKeys);
    const windowKeys = Math.floor(maxBindingBytes / 4 / align) * align;
    const scanWorkgroupSize =
      t.scanWorkgroupSize ?? Math.min(256, ctx.limits.maxComputeInvocationsPerWorkgroup);
    if (!isPowerOfTwo(scanWorkgroupSize) || (subgroups && scanWorkgroupSize % maxSg !== 0))
      throw new RangeError(
        `RadixSort: scan workgroup size ${scanWorkgroupSize} not a power of two ≥ the subgroup size`,
      );
    const scanItems = t.scanItemsPerThread ?? 16;
    if (!Number.isInteger(scanItems) || scanItems < 1)
      throw new RangeError(`RadixSort: bad scan items per thread ${scanItems}`);
    return {
      radixBits,
      workgroupSize,
      itemsPerThread: items,
      tile,
      subgroups,
      maxGroups,
      groupSize,
      windowKeys,
      maxPerDimension: t.maxWorkgroupsPerDimension ?? ctx.limits.maxComputeWorkgroupsPerDimension,
      scanWorkgroupSize,
      scanItems,
    };
  }

  #plan(config: SortConfig, count: number, bits: SortBits, countFromGpu: boolean): SortPlan {
    // A GPU-counted plan's slots hold whatever count the GPU copied last: never share it.
    const key = `${count}|${bits.start}|${bits.end}|${countFromGpu ? 'gpu' : 'host'}`;
    const cached = this.#plans.get(key);
    if (cached) return cached;
    const radix = 1 << config.radixBits;
    const numTiles = Math.ceil(count / config.tile);
    const windows: { firstKey: number; keys: number; firstTile: number; tiles: number }[] = [];
    for (let first = 0; first < count; first += config.windowKeys) {
      const keys = Math.min(config.windowKeys, count - first);
      windows.push({
        firstKey: first,
        keys,
        firstTile: first / config.tile,
        tiles: Math.ceil(keys / config.tile),
      });
    }
    const scatterWindows = Math.min(windows.length, MAX_SCATTER_WINDOWS);
    const dstGroups = Math.ceil(windows.length / scatterWindows);
    const tableLength = radix * numTiles;
    if (tableLength * 4 > this.#ctx.limits.maxStorageBufferBindingSize)
      throw new RangeError(
        `RadixSort: the histogram table of ${count} keys (${tableLength * 4} bytes) exceeds one binding (${this.#ctx.limits.maxStorageBufferBindingSize} bytes)`,
      );
    const block = config.scanWorkgroupSize * config.scanItems;
    const lengths = [tableLength];
    while ((lengths[lengths.length - 1] as number) > block)
      lengths.push(Math.ceil((lengths[lengths.length - 1] as number) / block));
    let slots = 0;
    const levels = lengths.map((length) => ({
      length,
      blocks: Math.ceil(length / block),
      reduceSlot: slots++,
      scanSlot: slots++,
    }));
    const passTotal = passCount(bits, config.radixBits);
    const passes = Array.from({ length: passTotal }, () => ({
      histSlots: windows.map(() => slots++),
      scatterSlots: windows.map(() => Array.from({ length: dstGroups }, () => slots++)),
    }));
    const words = new Uint32Array(slots * PARAM_SLOT_WORDS);
    levels.forEach((level, i) => {
      writeScanParams(words, level.reduceSlot, {
        length: level.length,
        blocks: level.blocks,
        hasCarry: false,
      });
      writeScanParams(words, level.scanSlot, {
        length: level.length,
        blocks: level.blocks,
        hasCarry: i + 1 < levels.length,
      });
    });
    passes.forEach((pass, p) => {
      const shift = bits.start + p * config.radixBits;
      const width = Math.min(config.radixBits, bits.end - shift);
      const base = {
        count,
        shift,
        digitMask: (1 << width) - 1,
        numTiles,
        windowKeys: config.windowKeys,
      };
      windows.forEach((win, w) => {
        const common = { ...base, firstTile: win.firstTile, windowTiles: win.tiles };
        writeSortParams(words, pass.histSlots[w] as number, { ...common, firstDstWindow: 0 });
        (pass.scatterSlots[w] as number[]).forEach((s, q) => {
          writeSortParams(words, s, { ...common, firstDstWindow: q * scatterWindows });
        });
      });
    });
    return this.#plans.add(key, words, (params) => ({
      count,
      numTiles,
      windows,
      scatterWindows,
      passes,
      levels,
      params,
      countFromGpu,
      bindGroups: new Map(),
    }));
  }

  #buffersShort(plan: SortPlan, withValues: boolean, passes: number): boolean {
    return this.#bufferNeeds(plan, withValues, passes).some(([name, bytes]) => {
      const current = this.#buffers.get(name);
      return current === undefined || current.size < bytes;
    });
  }

  #bufferNeeds(plan: SortPlan, withValues: boolean, passes: number): [string, number][] {
    const need: [string, number][] = [
      ['alt keys', plan.count * 4],
      ['table', (plan.levels[0]?.length ?? 1) * 4],
    ];
    if (withValues) need.push(['alt values', plan.count * 4]);
    if (plan.countFromGpu && passes % 2 === 1 && passes > 1) {
      need.push(['second keys', plan.count * 4]);
      if (withValues) need.push(['second values', plan.count * 4]);
    }
    plan.levels.forEach((level, i) => {
      if (i > 0) need.push([`level ${i}`, level.length * 4]);
    });
    return need;
  }

  #ensureBuffers(plan: SortPlan, withValues: boolean, passes: number): void {
    for (const [name, bytes] of this.#bufferNeeds(plan, withValues, passes)) {
      const current = this.#buffers.get(name);
      if (current && current.size >= bytes) continue;
      // A buffer may still be used by commands encoded earlier: retire it, free it in destroy().
      if (current) this.#retired.push(current);
      const size = Math.max(256, Math.ceil(Math.max(bytes, (current?.size ?? 0) * 1.5) / 256) * 256);
      this.#buffers.set(
        name,
        this.#ctx.device.createBuffer({ label: `gm radix sort ${name}`, size, usage: STORAGE }),
      );
    }
  }

  #dummyBuffer(): GPUBuffer {
    this.#dummy ??= this.#ctx.device.createBuffer({
      label: 'gm radix sort spare',
      size: 256 * (1 + 2 * MAX_SCATTER_WINDOWS),
      usage: BufferUsage.STORAGE,
    });
    return this.#dummy;
  }
}

/** Sort plans kept per sorter (see PlanCache), and the bind-group sets (one per set of arrays sorted) each keeps. */
const PLAN_LIMITS = { plans: 64, bufferSets: 8 };

function scatterName(windows: number, withValues: boolean): string {
  return `scatter ${windows}${withValues ? ' kv' : ''}`;
}

function passCount(bits: SortBits, radixBits: number): number {
  return Math.ceil((bits.end - bits.start) / radixBits);
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 0 || count > 0xffff_ffff)
    throw new RangeError(`RadixSort: bad count ${count}`);
}

/**
 * Creates a {@link RadixSort} for `ctx`. Sorting needs `count × 4` bytes of scratch per array
 * (keys, and values when given) plus a histogram table of `2^radixBits × tiles` words.
 *
 * @example
 * ```ts
 * const sort = createRadixSort(ctx);
 * await sort.run({ keys, values, count: n, bits: { start: 0, end: 24 } });
 * sort.destroy();
 * ```
 */
export function createRadixSort(ctx: GpuContext, options: RadixSortOptions = {}): RadixSort {
  return new RadixSort(ctx, options);
}
