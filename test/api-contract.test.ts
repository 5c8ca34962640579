// The API the three analyses share (docs/architecture.md, "One API across the analyses"). The
// assertions are on types: `npm run typecheck` fails when one analysis drifts from the contract.
import type {
  CpuSolver,
  CpuSolverEvents,
  GpuSolver,
  GpuSolverEvents,
  IterationEvent,
  SolveAndersenOptions,
  SolvedAndersen,
  SolvePhase,
  SolveStatistics,
} from '@gpumorph/andersen';
import type {
  CfaIterationEvent,
  CfaPhase,
  CfaResult,
  CfaSolveOptions,
  CfaSolver,
  CfaSolverEvents,
  CfaStatistics,
} from '@gpumorph/eigencfa';
import type {
  AnalysisEvents,
  AnalysisGrowEvent,
  AnalysisIterationEvent,
  AnalysisTimings,
  GpuAnalysisEvents,
  GpuContext,
} from '@gpumorph/gpu-allocator';
import type {
  AnalysisResult,
  AnalysisStatistics,
  AnalyzeOptions,
  AnalyzerIterationEvent,
  AnalyzerPhase,
  ProgramAnalyzer,
  ProgramAnalyzerEvents,
} from '@gpumorph/octagon';
import type * as TypedEmitter from 'typed-emitter';
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

  it('events: the names phase, iteration and done (and grow on the GPU), from one generic type', () => {
    expectTypeOf<keyof CpuSolverEvents>().toEqualTypeOf<'phase' | 'iteration' | 'done'>();
    expectTypeOf<keyof GpuSolverEvents>().toEqualTypeOf<'phase' | 'iteration' | 'grow' | 'done'>();
    expectTypeOf<keyof CfaSolverEvents>().toEqualTypeOf<'phase' | 'iteration' | 'grow' | 'done'>();
    expectTypeOf<keyof ProgramAnalyzerEvents>().toEqualTypeOf<'phase' | 'iteration' | 'done'>();
    expectTypeOf<CpuSolverEvents>().toEqualTypeOf<
      AnalysisEvents<SolvePhase, IterationEvent, SolveStatistics>
    >();
    expectTypeOf<CfaSolverEvents>().toEqualTypeOf<
      GpuAnalysisEvents<CfaPhase, CfaIterationEvent, CfaStatistics>
    >();
    expectTypeOf<ProgramAnalyzerEvents>().toEqualTypeOf<
      AnalysisEvents<AnalyzerPhase, AnalyzerIterationEvent, AnalysisStatistics>
    >();
    // The GPU Andersen engine spells its events out; each one has the shared shape.
    type AndersenGpu = GpuAnalysisEvents<SolvePhase, IterationEvent, SolveStatistics>;
    expectTypeOf<GpuSolverEvents['phase']>().toEqualTypeOf<AndersenGpu['phase']>();
    expectTypeOf<GpuSolverEvents['iteration']>().toEqualTypeOf<AndersenGpu['iteration']>();
    expectTypeOf<GpuSolverEvents['grow']>().toEqualTypeOf<AndersenGpu['grow']>();
    expectTypeOf<GpuSolverEvents['done']>().toEqualTypeOf<AndersenGpu['done']>();
  });

  it('events: the same payloads (phase and round; round and elapsedMs; pool, from and to; statistics)', () => {
    expectTypeOf<Parameters<CpuSolverEvents['phase']>>().toEqualTypeOf<[phase: SolvePhase, round: number]>();
    expectTypeOf<Parameters<CfaSolverEvents['phase']>>().toEqualTypeOf<[phase: CfaPhase, round: number]>();
    expectTypeOf<Parameters<ProgramAnalyzerEvents['phase']>>().toEqualTypeOf<
      [phase: AnalyzerPhase, round: number]
    >();
    // Every analysis starts in `setup` and ends in `done`.
    expectTypeOf<'setup' | 'done'>().toExtend<SolvePhase>();
    expectTypeOf<'setup' | 'done'>().toExtend<CfaPhase>();
    expectTypeOf<'setup' | 'done'>().toExtend<AnalyzerPhase>();
    expectTypeOf<IterationEvent>().toExtend<AnalysisIterationEvent>();
    expectTypeOf<CfaIterationEvent>().toExtend<AnalysisIterationEvent>();
    expectTypeOf<AnalyzerIterationEvent>().toExtend<AnalysisIterationEvent>();
    expectTypeOf<IterationEvent['round']>().toEqualTypeOf<number>();
    expectTypeOf<CfaIterationEvent['round']>().toEqualTypeOf<number>();
    expectTypeOf<AnalyzerIterationEvent['round']>().toEqualTypeOf<number>();
    expectTypeOf<IterationEvent['elapsedMs']>().toEqualTypeOf<number>();
    expectTypeOf<CfaIterationEvent['elapsedMs']>().toEqualTypeOf<number>();
    expectTypeOf<AnalyzerIterationEvent['elapsedMs']>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<GpuSolverEvents['grow']>[0]>().toEqualTypeOf<AnalysisGrowEvent>();
    expectTypeOf<Parameters<CfaSolverEvents['grow']>[0]>().toEqualTypeOf<AnalysisGrowEvent>();
    expectTypeOf<Parameters<GpuSolverEvents['done']>[0]>().toEqualTypeOf<SolveStatistics>();
    expectTypeOf<Parameters<CfaSolverEvents['done']>[0]>().toEqualTypeOf<CfaStatistics>();
    expectTypeOf<Parameters<ProgramAnalyzerEvents['done']>[0]>().toEqualTypeOf<AnalysisStatistics>();
    // `done` carries what the result calls `statistics`.
    expectTypeOf<Parameters<CfaSolverEvents['done']>[0]>().toEqualTypeOf<CfaResult['statistics']>();
    expectTypeOf<Parameters<ProgramAnalyzerEvents['done']>[0]>().toEqualTypeOf<
      AnalysisResult['statistics']
    >();
  });

  it('events: typed emitters, and the one-call entry points take them as onPhase and onIteration', () => {
    expectTypeOf<CpuSolver>().toExtend<TypedEmitter.default<CpuSolverEvents>>();
    expectTypeOf<GpuSolver>().toExtend<TypedEmitter.default<GpuSolverEvents>>();
    expectTypeOf<CfaSolver>().toExtend<TypedEmitter.default<CfaSolverEvents>>();
    expectTypeOf<ProgramAnalyzer>().toExtend<TypedEmitter.default<ProgramAnalyzerEvents>>();
    expectTypeOf<NonNullable<SolveAndersenOptions['onPhase']>>().toEqualTypeOf<CpuSolverEvents['phase']>();
    expectTypeOf<NonNullable<CfaSolveOptions['onPhase']>>().toEqualTypeOf<CfaSolverEvents['phase']>();
    expectTypeOf<NonNullable<AnalyzeOptions['onPhase']>>().toEqualTypeOf<ProgramAnalyzerEvents['phase']>();
    expectTypeOf<NonNullable<SolveAndersenOptions['onIteration']>>().toEqualTypeOf<
      CpuSolverEvents['iteration']
    >();
    expectTypeOf<NonNullable<CfaSolveOptions['onIteration']>>().toEqualTypeOf<CfaSolverEvents['iteration']>();
    expectTypeOf<NonNullable<AnalyzeOptions['onIteration']>>().toEqualTypeOf<
      ProgramAnalyzerEvents['iteration']
    >();
  });
});
