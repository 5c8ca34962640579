import { readFile, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConstraintModelError, EngineUnavailableError, PositionedParseError } from '@gpumorph/andersen';
import { CfaEngineError, MatrixFormatError, SchemeSyntaxError } from '@gpumorph/eigencfa';
import {
  GpuDeviceLostError,
  GpuInternalError,
  GpuLimitError,
  GpumorphError,
  GpuOutOfMemoryError,
  GpuUnavailableError,
  GpuValidationError,
} from '@gpumorph/gpu-allocator';
import { OctagonParseError } from '@gpumorph/octagon';
import { CommanderError } from 'commander';
import { readCliEnvironment } from './environment';
import { type CliIo, colorsFor } from './io';

// The exit statuses of every command (packages/cli/README.md lists them; test/exit-status.test.ts
// holds each command to them). Scripts branch on them, so they never change meaning.

/** Exit status of a run whose analysis found a problem: a verification difference, a failed alias check, an unproved assertion, a failed self-check. */
export const EXIT_FAILURE = 1;
/** Exit status of a command line that could not be understood, or an input file that cannot be read or parsed. */
export const EXIT_USAGE = 2;
/** Exit status when the GPU is missing but required (`--engine webgpu`, `GPUMORPH_REQUIRE_GPU=1`) or WebGPU failed. */
export const EXIT_GPU = 3;
/** Exit status of an unexpected error: a bug in gpumorph (run with `GPUMORPH_DEBUG=1` and report it). */
export const EXIT_INTERNAL = 4;

/**
 * An input file that cannot be read (missing, a directory, not readable).
 *
 * @example
 * ```ts
 * throw new InputFileError('prog.scm', { cause }); // "prog.scm: cannot read the file (ENOENT: …)"
 * ```
 */
export class InputFileError extends GpumorphError {
  override name = 'InputFileError';
  readonly file: string;
  constructor(file: string, options: { cause: unknown }) {
    const why = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`${file}: cannot read the file (${why})`, options);
    this.file = file;
  }
}

/**
 * A command line that cannot be carried out as given, found after commander's checks (e.g. an
 * output file that is one of the inputs): exit status 2.
 *
 * @example
 * ```ts
 * throw new UsageError('--out prog.txt would write over the input prog.txt');
 * ```
 */
export class UsageError extends GpumorphError {
  override name = 'UsageError';
}

/**
 * Refuses an output path that names one of `inputs` (the same file by any path, links included).
 *
 * @example
 * ```ts
 * await refuseToOverwrite('--out', 'prog.pts', ['prog.txt']); // passes
 * ```
 */
export async function refuseToOverwrite(
  option: string,
  output: string,
  inputs: readonly string[],
): Promise<void> {
  const target = await realpath(resolve(output)).catch(() => resolve(output));
  for (const input of inputs) {
    const source = await realpath(resolve(input)).catch(() => resolve(input));
    if (source === target) throw new UsageError(`${option} ${output} would write over the input ${input}`);
  }
}

/**
 * Reads a UTF-8 input file; failures become an {@link InputFileError} (exit status 2).
 *
 * @example
 * ```ts
 * const text = await readInputFile('examples/eigencfa/church.scm');
 * ```
 */
export async function readInputFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new InputFileError(file, { cause });
  }
}

/** Errors in what the user gave: a file that cannot be read or parsed, or breaks the model's rules. */
function isInputError(error: unknown): boolean {
  if (
    error instanceof UsageError ||
    error instanceof InputFileError ||
    error instanceof PositionedParseError ||
    error instanceof ConstraintModelError ||
    error instanceof OctagonParseError ||
    error instanceof SchemeSyntaxError ||
    error instanceof MatrixFormatError
  ) {
    return true;
  }
  // A file the analysis packages opened themselves (Node's fs errors carry `code` and `path`).
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    typeof (error as { path?: unknown }).path === 'string' &&
    (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'EACCES')
  );
}

function isGpuError(error: unknown): boolean {
  return [
    GpuUnavailableError,
    GpuValidationError,
    GpuOutOfMemoryError,
    GpuDeviceLostError,
    GpuInternalError,
    GpuLimitError,
    // The analyses' own words for "this engine cannot run here".
    EngineUnavailableError,
    CfaEngineError,
  ].some((type) => error instanceof type);
}

/**
 * Reports an error thrown by {@link runCli} on `io.stderr` and returns the exit status to use.
 *
 * - commander's `--help` / `--version` exits: nothing printed, status 0;
 * - usage errors (commander's, and unknown bench suites): `error: <message>` in red, status 2;
 * - input files that cannot be read or parsed: `error: file:line:column: …`, status 2;
 * - no adapter where one is required, WebGPU validation, out of memory, device lost: status 3;
 * - other {@link GpumorphError}s and anything else: the message, status 4 (only other errors get
 *   the hint about `GPUMORPH_DEBUG=1`, which prints the stack).
 *
 * Every {@link GpumorphError} line adds the cause's message when it says something more.
 *
 * @example
 * ```ts
 * try {
 *   process.exitCode = await runCli(process.argv);
 * } catch (error) {
 *   process.exitCode = reportCliError(error);
 * }
 * ```
 */
export function reportCliError(
  error: unknown,
  io: Pick<CliIo, 'stderr' | 'color'> = { stderr: process.stderr },
): number {
  const c = colorsFor({ stdout: io.stderr, ...io });
  const debug = readCliEnvironment().debug;
  const line = (text: string) => io.stderr.write(`${c.red(`error: ${text}`)}\n`);
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return 0;
    // `gpumorph` with no command: commander has already printed the help on stderr.
    if (error.code === 'commander.help') return EXIT_USAGE;
    line(`${error.message.replace(/^error:\s*/, '')} (see gpumorph --help)`);
    return EXIT_USAGE;
  }
  if (error instanceof GpumorphError) {
    const cause = causeMessage(error);
    line(cause ? `${error.message} (cause: ${cause})` : error.message);
    if (debug && error.stack) io.stderr.write(`${c.dim(error.stack)}\n`);
    return isInputError(error) ? EXIT_USAGE : isGpuError(error) ? EXIT_GPU : EXIT_INTERNAL;
  }
  const message = error instanceof Error ? error.message : String(error);
  line(message);
  if (isInputError(error)) return EXIT_USAGE;
  if (debug && error instanceof Error && error.stack) {
    io.stderr.write(`${c.dim(error.stack)}\n`);
  } else {
    io.stderr.write(`${c.dim('(unexpected error: set GPUMORPH_DEBUG=1 to print its stack trace)')}\n`);
  }
  return EXIT_INTERNAL;
}

/** The cause's message when it is not already part of the error's own message. */
function causeMessage(error: Error): string | undefined {
  const cause = error.cause;
  if (cause === undefined || cause === null) return undefined;
  // GPUError objects from Dawn are not `Error` instances but do carry a message.
  const raw =
    typeof cause === 'object' && 'message' in cause ? (cause as { message: unknown }).message : cause;
  const text = String(raw).trim();
  if (!text || error.message.includes(text)) return undefined;
  return text.split('\n')[0];
}
