import {
  BufferUsage,
  dispatchGrid,
  type GpuContext,
  type Kernel,
  type PassTimer,
} from '@gpumorph/gpu-allocator';
import { opIdentity } from '../common/ops';
import { subgroupLayoutIsLinear } from '../common/subgroup-layout';
import { tileElements } from '../common/tile.wgsl';
import { resolveTiling, type TilingOptions } from '../common/tiling';
import {
  checkElementCount,
  createDummyBuffer,
  elementWindows,
  UniformCache,
  windowViews,
} from '../common/windows';
import { reduceKernelWgsl } from './kernels/reduce.wgsl';
import { REDUCE_VECTORS, REDUCE_WORKGROUP_SIZE, type ReduceLayoutKind, reduceLayout } from './layout';

/** Operators a reduction supports. */
export type ReduceOperator = 'add' | 'min' | 'max' | 'or';

/** One reduction recorded by {@link Reduce.encode}. */
export interface ReduceOptions {
  /** `count` u32s from offset 0 (STORAGE usage). */
  readonly input: GPUBuffer;
  readonly count: number;
  readonly op: ReduceOperator;
  /** Receives the u32 result (STORAGE usage). */
  readonly result: GPUBuffer;
  /** Byte offset of the result in `result` (a multiple of 4, default 0). */
  readonly resultOffset?: number;
}

/** Options of {@link createReduce}: the tile shape (default 256 invocations × 4 vec4s) and its own. */
export type CreateReduceOptions = TilingOptions;

const CARRY_WORDS = 4;

/**
 * Reduction of a u32 buffer of any size under add (mod 2^32), min, max or or: each workgroup folds
 * a tile of 4096 elements (vec4 loads, subgroup reductions where possible) to one value, the
 * tile values are folded the same way until one workgroup is left, which writes the result.
 * Buffers larger than one binding are folded window by window with the running total kept on the
 * GPU. Create with {@link createReduce}.
 */
export class Reduce {
  readonly #ctx: GpuContext;
  readonly #maxBindingBytes: number;
  readonly #workgroupSize: number;
  readonly #vectors: number;
  readonly #maxPerDimension: number;
  readonly #allowSubgroups: boolean;
  readonly #kernels = new Map<string, Kernel>();
  readonly #params: UniformCache;
  #subgroups: boolean | undefined;
  #scratch: GPUBuffer | undefined;
  #dummy: GPUBuffer | undefined;
  #readback: GPUBuffer | undefined;
  #destroyed = false;

  constructor(ctx: GpuContext, options: CreateReduceOptions = {}) {
    this.#ctx = ctx;
    const tiling = resolveTiling(ctx, 'reduce', options, {
      workgroupSize: REDUCE_WORKGROUP_SIZE,
      vectors: REDUCE_VECTORS,
    });
    this.#maxBindingBytes = tiling.maxBindingBytes;
    this.#workgroupSize = tiling.workgroupSize;
    this.#vectors = tiling.vectors;
    this.#maxPerDimension = tiling.maxPerDimension;
    this.#allowSubgroups = tiling.allowSubgroups;
    this.#params = new UniformCache(ctx, 'gm reduce params');
  }

  /** Elements per tile (one workgroup). */
  get tileElements(): number {
    return tileElements({ workgroupSize: this.#workgroupSize, vectors: this.#vectors });
  }

  /** Compiles the kernels for reductions of `count` elements under `op` and sizes the scratch; `encode` needs it. */
  async prepare(o: { count: number; op: ReduceOperator }): Promise<void> {
    this.#assertAlive();
    checkElementCount('reduce', o.count);
    if (this.#subgroups === undefined) {
      const linear = this.#allowSubgroups && (await subgroupLayoutIsLinear(this.#ctx));
      this.#subgroups = linear && this.#workgroupSize % this.#ctx.adapter.subgroupMaxSize === 0;
    }
    if (!this.#dummy) this.#dummy = await createDummyBuffer(this.#ctx, 'gm reduce empty view');
    const windows = this.#windows(o.count);
    const first = windows[0]?.count ?? 0;
    const levels = this.#levels(first);
    const words = CARRY_WORDS + levels.slice(1).reduce((sum, n) => sum + n, 0);
    if (!this.#scratch || this.#scratch.size < words * 4) {
      this.#scratch?.destroy();
      this.#scratch = undefined;
      this.#scratch = await this.#ctx.createBuffer({
        label: 'gm reduce scratch',
        size: words * 4,
        usage: BufferUsage.STORAGE,
      });
    }
    const wanted = new Set<string>();
    for (const n of [first, windows.at(-1)?.count ?? 0]) {
      const depth = this.#levels(n).length;
      wanted.add(`${depth === 1 ? 'top-values' : 'values'}|${o.op}`);
      if (depth > 1) wanted.add(`top-partials|${o.op}`);
      if (depth > 2) wanted.add(`partials|${o.op}`);
    }
    await Promise.all([...wanted].map((key) => this.#kernel(key)));
  }

  /**
   * Records the reduction into `encoder` (one compute pass, timed through `timer` when given);
   * the result lands in `result` at `resultOffset`. A count of 0 writes the identity. Call
   * {@link prepare} first.
   */
  encode(encoder: GPUCommandEncoder, o: ReduceOptions, timer?: PassTimer): void {
    this.#assertAlive();
    this.#check(o);
    const scratch = this.#scratch;
    const dummy = this.#dummy;
    if (!scratch || !dummy) throw new Error('reduce is not prepared: await reduce.prepare(...) first');
    const alignment = this.#ctx.limits.minStorageBufferOffsetAlignment;
    const resultOffset = o.resultOffset ?? 0;
    const resultBase = Math.floor(resultOffset / alignment) * alignment;
    const result = {
      buffer: o.result,
      offset: resultBase,
      size: Math.min(o.result.size - resultBase, alignment),
    };
    const resultIndex = (resultOffset - resultBase) / 4;
    const tile = this.tileElements;
    const label = `gm reduce ${o.op} of ${o.count}`;
    const pass = timer ? timer.beginComputePass(encoder, label) : encoder.beginComputePass({ label });
    const dispatch = (key: string, resources: Record<string, GPUBufferBinding>, tiles: number) => {
      const kernel = this.#kernels.get(key);
      if (!kernel) throw new Error(`reduce kernel '${key}' is not prepared: await reduce.prepare(...) first`);
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup({ ...resources, scratch: { buffer: scratch } }));
      const g = dispatchGrid(tiles, this.#maxPerDimension);
      pass.dispatchWorkgroups(g.x, g.y, g.z);
    };
    const windows = o.count === 0 ? [{ index: 0, start: 0, count: 0 }] : this.#windows(o.count);
    for (const w of windows) {
      const levels = this.#levels(w.count);
      const top = levels.length - 1;
      const views = w.count === 0 ? undefined : windowViews(o.input, w, alignment, dummy);
      const empty = { buffer: dummy, offset: 0, size: 16 };
      const values = { src4: views?.vec4 ?? empty, src_tail: views?.tail ?? empty };
      const offsets = [0];
      for (let l = 1; l < levels.length; l++) {
        offsets.push(l === 1 ? CARRY_WORDS : (offsets[l - 1] as number) + (levels[l - 1] as number));
      }
      for (let l = 0; l <= top; l++) {
        const params = this.#params.get([
          levels[l] as number,
          offsets[l] as number,
          offsets[l + 1] ?? 0,
          0,
          w.index === 0 ? 1 : 0,
          resultIndex,
          views?.split ?? 0,
          0,
        ]);
        const kind = `${l === top ? 'top-' : ''}${l === 0 ? 'values' : 'partials'}`;
        const resources: Record<string, GPUBufferBinding> = l === 0 ? { ...values } : {};
        if (l === top) resources.result = result;
        dispatch(
          `${kind}|${o.op}`,
          { params: { buffer: params }, ...resources },
          l === top ? 1 : Math.ceil((levels[l] as number) / tile),
        );
      }
    }
    pass.end();
  }

  /** Reduces `count` u32s of `input` and reads the result back (the identity for 0 elements, without any dispatch). */
  async run(o: { input: GPUBuffer; count: number; op: ReduceOperator }): Promise<number> {
    this.#assertAlive();
    checkElementCount('reduce', o.count);
    if (o.count === 0) return opIdentity(o.op);
    await this.prepare(o);
    if (!this.#readback) {
      this.#readback = await this.#ctx.createBuffer({
        label: 'gm reduce result',
        size: 16,
        usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC,
      });
    }
    const result = this.#readback;
    await this.#ctx.guard(`gm reduce ${o.op} of ${o.count}`, () => {
      const encoder = this.#ctx.device.createCommandEncoder({ label: 'gm reduce' });
      this.encode(encoder, { ...o, result });
      this.#ctx.queue.submit([encoder.finish()]);
    });
    return new Uint32Array(await this.#ctx.readBuffer(result, 0, 4))[0] as number;
  }

  /** Releases the scratch, result and parameter buffers. */
  destroy(): void {
    this.#destroyed = true;
    for (const b of [this.#scratch, this.#dummy, this.#readback]) b?.destroy();
    this.#scratch = this.#dummy = this.#readback = undefined;
    this.#params.destroy();
    this.#kernels.clear();
  }

  toString(): string {
    return `Reduce(tile ${this.tileElements}, ${this.#subgroups === undefined ? 'unprepared' : this.#subgroups ? 'subgroups' : 'workgroup memory'})`;
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new Error('Reduce used after destroy()');
  }

  #check(o: ReduceOptions): void {
    checkElementCount('reduce', o.count);
    if (o.input.size < o.count * 4) {
      throw new RangeError(
        `reduce of ${o.count} elements: input '${o.input.label}' has only ${o.input.size} bytes`,
      );
    }
    const offset = o.resultOffset ?? 0;
    if (!Number.isInteger(offset) || offset < 0 || offset % 4 !== 0 || offset + 4 > o.result.size) {
      throw new RangeError(
        `reduce resultOffset ${offset}: not a multiple of 4 inside '${o.result.label}' (${o.result.size} bytes)`,
      );
    }
  }

  #windows(count: number) {
    return elementWindows(count, this.#maxBindingBytes, this.#ctx.limits.minStorageBufferOffsetAlignment);
  }

  #levels(n0: number): number[] {
    const levels = [n0];
    for (let n = n0; n > this.tileElements; ) {
      n = Math.ceil(n / this.tileElements);
      levels.push(n);
    }
    return levels;
  }

  async #kernel(key: string): Promise<Kernel> {
    const known = this.#kernels.get(key);
    if (known) return known;
    const [kind, op] = key.split('|') as [ReduceLayoutKind, ReduceOperator];
    const layout = reduceLayout(kind);
    const subgroups = this.#subgroups ?? false;
    const code = reduceKernelWgsl({
      op,
      subgroups,
      workgroupSize: this.#workgroupSize,
      vectors: this.#vectors,
      source: kind.endsWith('values') ? 'values' : 'partials',
      top: kind.startsWith('top'),
      bindings: layout.wgsl(),
    });
    const label = `gm reduce ${kind} ${op} wg${this.#workgroupSize}x${this.#vectors}${subgroups ? ' subgroups' : ''}`;
    const kernel = (await this.#ctx.kernels.get({ label, code, layout })) as unknown as Kernel;
    this.#kernels.set(key, kernel);
    return kernel;
  }
}

/**
 * A tiled reduction over u32 buffers (see {@link Reduce}).
 *
 * @example
 * ```ts
 * const reduce = createReduce(ctx);
 * const total = await reduce.run({ input, count: 1000, op: 'add' });
 * // or inside a larger command buffer:
 * await reduce.prepare({ count: 1000, op: 'max' });
 * reduce.encode(encoder, { input, count: 1000, op: 'max', result, resultOffset: 8 });
 * reduce.destroy();
 * ```
 */
export function createReduce(ctx: GpuContext, options: CreateReduceOptions = {}): Reduce {
  return new Reduce(ctx, options);
}
