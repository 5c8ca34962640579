import { readdirSync, readFileSync } from 'node:fs';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { createConstraintBuilder, parseConstraintText, solveAndersen } from '../src/index';
import { answerFingerprint, checkProgram, compareAnswers, stressAndersen } from '../src/testing/index';

// The small mode of `npm run stress:andersen` (scripts/stress-andersen.ts), and the programs it has
// found and shrunk (test/fixtures/stress/; `.opaque.` ones solve with their first object opaque,
// contents empty), replayed on every engine. The two shipped ones are where an opaque pointee
// leaves an HCD cycle open: the answers with the `merge` table are larger than the exact one and
// differed between engines with HVN; with the default table they are exact.
const FOUND = new URL('./fixtures/stress/', import.meta.url);
const found = readdirSync(FOUND).filter((f) => f.endsWith('.constraints.txt'));
const load = (file: string) => {
  const program = parseConstraintText(readFileSync(new URL(file, FOUND), 'utf8'));
  const first = program.objectSize.findIndex((size) => size > 0);
  const opaqueObjects = file.includes('.opaque.')
    ? { nodes: [first], contents: 'empty' as const }
    : undefined;
  return { program, opaqueObjects };
};

describe('Andersen differential stress (CPU engine, literal reference, HCD, HVN, raw and after-HCD)', () => {
  it('finds no difference on C-shaped programs', async () => {
    const report = await stressAndersen({ runs: 150, seed: 50, maxNodes: 60, maxConstraints: 120 });
    expect(report.programs).toBe(150);
    expect(report.failure).toBeUndefined();
  });

  it('stops generating programs at the time limit', async () => {
    const report = await stressAndersen({ runs: 1_000_000, seed: 52, timeLimitMs: 1500 });
    expect(report.programs).toBeGreaterThan(0);
    expect(report.programs).toBeLessThan(1_000_000);
    expect(report.failure).toBeUndefined();
  });

  it('compares answers by their sets, whatever the representatives, and fingerprints them', async () => {
    // p = &o; q = p; p = q (one class when the cycle is collapsed); r = &o; s = &t.
    const build = (extra: boolean) => {
      const b = createConstraintBuilder();
      const [o, t] = [b.object('o'), b.object('t')];
      const [p, q, r, s] = ['p', 'q', 'r', 's'].map((name) => b.variable(name)) as [
        number,
        number,
        number,
        number,
      ];
      b.addressOf(p, o).copy(q, p).copy(p, q).addressOf(r, o).addressOf(s, t);
      if (extra) b.addressOf(q, t);
      return b.build();
    };
    const plain = await solveAndersen(build(false), { engine: 'cpu' });
    const rMergedIntoP = await solveAndersen(build(false), {
      engine: 'cpu',
      hcd: { offlineMerges: Uint32Array.of(4, 2), online: new Uint32Array(0) },
    });
    expect(plain.representative(4)).not.toBe(rMergedIntoP.representative(4));
    expect(compareAnswers(plain, rMergedIntoP)).toEqual({ differing: 0, firstNode: -1 });
    expect(answerFingerprint(plain)).toBe(answerFingerprint(rMergedIntoP));
    const larger = await solveAndersen(build(true), { engine: 'cpu' });
    expect(compareAnswers(plain, larger)).toEqual({ differing: 2, firstNode: 2 });
    expect(answerFingerprint(larger)).not.toBe(answerFingerprint(plain));
  });

  it('has the saved programs to replay', () => {
    expect(found.length).toBeGreaterThan(0);
  });

  it.each(found)('replays %s', async (file) => {
    const { program, opaqueObjects } = load(file);
    expect(await checkProgram(program, { opaqueObjects })).toEqual([]);
  });
});

describeGpu('Andersen differential stress on the WebGPU engine', (gpu) => {
  it('finds no difference on C-shaped programs, one context, pools from one element', async () => {
    if (!gpu.available) return;
    const report = await stressAndersen({
      runs: 12,
      seed: 51,
      maxNodes: 40,
      maxConstraints: 80,
      gpu: gpu.ctx,
    });
    expect(report.programs).toBe(12);
    expect(report.failure).toBeUndefined();
  });

  it.each(found)('replays %s', async (file) => {
    if (!gpu.available) return;
    const { program, opaqueObjects } = load(file);
    expect(await checkProgram(program, { opaqueObjects, gpu: gpu.ctx })).toEqual([]);
  });
});
