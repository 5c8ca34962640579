/**
 * Store buffers kept between WebGPU solves.
 *
 * The delta engine's store is a bitset of 2·|Lam| × |Lam| bits: 241 MiB at n = 1024 of the
 * Van Horn–Mairson family, 736 MiB at 1792, 15 GiB at 8192. Allocating it again for every solve
 * costs most of the setup time, and on the H100 solves on a store allocated anew ran slower than
 * solves reusing one: eight in a row in one process took 14.9 ms and then 19.4–20.8 ms at
 * n = 1024 allocating each time, 13.9–14.3 ms with a pool after the first. A pool keeps the store
 * of the last solve for the next one of the same size, cleared on the GPU before it is used again.
 * @module
 */
import type { GpuContext } from '@gpumorph/gpu-allocator';

/**
 * Buffers handed from one solve to the next (pass it as `bufferPool` to `solveWebGpu` or
 * `solveCfa`). It holds GPU memory until `destroy()` (or until its context is destroyed).
 *
 * @example
 * ```ts
 * const pool = createCfaBufferPool(gpu);
 * for (const m of programs) await solveWebGpu(gpu, m, { bufferPool: pool });
 * pool.destroy();
 * ```
 */
export interface CfaBufferPool {
  readonly ctx: GpuContext;
  /** Bytes of the buffers the pool holds now (none while a solve has them). */
  readonly heldBytes: number;
  /**
   * A buffer of exactly `size` bytes and `usage`, and whether it is one the pool held (its contents
   * are then whatever the last solve left: the caller clears it).
   */
  take(label: string, size: number, usage: number): Promise<{ buffer: GPUBuffer; reused: boolean }>;
  /** Gives a buffer from `take` back, for a later solve. */
  give(buffer: GPUBuffer): void;
  /** Destroys every buffer the pool holds; later `take`s allocate as if the pool were new. */
  destroy(): void;
}

/**
 * Creates a {@link CfaBufferPool} on `ctx`.
 *
 * @example
 * ```ts
 * const pool = createCfaBufferPool(gpu);
 * const a = await solveWebGpu(gpu, m, { bufferPool: pool }); // allocates the store
 * const b = await solveWebGpu(gpu, m, { bufferPool: pool }); // clears and reuses it
 * pool.destroy();
 * ```
 */
export function createCfaBufferPool(ctx: GpuContext): CfaBufferPool {
  const held = new Map<string, GPUBuffer[]>();
  const keyOf = (size: number, usage: number) => `${size}:${usage}`;
  let heldBytes = 0;
  return {
    ctx,
    get heldBytes() {
      return heldBytes;
    },
    async take(label, size, usage) {
      const list = held.get(keyOf(size, usage));
      const kept = list?.pop();
      if (kept) {
        heldBytes -= kept.size;
        return { buffer: kept, reused: true };
      }
      return { buffer: await ctx.createBuffer({ label, size, usage }), reused: false };
    },
    give(buffer) {
      const key = keyOf(buffer.size, buffer.usage);
      const list = held.get(key) ?? [];
      list.push(buffer);
      held.set(key, list);
      heldBytes += buffer.size;
    },
    destroy() {
      for (const list of held.values()) for (const b of list) b.destroy();
      held.clear();
      heldBytes = 0;
    },
  };
}
