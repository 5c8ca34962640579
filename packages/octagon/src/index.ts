export {
  type AnalysisResult,
  type AnalyzeOptions,
  type AnalyzerEngine,
  type AssertionResult,
  analyzeProgram,
  type ProgramPoint,
} from './analyzer/analyze';
export { type Cond, type Expr, type Program, parseProgram, type RelOp, type Stmt } from './analyzer/parse';
export {
  closeF64,
  closeGeneric,
  incrementalCloseGeneric,
  isExactGrid,
  strengthenGeneric,
} from './dbm/closure';
export { halfSize, matPos, rowStart } from './dbm/layout';
export {
  createOctagonDomain,
  formatConstraint,
  type Interval,
  type LinearExpr,
  type NumberLike,
  Octagon,
  type OctagonDomain,
  type OctagonDomainOptions,
  type OctagonKind,
  type OctConstraint,
  type Sign,
  signedNode,
  toRational,
  type WideningOptions,
} from './dbm/octagon';
export { OctagonDimensionError, OctagonError, OctagonParseError, type SourcePosition } from './errors';
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
