import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';

/** Largest binding window, in bytes, the tiled kernels use (u32 element indices stay below 2^29). */
const MAX_WINDOW_BYTES = 2 ** 31;

/** One binding window of a u32 array: elements [start, start + count). */
export interface ElementWindow {
  readonly index: number;
  readonly start: number;
  readonly count: number;
}

/**
 * Splits `count` u32 elements into binding windows of at most `maxBindingBytes` bytes each, every
 * window starting at a multiple of `alignment` bytes (the device's `minStorageBufferOffsetAlignment`).
 *
 * @example
 * ```ts
 * elementWindows(3000, 4096, 256); // [{ index: 0, start: 0, count: 1024 }, …, { index: 2, start: 2048, count: 952 }]
 * ```
 */
export function elementWindows(count: number, maxBindingBytes: number, alignment: number): ElementWindow[] {
  const bytes = Math.floor(Math.min(maxBindingBytes, MAX_WINDOW_BYTES) / alignment) * alignment;
  const perWindow = bytes / 4;
  if (perWindow < 4) {
    throw new RangeError(`binding window of ${maxBindingBytes} bytes is below the alignment ${alignment}`);
  }
  const windows: ElementWindow[] = [];
  for (let start = 0, index = 0; start < count; start += perWindow, index++) {
    windows.push({ index, start, count: Math.min(perWindow, count - start) });
  }
  return windows;
}

/** The two disjoint views of a window the tiled kernels bind (WebGPU forbids aliasing writable bindings). */
export interface WindowViews {
  /** `array<vec4<u32>>` over the window's first `split` elements (`dummy` when `split` is 0). */
  readonly vec4: GPUBufferBinding;
  /** `array<u32>` over the rest, fewer than `alignment / 4` elements (`dummy` when empty). */
  readonly tail: GPUBufferBinding;
  /** Window-relative index of the first element of the tail: a multiple of `alignment / 4`. */
  readonly split: number;
}

/**
 * Splits a window of `buffer` into a vec4 view up to the last multiple of `alignment` bytes and a
 * u32 view of the remaining tail, so kernels load and store whole vec4s almost everywhere while
 * the two bindings never overlap. `dummy` (16 bytes) stands in for an empty view; a kernel must
 * never bind one dummy to two writable views (they are never both empty, as the window is not).
 *
 * @example
 * ```ts
 * const v = windowViews(input, window, 256, dummy);
 * kernel.bindGroup({ params, src4: v.vec4, src_tail: v.tail, scratch });
 * ```
 */
export function windowViews(
  buffer: GPUBuffer,
  window: ElementWindow,
  alignment: number,
  dummy: GPUBuffer,
): WindowViews {
  const offset = window.start * 4;
  const splitBytes = Math.floor((window.count * 4) / alignment) * alignment;
  const tailBytes = window.count * 4 - splitBytes;
  const empty = { buffer: dummy, offset: 0, size: 16 };
  return {
    vec4: splitBytes > 0 ? { buffer, offset, size: splitBytes } : empty,
    tail: tailBytes > 0 ? { buffer, offset: offset + splitBytes, size: tailBytes } : empty,
    split: splitBytes / 4,
  };
}

/** The 16-byte storage buffer bound where a view would be empty. */
export function createDummyBuffer(ctx: GpuContext, label: string): Promise<GPUBuffer> {
  return ctx.createBuffer({ label, size: 16, usage: BufferUsage.STORAGE });
}

/**
 * Immutable uniform buffers keyed by their contents, so one encoder may record many dispatches
 * with different parameters without a `writeBuffer` racing them. Created mapped, synchronously.
 *
 * @example
 * ```ts
 * const params = new UniformCache(ctx, 'gm scan params');
 * const buffer = params.get([count, 0, 4, 0, 1, 0, 0, 0]);
 * ```
 */
export class UniformCache {
  readonly #ctx: GpuContext;
  readonly #label: string;
  readonly #buffers = new Map<string, GPUBuffer>();
  /** Entries kept; the oldest are destroyed past it (only buffers of finished work should be). */
  readonly capacity: number;

  constructor(ctx: GpuContext, label: string, capacity = 4096) {
    this.#ctx = ctx;
    this.#label = label;
    this.capacity = capacity;
  }

  /** The uniform buffer holding `words` (u32s). */
  get(words: readonly number[]): GPUBuffer {
    const key = words.join(',');
    let buffer = this.#buffers.get(key);
    if (!buffer) {
      if (this.#buffers.size >= this.capacity) {
        const oldest = this.#buffers.keys().next().value as string;
        this.#buffers.get(oldest)?.destroy();
        this.#buffers.delete(oldest);
      }
      const size = Math.max(16, Math.ceil((words.length * 4) / 16) * 16);
      buffer = this.#ctx.device.createBuffer({
        label: `${this.#label} [${key}]`,
        size,
        usage: BufferUsage.UNIFORM,
        mappedAtCreation: true,
      });
      new Uint32Array(buffer.getMappedRange()).set(words);
      buffer.unmap();
      this.#buffers.set(key, buffer);
    }
    return buffer;
  }

  destroy(): void {
    for (const buffer of this.#buffers.values()) buffer.destroy();
    this.#buffers.clear();
  }
}

/** Throws a RangeError unless `count` is an element count a u32 index can address. */
export function checkElementCount(what: string, count: number): void {
  if (!Number.isInteger(count) || count < 0 || count > 0xffff_ffff) {
    throw new RangeError(`${what} count ${count}: not an integer in [0, 2^32)`);
  }
}
