/**
 * `@gpumorph/cli` as a library: run the `gpumorph` command line in-process, and the registry of
 * benchmark suites that `gpumorph bench` runs.
 *
 * @example
 * ```ts
 * import { runCli } from '@gpumorph/cli';
 * const status = await runCli(['node', 'gpumorph', 'doctor', '--json']);
 * ```
 * @module
 */
export { benchSuiteNames, benchSuites } from './bench/registry';
export { createProgram, runCli } from './cli';
export {
  BENCH_ENGINES,
  type BenchCommandOptions,
  type BenchFile,
  reportText,
  runBench,
} from './commands/bench';
export { type DoctorOptions, type DoctorReport, runDoctor } from './commands/doctor';
export { runSelfCheck, type SelfCheckOptions, type SelfCheckResult } from './doctor/self-check';
export { SOFTWARE_ADAPTER_STEPS } from './doctor/software-adapter';
export { type ProbeOutcome, type ProbeVerdict, probeRequests, verifyProbe } from './doctor/verify';
export { EXIT_FAILURE, EXIT_USAGE, reportCliError } from './errors';
export { type Align, type Column, formatBytes, formatNumber, renderTable, visibleLength } from './format';
export { type CliIo, type Colors, colorsFor, processIo, type TextSink } from './io';
export { createProgress, type Progress, type ProgressOptions } from './progress';
export { VERSION } from './version';
