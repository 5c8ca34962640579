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
  ModuleAnalysis,
  UNKNOWN_OBJECT,
} from './analyze';
export { LlvmParseError, UnknownValueError } from './errors';
export {
  type AliasCheckSite,
  type CallSite,
  type ExtractedModule,
  type ExtractOptions,
  extractConstraints,
} from './extract';
export type { IrFunction, IrGlobal, IrInstruction, IrModule, IrType, IrTypedValue, IrValue } from './ir';
export { parseLlvmModule } from './parser';
