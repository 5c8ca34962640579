import pc from 'picocolors';

/** Something text can be written to: `process.stdout`, `process.stderr`, or a test's buffer. */
export interface TextSink {
  write(text: string): unknown;
  /** True for a terminal; progress bars are drawn only there. */
  readonly isTTY?: boolean;
}

/**
 * Where the CLI writes. Results go to `stdout` (so `--json` output can be piped), progress and
 * diagnostics to `stderr`.
 *
 * @example
 * ```ts
 * let out = '';
 * const io: CliIo = { stdout: { write: (s) => (out += s) }, stderr: process.stderr, color: false };
 * await runCli(['node', 'gpumorph', 'doctor', '--json'], io);
 * ```
 */
export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** Use ANSI colours (default: picocolors' detection, which honours `NO_COLOR` and `FORCE_COLOR`). */
  readonly color?: boolean;
}

/** The picocolors functions, on or off. */
export type Colors = ReturnType<typeof pc.createColors>;

/** The process's own streams. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr };
}

/** Colour functions for `io` (all identity functions when colour is off). */
export function colorsFor(io: CliIo): Colors {
  return pc.createColors(io.color ?? pc.isColorSupported);
}
