import type { PointsToSource, ReferenceSolution } from './io/types';

/** One variable whose computed set differs from the reference. */
export interface VerificationDifference {
  readonly variable: number;
  readonly expected: Uint32Array;
  readonly actual: Uint32Array;
}

/** Options of {@link verifySolution}. */
export interface VerifyOptions {
  /**
   * Variables to leave out of the comparison, each with the reason (reported back). The CLI uses
   * it for one documented convention of the Hardekopf reference files: node 1, the target of
   * integer-to-pointer casts, is listed with an empty set there (see the package README).
   */
  readonly ignore?: ReadonlyMap<number, string>;
  /** Differences to keep in the report (all are counted); default 20. */
  readonly keep?: number;
}

/** What {@link verifySolution} found. */
export interface VerificationReport {
  /**
   * True when the node counts agree and every variable not ignored has exactly the reference set
   * (a variable in no class of the reference has the empty set).
   */
  readonly exact: boolean;
  /** The node counts of the solution and of the reference; `exact` is false when they differ. */
  readonly nodeCounts: { readonly solution: number; readonly reference: number };
  /** Variables compared: every node of the solution but the ignored ones. */
  readonly checked: number;
  /** Variables whose set differs. */
  readonly differing: number;
  /** The first differences: the reference's classes in order, then the variables in no class. */
  readonly differences: readonly VerificationDifference[];
  /** Variables left out, with the reason, and whether they would have differed. */
  readonly ignored: readonly {
    readonly variable: number;
    readonly reason: string;
    readonly wouldDiffer: boolean;
  }[];
}

function sameMembers(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Compares a solution with a reference, every node of it (the reference's sets must be sorted,
 * as every reader returns them; `solution.pointsTo` must return sorted members, as results do).
 * Variables merged into a representative are compared through the solution's own answer for them,
 * so offline and online merges need no special casing.
 *
 * @example
 * ```ts
 * const report = verifySolution(result, input.solution);
 * if (!report.exact) console.error(`${report.differing} variables differ`, report.differences[0]);
 * ```
 */
export function verifySolution(
  solution: PointsToSource,
  reference: ReferenceSolution,
  options: VerifyOptions = {},
): VerificationReport {
  const keep = options.keep ?? 20;
  const differences: VerificationDifference[] = [];
  const ignored: { variable: number; reason: string; wouldDiffer: boolean }[] = [];
  let checked = 0;
  let differing = 0;
  const nodeCount = solution.nodeCount;
  const listed = new Uint8Array(nodeCount);
  const compare = (variable: number, expected: Uint32Array) => {
    const actual = variable < nodeCount ? solution.pointsTo(variable) : new Uint32Array(0);
    const same = variable < nodeCount && sameMembers(actual, expected);
    const reason = options.ignore?.get(variable);
    if (reason !== undefined) {
      ignored.push({ variable, reason, wouldDiffer: !same });
      return;
    }
    checked++;
    if (same) return;
    differing++;
    if (differences.length < keep) {
      differences.push({ variable, expected, actual: Uint32Array.from(actual) });
    }
  };
  for (const { variables, pointsTo } of reference.classes) {
    for (const variable of variables) {
      if (variable < nodeCount) listed[variable] = 1;
      compare(variable, pointsTo);
    }
  }
  // A variable in no class of the reference has the empty set there.
  const empty = new Uint32Array(0);
  for (let variable = 0; variable < nodeCount; variable++) if (!listed[variable]) compare(variable, empty);
  const nodeCounts = { solution: nodeCount, reference: reference.nodeCount };
  return {
    exact: differing === 0 && nodeCount === reference.nodeCount,
    nodeCounts,
    checked,
    differing,
    differences,
    ignored,
  };
}

/**
 * The Hardekopf reference files' convention for node 1 (the unknown target of integer-to-pointer
 * casts): listed with an empty points-to set. Pass as `ignore` when verifying against those files.
 */
export const HARDEKOPF_REFERENCE_CONVENTIONS: ReadonlyMap<number, string> = new Map([
  [
    1,
    'node 1 is the target of integer-to-pointer casts; the Hardekopf reference lists its contents as empty',
  ],
]);
