/**
 * Result types of the readers that are not a {@link ConstraintProgram}: the HCD table and a
 * reference (or computed) points-to solution.
 * @module
 */
import type { OpaqueObjects } from '../model/opaque';
import type { ConstraintProgram } from '../model/program';

/**
 * The two sections of a Hardekopf `_hcd.txt` file, as flat `y,x` pairs.
 *
 * @example
 * ```ts
 * const hcd = parseHardekopfHcd('# offline\n1\n7,3\n# online\n1,1\n9,4\n');
 * hcd.offlineMerges; // Uint32Array [7, 3]: rep(7) = 3
 * hcd.online;        // Uint32Array [9, 4]: every node 4 points to is pointer-equivalent to 9
 * ```
 */
export interface HcdTable {
  /** Pairs `y, x` (flattened): offline merges, rep(y) = x, already applied in `_after_hcd` constraints. */
  readonly offlineMerges: Uint32Array;
  /** Pairs `y, x` (flattened): online HCD, every node that x points to is pointer-equivalent to y. */
  readonly online: Uint32Array;
}

/** One class of a solution: every variable of `variables` has exactly the points-to set `pointsTo`. */
export interface SolutionClass {
  readonly variables: Uint32Array;
  readonly pointsTo: Uint32Array;
}

/**
 * A points-to solution grouped by equal sets, as in a Hardekopf `_correct_soln_001.txt` file or the
 * `gpumorph-points-to 1` format.
 *
 * @example
 * ```ts
 * const solution = parsePointsTo('gpumorph-points-to 1\nnodes 3\n0 2 => 1\n1 =>\n');
 * solution.classes[0]; // { variables: [0, 2], pointsTo: [1] }
 * ```
 */
export interface ReferenceSolution {
  readonly nodeCount: number;
  readonly classes: readonly SolutionClass[];
}

/** Anything that answers points-to queries: a solver's result, or {@link pointsToOfSolution}. */
export interface PointsToSource {
  readonly nodeCount: number;
  pointsTo(variable: number): ArrayLike<number>;
}

/** The files {@link readHardekopf} read, by role. */
export interface HardekopfFiles {
  readonly nodes: string;
  readonly constraints: string;
  readonly hcd?: string;
  readonly solution?: string;
}

/** What {@link readHardekopf} returns. */
export interface HardekopfInput {
  readonly program: ConstraintProgram;
  readonly hcd?: HcdTable;
  readonly solution?: ReferenceSolution;
  readonly files: HardekopfFiles;
  /**
   * The convention for node 1, the unknown target of integer-to-pointer casts: pass it to
   * `solveAndersen(program, { opaqueObjects })`. Contents `empty` by default (the reference
   * solutions' convention), `tracked` with `readHardekopf(…, { unknownTarget: 'tracked' })`; no
   * nodes when node 1 is not an object.
   */
  readonly opaqueObjects: OpaqueObjects;
}
