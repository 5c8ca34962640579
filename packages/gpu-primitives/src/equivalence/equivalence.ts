import {
  BufferUsage,
  dispatchItems,
  type GpuContext,
  gridWgsl,
  type Kernel,
  linkWgsl,
} from '@gpumorph/gpu-allocator';
import { UniformArena } from '../common/uniforms';
import { createRecordHasher, type RecordBuffers, type RecordHasher } from '../hash/hasher';
import { type HashOptions, hashMask } from '../hash/reference';
import { createScan, type Scan } from '../scan/index';
import { createRadixSort, type RadixSort } from '../sort/index';
import { compareKernelWgsl, headsKernelWgsl, initKernelWgsl } from './kernels/equivalence.wgsl';
import { compareLayout, equivalenceParamsWgsl, headsLayout, initLayout } from './layout';

const WORKGROUP_SIZE = 256;
const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** Options of {@link EquivalenceClasses.run}. */
export interface EquivalenceOptions extends HashOptions {
  /** Give up (with an error) after this many collision-resolution rounds (default: unbounded). */
  readonly maxRounds?: number;
}

/** What one run found. */
export interface EquivalenceResult {
  /**
   * Resolution rounds: 1 when no two unequal records share a hash; each further round resolves the
   * next distinct record of every colliding hash.
   */
  readonly rounds: number;
}

interface Scratch {
  readonly capacity: number;
  readonly keys: GPUBuffer;
  readonly values: GPUBuffer;
  readonly heads: GPUBuffer;
  readonly candidates: GPUBuffer;
  readonly scanned: GPUBuffer;
  readonly remaining: GPUBuffer;
}

/**
 * The PPoPP'12 Figure 10 pipeline as one call: for each record, the smallest index of a record
 * equal to it (e.g. variables with the same ΔP points-to set). Hash every record → stable
 * key–value radix sort of (hash, index) → run heads where the hash changes (diff) → segmented
 * max-scan that finds each run's first unresolved position → an exact word-by-word comparison
 * with it. Equal hashes of unequal records (collisions) are never merged: such records stay
 * unresolved and a further round, over only them, finds their own leader.
 *
 * @example
 * ```ts
 * const classes = createEquivalenceClasses(ctx);
 * const { rounds } = await classes.run({ offsets, words, count }, representatives);
 * ```
 */
export class EquivalenceClasses {
  readonly #ctx: GpuContext;
  readonly #hasher: RecordHasher;
  readonly #sort: RadixSort;
  readonly #scan: Scan;
  readonly #uniforms: UniformArena;
  #scratch: Scratch | undefined;
  #kernels:
    | {
        init: Kernel<typeof initLayout.specs>;
        heads: Kernel<typeof headsLayout.specs>;
        compare: Kernel<typeof compareLayout.specs>;
      }
    | undefined;

  constructor(ctx: GpuContext, options: { maxBindingBytes?: number } = {}) {
    this.#ctx = ctx;
    this.#hasher = createRecordHasher(ctx);
    this.#sort = createRadixSort(ctx, options);
    this.#scan = createScan(ctx, options);
    this.#uniforms = new UniformArena(ctx, 'gm equivalence params');
  }

  async #prepare(count: number, hashBits: number): Promise<Scratch> {
    const ctx = this.#ctx;
    const code = (body: (layoutWgsl: string, size: number) => string, layoutWgsl: string) =>
      linkWgsl(`${equivalenceParamsWgsl}\n${body(layoutWgsl, WORKGROUP_SIZE)}`, [gridWgsl]);
    this.#kernels ??= {
      init: await ctx.kernels.get({
        label: 'gm equivalence init',
        layout: initLayout,
        code: code(initKernelWgsl, initLayout.wgsl()),
      }),
      heads: await ctx.kernels.get({
        label: 'gm equivalence heads',
        layout: headsLayout,
        code: code(headsKernelWgsl, headsLayout.wgsl()),
      }),
      compare: await ctx.kernels.get({
        label: 'gm equivalence compare',
        layout: compareLayout,
        code: code(compareKernelWgsl, compareLayout.wgsl()),
      }),
    };
    await this.#hasher.prepare();
    if (hashBits > 0)
      await this.#sort.prepare({ count, withValues: true, bits: { start: 0, end: hashBits } });
    await this.#scan.prepare({ count, op: 'max', kind: 'inclusive', segmented: true });
    if (!this.#scratch || this.#scratch.capacity < count) {
      this.#destroyScratch();
      const capacity = Math.max(count, 1);
      const make = (label: string, words: number) =>
        ctx.createBuffer({ label: `gm equivalence ${label}`, size: words * 4, usage: STORAGE });
      this.#scratch = {
        capacity,
        keys: await make('keys', capacity),
        values: await make('values', capacity),
        heads: await make('heads', capacity),
        candidates: await make('candidates', capacity),
        scanned: await make('scanned', capacity),
        remaining: await make('remaining', 4),
      };
    }
    return this.#scratch;
  }

  /**
   * Writes, for each of the `records.count` records, the smallest index of an equal record into
   * `representatives` (u32 each).
   */
  async run(
    records: RecordBuffers,
    representatives: GPUBuffer,
    options: EquivalenceOptions = {},
  ): Promise<EquivalenceResult> {
    const count = records.count;
    if (count === 0) return { rounds: 0 };
    const hashBits = options.hashBits ?? 32;
    hashMask(hashBits);
    const ctx = this.#ctx;
    const s = await this.#prepare(count, hashBits);
    const kernels = this.#kernels;
    if (!kernels) throw new Error('equivalence kernels missing after prepare');
    const params = this.#uniforms.create(Uint32Array.of(count, 0, 0, 0));
    const grid = dispatchItems(count, WORKGROUP_SIZE, ctx.limits.maxComputeWorkgroupsPerDimension);
    const dispatch = (
      pass: GPUComputePassEncoder,
      kernel: { pipeline: GPUComputePipeline },
      group: GPUBindGroup,
    ) => {
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
    };
    const n = count * 4;
    try {
      await ctx.guard('gm equivalence classes: hash, sort, heads', () => {
        const encoder = ctx.device.createCommandEncoder({ label: 'gm equivalence classes' });
        let pass = encoder.beginComputePass({ label: 'gm equivalence hash' });
        this.#hasher.encode(pass, records, s.keys, options);
        dispatch(
          pass,
          kernels.init,
          kernels.init.bindGroup({
            eq_params: params,
            values: { buffer: s.values, size: n },
            candidates: { buffer: s.candidates, size: n },
          }),
        );
        pass.end();
        if (hashBits > 0) {
          this.#sort.encode(encoder, {
            keys: s.keys,
            values: s.values,
            count,
            bits: { start: 0, end: hashBits },
          });
        }
        pass = encoder.beginComputePass({ label: 'gm equivalence heads' });
        dispatch(
          pass,
          kernels.heads,
          kernels.heads.bindGroup({
            eq_params: params,
            keys: { buffer: s.keys, size: n },
            heads: { buffer: s.heads, size: n },
          }),
        );
        pass.end();
        ctx.queue.submit([encoder.finish()]);
      });
      const compareGroup = kernels.compare.bindGroup({
        eq_params: params,
        offsets: { buffer: records.offsets, size: (count + 1) * 4 },
        words: records.words,
        values: { buffer: s.values, size: n },
        scanned: { buffer: s.scanned, size: n },
        candidates: { buffer: s.candidates, size: n },
        representatives: { buffer: representatives, size: n },
        remaining: { buffer: s.remaining, size: 4 },
      });
      for (let round = 1; ; round++) {
        await ctx.guard('gm equivalence classes: resolve', () => {
          const encoder = ctx.device.createCommandEncoder({ label: `gm equivalence round ${round}` });
          this.#scan.encode(encoder, {
            input: s.candidates,
            output: s.scanned,
            count,
            kind: 'inclusive',
            op: 'max',
            segmentHeads: s.heads,
          });
          encoder.clearBuffer(s.remaining, 0, 4);
          const pass = encoder.beginComputePass({ label: 'gm equivalence compare' });
          dispatch(pass, kernels.compare, compareGroup);
          pass.end();
          ctx.queue.submit([encoder.finish()]);
        });
        const remaining = new Uint32Array(await ctx.readBuffer(s.remaining, 0, 4))[0] ?? 0;
        if (remaining === 0) return { rounds: round };
        if (options.maxRounds !== undefined && round >= options.maxRounds) {
          throw new RangeError(`equivalence classes: ${remaining} records unresolved after ${round} rounds`);
        }
      }
    } finally {
      this.#uniforms.release();
    }
  }

  #destroyScratch(): void {
    const s = this.#scratch;
    if (!s) return;
    for (const buffer of [s.keys, s.values, s.heads, s.candidates, s.scanned, s.remaining]) buffer.destroy();
    this.#scratch = undefined;
  }

  /** Releases the scratch buffers and the inner sort, scan and hasher. */
  destroy(): void {
    this.#destroyScratch();
    this.#hasher.destroy();
    this.#sort.destroy();
    this.#scan.destroy();
    this.#uniforms.destroy();
  }
}

/** Creates an {@link EquivalenceClasses} pipeline (lower `maxBindingBytes` only in tests). */
export function createEquivalenceClasses(
  ctx: GpuContext,
  options: { maxBindingBytes?: number } = {},
): EquivalenceClasses {
  return new EquivalenceClasses(ctx, options);
}
