/**
 * The benchmark suites of `gpumorph bench`, one module per library, kept out of the published
 * packages: this workspace is private and the CLI's build bundles it (docs/decisions/bench-workspace.md).
 * The suites use only the libraries' public entry points, so they measure what users run.
 * @module
 */
import { allocatorBench } from './allocator';
import { andersenBench } from './andersen';
import { andersenOfflineBench } from './andersen-offline';
import { eigencfaBench } from './eigencfa';
import { llvmBench } from './llvm';
import { octagonBench } from './octagon';
import { primitivesBench } from './primitives';
import { sparseBitVectorBench } from './sparse-bitvector';
import type { BenchSuite } from './types';

export { allocatorBench } from './allocator';
export {
  andersenBench,
  hardekopfDataDirectory,
  PAPER_CPU_S,
  PAPER_CUDA_H100_MS,
  PAPER_GPU_MS,
} from './andersen';
export { andersenOfflineBench } from './andersen-offline';
export { eigencfaBench, PAPER_TABLE_1, parsePaperTable1, vhmDataDirectory } from './eigencfa';
export { collectGarbage, settleGarbage } from './gc';
export { llvmBench, REAL_C_CODE_BASES, realCIrDirectory } from './llvm';
export { octagonBench } from './octagon';
export { primitivesBench } from './primitives';
export { sparseBitVectorBench } from './sparse-bitvector';
export type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';

/**
 * The benchmark suites `gpumorph bench` knows, by the name given on the command line. A new suite is a
 * module of this workspace added here.
 *
 * @example
 * ```ts
 * import { benchSuites } from '@gpumorph/bench';
 * const report = await benchSuites.allocator?.run({ ctx, engines: ['webgpu', 'cpu'], quick: true, log: console.error });
 * ```
 */
export const benchSuites: Readonly<Record<string, BenchSuite>> = {
  allocator: allocatorBench,
  primitives: primitivesBench,
  'sparse-bitvector': sparseBitVectorBench,
  andersen: andersenBench,
  'andersen-offline': andersenOfflineBench,
  llvm: llvmBench,
  eigencfa: eigencfaBench,
  octagon: octagonBench,
};

/** The names of {@link benchSuites}, in registration order. */
export function benchSuiteNames(): string[] {
  return Object.keys(benchSuites);
}
