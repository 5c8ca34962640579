import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeEngines } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { analyzeProgram, OctagonAbortedError, OctagonParseError, parseProgram } from '../src/index';

const examples = join(dirname(fileURLToPath(import.meta.url)), '../../../examples/octagon');
const read = (name: string) => readFileSync(join(examples, name), 'utf8');

/** Expected verdicts per example: one per assertion or bounds check, in order. */
const cases: [string, boolean[]][] = [
  ['count.oct', [true]],
  ['array-fill.oct', [true, true]],
  ['relational.oct', [true, true, true, true]],
  ['binary-search.oct', [true, true, true]],
  ['unproved.oct', [false, false]],
];

describe.each(['exact', 'f64'] as const)('analyzer on the %s engine', (engine) => {
  it.each(cases)('%s', async (name, verdicts) => {
    const r = await analyzeProgram(read(name), { engine, file: name });
    expect(r.assertions.map((a) => a.proved)).toEqual(verdicts);
  });
});

describeEngines('analyzer examples', ['webgpu'], (fixture) => {
  it.each(cases.slice(0, 3))(
    '%s on the GPU engine gives the CPU verdicts and invariants',
    async (name, verdicts) => {
      const r = await analyzeProgram(read(name), { engine: 'webgpu', gpu: fixture.ctx, file: name });
      expect(r.assertions.map((a) => a.proved)).toEqual(verdicts);
      const cpu = await analyzeProgram(read(name), { engine: 'exact', file: name });
      expect(r.points.map((p) => p.invariant)).toEqual(cpu.points.map((p) => p.invariant));
    },
  );

  it('still takes the GPU as `ctx`, the deprecated name of `gpu`', async () => {
    const [name] = cases[0] ?? [];
    if (!name) throw new Error('no example program');
    const viaCtx = await analyzeProgram(read(name), { engine: 'webgpu', ctx: fixture.ctx, file: name });
    const viaGpu = await analyzeProgram(read(name), { engine: 'webgpu', gpu: fixture.ctx, file: name });
    expect(viaCtx.engine).toBe('webgpu');
    expect(viaCtx.points.map((p) => p.invariant)).toEqual(viaGpu.points.map((p) => p.invariant));
  });
});

describe('analyzer cancellation', () => {
  const source = 'i = 0; while (i < 100) { i = i + 1; } assert(i == 100);';

  it('rejects with OctagonAbortedError when the signal is aborted mid-analysis, the reason as cause', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const analysis = analyzeProgram(source, { engine: 'exact', signal: controller.signal });
    controller.abort(reason);
    const error = await analysis.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OctagonAbortedError);
    expect((error as OctagonAbortedError).cause).toBe(reason);
  });

  it('runs to the end with a signal that is never aborted', async () => {
    const r = await analyzeProgram(source, { engine: 'exact', signal: new AbortController().signal });
    expect(r.assertions.map((a) => a.proved)).toEqual([true]);
    // The timings every analysis reports: all of octagon's time counts as solving.
    expect(r.timings).toEqual({ totalMs: r.timeMs, setupMs: 0, solveMs: r.timeMs, readbackMs: 0 });
    // One loop: its head iterates at least twice (the entry, then the widened state), and the
    // closures and joins it needed are counted.
    expect(r.statistics.engine).toBe('exact');
    expect(r.statistics.variables).toBe(1);
    expect(r.statistics.loopIterations).toBeGreaterThanOrEqual(2);
    expect(r.statistics.closures).toBeGreaterThan(0);
    expect(r.statistics.joins).toBeGreaterThan(0);
  });
});

describe('analyzer front end', () => {
  it('reports syntax errors with file:line:column', () => {
    expect(() => parseProgram('x = 1;\ny = ;', 'bad.oct')).toThrow(OctagonParseError);
    expect(() => parseProgram('x = 1;\ny = ;', 'bad.oct')).toThrow(
      /^bad\.oct:2:5: expected an expression, found ';'/,
    );
  });
  it('prints the loop-head invariant of a counting loop', async () => {
    const r = await analyzeProgram('i = 0; while (i < 10) { i = i + 1; }', { engine: 'exact' });
    expect(r.points.find((p) => p.label.startsWith('loop head'))?.box).toEqual([{ lo: '0', hi: '10' }]);
  });
});
