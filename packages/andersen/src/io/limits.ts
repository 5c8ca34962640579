import { ConstraintLimitError, PROGRAM_LIMITS, type SourcePosition } from '../errors';

/** Throws {@link ConstraintLimitError} at `position()` when `nodeCount` is past {@link PROGRAM_LIMITS}. */
export function checkNodeCount(nodeCount: number, position: () => SourcePosition): void {
  if (nodeCount > PROGRAM_LIMITS.nodes) throw new ConstraintLimitError(position(), 'nodes', nodeCount);
}
