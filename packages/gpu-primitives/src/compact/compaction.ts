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
import { createScan, type Scan } from '../scan/scan';
import { compactCountWgsl, compactFinishWgsl, compactScatterWgsl } from './kernels/compact.wgsl';
import {
  COMPACT_OTHER_STORAGE_BINDINGS,
  COMPACT_OUTPUT_WINDOWS,
  COMPACT_VECTORS,
  COMPACT_WORKGROUP_SIZE,
  type CompactLayoutKind,
  compactLayout,
} from './layout';

/** Bytes between the pieces of the spare buffer bound for output slots past the last window. */
const SPARE_PIECE = 256;

/** How {@link Compaction} cuts one input (see `#plan`). */
interface CompactPlan {
  readonly windows: readonly (ElementWindow & { readonly firstTile: number; readonly tiles: number })[];
  readonly tiles: number;
  readonly windowElements: number;
  readonly outputWindows: number;
  readonly stride: number;
}

/** One compaction run by {@link Compaction.run}. */
export interface CompactionOptions {
  /** `count` u32s from offset 0 (STORAGE usage); any size up to 2^32 − 1 elements (bound window by window). */
  readonly input: GPUBuffer;
  readonly count: number;
  /**
   * Receives the kept elements from offset 0, in input order (STORAGE usage, at least `count · 4`
   * bytes; must not be `input`).
   */
  readonly output: GPUBuffer;
  /** u32 per element, nonzero = keep. Exactly one of `flags` and `predicate`. */
  readonly flags?: GPUBuffer;
  /** WGSL bool expression over `x: u32` (the element) and `i: u32` (its index), e.g. `'x != 0u'`. */
  readonly predicate?: string;
  /** Receives the number kept as a u32 at offset 0 (STORAGE usage). */
  readonly countOutput?: GPUBuffer;
}

/** A compaction recorded by {@link Compaction.encode}: the kept count goes to `countOutput`. */
export interface CompactionEncodeOptions extends CompactionOptions {
  readonly countOutput: GPUBuffer;
}

/** What {@link Compaction.prepare} compiles for. */
export interface CompactionPrepareOptions {
  readonly count: number;
  /** The predicate to compile, or none to keep by flags. */
  readonly predicate?: string;
}

/** Options of {@link createCompaction}: the tile shape (default 256 invocations × 4 vec4s) and its own. */
export interface CreateCompactionOptions extends TilingOptions {
  /**
   * Output windows one scatter dispatch binds when the output spans several binding windows
   * (at least 2; default 8, lowered to fit the device's `maxStorageBuffersPerShaderStage`).
   * Fewer means more (mostly empty) dispatches; tests lower it to reach several output groups.
   */
  readonly outputWindowsPerDispatch?: number;
}

/**
 * Stable stream compaction of u32s by flags or by a WGSL predicate: a pass counts the kept
 * elements of every tile, a scan turns the counts into offsets, and a scatter pass ranks the kept
 * elements of each tile and writes them in order. Create with {@link createCompaction}.
 *
 * **Inputs larger than one binding** (`count · 4 > maxBindingBytes`, up to 2^32 − 1 elements) are
 * processed window by window: the input, the flags and the output are cut into the same windows
 * of W elements (byte offsets multiples of `minStorageBufferOffsetAlignment`), tiles never cross a
 * window, and the per-tile counts of all windows are scanned as one array (by the scan, itself
 * window by window), so each tile's output position — the running kept count — stays on the GPU
 * and the predicate still sees global indices `i`. Everything stays in one command buffer.
 *
 * Where the output of a tile goes. Let tile t of input window s hold global elements [a, b) with
 * sW ≤ a < b ≤ (s+1)W, and let `base` be the number kept before a, `kept` its own. Then
 * 0 ≤ base ≤ a and base + kept ≤ b, so its output range [base, base + kept) has at most W
 * elements and lies in output windows d = ⌊base/W⌋ and d + 1, with d ≤ s. No lower bound on d
 * exists (base is 0 when nothing before a is kept), so the host cannot know which output windows
 * window s needs: the scatter of window s binds the output windows in groups of K overlapping by
 * one (group g: windows g(K−1) … g(K−1)+K−1) and runs once per group g = 0 … ⌊s/(K−1)⌋. A tile
 * writes only in the dispatch of g = ⌊d/(K−1)⌋, which holds d and d + 1 and is among those run
 * as d ≤ s; in the others each workgroup reads one count and returns. When all output windows fit
 * in K slots there is one scatter dispatch per input window (up to 2^32 elements in 2 GiB
 * windows: 8 windows, K = 8 by default, 8 dispatches). The counts are bound per window as a view
 * of its tiles' entries and the one before (at most a quarter of the window plus 260 bytes).
 */
export class Compaction {
  readonly #ctx: GpuContext;
  readonly #maxBindingBytes: number;
  readonly #workgroupSize: number;
  readonly #vectors: number;
  readonly #maxPerDimension: number;
  readonly #allowSubgroups: boolean;
  readonly #outputWindows: number;
  readonly #scan: Scan;
  readonly #kernels = new Map<string, Kernel>();
  readonly #params: UniformCache;
  #subgroups: boolean | undefined;
  #counts: GPUBuffer | undefined;
  #dummy: GPUBuffer | undefined;
  #kept: GPUBuffer | undefined;
  #spare: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: CreateCompactionOptions = {}) {
    this.#ctx = ctx;
    const tiling = resolveTiling(ctx, 'compaction', options, {
      workgroupSize: COMPACT_WORKGROUP_SIZE,
      vectors: COMPACT_VECTORS,
    });
    this.#maxBindingBytes = tiling.maxBindingBytes;
    this.#workgroupSize = tiling.workgroupSize;
    this.#vectors = tiling.vectors;
    this.#maxPerDimension = tiling.maxPerDimension;
    this.#allowSubgroups = tiling.allowSubgroups;
    this.#params = new UniformCache(ctx, 'gm compact params');
    this.#scan = createScan(ctx, {
      maxBindingBytes: this.#maxBindingBytes,
      maxWorkgroupsPerDimension: this.#maxPerDimension,
      subgroups: this.#allowSubgroups,
    });
    const room = ctx.limits.maxStorageBuffersPerShaderStage - COMPACT_OTHER_STORAGE_BINDINGS;
    this.#outputWindows = options.outputWindowsPerDispatch ?? Math.min(COMPACT_OUTPUT_WINDOWS, room);
    if (!Number.isInteger(this.#outputWindows) || this.#outputWindows < 2 || this.#outputWindows > room) {
      throw new RangeError(
        `compaction output windows per dispatch ${this.#outputWindows}: not an integer in [2, ${room}] (the device's storage buffers per stage less ${COMPACT_OTHER_STORAGE_BINDINGS})`,
      );
    }
  }

  /** Elements per tile (one workgroup). */
  get tileElements(): number {
    return tileElements({ workgroupSize: this.#workgroupSize, vectors: this.#vectors });
  }

  /** Compiles the kernels for `count` elements kept by `predicate` (or by flags) and sizes the scratch. */
  async prepare(o: CompactionPrepareOptions): Promise<void> {
    this.#assertAlive();
    this.#checkCount(o.count);
    if (this.#subgroups === undefined) {
      const linear = this.#allowSubgroups && (await subgroupLayoutIsLinear(this.#ctx));
      this.#subgroups = linear && this.#workgroupSize % this.#ctx.adapter.subgroupMaxSize === 0;
    }
    if (!this.#dummy) this.#dummy = await createDummyBuffer(this.#ctx, 'gm compact empty view');
    const plan = this.#plan(o.count);
    if (!this.#counts || this.#counts.size < plan.tiles * 4) {
      this.#counts?.destroy();
      this.#counts = undefined;
      this.#counts = await this.#ctx.createBuffer({
        label: 'gm compact tile counts',
        size: Math.max(16, plan.tiles * 4),
        usage: BufferUsage.STORAGE,
      });
    }
    if (plan.outputWindows > 1 && (!this.#spare || this.#spare.size < SPARE_PIECE * plan.outputWindows)) {
      this.#spare?.destroy();
      this.#spare = undefined;
      this.#spare = await this.#ctx.createBuffer({
        label: 'gm compact spare output windows',
        size: SPARE_PIECE * plan.outputWindows,
        usage: BufferUsage.STORAGE,
      });
    }
    const kernels: Promise<Kernel>[] = [this.#kernel('finish', o.predicate, 1)];
    if (o.count > 0) {
      kernels.push(this.#kernel('count', o.predicate, 1));
      kernels.push(this.#kernel('scatter', o.predicate, plan.outputWindows));
    }
    await Promise.all(kernels);
    if (plan.tiles > 0)
      await this.#scan.prepare({
        count: plan.tiles,
        op: 'add',
        kind: 'inclusive',
        segmented: false,
        inPlace: true,
      });
  }

  /**
   * Records the compaction (compute passes: counts per input window, the scan of the counts,
   * the scatter per input window and output group, the kept count) and writes the number kept to
   * `countOutput[0]` without reading it back. Call {@link prepare} first.
   */
  encode(encoder: GPUCommandEncoder, o: CompactionEncodeOptions, timer?: PassTimer): void {
    this.#assertAlive();
    this.#check(o);
    const counts = this.#counts;
    const dummy = this.#dummy;
    if (!counts || !dummy) throw new Error('compaction is not prepared: await compaction.prepare(...) first');
    const plan = this.#plan(o.count);
    const alignment = this.#ctx.limits.minStorageBufferOffsetAlignment;
    const predicate = o.predicate;
    const begin = (label: string) =>
      timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    const label = `gm compact ${predicate ?? 'flags'} of ${o.count}`;
    // A view of the counts from an aligned offset at or before entry `first` up to entry `end`.
    const countsView = (first: number, end: number) => {
      const offset = Math.floor((first * 4) / alignment) * alignment;
      return { view: { buffer: counts, offset, size: Math.max(4, end * 4 - offset) }, base: offset / 4 };
    };
    const W = plan.windowElements;
    // Per input window: its views, and the uniform words of a dispatch over it for a group.
    const windows = plan.windows.map((w) => {
      const views = windowViews(o.input, w, alignment, dummy);
      const c = countsView(Math.max(0, w.firstTile - 1), w.firstTile + w.tiles);
      const inputs: Record<string, GPUBufferBinding> = {
        src4: views.vec4,
        src_tail: views.tail,
        counts: c.view,
      };
      if (o.flags) inputs.flags = { buffer: o.flags, offset: w.start * 4, size: w.count * 4 };
      const params = (firstDst: number, group: number) => ({
        buffer: this.#params.get([
          w.count,
          views.split,
          w.tiles,
          w.firstTile,
          w.start,
          c.base,
          W,
          firstDst,
          plan.stride,
          group,
          0,
          0,
        ]),
      });
      return { w, inputs, params, grid: dispatchGrid(w.tiles, this.#maxPerDimension) };
    });
    if (plan.tiles > 0) {
      let pass = begin(`${label}: counts`);
      const count = this.#get('count', predicate, 1);
      pass.setPipeline(count.pipeline);
      for (const { inputs, params, grid } of windows) {
        pass.setBindGroup(0, count.bindGroup({ params: params(0, 0), ...inputs }));
        pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      }
      pass.end();
      this.#scan.encode(
        encoder,
        { input: counts, output: counts, count: plan.tiles, kind: 'inclusive', op: 'add' },
        timer,
      );
      pass = begin(`${label}: scatter`);
      const scatter = this.#get('scatter', predicate, plan.outputWindows);
      pass.setPipeline(scatter.pipeline);
      const outputWindow = (d: number, j: number): GPUBufferBinding => {
        const win = plan.windows[d];
        if (win) return { buffer: o.output, offset: win.start * 4, size: win.count * 4 };
        // Slots past the last output window: disjoint pieces of the spare buffer, never written.
        const spare = this.#spare;
        if (!spare) throw new Error('compaction is not prepared: await compaction.prepare(...) first');
        return { buffer: spare, offset: j * SPARE_PIECE, size: 16 };
      };
      for (const { w, inputs, params, grid } of windows) {
        const groups = plan.stride === 0 ? 1 : Math.floor(w.index / plan.stride) + 1;
        for (let g = 0; g < groups; g++) {
          const firstDst = g * plan.stride;
          const dst: Record<string, GPUBufferBinding> = {};
          for (let j = 0; j < plan.outputWindows; j++) dst[`dst_${j}`] = outputWindow(firstDst + j, j);
          pass.setBindGroup(0, scatter.bindGroup({ params: params(firstDst, g), ...inputs, ...dst }));
          pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
        }
      }
      pass.end();
    }
    const pass = begin(`${label}: kept count`);
    const finish = this.#get('finish', predicate, 1);
    const last = countsView(Math.max(0, plan.tiles - 1), plan.tiles);
    pass.setPipeline(finish.pipeline);
    pass.setBindGroup(
      0,
      finish.bindGroup({
        params: { buffer: this.#params.get([0, 0, plan.tiles, 0, 0, last.base, W, 0, 0, 0, 0, 0]) },
        counts: last.view,
        kept: { buffer: o.countOutput, offset: 0, size: 4 },
      }),
    );
    pass.dispatchWorkgroups(1);
    pass.end();
  }

  /** Compacts and returns the number kept (read back). A count of 0 returns 0 without any dispatch. */
  async run(o: CompactionOptions): Promise<number> {
    this.#assertAlive();
    this.#check(o);
    if (o.count === 0) return 0;
    await this.prepare({ count: o.count, ...(o.predicate !== undefined ? { predicate: o.predicate } : {}) });
    let countOutput = o.countOutput;
    if (!countOutput) {
      this.#kept ??= await this.#ctx.createBuffer({
        label: 'gm compact kept count',
        size: 16,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
      });
      countOutput = this.#kept;
    }
    const target = countOutput;
    await this.#ctx.guard(`gm compact of ${o.count}`, () => {
      const encoder = this.#ctx.device.createCommandEncoder({ label: 'gm compact' });
      this.encode(encoder, { ...o, countOutput: target });
      this.#ctx.queue.submit([encoder.finish()]);
    });
    return new Uint32Array(await this.#ctx.readBuffer(target, 0, 4))[0] as number;
  }

  /** Releases the scratch buffers and the inner scan. */
  destroy(): void {
    this.#destroyed = true;
    for (const b of [this.#counts, this.#dummy, this.#kept, this.#spare]) b?.destroy();
    this.#counts = this.#dummy = this.#kept = this.#spare = undefined;
    this.#params.destroy();
    this.#scan.destroy();
    this.#kernels.clear();
  }

  toString(): string {
    return `Compaction(tile ${this.tileElements}, ${this.#subgroups === undefined ? 'unprepared' : this.#subgroups ? 'subgroups' : 'workgroup memory'})`;
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new Error('Compaction used after destroy()');
  }

  #checkCount(count: number): void {
    checkElementCount('compaction', count);
  }

  /**
   * Input windows with their tiles (a tile never crosses a window), and how the scatter binds
   * the output: the output is cut into the same windows, `outputWindows` of them bound per
   * dispatch; `stride` (K − 1) between groups, or 0 when every output window is bound at once.
   */
  #plan(count: number): CompactPlan {
    const tile = this.tileElements;
    const alignment = this.#ctx.limits.minStorageBufferOffsetAlignment;
    const split = count === 0 ? [] : elementWindows(count, this.#maxBindingBytes, alignment);
    let tiles = 0;
    const windows = split.map((w) => {
      const n = Math.ceil(w.count / tile);
      const firstTile = tiles;
      tiles += n;
      return { ...w, firstTile, tiles: n };
    });
    // One kernel per input of one window; else always K slots (fewer variants to compile), the
    // slots past the last output window bound to the spare buffer.
    return {
      windows,
      tiles,
      windowElements: Math.max(1, windows[0]?.count ?? 1),
      outputWindows: windows.length <= 1 ? 1 : this.#outputWindows,
      stride: windows.length <= this.#outputWindows ? 0 : this.#outputWindows - 1,
    };
  }

  #check(o: CompactionOptions): void {
    this.#checkCount(o.count);
    if ((o.flags === undefined) === (o.predicate === undefined)) {
      throw new TypeError('compaction: give exactly one of flags and predicate');
    }
    if (o.input === o.output) throw new RangeError('compaction: output must not be the input buffer');
    for (const [name, buffer] of [
      ['input', o.input],
      ['output', o.output],
      ['flags', o.flags],
    ] as const) {
      if (buffer && buffer.size < o.count * 4) {
        throw new RangeError(
          `compaction of ${o.count} elements: ${name} '${buffer.label}' has only ${buffer.size} bytes`,
        );
      }
    }
  }

  #key(kind: CompactLayoutKind, predicate: string | undefined, outputWindows: number): string {
    if (kind === 'finish') return 'finish';
    const keep = predicate === undefined ? 'flags' : `predicate ${predicate}`;
    return kind === 'scatter' ? `scatter ${outputWindows}w|${keep}` : `${kind}|${keep}`;
  }

  #get(kind: CompactLayoutKind, predicate: string | undefined, outputWindows: number): Kernel {
    const key = this.#key(kind, predicate, outputWindows);
    const kernel = this.#kernels.get(key);
    if (!kernel)
      throw new Error(`compaction kernel '${key}' is not prepared: await compaction.prepare(...) first`);
    return kernel;
  }

  async #kernel(
    kind: CompactLayoutKind,
    predicate: string | undefined,
    outputWindows: number,
  ): Promise<Kernel> {
    const key = this.#key(kind, predicate, outputWindows);
    const known = this.#kernels.get(key);
    if (known) return known;
    const layout = compactLayout(kind, kind !== 'finish' && predicate === undefined, outputWindows);
    const subgroups = this.#subgroups ?? false;
    const p = {
      subgroups,
      workgroupSize: this.#workgroupSize,
      vectors: this.#vectors,
      predicate,
      outputWindows,
      bindings: layout.wgsl(),
    };
    const code =
      kind === 'count'
        ? compactCountWgsl(p)
        : kind === 'scatter'
          ? compactScatterWgsl(p)
          : compactFinishWgsl(p.bindings);
    const label = `gm compact ${key} wg${this.#workgroupSize}x${this.#vectors}${subgroups ? ' subgroups' : ''}`;
    const kernel = (await this.#ctx.kernels.get({ label, code, layout })) as unknown as Kernel;
    this.#kernels.set(key, kernel);
    return kernel;
  }
}

/**
 * A stable stream compaction (see {@link Compaction}).
 *
 * @example
 * ```ts
 * const compaction = createCompaction(ctx);
 * const kept = await compaction.run({ input, count: 1000, output, predicate: 'x != 0u' });
 * const byFlags = await compaction.run({ input, count: 1000, output, flags });
 * compaction.destroy();
 * // Inputs beyond one binding are compacted window by window (here windows of 1024 elements):
 * const windowed = createCompaction(ctx, { maxBindingBytes: 4096 });
 * await windowed.run({ input, count: 5000, output, predicate: 'i % 3u == 0u' });
 * windowed.destroy();
 * ```
 */
export function createCompaction(ctx: GpuContext, options: CreateCompactionOptions = {}): Compaction {
  return new Compaction(ctx, options);
}
