import type { GpuContext } from '../context/context';
import { BufferUsage, MapMode } from '../webgpu-constants';
import { checkCopyRange, SizeClassFreeList, sizeClassOf } from './size-classes';

/** Largest staging buffer of one upload; larger uploads are split into pieces of this size. */
const CHUNK_BYTES = 64 * 1024 * 1024;
/** Writes below this go through `queue.writeBuffer`, whose ring buffer serves small writes well. */
const MIN_UPLOAD_BYTES = 1024 * 1024;
/** Free staging memory kept for reuse; beyond this, staging buffers are destroyed after their copy. */
const MAX_CACHED_BYTES = 256 * 1024 * 1024;

/**
 * Large host-to-GPU writes through kept `MAP_WRITE | COPY_SRC` buffers, mapped before they are
 * needed: a write copies the data into one (a sequential copy into mapped memory), unmaps it and
 * submits a copy into the target; the buffer maps itself again once the copy has run and waits,
 * mapped, for the next write of its size class (powers of two).
 *
 * Why not `queue.writeBuffer` for them: on the H100 machine it wrote 25 MB in 17–24 ms, about
 * 1.2 GB/s, most likely by staging each large write in new memory; a kept, mapped buffer took
 * 5.5 ms for the same. Small writes still take `writeBuffer`.
 *
 * {@link GpuContext.writeBuffer} uses this pool for writes of at least {@link minBytes}.
 *
 * @example
 * ```ts
 * await ctx.guard('upload', () => ctx.uploads.write(buffer, 0, new Uint32Array(1 << 20)));
 * ```
 */
export class UploadPool {
  readonly #ctx: GpuContext;
  /** Mapped buffers by size class. */
  readonly #free = new SizeClassFreeList(MAX_CACHED_BYTES);
  /** Buffers whose copy is queued, mapping again, with the promise that settles once they are kept or destroyed. */
  readonly #mapping = new Map<GPUBuffer, Promise<void>>();
  #destroyed = false;
  /** Staging buffers created over the pool's life (for tests of reuse). */
  created = 0;
  /** Writes from this size (bytes) up go through the pool. */
  readonly minBytes: number;
  readonly #chunkBytes: number;

  /**
   * `chunkBytes` (default 64 MiB, a multiple of 4) splits large writes; writes of at least
   * `minBytes` (default 1 MiB) go through the pool.
   */
  constructor(ctx: GpuContext, options: { chunkBytes?: number; minBytes?: number } = {}) {
    const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
    if (!Number.isInteger(chunkBytes) || chunkBytes <= 0 || chunkBytes % 4 !== 0)
      throw new RangeError(`UploadPool: chunkBytes must be a positive multiple of 4, not ${chunkBytes}`);
    const minBytes = options.minBytes ?? MIN_UPLOAD_BYTES;
    if (!Number.isInteger(minBytes) || minBytes < 0)
      throw new RangeError(`UploadPool: minBytes must be a non-negative integer, not ${minBytes}`);
    this.#ctx = ctx;
    this.#chunkBytes = chunkBytes;
    this.minBytes = minBytes;
  }

  /**
   * Copies `data` into staging memory now and submits its copy into `target` at `byteOffset`
   * (queue order: after the work submitted before, before the work submitted after). `data` may
   * be reused as soon as this returns. Call it inside {@link GpuContext.guard}, whose error scopes
   * catch a staging buffer that could not be created or a copy that is not valid.
   *
   * @throws {RangeError} when the offset or length is not a multiple of 4 or the range is past `target`'s end.
   */
  write(target: GPUBuffer, byteOffset: number, data: ArrayBufferView): void {
    checkCopyRange(`upload to ${target.label}`, target, byteOffset, data.byteLength);
    if (data.byteLength === 0) return;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const { device, queue } = this.#ctx;
    const encoder = device.createCommandEncoder({ label: `upload ${target.label}` });
    const used: GPUBuffer[] = [];
    for (let at = 0; at < bytes.byteLength; at += this.#chunkBytes) {
      const size = Math.min(this.#chunkBytes, bytes.byteLength - at);
      const staging = this.#takeMapped(size);
      used.push(staging);
      new Uint8Array(staging.getMappedRange(0, size)).set(bytes.subarray(at, at + size));
      staging.unmap();
      encoder.copyBufferToBuffer(staging, 0, target, byteOffset + at, size);
    }
    queue.submit([encoder.finish()]);
    for (const staging of used) this.#mapAgain(staging);
  }

  /** A mapped buffer of `size`'s class: a kept one, or a new one mapped at creation. */
  #takeMapped(size: number): GPUBuffer {
    const sizeClass = sizeClassOf(size);
    const kept = this.#free.take(sizeClass);
    if (kept) return kept;
    this.created++;
    return this.#ctx.device.createBuffer({
      label: `gpumorph upload ${sizeClass}`,
      size: sizeClass,
      usage: BufferUsage.MAP_WRITE | BufferUsage.COPY_SRC,
      mappedAtCreation: true,
    });
  }

  /** Maps `staging` again once its copy has run and keeps it, or destroys it (pool full, destroyed, device lost). */
  #mapAgain(staging: GPUBuffer): void {
    if (this.#destroyed || !this.#free.hasRoom(staging.size, this.#mappingBytes())) {
      // Destroying it now is safe: the queued copy keeps what it needs until it has run.
      staging.destroy();
      return;
    }
    const settled = staging.mapAsync(MapMode.WRITE).then(
      () => {
        this.#mapping.delete(staging);
        if (this.#destroyed) {
          staging.destroy();
          return;
        }
        this.#free.give(staging);
      },
      () => {
        // Device lost or buffer destroyed: the next write creates another.
        this.#mapping.delete(staging);
        staging.destroy();
      },
    );
    this.#mapping.set(staging, settled);
  }

  /** Resolves once every staging buffer of the writes so far is mapped again (and kept) or destroyed. */
  async settled(): Promise<void> {
    await Promise.all(this.#mapping.values());
  }

  #mappingBytes(): number {
    let total = 0;
    for (const staging of this.#mapping.keys()) total += staging.size;
    return total;
  }

  /** Bytes of staging memory kept mapped for the next writes. */
  get cachedBytes(): number {
    return this.#free.bytes;
  }

  /** Destroys every kept staging buffer (e.g. under memory pressure); the pool stays usable. */
  releaseCached(): void {
    this.#free.release();
  }

  /** Destroys every kept staging buffer, and those still mapping once they are mapped; later writes still work, keeping nothing. */
  destroy(): void {
    this.#destroyed = true;
    this.releaseCached();
  }
}
