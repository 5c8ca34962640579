/**
 * The part of gpu-allocator that runs without WebGPU: the CPU element pool (the GPU pool's layout
 * and bump pointer in one growable array) and its error. CPU engines import it from here
 * (`@gpumorph/gpu-allocator/cpu`), so that their module graph holds no GPU code.
 *
 * @example
 * ```ts
 * import { CpuElementPool } from '@gpumorph/gpu-allocator/cpu';
 * const pool = new CpuElementPool({ capacity: 4 });
 * pool.alloc(); // 0
 * ```
 * @module
 */
export { PoolCapacityError } from './errors';
export { CpuElementPool, type GrowableMemory } from './pool/reference';
