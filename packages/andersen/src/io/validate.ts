/**
 * The model's constraint rules ({@link checkConstraint}) applied while reading a file, with the
 * error moved to the line and column of the token at fault.
 * @internal
 * @module
 */
import { ConstraintModelError, type SourcePosition } from '../errors';
import { ConstraintKind, type ConstraintProgram, checkConstraint } from '../model/program';

/** The fields of a constraint an error can blame, for {@link checkConstraintAt}'s `locate`. */
export const FIELD_KIND = 0;
export const FIELD_DST = 1;
export const FIELD_SRC = 2;
export const FIELD_OFFSET = 3;

/**
 * The field {@link checkConstraint} blames for constraint `i`, following its order of checks
 * (kind, destination, source, then the kind's own rule).
 */
function faultyField(program: ConstraintProgram, i: number): number {
  const c = program.constraints;
  const kind = c.kind[i] as number;
  if (kind > ConstraintKind.Offset) return FIELD_KIND;
  if ((c.dst[i] as number) >= program.nodeCount) return FIELD_DST;
  const src = c.src[i] as number;
  if (src >= program.nodeCount) return FIELD_SRC;
  if (kind === ConstraintKind.AddressOf && (program.objectSize[src] as number) === 0) return FIELD_SRC;
  return FIELD_OFFSET;
}

/**
 * Runs {@link checkConstraint} on constraint `i`; a break is rethrown positioned at
 * `locate(field)`, the token of the field at fault (called only on failure). `nonObjectAddressHint`
 * is appended to the message of an address-of a non-object.
 */
export function checkConstraintAt(
  program: ConstraintProgram,
  i: number,
  largest: number,
  locate: (field: number) => SourcePosition,
  nonObjectAddressHint = '',
): void {
  try {
    checkConstraint(program, i, largest);
  } catch (error) {
    if (!(error instanceof ConstraintModelError)) throw error;
    const field = faultyField(program, i);
    const nonObjectAddress = field === FIELD_SRC && program.constraints.kind[i] === ConstraintKind.AddressOf;
    const message =
      nonObjectAddress && (program.constraints.src[i] as number) < program.nodeCount
        ? `${error.message}${nonObjectAddressHint}`
        : error.message;
    throw new ConstraintModelError(message, error.constraintIndex, error.node, locate(field));
  }
}
