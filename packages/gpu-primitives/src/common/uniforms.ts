import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';

/**
 * Small uniform buffers written at creation, for the parameters of kernels encoded into a
 * caller's command buffer (each encode needs its own, since all run after the submit).
 * `release()` once the work that used them has been submitted and completed, or let `destroy()`.
 *
 * @example
 * ```ts
 * const uniforms = new UniformArena(ctx, 'my kernel params');
 * const params = uniforms.create(Uint32Array.of(count, seed, mask, 0));
 * ```
 */
export class UniformArena {
  readonly #ctx: GpuContext;
  readonly #label: string;
  #live: GPUBuffer[] = [];

  constructor(ctx: GpuContext, label: string) {
    this.#ctx = ctx;
    this.#label = label;
  }

  /** A uniform buffer holding `data` (padded to 16 bytes). */
  create(data: Uint32Array): GPUBuffer {
    const size = Math.max(16, Math.ceil((data.length * 4) / 16) * 16);
    const buffer = this.#ctx.device.createBuffer({
      label: this.#label,
      size,
      usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
      mappedAtCreation: true,
    });
    new Uint32Array(buffer.getMappedRange()).set(data);
    buffer.unmap();
    this.#live.push(buffer);
    return buffer;
  }

  /** Destroys every buffer handed out so far (WebGPU frees them after the work using them). */
  release(): void {
    for (const buffer of this.#live) buffer.destroy();
    this.#live = [];
  }

  destroy(): void {
    this.release();
  }
}
