import { readdirSync, readFileSync } from 'node:fs';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { parseConstraintText } from '../src/index';
import { checkProgram, stressAndersen } from '../src/testing/index';

// The small mode of `npm run stress:andersen` (scripts/stress-andersen.ts), and the programs it has
// found and shrunk (test/fixtures/stress/; `.opaque.` ones solve with their first object opaque,
// contents empty), replayed on every engine. The two shipped ones are where an opaque pointee
// leaves an HCD cycle open: the HCD answers are larger than the exact one, and differ with HVN.
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
