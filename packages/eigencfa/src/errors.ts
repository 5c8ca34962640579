/**
 * Typed errors of the EigenCFA package. Scheme input that the front end cannot read or does not
 * support names its file, line and column; malformed matrix files name the file and the entry.
 *
 * @example
 * ```ts
 * try {
 *   compileScheme('(define (f x) (syntax-rules))', { file: 'f.scm' });
 * } catch (error) {
 *   if (error instanceof SchemeSyntaxError) console.error(error.message); // f.scm:1:15: unsupported form …
 * }
 * ```
 * @module
 */
import { GpumorphError } from '@gpumorph/gpu-allocator';

/** A place in a Scheme source file; line and column are 1-based. */
export interface SourcePos {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * Formats a position as `file:line:column`.
 *
 * @example
 * ```ts
 * formatPos({ file: 'a.scm', line: 2, column: 7 }); // 'a.scm:2:7'
 * ```
 */
export function formatPos(pos: SourcePos): string {
  return `${pos.file}:${pos.line}:${pos.column}`;
}

/** Base class of this package's errors. */
export class EigenCfaError extends GpumorphError {
  override name = 'EigenCfaError';
}

/** The Scheme reader or the front end met text it cannot read, or a form it does not support. */
export class SchemeSyntaxError extends EigenCfaError {
  override name = 'SchemeSyntaxError';
  readonly pos: SourcePos;
  /** The message without the position prefix. */
  readonly reason: string;
  constructor(pos: SourcePos, reason: string, options?: { cause?: unknown }) {
    super(`${formatPos(pos)}: ${reason}`, options);
    this.pos = pos;
    this.reason = reason;
  }
}

/**
 * Every error the front end found in one file (sorted by position); `pos` and `reason` are the
 * first one's, the message lists them all, one per line.
 *
 * @example
 * ```ts
 * try {
 *   compileScheme('(f 1)\n(g 2)', { file: 'a.scm' });
 * } catch (error) {
 *   if (error instanceof SchemeSyntaxErrors) error.errors.map((e) => e.message); // ["a.scm:1:2: unbound …", "a.scm:2:2: …"]
 * }
 * ```
 */
export class SchemeSyntaxErrors extends SchemeSyntaxError {
  override name = 'SchemeSyntaxErrors';
  readonly errors: readonly SchemeSyntaxError[];
  constructor(errors: readonly SchemeSyntaxError[]) {
    const first = errors[0] as SchemeSyntaxError;
    super(first.pos, first.reason);
    this.message = errors.map((e) => e.message).join('\n');
    this.errors = errors;
  }
}

/** A `.mat`, `program-params.lst` or `expected-store.rkt` file is malformed or inconsistent. */
export class MatrixFormatError extends EigenCfaError {
  override name = 'MatrixFormatError';
  readonly file: string;
  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super(`${file}: ${reason}`, options);
    this.file = file;
  }
}

/** An analysis was cancelled through its `AbortSignal`. */
export class CfaAbortedError extends EigenCfaError {
  override name = 'CfaAbortedError';
}

/** The WebGPU engine cannot run this program on this device (e.g. the store exceeds a limit). */
export class CfaEngineError extends EigenCfaError {
  override name = 'CfaEngineError';
}
