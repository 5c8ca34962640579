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
 * Whether constraint `i` breaks a rule of {@link checkConstraint}: the same rules, without building
 * a message. checkConstraint costs about 1 µs per call (it makes a closure each time), which is most
 * of the time of reading linux's 400k constraints; this check is inlined by V8 and costs nearly
 * nothing, and checkConstraint runs only to word the error. A property test keeps the two in step.
 */
export function breaksConstraintRule(program: ConstraintProgram, i: number, largest: number): boolean {
  const c = program.constraints;
  const kind = c.kind[i] as number;
  const src = c.src[i] as number;
  const offset = c.offset[i] as number;
  if (kind > ConstraintKind.Offset || (c.dst[i] as number) >= program.nodeCount || src >= program.nodeCount) {
    return true;
  }
  if (kind === ConstraintKind.AddressOf) return (program.objectSize[src] as number) === 0 || offset !== 0;
  if (kind === ConstraintKind.Copy) return offset !== 0;
  return offset > 0 && offset >= largest;
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
  if (!breaksConstraintRule(program, i, largest)) return;
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
