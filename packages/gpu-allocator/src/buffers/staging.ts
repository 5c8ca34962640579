import type { GpuContext } from '../context/context';
import { GpuDeviceLostError, GpuOutOfMemoryError } from '../errors';
import { BufferUsage, MapMode } from '../webgpu-constants';
import { checkCopyRange, SizeClassFreeList, sizeClassOf } from './size-classes';

/** Largest single readback chunk; bigger reads are split so staging never needs a huge buffer. */
const CHUNK_BYTES = 64 * 1024 * 1024;
/**
 * Chunks of one large read copied ahead of the one the host is copying out, so that the GPU's copy
 * of the next chunks can overlap the host's copy of this one (their staging stays within the
 * cache). On the H100 machine no count of 1–4 was measurably faster than another (README).
 */
const CHUNKS_IN_FLIGHT = 3;
/** Smallest staging buffer; small reads share this size class. */
const MIN_STAGING_BYTES = 4096;
/** Free staging memory kept for reuse; beyond this, released buffers are destroyed. */
const MAX_CACHED_BYTES = 256 * 1024 * 1024;

/** A read recorded by {@link StagingPool.recordRead}; `read()` resolves once the submission carrying it has run. */
export interface StagedRead {
  /** The bytes read, copied out of the staging buffer, which goes back to the pool. */
  read(): Promise<ArrayBuffer>;
  /**
   * The staging buffer mapped, for a caller that learns only from the submission's other reads
   * how many of the bytes it needs: {@link MappedRead.take} copies those out. Call one of `read`
   * and `mapped`, once.
   */
  mapped(): Promise<MappedRead>;
}

/** A {@link StagedRead}'s staging buffer, mapped. */
export interface MappedRead {
  /** The bytes recorded. */
  readonly byteLength: number;
  /**
   * Copies out the first `byteLength` bytes (default: all) and gives the staging buffer back to
   * the pool; call it once (with 0 when none are needed), as the buffer stays mapped until then.
   */
  take(byteLength?: number): ArrayBuffer;
}

function checkRange(source: GPUBuffer, byteOffset: number, byteLength: number): void {
  checkCopyRange(`readback of ${source.label}`, source, byteOffset, byteLength);
}

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
  readonly #free = new SizeClassFreeList(MAX_CACHED_BYTES);
  /** Staging buffers created over the pool's life (for tests of reuse). */
  created = 0;

  readonly #chunkBytes: number;
  readonly #chunksInFlight: number;

  /**
   * `chunkBytes` (default 64 MiB, a multiple of 4) splits large reads, of which `chunksInFlight`
   * (default 3; 1 reads one chunk at a time) are copied and mapped at once.
   */
  constructor(ctx: GpuContext, options: { chunkBytes?: number; chunksInFlight?: number } = {}) {
    this.#ctx = ctx;
    const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
    if (!Number.isInteger(chunkBytes) || chunkBytes <= 0 || chunkBytes % 4 !== 0)
      throw new RangeError(`StagingPool: chunkBytes must be a positive multiple of 4, not ${chunkBytes}`);
    const chunksInFlight = options.chunksInFlight ?? CHUNKS_IN_FLIGHT;
    if (!Number.isInteger(chunksInFlight) || chunksInFlight < 1)
      throw new RangeError(`StagingPool: chunksInFlight must be a positive integer, not ${chunksInFlight}`);
    this.#chunkBytes = chunkBytes;
    this.#chunksInFlight = chunksInFlight;
  }

  /** Copies `byteLength` bytes of `source` from `byteOffset` to a new `ArrayBuffer`. */
  async read(source: GPUBuffer, byteOffset: number, byteLength: number): Promise<ArrayBuffer> {
    checkRange(source, byteOffset, byteLength);
    const out = new Uint8Array(byteLength);
    await this.#readChunks(source, byteOffset, byteLength, out);
    return out.buffer;
  }

  /**
   * Records a copy of `byteLength` bytes of `source` from `byteOffset` into one staging buffer on
   * `encoder` (of the next power-of-two size: keep such reads small; {@link read} chunks large
   * ones), so that a read rides along with a submission instead of needing a submission and a
   * wait of its own. Call it inside {@link GpuContext.guard} (it may create a staging buffer, whose
   * errors that scope catches), submit the encoder's command buffer, then await
   * {@link StagedRead.read}, which also gives the staging buffer back to the pool.
   *
   * @example
   * ```ts
   * let staged: StagedRead | undefined;
   * const submitted = ctx.guard('step', () => {
   *   const encoder = ctx.device.createCommandEncoder();
   *   // ... dispatches that write `status` ...
   *   staged = ctx.staging.recordRead(encoder, status, 0, 64);
   *   ctx.queue.submit([encoder.finish()]);
   * });
   * const [, bytes] = await Promise.all([submitted, staged?.read()]);
   * ```
   */
  recordRead(
    encoder: GPUCommandEncoder,
    source: GPUBuffer,
    byteOffset: number,
    byteLength: number,
  ): StagedRead {
    checkRange(source, byteOffset, byteLength);
    const size = Math.max(4, byteLength);
    const staging = this.#takeNow(size);
    encoder.copyBufferToBuffer(source, byteOffset, staging, 0, byteLength);
    const ctx = this.#ctx;
    let done: Promise<MappedRead> | undefined;
    const map = async (): Promise<MappedRead> => {
      try {
        await staging.mapAsync(MapMode.READ, 0, size);
      } catch (cause) {
        staging.destroy();
        ctx.assertAlive();
        throw new GpuDeviceLostError(`readback of ${source.label} failed to map`, 'unknown', { cause });
      }
      let taken = false;
      return {
        byteLength,
        take: (length = byteLength) => {
          if (taken) throw new Error(`readback of ${source.label} taken twice`);
          if (!Number.isInteger(length) || length < 0 || length > byteLength) {
            throw new RangeError(`readback of ${source.label}: ${length} of its ${byteLength} bytes`);
          }
          taken = true;
          try {
            const bytes = new Uint8Array(length);
            if (length > 0) bytes.set(new Uint8Array(staging.getMappedRange(0, size), 0, length));
            staging.unmap();
            this.#free.give(staging);
            return bytes.buffer;
          } catch (error) {
            staging.destroy();
            throw error;
          }
        },
      };
    };
    const mapped = () => {
      done ??= map();
      return done;
    };
    return { mapped, read: async () => (await mapped()).take() };
  }

  /**
   * Copies `byteLength` bytes of `source` from `byteOffset` into `into` (from its start), chunk by
   * chunk like {@link read}: for memory the caller prepared, e.g. by a {@link PageToucher}.
   *
   * @example
   * ```ts
   * const into = new Uint8Array(1024);
   * await ctx.staging.readInto(buffer, 0, 1024, into);
   * ```
   */
  async readInto(source: GPUBuffer, byteOffset: number, byteLength: number, into: Uint8Array): Promise<void> {
    checkRange(source, byteOffset, byteLength);
    if (into.byteLength < byteLength) {
      throw new RangeError(`readInto of ${source.label}: ${byteLength} bytes do not fit ${into.byteLength}`);
    }
    await this.#readChunks(source, byteOffset, byteLength, into);
  }

  /**
   * Reads `byteLength` bytes chunk by chunk into `into`, with up to {@link CHUNKS_IN_FLIGHT} chunks
   * copied and mapped ahead: the GPU copies the next chunks while the host copies this one out.
   */
  async #readChunks(
    source: GPUBuffer,
    byteOffset: number,
    byteLength: number,
    into: Uint8Array,
  ): Promise<void> {
    const chunk = this.#chunkBytes;
    const count = Math.ceil(byteLength / chunk);
    const sizeOf = (i: number) => Math.min(chunk, byteLength - i * chunk);
    const pending: Promise<GPUBuffer>[] = [];
    const issue = (i: number) => {
      const mapped = this.#copyAndMap(source, byteOffset + i * chunk, sizeOf(i));
      // Awaited in order below; one failing meanwhile must not count as an unhandled rejection.
      mapped.catch(() => undefined);
      pending.push(mapped);
    };
    let next = 0;
    try {
      while (next < count && pending.length < this.#chunksInFlight) issue(next++);
      for (let i = 0; i < count; i++) {
        const staging = await (pending.shift() as Promise<GPUBuffer>);
        const size = sizeOf(i);
        into.set(new Uint8Array(staging.getMappedRange(0, size)), i * chunk);
        staging.unmap();
        this.#free.give(staging);
        if (next < count) issue(next++);
      }
    } catch (error) {
      // The chunks still in flight are not needed: their staging buffers go once they settle.
      await Promise.allSettled(pending.map((mapped) => mapped.then((staging) => staging.destroy())));
      throw error;
    }
  }

  /** Copies `size` bytes of `source` at `offset` into a staging buffer and maps it. */
  async #copyAndMap(source: GPUBuffer, offset: number, size: number): Promise<GPUBuffer> {
    const staging = await this.#take(size);
    const ctx = this.#ctx;
    try {
      await ctx.guard(`readback ${source.label}`, () => {
        const encoder = ctx.device.createCommandEncoder({ label: `readback ${source.label}` });
        encoder.copyBufferToBuffer(source, offset, staging, 0, size);
        ctx.queue.submit([encoder.finish()]);
      });
      try {
        await staging.mapAsync(MapMode.READ, 0, size);
      } catch (cause) {
        ctx.assertAlive();
        throw new GpuDeviceLostError(`readback of ${source.label} failed to map`, 'unknown', { cause });
      }
      return staging;
    } catch (error) {
      staging.destroy();
      throw error;
    }
  }

  /** A cached staging buffer of `size`'s class, or a new one created without an error scope of its own. */
  #takeNow(size: number): GPUBuffer {
    const sizeClass = sizeClassOf(size, MIN_STAGING_BYTES);
    const reused = this.#free.take(sizeClass);
    if (reused) return reused;
    this.created++;
    return this.#ctx.device.createBuffer({
      label: `gpumorph staging ${sizeClass}`,
      size: sizeClass,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
  }

  async #take(size: number): Promise<GPUBuffer> {
    const sizeClass = sizeClassOf(size, MIN_STAGING_BYTES);
    const reused = this.#free.take(sizeClass);
    if (reused) return reused;
    this.created++;
    try {
      return await this.#ctx.createBuffer({
        label: `gpumorph staging ${sizeClass}`,
        size: sizeClass,
        usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
      });
    } catch (error) {
      if (!(error instanceof GpuOutOfMemoryError) || this.#free.bytes === 0) throw error;
      this.releaseCached();
      return this.#take(size);
    }
  }

  /** Destroys every cached staging buffer (e.g. under memory pressure). */
  releaseCached(): void {
    this.#free.release();
  }

  /** Destroys every cached staging buffer; the pool stays usable. */
  destroy(): void {
    this.releaseCached();
  }
}
