/**
 * `@gpumorph/cli` as a library: run the `gpumorph` command line in-process. The benchmark suites
 * of `gpumorph bench` are no part of this API: they live in the private `@gpumorph/bench`
 * workspace, which this package's build bundles into `dist/`.
 *
 * @example
 * ```ts
 * import { runCli } from '@gpumorph/cli';
 * const status = await runCli(['node', 'gpumorph', 'doctor', '--json']);
 * ```
 * @module
 */
export { createProgram, runCli } from './cli';
export type { AndersenSolveReport, ConstraintCounts } from './commands/andersen';
export type { AndersenLlReport } from './commands/andersen-ll';
export type { CfaReport } from './commands/cfa';
export { type DoctorOptions, type DoctorReport, runDoctor } from './commands/doctor';
export type { OctagonReport } from './commands/octagon';
export { runSelfCheck, type SelfCheckOptions, type SelfCheckResult } from './doctor/self-check';
export { SOFTWARE_ADAPTER_STEPS } from './doctor/software-adapter';
export { type ProbeOutcome, type ProbeVerdict, probeRequests, verifyProbe } from './doctor/verify';
export {
  EXIT_FAILURE,
  EXIT_GPU,
  EXIT_INTERNAL,
  EXIT_USAGE,
  InputFileError,
  readInputFile,
  reportCliError,
  UsageError,
} from './errors';
export { type Align, type Column, formatBytes, formatNumber, renderTable, visibleLength } from './format';
export { type CliIo, type Colors, colorsFor, processIo, type TextSink } from './io';
export { createProgress, type Progress, type ProgressOptions } from './progress';
export { type AnalysisReport, writeReport } from './report';
export { VERSION } from './version';
