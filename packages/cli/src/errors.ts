import { GpumorphError } from '@gpumorph/gpu-allocator';
import { CommanderError } from 'commander';
import { type CliIo, colorsFor } from './io';

/** Exit status of a run that failed (a check failed, a GPU error, no adapter under `GPUMORPH_REQUIRE_GPU=1`). */
export const EXIT_FAILURE = 1;
/** Exit status of a command line that could not be understood (unknown command, option or suite). */
export const EXIT_USAGE = 2;

/**
 * Reports an error thrown by {@link runCli} on `io.stderr` and returns the exit status to use.
 *
 * - commander's `--help` / `--version` exits: nothing printed, status 0;
 * - usage errors (commander's, and unknown bench suites): `error: <message>` in red, status 2;
 * - {@link GpumorphError}s (no adapter, WebGPU validation, out of memory…): `error: <message>`
 *   plus the cause's message when it adds something, status 1;
 * - anything else: the message, and the stack only with `GPUMORPH_DEBUG=1`, status 1.
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
  const debug = process.env.GPUMORPH_DEBUG === '1';
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
    return EXIT_FAILURE;
  }
  const message = error instanceof Error ? error.message : String(error);
  line(message);
  if (debug && error instanceof Error && error.stack) {
    io.stderr.write(`${c.dim(error.stack)}\n`);
  } else {
    io.stderr.write(`${c.dim('(unexpected error: set GPUMORPH_DEBUG=1 to print its stack trace)')}\n`);
  }
  return EXIT_FAILURE;
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
