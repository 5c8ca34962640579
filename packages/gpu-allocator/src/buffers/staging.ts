import type { GpuContext } from '../context/context';
import { GpuDeviceLostError, GpuOutOfMemoryError } from '../errors';
import { BufferUsage, MapMode } from '../webgpu-constants';

/** Largest single readback chunk; bigger reads are split so staging never needs a huge buffer. */
const CHUNK_BYTES = 64 * 1024 * 1024;
/** Smallest staging buffer; small reads share this size class. */
const MIN_STAGING_BYTES = 4096;
/**
 * Chunks of one read in flight at once: while the host copies one chunk out of its mapping, the
 * next ones are being copied on the GPU and mapped, so big reads do not wait for each round trip.
 */
const CHUNKS_IN_FLIGHT = 3;
/** Free staging memory kept for reuse; beyond this, released buffers are destroyed. */
const MAX_CACHED_BYTES = 256 * 1024 * 1024;

/**
 * Reusable `MAP_READ | COPY_DST` buffers in power-of-two size classes. A readback takes one,
 * copies into it, maps it, copies out and gives it back, so steady-state readback allocates nothing.
 *
 * @example
 * ```ts
 * const bytes = await ctx.staging.read(buffer, 0, 1024); // or ctx.readBuffer(buffer)
 * ```
 */
export class StagingPool {
  readonly #ctx: GpuContext;
  readonly #free = new Map<number, GPUBuffer[]>();
  #cachedBytes = 0;
  /** Staging buffers created over the pool's life (for tests of reuse). */
  created = 0;

  constructor(ctx: GpuContext) {
    this.#ctx = ctx;
  }

  /** Copies `byteLength` bytes of `source` from `byteOffset` to a new `ArrayBuffer`. */
  async read(source: GPUBuffer, byteOffset: number, byteLength: number): Promise<ArrayBuffer> {
    if (byteOffset % 4 !== 0 || byteLength % 4 !== 0) {
      throw new RangeError(
        `readback of ${source.label} needs 4-byte aligned offset and length (${byteOffset}, ${byteLength})`,
      );
    }
    if (byteOffset + byteLength > source.size) {
      throw new RangeError(
        `readback of ${source.label}: bytes ${byteOffset}..${byteOffset + byteLength} past its size ${source.size}`,
      );
    }
    const out = new Uint8Array(byteLength);
    const inFlight: { staging: GPUBuffer; at: number; size: number; mapped: Promise<unknown> }[] = [];
    let next = 0;
    const start = async () => {
      const size = Math.min(CHUNK_BYTES, byteLength - next);
      const at = next;
      next += size;
      const staging = await this.#take(size);
      try {
        await this.#ctx.guard(`readback ${source.label}`, () => {
          const encoder = this.#ctx.device.createCommandEncoder({ label: `readback ${source.label}` });
          encoder.copyBufferToBuffer(source, byteOffset + at, staging, 0, size);
          this.#ctx.queue.submit([encoder.finish()]);
        });
      } catch (error) {
        staging.destroy();
        throw error;
      }
      // Rejections are taken where the chunk is awaited, in order.
      const mapped = staging.mapAsync(MapMode.READ, 0, size).then(
        () => undefined,
        (cause: unknown) => ({ cause }),
      );
      inFlight.push({ staging, at, size, mapped });
    };
    try {
      while (next < byteLength && inFlight.length < CHUNKS_IN_FLIGHT) await start();
      while (inFlight.length > 0) {
        const chunk = inFlight[0] as (typeof inFlight)[number];
        const failure = (await chunk.mapped) as { cause: unknown } | undefined;
        if (failure) {
          this.#ctx.assertAlive();
          throw new GpuDeviceLostError(`readback of ${source.label} failed to map`, 'unknown', {
            cause: failure.cause,
          });
        }
        inFlight.shift();
        out.set(new Uint8Array(chunk.staging.getMappedRange(0, chunk.size)), chunk.at);
        chunk.staging.unmap();
        this.#give(chunk.staging);
        if (next < byteLength) await start();
      }
    } catch (error) {
      // A map still pending is rejected by the destruction; its rejection was already caught.
      for (const chunk of inFlight) chunk.staging.destroy();
      throw error;
    }
    return out.buffer;
  }

  async #take(size: number): Promise<GPUBuffer> {
    const sizeClass = Math.max(MIN_STAGING_BYTES, 2 ** Math.ceil(Math.log2(size)));
    const list = this.#free.get(sizeClass);
    const reused = list?.pop();
    if (reused) {
      this.#cachedBytes -= sizeClass;
      return reused;
    }
    this.created++;
    try {
      return await this.#ctx.createBuffer({
        label: `gpumorph staging ${sizeClass}`,
        size: sizeClass,
        usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
      });
    } catch (error) {
      if (!(error instanceof GpuOutOfMemoryError) || this.#cachedBytes === 0) throw error;
      this.releaseCached();
      return this.#take(size);
    }
  }

  #give(buffer: GPUBuffer): void {
    if (this.#cachedBytes + buffer.size > MAX_CACHED_BYTES) {
      buffer.destroy();
      return;
    }
    const list = this.#free.get(buffer.size) ?? [];
    list.push(buffer);
    this.#free.set(buffer.size, list);
    this.#cachedBytes += buffer.size;
  }

  /** Destroys every cached staging buffer (e.g. under memory pressure). */
  releaseCached(): void {
    for (const list of this.#free.values()) for (const buffer of list) buffer.destroy();
    this.#free.clear();
    this.#cachedBytes = 0;
  }

  /** Destroys every cached staging buffer; the pool stays usable. */
  destroy(): void {
    this.releaseCached();
  }
}
