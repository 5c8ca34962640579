export {
  type AnalysisResult,
  type AnalysisStatistics,
  type AnalyzeOptions,
  type AnalyzerEngine,
  type AnalyzerIterationEvent,
  type AnalyzerPhase,
  type AssertionResult,
  analyzeProgram,
  createProgramAnalyzer,
  ProgramAnalyzer,
  type ProgramAnalyzerEvents,
  type ProgramPoint,
} from './analyzer/analyze';
export {
  type BinOp,
  type Cond,
  type Expr,
  type Procedure,
  type Program,
  parseProgram,
  type RelOp,
  type Stmt,
  type VarType,
} from './analyzer/parse';
export { type ProgramTypes, programTypes, type ScopeTypes, typeOf } from './analyzer/typing';
export { parallelAssign, substitute } from './dbm/apron/assign';
export { addDimensionsAt, expand, fold, forgetVars } from './dbm/apron/dimensions';
export { addEpsilon, addEpsilonBin, joinArray, meetArray } from './dbm/apron/lattice';
export {
  boundLinear,
  type ConstraintOp,
  type LinearConstraint,
  satConstraint,
  satInterval,
} from './dbm/apron/queries';
export {
  deserializeOctagon,
  hashOctagon,
  type SerializedOctagon,
  serializeOctagon,
} from './dbm/apron/serialize';
export {
  assignTree,
  boundTree,
  guardTree,
  type Rounding,
  satTree,
  substituteTree,
  type TreeExpr,
} from './dbm/apron/tree';
export {
  type CloseF64Options,
  closeF64,
  closeGeneric,
  closeMatrix,
  incrementalCloseGeneric,
  isExactGrid,
  strengthenGeneric,
  type Tightness,
} from './dbm/closure';
export { PIVOT_BLOCK, shortestPathsBlocked } from './dbm/closure-blocked';
export {
  type ClosureThreads,
  type ClosureThreadsOptions,
  createClosureThreads,
} from './dbm/closure-threads';
export {
  formatConstraint,
  type Interval,
  type LinearExpr,
  type NumberLike,
  type OctagonKind,
  type OctConstraint,
  type Sign,
  signedNode,
  toRational,
} from './dbm/constraints';
export { closeByBlocks, variableBlocks } from './dbm/decompose';
export { createOctagonDomain, type OctagonDomain, type OctagonDomainOptions } from './dbm/domain';
export { halfSize, matPos, rowStart } from './dbm/layout';
export { createMatrixPool, type MatrixPool, type MatrixPoolOptions } from './dbm/matrix-pool';
export { type IntoOptions, Octagon, type WideningOptions } from './dbm/octagon';
export {
  OctagonAbortedError,
  OctagonDimensionError,
  OctagonError,
  OctagonLimitError,
  OctagonParseError,
  OctagonPoolError,
  PARSE_LIMITS,
  type SourcePosition,
} from './errors';
export {
  createOctagonGpu,
  decodeBound,
  encodeBound,
  f32Up,
  formatOf,
  GpuDbm,
  OctagonGpu,
  type OctagonGpuOptions,
} from './gpu/engine';
export { type EpsilonStep, epsilonWgsl, gpuAddEpsilon, gpuAddEpsilonBin } from './gpu/epsilon';
export type { ElementwiseOp } from './gpu/kernels/octagon.wgsl';
export {
  batchClosureWgsl,
  blockedFwWgsl,
  elementwiseWgsl,
  numberWgsl,
  strengthenWgsl,
  transferWgsl,
} from './gpu/kernels/octagon.wgsl';
export { closureLayout, elementwiseLayout, type GpuNumberFormat, transferLayout } from './gpu/layout';
export {
  type BoundStore,
  type Bounds,
  boundsOf,
  exactBounds,
  f64Bounds,
  type NumberEngine,
} from './numbers/bounds';
export { addUp, halfUp, mulUp, nextDown, nextUp, Rational } from './numbers/rational';
