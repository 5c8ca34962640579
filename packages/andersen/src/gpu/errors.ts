import { GpumorphError } from '@gpumorph/gpu-allocator';
import { STATUS } from './layout';

/**
 * The GPU solver failed in a way growing a pool cannot fix (a corrupt list, a guard that did not hold).
 *
 * @example
 * ```ts
 * try { await solver.solve(); } catch (e) { if (e instanceof GpuSolverError) console.error(e.message); }
 * ```
 */
export class GpuSolverError extends GpumorphError {
  override name = 'GpuSolverError';
}

/**
 * Throws {@link GpuSolverError} when the status words report a fatal error.
 *
 * @example
 * ```ts
 * checkFatal(status); // after every submission whose status the host reads
 * ```
 */
export function checkFatal(status: Uint32Array): void {
  const fatal = status[STATUS.fatal] as number;
  if (fatal !== 0) {
    throw new GpuSolverError(
      fatal & 1
        ? 'a sparse bit vector list on the GPU is corrupt (longer than its pool)'
        : 'a pool ran out during a guarded update or merge',
    );
  }
}
