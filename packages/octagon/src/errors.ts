import { GpumorphError } from '@gpumorph/gpu-allocator';

/**
 * Base class of the octagon package's errors.
 *
 * @example
 * ```ts
 * try { oct.join(other); } catch (e) { if (e instanceof OctagonError) console.error(e.message); }
 * ```
 */
export class OctagonError extends GpumorphError {
  override name = 'OctagonError';
}

/**
 * Two octagons of different dimensions were combined, or a variable index is out of range.
 *
 * @example
 * ```ts
 * top(2).join(top(3)); // throws OctagonDimensionError: join of octagons over 2 and 3 variables
 * ```
 */
export class OctagonDimensionError extends OctagonError {
  override name = 'OctagonDimensionError';
}

/** A position in an analyzer source file (1-based). */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A syntax error in an analyzer program; the message starts with `file:line:column`.
 *
 * @example
 * ```ts
 * parseProgram('x = ;', 'p.oct'); // throws OctagonParseError: p.oct:1:5: expected an expression, found ';'
 * ```
 */
export class OctagonParseError extends OctagonError {
  override name = 'OctagonParseError';
  constructor(
    readonly position: SourcePosition,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${position.file}:${position.line}:${position.column}: ${reason}`, options);
  }
}

/**
 * An analysis stopped because its `signal` was aborted; the signal's reason is the `cause`.
 *
 * @example
 * ```ts
 * await analyzeProgram(source, { signal: AbortSignal.timeout(1000) }); // may throw OctagonAbortedError
 * ```
 */
export class OctagonAbortedError extends OctagonError {
  override name = 'OctagonAbortedError';
}
