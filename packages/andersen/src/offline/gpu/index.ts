/**
 * The offline passes on the GPU ({@link createGpuOfflinePasses}): HVN and offline HCD with the
 * same results as the CPU passes.
 *
 * @example
 * ```ts
 * const passes = createGpuOfflinePasses(ctx);
 * const hvn = await passes.computeHvn(program);
 * passes.destroy();
 * ```
 * @module
 */
export { GpuHvnLabeller, type GpuHvnLabelOptions, type GpuHvnLabelStatistics } from './hvn-labels';
export { createGpuOfflinePasses, type GpuHvnOptions, GpuOfflinePasses } from './passes';
