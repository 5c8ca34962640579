import { andersenBench, llvmBench } from '@gpumorph/andersen/bench';
import { eigencfaBench } from '@gpumorph/eigencfa/bench';
import { allocatorBench, type BenchSuite } from '@gpumorph/gpu-allocator/bench';
import { primitivesBench } from '@gpumorph/gpu-primitives/bench';
import { octagonBench } from '@gpumorph/octagon/bench';
import { sparseBitVectorBench } from '@gpumorph/sparse-bitvector/bench';

/**
 * The benchmark suites `gpumorph bench` knows, by the name given on the command line. Each package
 * with a benchmark adds its suite here.
 *
 * @example
 * ```ts
 * import { benchSuites } from '@gpumorph/cli';
 * const report = await benchSuites.allocator?.run({ ctx, engines: ['webgpu', 'cpu'], quick: true, log: console.error });
 * ```
 */
export const benchSuites: Readonly<Record<string, BenchSuite>> = {
  allocator: allocatorBench,
  primitives: primitivesBench,
  'sparse-bitvector': sparseBitVectorBench,
  andersen: andersenBench,
  llvm: llvmBench,
  eigencfa: eigencfaBench,
  octagon: octagonBench,
};

/** The names of {@link benchSuites}, in registration order. */
export function benchSuiteNames(): string[] {
  return Object.keys(benchSuites);
}
