/**
 * Typed errors of the Andersen package. Malformed input names its file, line and column; a
 * program that breaks the model's rules names the constraint or node at fault.
 *
 * @example
 * ```ts
 * try {
 *   await readHardekopf({ nodes: 'gcc_nodes.txt.gz', constraints: 'gcc_constraints.txt.gz' });
 * } catch (error) {
 *   if (error instanceof ConstraintParseError) console.error(`${error.file}:${error.line}:${error.column}: ${error.reason}`);
 * }
 * ```
 * @module
 */
import { GpumorphError } from '@gpumorph/gpu-allocator';

/** Where in an input file something went wrong; line and column are 1-based. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * Malformed input at a position: the message starts with `file:line:column:`. The base of
 * {@link ConstraintParseError} (constraint files) and `LlvmParseError` (LLVM IR), so one
 * `instanceof` check reports either.
 *
 * @example
 * ```ts
 * if (error instanceof PositionedParseError) console.error(`${error.file}:${error.line}: ${error.reason}`);
 * ```
 */
export class PositionedParseError extends GpumorphError {
  override name = 'PositionedParseError';
  readonly file: string;
  readonly line: number;
  readonly column: number;
  constructor(
    position: SourcePosition,
    /** What is wrong, without the position. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${position.file}:${position.line}:${position.column}: ${reason}`, options);
    this.file = position.file;
    this.line = position.line;
    this.column = position.column;
  }
}

/** An input file is malformed: bad syntax, a truncated or corrupt gzip stream, a missing section, an empty file. */
export class ConstraintParseError extends PositionedParseError {
  override name = 'ConstraintParseError';
}

/**
 * The readers' limits on a constraint program, checked when the count is read, before anything of
 * that size is allocated. The CPU engine holds about 130 bytes per node before any constraint (the
 * linux benchmark has 919,188 nodes), so the node limit keeps a program within a large host's memory.
 */
export const PROGRAM_LIMITS = {
  /** Nodes of one program (2^25). */
  nodes: 2 ** 25,
} as const;

/**
 * An input file declares more than a reader's limit ({@link PROGRAM_LIMITS}); positioned at the
 * count, like the {@link ConstraintParseError} it extends.
 *
 * @example
 * ```ts
 * parseConstraintText('gpumorph-constraints 1\nnodes 200000000\n', 'p.txt');
 * // throws ConstraintLimitError: p.txt:2:7: 200000000 nodes is above the limit of 33554432 nodes
 * ```
 */
export class ConstraintLimitError extends ConstraintParseError {
  override name = 'ConstraintLimitError';
  constructor(
    position: SourcePosition,
    /** Which limit: a key of {@link PROGRAM_LIMITS}. */
    readonly limit: keyof typeof PROGRAM_LIMITS,
    /** What the input asked for. */
    readonly requested: number,
  ) {
    super(position, `${requested} ${limit} is above the limit of ${PROGRAM_LIMITS[limit]} ${limit}`);
  }
}

/**
 * A program breaks a rule of the constraint model: a node id out of range, the address of a node
 * that is not an object, an offset past every object, an object whose fields run past the last node.
 * Readers attach the input position; the builder and {@link validateProgram} the constraint index.
 */
export class ConstraintModelError extends GpumorphError {
  override name = 'ConstraintModelError';
  constructor(
    message: string,
    /** Index of the offending constraint, when one is at fault. */
    readonly constraintIndex?: number,
    /** The offending node id, when one is at fault. */
    readonly node?: number,
    /** Position in the input file, when the program came from one. */
    readonly position?: SourcePosition,
  ) {
    super(position ? `${position.file}:${position.line}:${position.column}: ${message}` : message);
  }
}

/** The solve was cancelled through its `AbortSignal`; `cause` holds the signal's reason. */
export class SolveAbortedError extends GpumorphError {
  override name = 'SolveAbortedError';
}

/** The engine asked for cannot run here (e.g. `webgpu` without an adapter, or not built yet). */
export class EngineUnavailableError extends GpumorphError {
  override name = 'EngineUnavailableError';
}
