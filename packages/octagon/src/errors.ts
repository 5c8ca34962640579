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

/**
 * A {@link MatrixPool} was asked for more matrices than it holds, or given back one it does not
 * own or already had.
 *
 * @example
 * ```ts
 * const pool = createMatrixPool(4, { capacity: 1 });
 * pool.acquire();
 * pool.acquire(); // throws OctagonPoolError: all 1 matrices of the pool are in use
 * ```
 */
export class OctagonPoolError extends OctagonError {
  override name = 'OctagonPoolError';
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

/**
 * An analyzer program past one of the parser's limits ({@link PARSE_LIMITS}): a literal with too
 * many digits, brackets or blocks nested too deep, an expression tree too deep. Positioned like
 * {@link OctagonParseError}, whose subclass it is, at the token that crossed the limit.
 *
 * @example
 * ```ts
 * parseProgram(`x = ${'('.repeat(1000)}1${')'.repeat(1000)};`); // throws OctagonLimitError: <input>:1:…: nesting deeper than 200
 * ```
 */
export class OctagonLimitError extends OctagonParseError {
  override name = 'OctagonLimitError';
  constructor(
    position: SourcePosition,
    reason: string,
    /** Which limit: a key of {@link PARSE_LIMITS}. */
    readonly limit: keyof typeof PARSE_LIMITS,
  ) {
    super(position, reason);
  }
}

/**
 * The analyzer parser's limits. They bound the recursion of the parser and of every walk over the
 * program tree, so no input can overflow the stack; each is far past a hand-written program.
 */
export const PARSE_LIMITS = {
  /** Digits of one integer literal (literals are exact BigInts up to this size). */
  literalDigits: 1000,
  /** Brackets `( [ {`, unary `-` and `!`, and `else if` nested inside one another. */
  nesting: 200,
  /** Depth of one expression or condition tree: a chain `a + b + … ` of N terms is N deep. */
  expressionDepth: 2000,
  /**
   * Variables of one program (an array's length counts as one). Each statement costs up to a
   * closure, cubic in them: 128 variables with 128 statements took 5 s on the f64 engine, 300
   * with 300 took 61 s.
   */
  variables: 128,
} as const;
