import type { GpuContext } from '@gpumorph/gpu-allocator';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AndersenEngine,
  applyOfflineMerges,
  applyOpaqueObjects,
  type ConstraintProgram,
  computeOfflineHcd,
  solveAndersen,
  solveAndersenReference,
} from '../src/index';
import { cShapedProgram } from '../src/testing/index';

// The default offline HCD table (`refCycleVariables: 'online'`) against the literal definition of
// Andersen's analysis, on programs with many cycles through one and two dereferences, pointers HVN
// would join that stay empty, and one object opaque (contents `empty`: pointers to it point to
// nothing that can be dereferenced, so a cycle through them never closes). Every node of every
// answer must equal the reference, solved from the raw program and from the program rewritten onto
// the table's offline merges. The 'merge' table is solved too, to show that the programs reach
// the case where it is larger than the least solution.

interface Tally {
  programs: number;
  pairs: number;
  mergeLarger: number;
}

async function checkExact(
  input: ConstraintProgram,
  opaqueOn: boolean,
  engine: Exclude<AndersenEngine, 'auto'>,
  gpu: GpuContext | undefined,
  tally: Tally,
): Promise<void> {
  const first = input.objectSize.findIndex((size) => size > 0);
  const opaque = { nodes: opaqueOn ? [first] : [], contents: 'empty' as const };
  const program = applyOpaqueObjects(input, undefined, opaque).program;
  const reference = solveAndersenReference(program).map((set) => [...set].sort((a, b) => a - b));
  const hcd = computeOfflineHcd(program);
  tally.programs++;
  tally.pairs += hcd.statistics.onlinePairs;
  for (const rewritten of [false, true]) {
    const solved = await solveAndersen(rewritten ? applyOfflineMerges(program, hcd.offlineMerges) : program, {
      engine,
      gpu,
      hcd,
    });
    for (let v = 0; v < program.nodeCount; v++) {
      expect([...solved.pointsTo(v)], `${engine} rewritten=${rewritten} node ${v}`).toEqual(reference[v]);
    }
  }
  const merged = await solveAndersen(program, {
    engine,
    gpu,
    hcd: computeOfflineHcd(program, { refCycleVariables: 'merge' }),
  });
  for (let v = 0; v < program.nodeCount; v++) {
    if (merged.pointsToCount(v) !== reference[v]?.length) {
      tally.mergeLarger++;
      break;
    }
  }
}

describe('default offline HCD against the literal reference (CPU engine)', () => {
  it('is exact on C-shaped programs with cycles through *x that never close', async () => {
    const tally: Tally = { programs: 0, pairs: 0, mergeLarger: 0 };
    await fc.assert(
      fc.asyncProperty(
        cShapedProgram({ maxNodes: 60, maxConstraints: 160, size: 'medium' }),
        fc.boolean(),
        (program, opaqueOn) => checkExact(program, opaqueOn, 'cpu', undefined, tally),
      ),
      { numRuns: 250, seed: 5001 },
    );
    expect(tally.programs).toBe(250);
    // The programs have online pairs, and the 'merge' table over-approximates on some of them.
    expect(tally.pairs).toBeGreaterThan(250);
    expect(tally.mergeLarger).toBeGreaterThan(5);
  });
});

describeGpu('default offline HCD against the literal reference (WebGPU engine)', (gpu) => {
  it('is exact on small C-shaped programs with cycles through *x that never close', async () => {
    if (!gpu.available) return;
    const tally: Tally = { programs: 0, pairs: 0, mergeLarger: 0 };
    await fc.assert(
      fc.asyncProperty(
        cShapedProgram({ maxNodes: 30, maxConstraints: 70, size: 'medium' }),
        fc.boolean(),
        (program, opaqueOn) => checkExact(program, opaqueOn, 'webgpu', gpu.ctx, tally),
      ),
      { numRuns: 25, seed: 5002 },
    );
    expect(tally.programs).toBe(25);
    expect(tally.pairs).toBeGreaterThan(25);
    expect(tally.mergeLarger).toBeGreaterThan(0);
  }, 600_000);
});
