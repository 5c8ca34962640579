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
  UNKNOWN_OBJECT,
} from './analyze';
export { LlvmParseError, UnknownValueError } from './errors';
export {
  type AliasCheckSite,
  type CallSite,
  type ExtractedModule,
  type ExtractOptions,
  extractConstraints,
  type SourceVariable,
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
