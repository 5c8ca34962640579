import type { GpuContext } from '../context/context';
import { BufferUsage } from '../webgpu-constants';

/** Element types of {@link GpuArray}, with their typed-array classes. */
export const ELEMENT_TYPES = {
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
} as const;

/** Name of an element type: `'u32' | 'i32' | 'f32'`. */
export type ElementType = keyof typeof ELEMENT_TYPES;
/** The typed array that holds elements of type `T` on the CPU. */
export type HostArray<T extends ElementType> = InstanceType<(typeof ELEMENT_TYPES)[T]>;

/** Options of {@link createGpuArray}. */
export interface GpuArrayOptions<T extends ElementType> {
  readonly label: string;
  readonly type: T;
  /** Number of elements; defaults to `data.length`. */
  readonly length?: number;
  /** Initial contents (else zero). */
  readonly data?: ArrayLike<number>;
  /** Usage flags beyond `STORAGE | COPY_SRC | COPY_DST`, e.g. `BufferUsage.INDIRECT`. */
  readonly extraUsage?: number;
}

/**
 * A GPU storage buffer of 32-bit elements with typed upload and readback.
 *
 * @example
 * ```ts
 * const keys = await createGpuArray(ctx, { label: 'keys', type: 'u32', data: [3, 1, 2] });
 * await keys.write([7], 1);
 * console.log(await keys.read()); // Uint32Array [3, 7, 2]
 * keys.destroy();
 * ```
 */
export class GpuArray<T extends ElementType> {
  readonly #ctx: GpuContext;
  readonly buffer: GPUBuffer;
  readonly label: string;
  readonly type: T;
  readonly length: number;

  constructor(ctx: GpuContext, buffer: GPUBuffer, type: T, length: number) {
    this.#ctx = ctx;
    this.buffer = buffer;
    this.label = buffer.label;
    this.type = type;
    this.length = length;
  }

  /** Size in bytes of the elements (the buffer itself is at least 4 bytes). */
  get byteLength(): number {
    return this.length * 4;
  }

  /** Uploads `data` starting at element `offset`. */
  async write(data: ArrayLike<number>, offset = 0): Promise<void> {
    if (offset < 0 || offset + data.length > this.length) {
      throw new RangeError(
        `${this.label}: write of ${data.length} elements at ${offset} past length ${this.length}`,
      );
    }
    if (data.length === 0) return;
    const typed =
      data instanceof ELEMENT_TYPES[this.type] ? (data as HostArray<T>) : ELEMENT_TYPES[this.type].from(data);
    await this.#ctx.writeBuffer(this.buffer, offset * 4, typed);
  }

  /** Reads `count` elements from element `offset` back to the CPU. */
  async read(offset = 0, count = this.length - offset): Promise<HostArray<T>> {
    if (offset < 0 || count < 0 || offset + count > this.length) {
      throw new RangeError(
        `${this.label}: read of ${count} elements at ${offset} past length ${this.length}`,
      );
    }
    const bytes = await this.#ctx.readBuffer(this.buffer, offset * 4, count * 4);
    return new ELEMENT_TYPES[this.type](bytes) as HostArray<T>;
  }

  /** A binding of elements `[offset, offset + count)` for a bind group. */
  binding(offset = 0, count = this.length - offset): GPUBufferBinding {
    return { buffer: this.buffer, offset: offset * 4, size: Math.max(4, count * 4) };
  }

  /** Releases the GPU memory. */
  destroy(): void {
    this.buffer.destroy();
  }

  toString(): string {
    return `GpuArray<${this.type}>(${this.label}, ${this.length})`;
  }
}

/** Creates a {@link GpuArray}; throws `GpuOutOfMemoryError` or `GpuLimitError` when it cannot. */
export async function createGpuArray<T extends ElementType>(
  ctx: GpuContext,
  options: GpuArrayOptions<T>,
): Promise<GpuArray<T>> {
  const length = options.length ?? options.data?.length ?? 0;
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`${options.label}: bad length ${length}`);
  const buffer = await ctx.createBuffer({
    label: options.label,
    size: length * 4,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST | (options.extraUsage ?? 0),
  });
  const array = new GpuArray(ctx, buffer, options.type, length);
  if (options.data && options.data.length > 0) await array.write(options.data);
  return array;
}
