export { type ConstraintBuilder, createConstraintBuilder, type ObjectOptions } from './builder';
export { applyOpaqueObjects, type OpaqueContents, type OpaqueObjects, type OpaqueRewrite } from './opaque';
export {
  CONSTRAINT_KIND_NAMES,
  ConstraintKind,
  type ConstraintList,
  type ConstraintProgram,
  countByKind,
  describeConstraint,
  largestObjectSize,
  validateProgram,
} from './program';
