import { GpumorphError } from '@gpumorph/gpu-allocator';
import { PositionedParseError } from '../errors';

/**
 * Textual LLVM IR that this reader cannot parse: the message starts with `file:line:column`.
 *
 * @example
 * ```ts
 * try {
 *   analyzeModule(text, { file: 'a.ll' });
 * } catch (error) {
 *   if (error instanceof LlvmParseError) console.error(error.message); // a.ll:12:7: expected a type, found '='
 * }
 * ```
 */
export class LlvmParseError extends PositionedParseError {
  override name = 'LlvmParseError';
}

/**
 * A query named a value the module does not have (`@g`, or `%x` in `@f`), or a call site that is
 * not a call.
 *
 * @example
 * ```ts
 * try {
 *   analysis.pointsTo('%nope in @main');
 * } catch (error) {
 *   if (error instanceof UnknownValueError) console.error(error.message);
 * }
 * ```
 */
export class UnknownValueError extends GpumorphError {
  override name = 'UnknownValueError';
}
