import type { GpuContext } from '@gpumorph/gpu-allocator';

/** Tile-shape options shared by the tiled primitives (scan, reduce, compaction). */
export interface TilingOptions {
  /** Largest binding window in bytes (default: the device's `maxStorageBufferBindingSize`). */
  readonly maxBindingBytes?: number;
  /** Invocations per workgroup (power of two). */
  readonly workgroupSize?: number;
  /** vec4s per invocation. */
  readonly vectorsPerInvocation?: number;
  /** Most workgroups per grid dimension (default: the device limit). */
  readonly maxWorkgroupsPerDimension?: number;
  /** False forces the workgroup-memory path. */
  readonly subgroups?: boolean;
}

/** {@link TilingOptions} with defaults applied and checked. */
export interface Tiling {
  readonly maxBindingBytes: number;
  readonly workgroupSize: number;
  readonly vectors: number;
  readonly maxPerDimension: number;
  readonly allowSubgroups: boolean;
}

/**
 * Applies the primitive's defaults to `options` and checks them against the device; `what` names
 * the primitive in the RangeError.
 *
 * @example
 * ```ts
 * const tiling = resolveTiling(ctx, 'scan', options, { workgroupSize: 256, vectors: 4 });
 * ```
 */
export function resolveTiling(
  ctx: GpuContext,
  what: string,
  options: TilingOptions,
  defaults: { workgroupSize: number; vectors: number },
): Tiling {
  const workgroupSize = options.workgroupSize ?? defaults.workgroupSize;
  const vectors = options.vectorsPerInvocation ?? defaults.vectors;
  if (
    workgroupSize < 1 ||
    (workgroupSize & (workgroupSize - 1)) !== 0 ||
    workgroupSize > ctx.limits.maxComputeInvocationsPerWorkgroup
  ) {
    throw new RangeError(
      `${what} workgroup size ${workgroupSize}: not a power of two within the device's limit`,
    );
  }
  if (!Number.isInteger(vectors) || vectors < 1) {
    throw new RangeError(`${what} vectors per invocation ${vectors}: not a positive integer`);
  }
  return {
    maxBindingBytes: options.maxBindingBytes ?? ctx.limits.maxStorageBufferBindingSize,
    workgroupSize,
    vectors,
    maxPerDimension: options.maxWorkgroupsPerDimension ?? ctx.limits.maxComputeWorkgroupsPerDimension,
    allowSubgroups: options.subgroups ?? true,
  };
}
