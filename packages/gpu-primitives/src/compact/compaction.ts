import {
  BufferUsage,
  dispatchGrid,
  type GpuContext,
  type Kernel,
  type PassTimer,
} from '@gpumorph/gpu-allocator';
import { subgroupLayoutIsLinear } from '../common/subgroup-layout';
import { tileElements } from '../common/tile.wgsl';
import { createDummyBuffer, UniformCache, windowViews } from '../common/windows';
import { createScan, type Scan } from '../scan/scan';
import { compactCountWgsl, compactFinishWgsl, compactScatterWgsl } from './kernels/compact.wgsl';
import { COMPACT_VECTORS, COMPACT_WORKGROUP_SIZE, type CompactLayoutKind, compactLayout } from './layout';

/** One compaction run by {@link Compaction.run}. */
export interface CompactionOptions {
  /** `count` u32s from offset 0 (STORAGE usage). */
  readonly input: GPUBuffer;
  readonly count: number;
  /** Receives the kept elements from offset 0, in input order (STORAGE usage; must not be `input`). */
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

/** Options of {@link createCompaction}. */
export interface CreateCompactionOptions {
  /** Largest binding in bytes (default: the device's `maxStorageBufferBindingSize`). */
  readonly maxBindingBytes?: number;
  /** Invocations per workgroup (power of two, default 256). */
  readonly workgroupSize?: number;
  /** vec4s per invocation (default 4). */
  readonly vectorsPerInvocation?: number;
  /** Most workgroups per grid dimension (default: the device limit). */
  readonly maxWorkgroupsPerDimension?: number;
  /** False forces the workgroup-memory path. */
  readonly subgroups?: boolean;
}

/**
 * Stable stream compaction of u32s by flags or by a WGSL predicate: a pass counts the kept
 * elements of every tile, a scan turns the counts into offsets, and a scatter pass ranks the kept
 * elements of each tile and writes them in order. Create with {@link createCompaction}.
 *
 * Limitation: the input (and so the output) must fit in one binding (`count · 4 ≤ maxBindingBytes`,
 * 2 GiB on the H100); larger inputs throw a `RangeError`.
 */
export class Compaction {
  readonly #ctx: GpuContext;
  readonly #maxBindingBytes: number;
  readonly #workgroupSize: number;
  readonly #vectors: number;
  readonly #maxPerDimension: number;
  readonly #allowSubgroups: boolean;
  readonly #scan: Scan;
  readonly #kernels = new Map<string, Kernel>();
  readonly #params: UniformCache;
  #subgroups: boolean | undefined;
  #counts: GPUBuffer | undefined;
  #dummy: GPUBuffer | undefined;
  #kept: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: CreateCompactionOptions = {}) {
    this.#ctx = ctx;
    this.#maxBindingBytes = options.maxBindingBytes ?? ctx.limits.maxStorageBufferBindingSize;
    this.#workgroupSize = options.workgroupSize ?? COMPACT_WORKGROUP_SIZE;
    this.#vectors = options.vectorsPerInvocation ?? COMPACT_VECTORS;
    this.#maxPerDimension = options.maxWorkgroupsPerDimension ?? ctx.limits.maxComputeWorkgroupsPerDimension;
    this.#allowSubgroups = options.subgroups ?? true;
    this.#params = new UniformCache(ctx, 'gm compact params');
    this.#scan = createScan(ctx, {
      maxBindingBytes: this.#maxBindingBytes,
      maxWorkgroupsPerDimension: this.#maxPerDimension,
      subgroups: this.#allowSubgroups,
    });
    const wg = this.#workgroupSize;
    if (wg < 1 || (wg & (wg - 1)) !== 0 || wg > ctx.limits.maxComputeInvocationsPerWorkgroup) {
      throw new RangeError(`compaction workgroup size ${wg}: not a power of two within the device's limit`);
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
    const tiles = Math.ceil(o.count / this.tileElements);
    if (!this.#counts || this.#counts.size < tiles * 4) {
      this.#counts?.destroy();
      this.#counts = undefined;
      this.#counts = await this.#ctx.createBuffer({
        label: 'gm compact tile counts',
        size: Math.max(16, tiles * 4),
        usage: BufferUsage.STORAGE,
      });
    }
    const kinds: CompactLayoutKind[] = o.count === 0 ? ['finish'] : ['count', 'scatter', 'finish'];
    await Promise.all(kinds.map((kind) => this.#kernel(kind, o.predicate)));
    if (tiles > 0)
      await this.#scan.prepare({
        count: tiles,
        op: 'add',
        kind: 'inclusive',
        segmented: false,
        inPlace: true,
      });
  }

  /**
   * Records the compaction (three compute passes: counts, scan of the counts, scatter) and writes
   * the number kept to `countOutput[0]` without reading it back. Call {@link prepare} first.
   */
  encode(encoder: GPUCommandEncoder, o: CompactionEncodeOptions, timer?: PassTimer): void {
    this.#assertAlive();
    this.#check(o);
    const counts = this.#counts;
    const dummy = this.#dummy;
    if (!counts || !dummy) throw new Error('compaction is not prepared: await compaction.prepare(...) first');
    const tiles = Math.ceil(o.count / this.tileElements);
    const predicate = o.predicate;
    const begin = (label: string) =>
      timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    const views = windowViews(
      o.input,
      { index: 0, start: 0, count: o.count },
      this.#ctx.limits.minStorageBufferOffsetAlignment,
      dummy,
    );
    const params = { buffer: this.#params.get([o.count, views.split, tiles, 0]) };
    const inputs: Record<string, GPUBufferBinding> = { src4: views.vec4, src_tail: views.tail };
    if (o.flags) inputs.flags = { buffer: o.flags, offset: 0, size: Math.max(4, o.count * 4) };
    const grid = dispatchGrid(tiles, this.#maxPerDimension);
    const label = `gm compact ${predicate ?? 'flags'} of ${o.count}`;
    if (tiles > 0) {
      let pass = begin(`${label}: counts`);
      const count = this.#get('count', predicate);
      pass.setPipeline(count.pipeline);
      pass.setBindGroup(0, count.bindGroup({ params, ...inputs, counts }));
      pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      pass.end();
      this.#scan.encode(
        encoder,
        { input: counts, output: counts, count: tiles, kind: 'inclusive', op: 'add' },
        timer,
      );
      pass = begin(`${label}: scatter`);
      const scatter = this.#get('scatter', predicate);
      pass.setPipeline(scatter.pipeline);
      pass.setBindGroup(0, scatter.bindGroup({ params, ...inputs, dst: { buffer: o.output }, counts }));
      pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      pass.end();
    }
    const pass = begin(`${label}: kept count`);
    const finish = this.#get('finish', predicate);
    pass.setPipeline(finish.pipeline);
    pass.setBindGroup(
      0,
      finish.bindGroup({ params, counts, kept: { buffer: o.countOutput, offset: 0, size: 4 } }),
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
    for (const b of [this.#counts, this.#dummy, this.#kept]) b?.destroy();
    this.#counts = this.#dummy = this.#kept = undefined;
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
    if (!Number.isInteger(count) || count < 0 || count > 0xffff_ffff) {
      throw new RangeError(`compaction count ${count}: not an integer in [0, 2^32)`);
    }
    if (count * 4 > this.#maxBindingBytes) {
      throw new RangeError(
        `compaction of ${count} elements: ${count * 4} bytes exceed one binding (${this.#maxBindingBytes}); binding windows are not supported by compaction yet`,
      );
    }
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

  #key(kind: CompactLayoutKind, predicate: string | undefined): string {
    return kind === 'finish'
      ? 'finish'
      : `${kind}|${predicate === undefined ? 'flags' : `predicate ${predicate}`}`;
  }

  #get(kind: CompactLayoutKind, predicate: string | undefined): Kernel {
    const key = this.#key(kind, predicate);
    const kernel = this.#kernels.get(key);
    if (!kernel)
      throw new Error(`compaction kernel '${key}' is not prepared: await compaction.prepare(...) first`);
    return kernel;
  }

  async #kernel(kind: CompactLayoutKind, predicate: string | undefined): Promise<Kernel> {
    const key = this.#key(kind, predicate);
    const known = this.#kernels.get(key);
    if (known) return known;
    const layout = compactLayout(kind, kind !== 'finish' && predicate === undefined);
    const subgroups = this.#subgroups ?? false;
    const p = {
      subgroups,
      workgroupSize: this.#workgroupSize,
      vectors: this.#vectors,
      predicate,
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
 * ```
 */
export function createCompaction(ctx: GpuContext, options: CreateCompactionOptions = {}): Compaction {
  return new Compaction(ctx, options);
}
