// verifySolution compares every node and the sizes: a reference that leaves variables out gives
// them the empty set, and a reference of another node count is never exact.
import { describe, expect, it } from 'vitest';
import type { PointsToSource, ReferenceSolution } from '../src/index';
import { verifySolution } from '../src/index';

/** A solution where node v points to the objects in `sets[v]`. */
const solution = (sets: number[][]): PointsToSource => ({
  nodeCount: sets.length,
  pointsTo: (v) => Uint32Array.from(sets[v] ?? []),
});
const reference = (nodeCount: number, classes: [number[], number[]][]): ReferenceSolution => ({
  nodeCount,
  classes: classes.map(([variables, pointsTo]) => ({
    variables: Uint32Array.from(variables),
    pointsTo: Uint32Array.from(pointsTo),
  })),
});

describe('verifySolution', () => {
  const solved = solution([[], [0], [0, 1], []]);

  it('is exact when every node matches, the unlisted ones with the empty set', () => {
    const report = verifySolution(
      solved,
      reference(4, [
        [[1], [0]],
        [[2], [0, 1]],
      ]),
    );
    expect(report).toMatchObject({ exact: true, checked: 4, differing: 0 });
  });

  it('is not exact against a reference with no classes', () => {
    const report = verifySolution(solved, reference(4, []));
    expect(report).toMatchObject({ exact: false, checked: 4, differing: 2 });
    expect(report.differences.map((d) => d.variable)).toEqual([1, 2]);
  });

  it('is not exact when the node counts differ, even with every listed set equal', () => {
    const report = verifySolution(
      solved,
      reference(5, [
        [[1], [0]],
        [[2], [0, 1]],
      ]),
    );
    expect(report.exact).toBe(false);
    expect(report.nodeCounts).toEqual({ solution: 4, reference: 5 });
  });

  it('counts a listed variable past the solution as a difference', () => {
    const report = verifySolution(
      solved,
      reference(4, [
        [[1], [0]],
        [[2], [0, 1]],
        [[7], [0]],
      ]),
    );
    expect(report).toMatchObject({ exact: false, differing: 1 });
  });
});
