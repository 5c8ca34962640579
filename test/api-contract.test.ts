// The API the three analyses share (docs/architecture.md, "One API across the analyses"). The
// assertions are on types: `npm run typecheck` fails when one analysis drifts from the contract.
import type {
  CpuSolverEvents,
  GpuSolverEvents,
  IterationEvent,
  SolveAndersenOptions,
  SolvedAndersen,
  SolveStatistics,
} from '@gpumorph/andersen';
import type {
  CfaIterationEvent,
  CfaResult,
  CfaSolveOptions,
  CfaSolverEvents,
  CfaStatistics,
} from '@gpumorph/eigencfa';
import type { AnalysisTimings, GpuContext } from '@gpumorph/gpu-allocator';
import type { AnalysisResult, AnalysisStatistics, AnalyzeOptions } from '@gpumorph/octagon';
import { describe, expectTypeOf, it } from 'vitest';

describe('one API across the analyses', () => {
  it('options: `engine` takes webgpu, `gpu` takes a GpuContext, `signal` an AbortSignal', () => {
    expectTypeOf<'webgpu'>().toExtend<NonNullable<SolveAndersenOptions['engine']>>();
    expectTypeOf<'webgpu'>().toExtend<NonNullable<CfaSolveOptions['engine']>>();
    expectTypeOf<'webgpu'>().toExtend<NonNullable<AnalyzeOptions['engine']>>();
    expectTypeOf<NonNullable<SolveAndersenOptions['gpu']>>().toEqualTypeOf<GpuContext>();
    expectTypeOf<NonNullable<CfaSolveOptions['gpu']>>().toEqualTypeOf<GpuContext>();
    expectTypeOf<NonNullable<AnalyzeOptions['gpu']>>().toEqualTypeOf<GpuContext>();
    // octagon's former name of the option, kept for one release.
    expectTypeOf<AnalyzeOptions['ctx']>().toEqualTypeOf<AnalyzeOptions['gpu']>();
    expectTypeOf<NonNullable<SolveAndersenOptions['signal']>>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<NonNullable<CfaSolveOptions['signal']>>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<NonNullable<AnalyzeOptions['signal']>>().toEqualTypeOf<AbortSignal>();
  });

  it('results: `engine` says which engine ran, `timings` where the time went, `statistics` where the analysis iterates', () => {
    expectTypeOf<SolvedAndersen['engine']>().toEqualTypeOf<'cpu' | 'webgpu'>();
    expectTypeOf<CfaResult['engine']>().toEqualTypeOf<'cpu' | 'webgpu'>();
    expectTypeOf<'webgpu'>().toExtend<AnalysisResult['engine']>();
    expectTypeOf<SolvedAndersen['timings']>().toEqualTypeOf<AnalysisTimings>();
    expectTypeOf<CfaResult['timings']>().toEqualTypeOf<AnalysisTimings>();
    expectTypeOf<AnalysisResult['timings']>().toEqualTypeOf<AnalysisTimings>();
    expectTypeOf<SolvedAndersen['statistics']>().toEqualTypeOf<SolveStatistics>();
    expectTypeOf<CfaResult['statistics']>().toEqualTypeOf<CfaStatistics>();
    expectTypeOf<AnalysisResult['statistics']>().toEqualTypeOf<AnalysisStatistics>();
    // Every analysis's statistics say which engine ran, as the result does.
    expectTypeOf<CfaStatistics['engine']>().toEqualTypeOf<CfaResult['engine']>();
    expectTypeOf<AnalysisStatistics['engine']>().toEqualTypeOf<AnalysisResult['engine']>();
  });

  it('events: phase, iteration and done (and grow on the GPU), iteration with elapsedMs', () => {
    expectTypeOf<keyof CpuSolverEvents>().toEqualTypeOf<'phase' | 'iteration' | 'done'>();
    expectTypeOf<keyof GpuSolverEvents>().toEqualTypeOf<'phase' | 'iteration' | 'grow' | 'done'>();
    expectTypeOf<keyof CfaSolverEvents>().toEqualTypeOf<'phase' | 'iteration' | 'grow' | 'done'>();
    expectTypeOf<IterationEvent['elapsedMs']>().toEqualTypeOf<number>();
    expectTypeOf<CfaIterationEvent['elapsedMs']>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<GpuSolverEvents['done']>[0]>().toEqualTypeOf<SolveStatistics>();
    expectTypeOf<Parameters<CfaSolverEvents['done']>[0]>().toEqualTypeOf<CfaStatistics>();
  });
});
