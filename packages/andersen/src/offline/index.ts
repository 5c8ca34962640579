/**
 * Offline passes that shrink a constraint program before solving: hybrid cycle detection's offline
 * half ({@link computeOfflineHcd}, with {@link applyOfflineMerges} to rewrite the program) and
 * hash-based value numbering ({@link computeHvn}); on the GPU with the same results
 * ({@link createGpuOfflinePasses}), or either through {@link runOfflinePasses}.
 *
 * @example
 * ```ts
 * const hcd = computeOfflineHcd(program);
 * const result = await createCpuSolver(program, { hcd }).solve();
 * ```
 * @module
 */

export {
  createGpuOfflinePasses,
  type GpuHvnLabelOptions,
  type GpuHvnLabelStatistics,
  type GpuHvnOptions,
  GpuOfflinePasses,
} from './gpu/index';
export {
  applyOfflineMerges,
  computeOfflineHcd,
  type OfflineHcd,
  type OfflineHcdOptions,
  type OfflineHcdStatistics,
} from './hcd';
export { appendOfflineMerges, type HcdPairs } from './hcd-pairs';
export { computeHvn, type HvnOptions, type HvnResult, type HvnStatistics } from './hvn';
export { type OfflinePassesOptions, type OfflinePassesResult, runOfflinePasses } from './run';
