// The reliability contract, enforced by the fuzzer (scripts/fuzz): a small deterministic run here;
// `npm run fuzz -- --minutes N` is the long one. Every CLI analysis command and public reader or
// analysis, on the CPU engine and on WebGPU, fed mutations of the examples and the fixed
// cases: exit status 0-3, no stack trace, no input changed, an end in time, typed library errors,
// and a GPU context that still runs the next analysis after an error.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { acquireGpu } from '@gpumorph/gpu-allocator';
import { gpuRequired } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../../scripts/fuzz/run';
import { type SoakResult, soakMemoryProblems } from '../../../scripts/fuzz/soak';
import { repoRoot } from './helpers';

/** Violations as readable lines, so a failure shows what broke. */
const lines = (report: Awaited<ReturnType<typeof runFuzz>>) =>
  report.violations.map(
    (v) => `[${v.layer} ${v.engine} ${v.target}] ${v.reason}: ${JSON.stringify(v.input.slice(0, 200))}`,
  );

describe('fuzzer, CPU engine', () => {
  it('keeps the contract on every command and entry point', { timeout: 300_000 }, async () => {
    const report = await runFuzz({
      engines: ['cpu'],
      seed: 45,
      casesPerRound: 12,
      processCasesPerRound: 2,
      rounds: 1,
      regressionsInProcesses: false,
    });
    expect(lines(report)).toEqual([]);
    // 20 fixed cases, 12 per command and entry point, 2 in processes, 2 fixed cases in processes.
    expect(report.total).toBeGreaterThanOrEqual(20 + 15 * 12 + 2 + 2);
  });
});

// Without an adapter the WebGPU half is skipped, unless GPUMORPH_REQUIRE_GPU=1 (CI) demands it.
const adapter = await acquireGpu({ require: gpuRequired() });
adapter?.destroy();

describe.runIf(adapter !== null)('fuzzer, WebGPU engine', () => {
  it('keeps the contract, and the shared GPU context survives every error', {
    timeout: 300_000,
  }, async () => {
    const report = await runFuzz({
      engines: ['webgpu'],
      seed: 45,
      casesPerRound: 2,
      processCasesPerRound: 1,
      rounds: 1,
      regressionsInProcesses: false,
    });
    expect(lines(report)).toEqual([]);
    expect(report.total).toBeGreaterThanOrEqual(20 + 2 * 15 + 1 + 2);
  });

  it('runs 200 alternating failing and succeeding analyses on one context: exact, flat, clean exit', {
    timeout: 300_000,
  }, async () => {
    const script = `
      import { runSoak } from './scripts/fuzz/soak.ts';
      const result = await runSoak(200);
      console.log(JSON.stringify(result));
    `;
    const run = await promisify(execFile)(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        '--conditions=@gpumorph/source',
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 240_000 },
    );
    // execFile rejects on a nonzero exit or a signal: a crash at exit fails the test here.
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as SoakResult;
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ succeeded: 100, failed: 100 });
    // Flat: after warm-up, 160 analyses grow the collected heap by under 8 MiB and RSS by under 64 MiB.
    expect(soakMemoryProblems(result)).toEqual([]);
    expect(result.heapBytes.first).toBeGreaterThan(0);
  });
});
