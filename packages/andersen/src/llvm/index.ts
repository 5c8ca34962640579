export {
  ALIAS_CHECK_KINDS,
  type AliasCheckKind,
  aliasCheckKind,
  aliasCheckPasses,
} from './alias-checks';
export {
  type AliasCheckResult,
  type AliasReport,
  type AnalyzeModuleOptions,
  analyzeModule,
  analyzeModules,
  ModuleAnalysis,
  type ModuleSource,
  refinementOf,
  UNKNOWN_OBJECT,
} from './analyze';
export { LlvmParseError, UnknownValueError } from './errors';
export {
  type AliasCheckSite,
  type CallSite,
  type ExtractedModule,
  type ExtractOptions,
  extractConstraints,
  type Refinement,
  type SourceVariable,
  type TypeTest,
} from './extract';
export type {
  IrFunction,
  IrGlobal,
  IrInstruction,
  IrLinkage,
  IrModule,
  IrType,
  IrTypedValue,
  IrValue,
} from './ir';
export { linkModules } from './link';
export { parseLlvmModule } from './parser';
export { findAllocationWrappers } from './wrappers';
