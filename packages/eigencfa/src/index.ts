/**
 * `@gpumorph/eigencfa`: 0CFA as sparse Boolean linear algebra (EigenCFA, POPL'11) — a Scheme front
 * end, binary CPS with abstract Church encodings, the Fun/Arg1/Arg2 look-up vectors, an exact CPU
 * worklist engine, a WebGPU engine, a reference oracle and the Van Horn–Mairson generator.
 *
 * @example
 * ```ts
 * import { analyzeScheme } from '@gpumorph/eigencfa';
 * const result = await analyzeScheme('(define (id x) x) (id (lambda (y) y))', { engine: 'cpu' });
 * for (const v of result.source.variables) console.log(v.name, v.flow.map(flowValueText));
 * ```
 * @module
 */
export { type AnalyzeSchemeOptions, analyzeScheme, type SchemeAnalysis } from './analyze';
export {
  type AbstractStore,
  collectCalls,
  decompileMatrices,
  referenceCfa,
  referenceStore,
} from './cpu/reference';
export { type CpuSparseHooks, type CpuSparseStatistics, SMALL_ROW, solveCpuSparse } from './cpu/sparse';
export {
  CfaAbortedError,
  CfaEngineError,
  EigenCfaError,
  formatPos,
  MatrixFormatError,
  SchemeSyntaxError,
  SchemeSyntaxErrors,
  type SourcePos,
} from './errors';
export {
  type CompiledScheme,
  type CompileOptions,
  compileScheme,
  describeLambda,
  type FlowValue,
  flowValueText,
  type SourceCallRow,
  type SourceResults,
  type SourceVariableRow,
  sourceResults,
} from './frontend/compile';
export {
  type CpsCall,
  type CpsExp,
  type CpsLam,
  type CpsOptions,
  type CpsOrigin,
  type CpsProgram,
  type CpsRef,
  type CpsVar,
  convertToCps,
  type NumberedProgram,
  numberProgram,
} from './frontend/cps';
export {
  type Core,
  curriedApp,
  type ExpandedProgram,
  expandProgram,
  type LambdaOrigin,
  type OutsideModel,
  type SourceCallSite,
  type SourceVar,
  type SourceVarKind,
} from './frontend/expand';
export { Libraries, type LibraryResolver, type LibrarySource } from './frontend/libraries';
export { CALLING, type CalledArgument, type CallingProcedure, PRELUDE } from './frontend/prelude';
export {
  BASIC_PRIMITIVES,
  CONSTRUCTORS,
  OUTSIDE_MODEL,
  PRIMITIVES,
  type PrimitiveEffect,
  primitiveEffect,
} from './frontend/primitives';
export { type Datum, datumToString, readScheme } from './frontend/reader';
export { runTrampoline, type Tramp } from './frontend/trampoline';
export { type VhmVariant, vanHornMairson, vanHornMairsonFile } from './generator/vhm';
export {
  formatExpectedStore,
  formatMat,
  formatParams,
  MAX_MATRIX_LAMBDAS,
  matricesFromTexts,
  parseExpectedStore,
  parseMat,
  parseParams,
  readMatricesDir,
  writeMatricesDir,
} from './matrix/io';
export {
  ARITY_ANY,
  arityAccepts,
  arityClass,
  arityMask,
  type CfaArity,
  type CfaMatrices,
  createCfaMatrices,
  rowName,
  termCount,
} from './matrix/program';
export {
  type CfaEngine,
  type CfaIterationEvent,
  type CfaPhase,
  type CfaResult,
  type CfaSolveOptions,
  CfaSolver,
  type CfaSolverEvents,
  type CfaStatistics,
  createCfaSolver,
  solveCfa,
} from './solve';
export { CfaStore, firstDifference, storeFromRows } from './store';
export { type CfaBufferPool, createCfaBufferPool } from './webgpu/buffer-pool';
export { solveWebGpu, type WebGpuSolveOptions, type WebGpuStatistics } from './webgpu/delta';
export { type StoreGeometry, storeGeometry } from './webgpu/layout';
