import { createPageToucher, type PageToucher } from '../buffers/prefault';
import { RetainedBuffers } from '../buffers/retained';
import { StagingPool } from '../buffers/staging';
import { UploadPool } from '../buffers/upload';
import {
  GpuDeviceLostError,
  GpuLimitError,
  type GpumorphError,
  GpuOutOfMemoryError,
  toTypedGpuError,
} from '../errors';
import { KernelCache } from '../kernels/cache';
import { type GpuLimits, readLimits } from './limits';

/** Where the device came from. */
export type GpuBackend = 'node-dawn' | 'browser' | 'external';

/** What `acquireGpu` learned about the adapter; printed by `gpumorph doctor`. */
export interface GpuAdapterReport {
  readonly backend: GpuBackend;
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  /** True for CPU implementations (llvmpipe, SwiftShader, WARP) and fallback adapters. */
  readonly software: boolean;
  /** Smallest and largest subgroup size the adapter may use (0 when it does not say). */
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
  /** Features enabled on the device. */
  readonly features: readonly string[];
  /** Every numeric limit of the device as granted. */
  readonly limits: Readonly<Record<string, number>>;
  /**
   * Whether shaders run with Dawn's robustness transform (every storage index clamped): false
   * only for a Node device `acquireGpu` created without it (its `robustness` option).
   */
  readonly robustness: boolean;
}

/** Optional features in use on this context. Kernels pick their code path from these. */
export interface GpuFeatures {
  /** WGSL subgroup built-ins are available (else kernels use workgroup memory). */
  readonly subgroups: boolean;
  /** Per-pass GPU timestamps are available (else timing falls back to completion-wait wall clock). */
  readonly timestampQuery: boolean;
}

/** Arguments of {@link GpuContext} (built by `acquireGpu`, or `wrapDevice` for an existing device). */
export interface GpuContextInit {
  readonly device: GPUDevice;
  readonly report: GpuAdapterReport;
  readonly features: GpuFeatures;
  /** Whether `destroy()` destroys the device (false for a device the caller owns). */
  readonly ownsDevice: boolean;
  /**
   * The most bytes of released buffers the context keeps for reuse ({@link GpuContext.reuseBuffer});
   * default {@link defaultRetainBytes} of the adapter.
   */
  readonly retainBytes?: number;
  /** Called with every shader module the kernel cache compiles (`acquireGpu`'s `onShader`). */
  readonly onShader?: ((label: string, code: string) => void) | undefined;
}

/**
 * How many bytes of released buffers a context keeps unless told otherwise: 16 GiB on a hardware
 * adapter, 256 MiB on a software one, whose buffers are the host's memory. The largest solve of
 * the Andersen bench (linux) leaves up to 7 GiB of pool buffers behind (each size its pools grew
 * through), and the next solve saves only the allocations it finds kept. A context that runs out
 * of memory frees its kept buffers first, and `ctx.retained.trim()` frees them at any time.
 *
 * @example
 * ```ts
 * defaultRetainBytes({ software: true }); // 268435456
 * ```
 */
export function defaultRetainBytes(adapter: Pick<GpuAdapterReport, 'software'>): number {
  return adapter.software ? 256 * 2 ** 20 : 16 * 2 ** 30;
}

type ErrorListener = (error: GpumorphError) => void;

/**
 * The GPU handle every gpumorph package receives: one device, its limits and features, a pipeline
 * cache, staging buffers for readback, and error handling that turns WebGPU errors into typed ones.
 *
 * @example
 * ```ts
 * const ctx = await acquireGpu();
 * if (ctx) {
 *   const data = await createGpuArray(ctx, { label: 'numbers', type: 'u32', data: [1, 2, 3] });
 *   console.log(await data.read()); // Uint32Array [1, 2, 3]
 *   ctx.destroy();
 * }
 * ```
 */
export class GpuContext {
  readonly device: GPUDevice;
  readonly queue: GPUQueue;
  readonly adapter: GpuAdapterReport;
  readonly features: GpuFeatures;
  readonly limits: GpuLimits;
  /** Pipelines and bind-group layouts, built lazily and cached by source, constants and layout. */
  readonly kernels: KernelCache;
  /** Reusable MAP_READ buffers for readback. */
  readonly staging: StagingPool;
  /** Kept, mapped MAP_WRITE buffers for large writes ({@link writeBuffer} of 1 MiB or more). */
  readonly uploads: UploadPool;
  /** Released buffers kept for {@link reuseBuffer}; `retained.trim()` frees them. */
  readonly retained: RetainedBuffers;
  readonly #ownsDevice: boolean;
  #lost: GpuDeviceLostError | undefined;
  #destroyed = false;
  #pageToucher: Promise<PageToucher | undefined> | undefined;
  readonly #uncaptured: GpumorphError[] = [];
  readonly #listeners = new Set<ErrorListener>();

  constructor(init: GpuContextInit) {
    this.device = init.device;
    this.queue = init.device.queue;
    this.adapter = init.report;
    this.features = init.features;
    this.limits = readLimits(init.device.limits);
    this.#ownsDevice = init.ownsDevice;
    this.kernels = new KernelCache(this, init.onShader);
    this.staging = new StagingPool(this);
    this.uploads = new UploadPool(this);
    this.retained = new RetainedBuffers(init.retainBytes ?? defaultRetainBytes(init.report));
    const onUncaptured = (event: Event) => {
      const gpuError = (event as GPUUncapturedErrorEvent).error;
      this.#report(toTypedGpuError(gpuError, 'uncaptured'));
    };
    this.device.addEventListener('uncapturederror', onUncaptured);
    void this.device.lost.then((info) => {
      const reason = String(info.reason ?? 'unknown');
      this.#lost = new GpuDeviceLostError(
        `GPU device lost (${reason})${info.message ? `: ${info.message}` : ''}`,
        reason,
      );
      if (reason !== 'destroyed') this.#report(this.#lost);
    });
  }

  /** True once the device is lost or the context destroyed. */
  get isLost(): boolean {
    return this.#lost !== undefined || this.#destroyed;
  }

  /** Errors WebGPU raised outside any scope of ours (e.g. from a caller's own commands). */
  get uncapturedErrors(): readonly GpumorphError[] {
    return this.#uncaptured;
  }

  /** Forgets the uncaptured errors recorded so far (the test fixture does this between tests). */
  clearUncapturedErrors(): void {
    this.#uncaptured.length = 0;
  }

  /** Calls `listener` for each uncaptured error and for device loss; returns an unsubscribe function. */
  onError(listener: ErrorListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Throws {@link GpuDeviceLostError} when the device is gone. */
  assertAlive(): void {
    if (this.#lost) throw this.#lost;
    if (this.#destroyed) throw new GpuDeviceLostError('GpuContext used after destroy()', 'destroyed');
  }

  /**
   * Runs `work` (synchronous WebGPU calls) inside validation, out-of-memory and internal error
   * scopes and throws the first error as a typed one. Scopes are pushed and popped around
   * synchronous code only, so concurrent async callers never see each other's errors.
   */
  async guard<T>(label: string, work: () => T, details: { requestedBytes?: number } = {}): Promise<T> {
    this.assertAlive();
    const device = this.device;
    device.pushErrorScope('internal');
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let result: T | undefined;
    let thrown: { error: unknown } | undefined;
    try {
      result = work();
    } catch (error) {
      thrown = { error };
    }
    // All three scopes are popped before anything is awaited, so the stack stays balanced.
    const popped = Promise.all([device.popErrorScope(), device.popErrorScope(), device.popErrorScope()]);
    const errors = await popped.catch((cause: unknown) => {
      throw this.#lost ?? new GpuDeviceLostError(`${label}: error scope failed`, 'unknown', { cause });
    });
    const first = errors.find((e): e is GPUError => e !== null);
    if (first) {
      throw toTypedGpuError(first, label, [], details.requestedBytes);
    }
    if (thrown) throw thrown.error;
    return result as T;
  }

  /** Creates a buffer, with a typed error on out-of-memory or on sizes past the device's limit. */
  async createBuffer(descriptor: GPUBufferDescriptor & { label: string }): Promise<GPUBuffer> {
    const size = alignTo(Math.max(4, descriptor.size), 4);
    if (size > this.limits.maxBufferSize) {
      throw new GpuLimitError(
        `${descriptor.label}: buffer of ${size} bytes exceeds maxBufferSize ${this.limits.maxBufferSize}`,
        'maxBufferSize',
        size,
        this.limits.maxBufferSize,
      );
    }
    const create = () =>
      this.guard(descriptor.label, () => this.device.createBuffer({ ...descriptor, size }), {
        requestedBytes: size,
      });
    try {
      return await create();
    } catch (error) {
      // Kept buffers are the first memory to give up.
      if (!(error instanceof GpuOutOfMemoryError) || this.retained.trim() === 0) throw error;
      return create();
    }
  }

  /**
   * A buffer for a caller that writes every byte it later reads: a kept one of this usage and of
   * `size` to `maxSize` bytes (default twice `size`) when the context has one, holding what its
   * last user left, else a new one (zero, as WebGPU makes them). `reused` says which; a reused
   * buffer may be larger than asked. Hand it back with {@link releaseBuffer}.
   *
   * @example
   * ```ts
   * const { buffer } = await ctx.reuseBuffer({ label: 'scratch', size: 1 << 20, usage: BufferUsage.STORAGE });
   * // ... write, then read ...
   * ctx.releaseBuffer(buffer); // the next reuseBuffer of this kind gets it
   * ```
   */
  async reuseBuffer(
    descriptor: GPUBufferDescriptor & { label: string; maxSize?: number },
  ): Promise<{ buffer: GPUBuffer; reused: boolean }> {
    this.assertAlive();
    const size = alignTo(Math.max(4, descriptor.size), 4);
    const kept = this.retained.take(descriptor.usage, size, descriptor.maxSize ?? 2 * size);
    if (kept) {
      kept.label = descriptor.label;
      return { buffer: kept, reused: true };
    }
    const { maxSize: _maxSize, ...created } = descriptor;
    return { buffer: await this.createBuffer(created), reused: false };
  }

  /**
   * Gives a buffer back for {@link reuseBuffer} (commands already submitted that use it still run
   * first: the queue keeps their order), or destroys it when the context keeps no more.
   */
  releaseBuffer(buffer: GPUBuffer): void {
    if (this.#destroyed || this.#lost) buffer.destroy();
    else this.retained.keep(buffer);
  }

  /**
   * Writes `data` into `buffer` at `byteOffset`, in queue order: small writes through
   * `queue.writeBuffer`, writes of {@link UploadPool.minBytes} or more through {@link uploads}
   * (kept staging memory). `data` may be reused once the call returns.
   */
  async writeBuffer(buffer: GPUBuffer, byteOffset: number, data: ArrayBufferView): Promise<void> {
    await this.guard(`write ${buffer.label}`, () => {
      if (data.byteLength >= this.uploads.minBytes) this.uploads.write(buffer, byteOffset, data);
      else this.queue.writeBuffer(buffer, byteOffset, data.buffer, data.byteOffset, data.byteLength);
    });
  }

  /** Reads `byteLength` bytes of `buffer` from `byteOffset` back to the CPU through a reused staging buffer. */
  readBuffer(buffer: GPUBuffer, byteOffset = 0, byteLength = buffer.size - byteOffset): Promise<ArrayBuffer> {
    return this.staging.read(buffer, byteOffset, byteLength);
  }

  /** Submits command buffers, turning validation errors of the submission into typed errors. */
  async submit(label: string, commandBuffers: GPUCommandBuffer[]): Promise<void> {
    await this.guard(label, () => this.queue.submit(commandBuffers));
  }

  /** Resolves when all work submitted so far has completed on the GPU. */
  async idle(): Promise<void> {
    this.assertAlive();
    await this.queue.onSubmittedWorkDone();
    this.assertAlive();
  }

  /**
   * The context's page-touching worker threads (see {@link createPageToucher}), started on the
   * first call and kept until {@link destroy}; `undefined` where there are no worker threads.
   * Starting four workers costs the main thread about a millisecond, so a caller that reads large
   * sets after every solve shares these rather than starting its own. Idle, they do not keep Node
   * alive.
   *
   * @example
   * ```ts
   * const toucher = await ctx.pageToucher();
   * const into = toucher ? await toucher.allocate(bytes) : new Uint8Array(bytes);
   * await ctx.staging.readInto(buffer, 0, bytes, into);
   * ```
   */
  pageToucher(): Promise<PageToucher | undefined> {
    this.assertAlive();
    this.#pageToucher ??= createPageToucher();
    return this.#pageToucher;
  }

  /**
   * Releases the staging buffers, kept buffers, page-touching workers and pipelines; destroys the
   * device if this context created it, so Node can exit. The Dawn instance stays (see
   * `acquireGpu`): Dawn may still deliver the device's last callbacks through it.
   */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    void this.#pageToucher?.then((toucher) => toucher?.destroy());
    this.#pageToucher = undefined;
    this.staging.destroy();
    this.uploads.destroy();
    this.retained.trim();
    this.kernels.clear();
    if (this.#ownsDevice) this.device.destroy();
  }

  /** One line naming the adapter, e.g. `llvmpipe (software, subgroups 8)`. */
  toString(): string {
    const a = this.adapter;
    const name = a.description || a.device || a.vendor || 'unknown adapter';
    const size =
      a.subgroupMinSize === a.subgroupMaxSize
        ? `${a.subgroupMinSize}`
        : `${a.subgroupMinSize}-${a.subgroupMaxSize}`;
    return `${name} (${a.software ? 'software' : 'hardware'}, ${a.backend}, subgroups ${this.features.subgroups ? size : 'off'})`;
  }

  #report(error: GpumorphError): void {
    this.#uncaptured.push(error);
    for (const listener of this.#listeners) listener(error);
  }
}

/** Rounds `value` up to a multiple of `alignment`. */
export function alignTo(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
