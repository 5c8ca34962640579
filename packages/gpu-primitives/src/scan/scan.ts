import {
  BufferUsage,
  dispatchGrid,
  type GpuContext,
  type Kernel,
  type PassTimer,
} from '@gpumorph/gpu-allocator';
import { subgroupLayoutIsLinear } from '../common/subgroup-layout';
import { tileElements } from '../common/tile.wgsl';
import { resolveTiling, type TilingOptions } from '../common/tiling';
import {
  checkElementCount,
  createDummyBuffer,
  type ElementWindow,
  elementWindows,
  UniformCache,
  windowViews,
} from '../common/windows';
import { DECOUPLED_STATE_WORDS, scanDecoupledWgsl } from './kernels/decoupled.wgsl';
import { partialWords, scanDownsweepWgsl, scanUpsweepWgsl } from './kernels/scan.wgsl';
import {
  SCAN_CARRY_WORDS,
  SCAN_VECTORS,
  SCAN_WORKGROUP_SIZE,
  type ScanLayoutKind,
  scanLayout,
} from './layout';

/** Exclusive: element i gets the combination of elements before it; inclusive: up to and including it. */
export type ScanKind = 'exclusive' | 'inclusive';

/** Operators a scan supports. */
export type ScanOperator = 'add' | 'max';

/**
 * How a scan is computed. `decoupled-fallback` (the default): one pass per binding window that
 * reads and writes every element once; each tile finds its prefix by looking back at its
 * predecessors' published states, and reduces a predecessor that is not ready from the input
 * itself instead of waiting (Smith, Levien & Owens 2025), so no workgroup ever waits on another
 * without bound. `reduce-then-scan`: tile reductions, a scan of them, a rescan of each tile (reads
 * the input twice). In-place scans always use `reduce-then-scan`: a fallback would read a
 * predecessor's input while that predecessor may be overwriting it, and WGSL orders nothing
 * between workgroups that would rule it out.
 */
export type ScanStrategy = 'decoupled-fallback' | 'reduce-then-scan';

/** Default {@link CreateScanOptions.pollLimit}. */
export const SCAN_POLL_LIMIT = 32;

/** One scan of `count` u32s. */
export interface ScanOptions {
  /** `count` u32s from offset 0 (STORAGE usage). */
  readonly input: GPUBuffer;
  /** Receives `count` u32s from offset 0 (STORAGE usage); may be `input` itself (in place). */
  readonly output: GPUBuffer;
  readonly count: number;
  readonly kind: ScanKind;
  /** `add` wraps modulo 2^32. */
  readonly op: ScanOperator;
  /** u32 per element, nonzero = element starts a new segment (the carry does not cross it). */
  readonly segmentHeads?: GPUBuffer;
  /** Overrides the scan's {@link CreateScanOptions.strategy} for this call (in place: always `reduce-then-scan`). */
  readonly strategy?: ScanStrategy;
}

/** What {@link Scan.prepare} compiles and allocates for. */
export interface ScanPrepareOptions {
  readonly count: number;
  readonly op: ScanOperator;
  readonly kind: ScanKind;
  readonly segmented: boolean;
  /** Also compile the in-place variant (`input === output`); `run` sets it itself. */
  readonly inPlace?: boolean;
  /** The strategy `encode` will be called with (default: the scan's). */
  readonly strategy?: ScanStrategy;
}

/** Options of {@link createScan}: the tile shape (default 256 invocations × 4 vec4s) and its own. */
export interface CreateScanOptions extends TilingOptions {
  /** Default strategy of this scan's calls (default `decoupled-fallback`; in place: always `reduce-then-scan`). */
  readonly strategy?: ScanStrategy;
  /**
   * Tuning (decoupled fallback): times a workgroup re-reads a predecessor that is not ready before
   * it reduces that predecessor's tile itself (default {@link SCAN_POLL_LIMIT}; 0: at once).
   */
  readonly pollLimit?: number;
  /** @internal Testing: ignore all published tile states, so every prefix comes from fallbacks. */
  readonly fallbackAlways?: boolean;
  /**
   * @internal Tuning (decoupled fallback): `workgroup` (default) takes the workgroup index as the
   * tile, `counter` the next value of an atomic counter.
   */
  readonly tileIds?: 'counter' | 'workgroup';
}

/** Where the decoupled-fallback scan keeps its atomic words for one window. */
interface StateWindow {
  readonly tiles: number;
  readonly counter: number;
  readonly carryIn: number;
  readonly carryOut: number;
  readonly stateOffset: number;
}

/** One level of the tile hierarchy of a window. */
interface Level {
  readonly n: number;
  /** scratch word offset of this level's elements (levels above 0). */
  readonly offset: number;
}

/**
 * Prefix sums (exclusive or inclusive, add or max, optionally segmented) over u32 buffers of any
 * size, in tiles of 4096 elements (256 invocations × 16, vec4 loads). By default in one pass with
 * decoupled fallback look-back (see {@link ScanStrategy}); in place, or with
 * `strategy: 'reduce-then-scan'`, an upsweep reduces every tile to its aggregate, the aggregates
 * are scanned the same way recursively until one tile is left, and a downsweep rescans each tile
 * from its carry. A buffer larger than one binding is processed window by window with the running
 * prefix carried on the GPU. Everything is recorded into one compute pass; no workgroup waits
 * without bound for another.
 *
 * Create with {@link createScan}.
 */
export class Scan {
  readonly #ctx: GpuContext;
  readonly #maxBindingBytes: number;
  readonly #workgroupSize: number;
  readonly #vectors: number;
  readonly #maxPerDimension: number;
  readonly #allowSubgroups: boolean;
  readonly #strategy: ScanStrategy;
  readonly #pollLimit: number;
  readonly #fallbackAlways: boolean;
  readonly #tileIds: 'counter' | 'workgroup';
  readonly #kernels = new Map<string, Kernel>();
  readonly #params: UniformCache;
  #subgroups: boolean | undefined;
  #scratch: GPUBuffer | undefined;
  #state: GPUBuffer | undefined;
  #dummy: GPUBuffer | undefined;
  #dummyWritable: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: CreateScanOptions = {}) {
    this.#ctx = ctx;
    const tiling = resolveTiling(ctx, 'scan', options, {
      workgroupSize: SCAN_WORKGROUP_SIZE,
      vectors: SCAN_VECTORS,
    });
    this.#maxBindingBytes = tiling.maxBindingBytes;
    this.#workgroupSize = tiling.workgroupSize;
    this.#vectors = tiling.vectors;
    this.#maxPerDimension = tiling.maxPerDimension;
    this.#allowSubgroups = tiling.allowSubgroups;
    this.#strategy = options.strategy ?? 'decoupled-fallback';
    this.#pollLimit = options.pollLimit ?? SCAN_POLL_LIMIT;
    this.#fallbackAlways = options.fallbackAlways ?? false;
    this.#tileIds = options.tileIds ?? 'workgroup';
    if (this.#strategy !== 'decoupled-fallback' && this.#strategy !== 'reduce-then-scan') {
      throw new RangeError(
        `scan strategy '${this.#strategy}': not 'decoupled-fallback' or 'reduce-then-scan'`,
      );
    }
    if (!Number.isInteger(this.#pollLimit) || this.#pollLimit < 0) {
      throw new RangeError(`scan poll limit ${this.#pollLimit}: not a non-negative integer`);
    }
    this.#params = new UniformCache(ctx, 'gm scan params');
  }

  /** Elements per tile (one workgroup). */
  get tileElements(): number {
    return tileElements({ workgroupSize: this.#workgroupSize, vectors: this.#vectors });
  }

  /** Whether the subgroup path is used (known after the first `prepare`). */
  get usesSubgroups(): boolean | undefined {
    return this.#subgroups;
  }

  /**
   * Compiles the kernels a scan of this shape needs and grows the scratch buffer; `encode` needs
   * it first. `run` calls it itself.
   */
  async prepare(o: ScanPrepareOptions): Promise<void> {
    this.#assertAlive();
    checkElementCount('scan', o.count);
    if (this.#subgroups === undefined) {
      const linear = this.#allowSubgroups && (await subgroupLayoutIsLinear(this.#ctx));
      this.#subgroups = linear && this.#workgroupSize % this.#ctx.adapter.subgroupMaxSize === 0;
    }
    if (!this.#dummy) this.#dummy = await createDummyBuffer(this.#ctx, 'gm scan empty view');
    if (!this.#dummyWritable)
      this.#dummyWritable = await createDummyBuffer(this.#ctx, 'gm scan empty output view');
    if (o.count === 0) return;
    const windows = this.#windows(o.count);
    const levels = this.#levels((windows[0] as ElementWindow).count, o.segmented);
    const words = levels.reduce(
      (sum, l, i) => (i === 0 ? sum : sum + l.n * partialWords(o.segmented)),
      SCAN_CARRY_WORDS,
    );
    if (!this.#scratch || this.#scratch.size < words * 4) {
      this.#scratch?.destroy();
      this.#scratch = undefined;
      this.#scratch = await this.#ctx.createBuffer({
        label: 'gm scan scratch',
        size: words * 4,
        usage: BufferUsage.STORAGE,
      });
    }
    const wanted = new Set<string>();
    const strategy = o.strategy ?? this.#strategy;
    if (strategy === 'decoupled-fallback') {
      const words = this.#stateLayout(o.count).words;
      if (!this.#state || this.#state.size < words * 4) {
        this.#state?.destroy();
        this.#state = undefined;
        this.#state = await this.#ctx.createBuffer({
          label: 'gm scan tile states',
          size: words * 4,
          usage: BufferUsage.STORAGE | BufferUsage.COPY_DST,
        });
      }
      wanted.add(this.#key('single-pass', o, o.segmented, false));
    }
    // Every window has the level structure of the first (full) window or a smaller one.
    for (const w of windows.slice(0, 1).concat(windows.slice(-1))) {
      const levels = this.#levels(w.count, o.segmented).length;
      for (const key of this.#kernelKeys(levels, o, strategy === 'reduce-then-scan')) wanted.add(key);
    }
    await Promise.all([...wanted].map((key) => this.#kernel(key)));
  }

  /**
   * Records the scan into `encoder` as one compute pass (timed through `timer` when given, e.g.
   * from `measureGpu`). Call {@link prepare} with the same shape first.
   */
  encode(encoder: GPUCommandEncoder, o: ScanOptions, timer?: PassTimer): void {
    this.#assertAlive();
    this.#check(o);
    if (o.count === 0) return;
    const segmented = o.segmentHeads !== undefined;
    const inPlace = o.input === o.output;
    if (!inPlace && (o.strategy ?? this.#strategy) === 'decoupled-fallback') {
      this.#encodeSinglePass(encoder, o, timer);
      return;
    }
    const scratch = this.#scratch;
    const dummy = this.#dummy as GPUBuffer;
    const dummyWritable = this.#dummyWritable as GPUBuffer;
    const alignment = this.#ctx.limits.minStorageBufferOffsetAlignment;
    const tile = this.tileElements;
    const label = `gm scan ${o.kind} ${o.op}${segmented ? ' segmented' : ''} of ${o.count}`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    const dispatch = (
      key: string,
      resources: Record<string, GPUBuffer | GPUBufferBinding>,
      tiles: number,
    ) => {
      const kernel = this.#kernels.get(key);
      if (!kernel || !scratch) {
        throw new Error(
          `scan kernel '${key}' is not prepared: await scan.prepare(...) with this shape first`,
        );
      }
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup({ ...resources, scratch }));
      const g = dispatchGrid(tiles, this.#maxPerDimension);
      pass.dispatchWorkgroups(g.x, g.y, g.z);
    };
    for (const w of this.#windows(o.count)) {
      const levels = this.#levels(w.count, segmented);
      const top = levels.length - 1;
      const src = windowViews(o.input, w, alignment, inPlace ? dummyWritable : dummy);
      const values: Record<string, GPUBufferBinding> = { src4: src.vec4, src_tail: src.tail };
      if (o.segmentHeads) {
        values.heads = { buffer: o.segmentHeads, offset: w.start * 4, size: w.count * 4 };
      }
      const dst = windowViews(o.output, w, alignment, dummyWritable);
      const down = inPlace ? values : { ...values, dst4: dst.vec4, dst_tail: dst.tail };
      const params = (l: number) => {
        const level = levels[l] as Level;
        const next = levels[l + 1];
        return this.#params.get([
          level.n,
          level.offset,
          next?.offset ?? 0,
          0,
          w.index === 0 ? 1 : 0,
          0,
          src.split,
          0,
        ]);
      };
      const tiles = (l: number) => Math.ceil((levels[l] as Level).n / tile);
      for (let l = 0; l < top; l++) {
        const key = this.#key(l === 0 ? 'up-values' : 'up-partials', o, segmented, inPlace);
        dispatch(key, l === 0 ? { params: params(l), ...values } : { params: params(l) }, tiles(l));
      }
      for (let l = top; l >= 0; l--) {
        const kind = `${l === 0 ? 'down-values' : 'down-partials'}${l === top ? '-top' : ''}`;
        const key = this.#key(kind, o, segmented, inPlace);
        dispatch(
          key,
          l === 0 ? { params: params(l), ...down } : { params: params(l) },
          l === top ? 1 : tiles(l),
        );
      }
    }
    pass.end();
  }

  /**
   * The decoupled-fallback scan: clears the tile counters and states (one `clearBuffer`), then one
   * dispatch per binding window in one compute pass; the last tile of a window leaves the running
   * value for the next.
   */
  #encodeSinglePass(encoder: GPUCommandEncoder, o: ScanOptions, timer?: PassTimer): void {
    const segmented = o.segmentHeads !== undefined;
    const key = this.#key('single-pass', o, segmented, false);
    const kernel = this.#kernels.get(key);
    const state = this.#state;
    const layout = this.#stateLayout(o.count);
    if (!kernel || !state || state.size < layout.words * 4) {
      throw new Error(`scan kernel '${key}' is not prepared: await scan.prepare(...) with this shape first`);
    }
    const dummy = this.#dummy as GPUBuffer;
    const dummyWritable = this.#dummyWritable as GPUBuffer;
    const alignment = this.#ctx.limits.minStorageBufferOffsetAlignment;
    encoder.clearBuffer(state, 0, layout.words * 4);
    const label = `gm scan ${o.kind} ${o.op}${segmented ? ' segmented' : ''} of ${o.count} (single pass)`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    pass.setPipeline(kernel.pipeline);
    for (const w of this.#windows(o.count)) {
      const s = layout.windows[w.index] as StateWindow;
      const src = windowViews(o.input, w, alignment, dummy);
      const dst = windowViews(o.output, w, alignment, dummyWritable);
      const params = this.#params.get([
        w.count,
        s.tiles,
        s.stateOffset,
        s.counter,
        s.carryIn,
        s.carryOut,
        w.index === 0 ? 1 : 0,
        src.split,
      ]);
      const resources: Record<string, GPUBuffer | GPUBufferBinding> = {
        params,
        src4: src.vec4,
        src_tail: src.tail,
        dst4: dst.vec4,
        dst_tail: dst.tail,
        state,
      };
      if (o.segmentHeads) {
        resources.heads = { buffer: o.segmentHeads, offset: w.start * 4, size: w.count * 4 };
      }
      pass.setBindGroup(0, kernel.bindGroup(resources));
      const g = dispatchGrid(s.tiles, this.#maxPerDimension);
      pass.dispatchWorkgroups(g.x, g.y, g.z);
    }
    pass.end();
  }

  /**
   * Word layout of the single-pass scan's `state` buffer for `count` elements: a tile counter per
   * window, the running values between windows (slot w enters window w), then 4 words per tile.
   */
  #stateLayout(count: number): { words: number; windows: StateWindow[] } {
    const windows = this.#windows(count);
    const tile = this.tileElements;
    const out: StateWindow[] = [];
    let offset = 2 * windows.length + 1;
    for (const w of windows) {
      const tiles = Math.ceil(w.count / tile);
      out.push({
        tiles,
        counter: w.index,
        carryIn: windows.length + w.index,
        carryOut: windows.length + w.index + 1,
        stateOffset: offset,
      });
      offset += tiles * DECOUPLED_STATE_WORDS;
    }
    return { words: offset, windows: out };
  }

  /** Prepares, encodes and submits one scan; resolves once it is submitted (later reads see the result). */
  async run(o: ScanOptions): Promise<void> {
    this.#check(o);
    if (o.count === 0) return;
    await this.prepare({
      count: o.count,
      op: o.op,
      kind: o.kind,
      segmented: o.segmentHeads !== undefined,
      inPlace: o.input === o.output,
      ...(o.strategy ? { strategy: o.strategy } : {}),
    });
    await this.#ctx.guard(`gm scan of ${o.count}`, () => {
      const encoder = this.#ctx.device.createCommandEncoder({ label: 'gm scan' });
      this.encode(encoder, o);
      this.#ctx.queue.submit([encoder.finish()]);
    });
  }

  /** Releases the scratch and parameter buffers (pipelines stay in the context's cache). */
  destroy(): void {
    this.#destroyed = true;
    this.#scratch?.destroy();
    this.#state?.destroy();
    this.#state = undefined;
    this.#dummy?.destroy();
    this.#dummyWritable?.destroy();
    this.#dummyWritable = undefined;
    this.#params.destroy();
    this.#scratch = undefined;
    this.#dummy = undefined;
    this.#kernels.clear();
  }

  toString(): string {
    return `Scan(${this.#strategy}, tile ${this.tileElements}, ${this.#subgroups === undefined ? 'unprepared' : this.#subgroups ? 'subgroups' : 'workgroup memory'})`;
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new Error('Scan used after destroy()');
  }

  #check(o: ScanOptions): void {
    checkElementCount('scan', o.count);
    const bytes = o.count * 4;
    for (const [name, buffer] of [
      ['input', o.input],
      ['output', o.output],
      ['segmentHeads', o.segmentHeads],
    ] as const) {
      if (buffer && buffer.size < bytes) {
        throw new RangeError(
          `scan of ${o.count} elements: ${name} '${buffer.label}' has only ${buffer.size} bytes`,
        );
      }
    }
    if (o.segmentHeads && o.segmentHeads === o.output) {
      throw new RangeError('scan: segmentHeads cannot be the output buffer');
    }
  }

  #windows(count: number): ElementWindow[] {
    return elementWindows(count, this.#maxBindingBytes, this.#ctx.limits.minStorageBufferOffsetAlignment);
  }

  #levels(n0: number, segmented: boolean): Level[] {
    const tile = this.tileElements;
    const levels: Level[] = [{ n: n0, offset: 0 }];
    let offset = SCAN_CARRY_WORDS;
    let n = n0;
    while (n > tile) {
      n = Math.ceil(n / tile);
      levels.push({ n, offset });
      offset += n * partialWords(segmented);
    }
    return levels;
  }

  /** Reduce-then-scan kernels: the separate-output ones when `separate`, the in-place ones when `o.inPlace`. */
  #kernelKeys(levelCount: number, o: ScanPrepareOptions, separate: boolean): string[] {
    const s = { op: o.op, kind: o.kind };
    const keys: string[] = [];
    const variants = [...(separate ? [false] : []), ...(o.inPlace ? [true] : [])];
    const add = (kind: string, inPlace: boolean) => keys.push(this.#key(kind, s, o.segmented, inPlace));
    for (const inPlace of variants) {
      if (levelCount === 1) add('down-values-top', inPlace);
      else {
        add('up-values', inPlace);
        add('down-values', inPlace);
        add('down-partials-top', inPlace);
        if (levelCount > 2) {
          add('up-partials', inPlace);
          add('down-partials', inPlace);
        }
      }
    }
    return keys;
  }

  #key(kind: string, o: { op: ScanOperator; kind: ScanKind }, segmented: boolean, inPlace: boolean): string {
    if (kind === 'single-pass') return `${kind}|${o.op}|${segmented ? 'seg' : 'plain'}|${o.kind}|separate`;
    const values = kind.includes('values');
    const output = kind.startsWith('down') ? (values ? o.kind : 'partials') : '-';
    const ip = values && kind.startsWith('down') && inPlace;
    return `${kind}|${o.op}|${segmented ? 'seg' : 'plain'}|${output}|${ip ? 'inplace' : 'separate'}`;
  }

  async #kernel(key: string): Promise<Kernel> {
    const known = this.#kernels.get(key);
    if (known) return known;
    const [kind, op, seg, output, ip] = key.split('|') as [string, ScanOperator, string, string, string];
    const segmented = seg === 'seg';
    const inPlace = ip === 'inplace';
    if (kind === 'single-pass') return this.#singlePassKernel(key, op, segmented, output as ScanKind);
    const source = kind.includes('values') ? 'values' : 'partials';
    const layoutKind: ScanLayoutKind =
      source === 'partials'
        ? 'partials'
        : kind.startsWith('up')
          ? 'up-values'
          : inPlace
            ? 'down-values-inplace'
            : 'down-values';
    const layout = scanLayout(layoutKind, segmented);
    const common = {
      op,
      segmented,
      subgroups: this.#subgroups ?? false,
      workgroupSize: this.#workgroupSize,
      vectors: this.#vectors,
      source,
      bindings: layout.wgsl(),
    } as const;
    const code = kind.startsWith('up')
      ? scanUpsweepWgsl(common)
      : scanDownsweepWgsl({
          ...common,
          output: output as 'exclusive' | 'inclusive' | 'partials',
          inPlace,
          top: kind.endsWith('-top'),
        });
    const label = `gm scan ${key.replaceAll('|', ' ')} wg${this.#workgroupSize}x${this.#vectors}${common.subgroups ? ' subgroups' : ''}`;
    const kernel = (await this.#ctx.kernels.get({ label, code, layout })) as unknown as Kernel;
    this.#kernels.set(key, kernel);
    return kernel;
  }

  async #singlePassKernel(
    key: string,
    op: ScanOperator,
    segmented: boolean,
    kind: ScanKind,
  ): Promise<Kernel> {
    const layout = scanLayout('single-pass', segmented);
    const subgroups = this.#subgroups ?? false;
    const code = scanDecoupledWgsl({
      op,
      segmented,
      subgroups,
      workgroupSize: this.#workgroupSize,
      vectors: this.#vectors,
      source: 'values',
      bindings: layout.wgsl(),
      output: kind,
      pollLimit: this.#pollLimit,
      fallbackAlways: this.#fallbackAlways,
      tileIds: this.#tileIds,
    });
    const label = `gm scan ${key.replaceAll('|', ' ')} wg${this.#workgroupSize}x${this.#vectors}${subgroups ? ' subgroups' : ''} polls ${this.#pollLimit} ids ${this.#tileIds}${this.#fallbackAlways ? ' fallback-always' : ''}`;
    const kernel = (await this.#ctx.kernels.get({ label, code, layout })) as unknown as Kernel;
    this.#kernels.set(key, kernel);
    return kernel;
  }
}

/**
 * A prefix sum over u32 buffers (see {@link Scan}): in a single pass with decoupled fallback
 * look-back, or (in place, or with `strategy: 'reduce-then-scan'`) by reduce-then-scan.
 *
 * @example
 * ```ts
 * const scan = createScan(ctx);
 * await scan.run({ input, output, count: 1000, kind: 'exclusive', op: 'add' });
 * const sums = new Uint32Array(await ctx.readBuffer(output, 0, 4000));
 * // in place, segmented, inclusive max:
 * await scan.run({ input: data, output: data, count: 1000, kind: 'inclusive', op: 'max', segmentHeads: heads });
 * // reduce-then-scan (per scan, or per call with `strategy` in the options of run/encode/prepare):
 * const classic = createScan(ctx, { strategy: 'reduce-then-scan' });
 * scan.destroy();
 * ```
 */
export function createScan(ctx: GpuContext, options: CreateScanOptions = {}): Scan {
  return new Scan(ctx, options);
}
