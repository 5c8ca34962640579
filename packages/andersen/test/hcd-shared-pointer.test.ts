import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import {
  type AndersenEngine,
  createConstraintBuilder,
  type HcdPairs,
  type SolveAndersenOptions,
  solveAndersen,
  solveAndersenReference,
} from '../src/index';

/**
 * The shape behind mplayer's HVN/no-HVN difference on the WebGPU engine: two online HCD pairs
 * (y1, x1) and (y2, x2) whose pointers x1 and x2 are merged offline (HVN finds them
 * pointer-equivalent) but point nowhere. No cycle closes through `*x`, so y1 and y2 must keep
 * their own sets; the WebGPU engine joined the targets of pairs sharing a pointer class at once,
 * pointer empty or not. With `pointee`, x1 points to an object and the targets do join.
 */
function sharedPointerProgram(pointee: boolean) {
  const b = createConstraintBuilder();
  const a = b.object('a');
  const o = b.object('b');
  const c = b.object('c');
  const [x1, x2, y1, y2, t] = ['x1', 'x2', 'y1', 'y2', 't'].map((n) => b.variable(n)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  b.addressOf(y1, a).addressOf(y2, o).copy(x1, x2).copy(x2, x1);
  // The cycles through *x that the pairs stand for: y1 = *x1; *x1 = y1 (and the same for 2).
  b.load(y1, x1).store(x1, y1).load(y2, x2).store(x2, y2).load(t, x2);
  if (pointee) b.addressOf(x1, c);
  const hcd: HcdPairs = { offlineMerges: Uint32Array.of(x2, x1), online: Uint32Array.of(y1, x1, y2, x2) };
  return { program: b.build(), hcd };
}

async function expectReference(engine: AndersenEngine, options: SolveAndersenOptions = {}) {
  for (const pointee of [false, true]) {
    const { program, hcd } = sharedPointerProgram(pointee);
    const reference = solveAndersenReference(program);
    for (const withHcd of [false, true]) {
      const result = await solveAndersen(program, { ...options, engine, ...(withHcd ? { hcd } : {}) });
      for (let v = 0; v < program.nodeCount; v++) {
        const want = [...(reference[v] as Set<number>)].sort((m, n) => m - n);
        expect([...result.pointsTo(v)], `${engine} pointee=${pointee} hcd=${withHcd} node ${v}`).toEqual(
          want,
        );
      }
    }
  }
}

describe('HCD pairs whose pointers share a class', () => {
  it('join their targets only once the pointer points somewhere (CPU engine)', async () => {
    await expectReference('cpu');
  });
});

describeGpu('HCD pairs whose pointers share a class on the WebGPU engine', (gpu) => {
  it('join their targets only once the pointer points somewhere', async () => {
    if (!gpu.available) return;
    await expectReference('webgpu', { gpu: gpu.ctx });
  });
});
