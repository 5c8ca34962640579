import {
  dispatchItems,
  type GpuContext,
  GpuLimitError,
  gridWgsl,
  type Kernel,
  linkWgsl,
} from '@gpumorph/gpu-allocator';
import { UniformArena } from '../common/uniforms';
import { hashFunctionsWgsl, hashRecordsKernelWgsl } from './kernels/hash.wgsl';
import { hashLayout, hashParamsWgsl } from './layout';
import { type HashOptions, hashMask } from './reference';

const WORKGROUP_SIZE = 256;

/** Records on the GPU as CSR: record `i` is `words[offsets[i] .. offsets[i + 1])`. */
export interface RecordBuffers {
  /** `count + 1` u32 offsets into `words`, non-decreasing. */
  readonly offsets: GPUBuffer;
  readonly words: GPUBuffer;
  readonly count: number;
}

/**
 * Hashes variable-length u32 records on the GPU (one invocation per record), bit-for-bit as
 * `hashRecordsReference` does on the CPU.
 *
 * @example
 * ```ts
 * const hasher = createRecordHasher(ctx);
 * await hasher.run({ offsets, words, count }, hashes);
 * ```
 */
export class RecordHasher {
  readonly #ctx: GpuContext;
  readonly #uniforms: UniformArena;
  #kernel: Kernel<typeof hashLayout.specs> | undefined;

  constructor(ctx: GpuContext) {
    this.#ctx = ctx;
    this.#uniforms = new UniformArena(ctx, 'gm hash params');
  }

  /** Compiles the kernel (done by `run`; call before `encode`). */
  async prepare(): Promise<void> {
    this.#kernel ??= await this.#ctx.kernels.get({
      label: 'gm hash records',
      code: linkWgsl(
        `${hashParamsWgsl}\n${hashRecordsKernelWgsl({ layoutWgsl: hashLayout.wgsl(), workgroupSize: WORKGROUP_SIZE })}`,
        [gridWgsl, hashFunctionsWgsl],
      ),
      layout: hashLayout,
    });
  }

  /** Records the hashing of `records` into `hashes` (`count` u32) on `pass`. */
  encode(
    pass: GPUComputePassEncoder,
    records: RecordBuffers,
    hashes: GPUBuffer,
    options: HashOptions = {},
  ): void {
    const kernel = this.#kernel;
    if (!kernel) throw new Error('RecordHasher.encode before prepare()');
    if (records.count === 0) return;
    const limit = this.#ctx.limits.maxStorageBufferBindingSize;
    if (records.words.size > limit) {
      throw new GpuLimitError(
        `record words of ${records.words.size} bytes exceed one binding (${limit} bytes)`,
        'maxStorageBufferBindingSize',
        records.words.size,
        limit,
      );
    }
    const params = this.#uniforms.create(
      Uint32Array.of(records.count, (options.seed ?? 0) >>> 0, hashMask(options.hashBits), 0),
    );
    const grid = dispatchItems(
      records.count,
      WORKGROUP_SIZE,
      this.#ctx.limits.maxComputeWorkgroupsPerDimension,
    );
    pass.setPipeline(kernel.pipeline);
    pass.setBindGroup(
      0,
      kernel.bindGroup({
        hash_params: params,
        offsets: { buffer: records.offsets, size: (records.count + 1) * 4 },
        words: records.words,
        hashes: { buffer: hashes, size: records.count * 4 },
      }),
    );
    pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
  }

  /** Hashes `records` into `hashes` and waits for the GPU. */
  async run(records: RecordBuffers, hashes: GPUBuffer, options: HashOptions = {}): Promise<void> {
    await this.prepare();
    const ctx = this.#ctx;
    await ctx.guard('gm hash records', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'gm hash records' });
      const pass = encoder.beginComputePass({ label: 'gm hash records' });
      this.encode(pass, records, hashes, options);
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
    await ctx.idle();
    this.#uniforms.release();
  }

  destroy(): void {
    this.#uniforms.destroy();
  }
}

/** Creates a {@link RecordHasher}. */
export function createRecordHasher(ctx: GpuContext): RecordHasher {
  return new RecordHasher(ctx);
}
