/**
 * The testing kit every gpumorph package (and any user writing GPU property tests) shares:
 * a GPU fixture that fails a test on any stray WebGPU error, `describeEngines` to run one suite on
 * the CPU and WebGPU engines, and fast-check helpers that pack many cases into one dispatch.
 * Requires `vitest` and `fast-check` (optional peer dependencies).
 *
 * @example
 * ```ts
 * import { describeGpu } from '@gpumorph/gpu-allocator/testing';
 * describeGpu('my kernel', (gpu) => {
 *   it('runs', async () => {
 *     const ctx = gpu.ctx;            // a live GpuContext (the test is skipped without an adapter,
 *     // …                           // and fails instead when GPUMORPH_REQUIRE_GPU=1)
 *   });
 * });
 * ```
 * @module
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { type AcquireGpuOptions, acquireGpu } from '../context/acquire';
import type { GpuContext } from '../context/context';

/** Options of the GPU fixture. */
export interface GpuFixtureOptions {
  /** False runs the suite with the `subgroups` feature off (the workgroup-memory paths). */
  readonly subgroups?: boolean;
  /** Passed on to `acquireGpu`. */
  readonly acquire?: Omit<AcquireGpuOptions, 'subgroups'>;
}

/** What a GPU suite's tests use. */
export interface GpuFixture {
  /** The suite's context; only valid inside tests and hooks. */
  readonly ctx: GpuContext;
  /** True when an adapter was found for this suite. */
  readonly available: boolean;
}

/** Whether the environment demands a GPU (`GPUMORPH_REQUIRE_GPU=1`). */
export function gpuRequired(): boolean {
  return process.env.GPUMORPH_REQUIRE_GPU === '1';
}

const announced = new Set<string>();

/**
 * A `describe` block whose tests get a live {@link GpuContext}. Without an adapter its tests are
 * reported as skipped, unless `GPUMORPH_REQUIRE_GPU=1`, where the suite fails. After each test the
 * fixture fails the test if WebGPU raised any error outside our error scopes (validation errors
 * from the test's own commands included).
 */
export function describeGpu(
  name: string,
  body: (gpu: GpuFixture) => void,
  options: GpuFixtureOptions = {},
): void {
  let ctx: GpuContext | null = null;
  const fixture: GpuFixture = {
    get ctx(): GpuContext {
      if (!ctx) throw new Error(`no GPU context in '${name}' (used outside a test?)`);
      return ctx;
    },
    get available() {
      return ctx !== null;
    },
  };
  const suffix = options.subgroups === false ? ' [no subgroups]' : '';
  describe(`${name}${suffix}`, () => {
    beforeAll(async () => {
      ctx = await acquireGpu({
        ...options.acquire,
        subgroups: options.subgroups ?? true,
        require: gpuRequired(),
      });
      if (ctx) {
        const line = `[gpumorph] GPU suite '${name}${suffix}' runs on ${ctx}`;
        if (!announced.has(line)) {
          announced.add(line);
          console.info(line);
        }
      }
    });
    beforeEach((test) => {
      if (!ctx) test.skip('no WebGPU adapter (set GPUMORPH_REQUIRE_GPU=1 to make this an error)');
      ctx?.clearUncapturedErrors();
    });
    afterEach(() => {
      const errors = [...(ctx?.uncapturedErrors ?? [])];
      if (errors.length > 0) {
        const list = errors.map((e) => `  ${e.name}: ${e.message}`).join('\n');
        ctx?.clearUncapturedErrors();
        throw new Error(`WebGPU reported ${errors.length} error(s) during the test:\n${list}`);
      }
    });
    afterAll(() => {
      ctx?.destroy();
      ctx = null;
    });
    body(fixture);
  });
}

/** The engines an analysis offers. */
export type EngineName = 'cpu' | 'webgpu';

/** Handed to each engine's copy of a suite. */
export interface EngineFixture {
  readonly engine: EngineName;
  /** The GPU context for `webgpu`, `null` for `cpu`. */
  readonly ctx: GpuContext | null;
}

/**
 * Runs one suite once per engine: `cpu` as a plain describe block, `webgpu` inside
 * {@link describeGpu} (skipped without an adapter, failing under `GPUMORPH_REQUIRE_GPU=1`).
 *
 * @example
 * ```ts
 * describeEngines('union', ['cpu', 'webgpu'], (engine) => {
 *   it('matches the model', async () => {
 *     const result = await solve(input, { engine: engine.engine, gpu: engine.ctx });
 *     expect(result).toEqual(expected);
 *   });
 * });
 * ```
 */
export function describeEngines(
  name: string,
  engines: readonly EngineName[],
  body: (engine: EngineFixture) => void,
  options: GpuFixtureOptions = {},
): void {
  for (const engine of engines) {
    if (engine === 'cpu') {
      describe(`${name} [cpu]`, () => body({ engine: 'cpu', ctx: null }));
    } else {
      describeGpu(
        `${name} [webgpu]`,
        (gpu) =>
          body({
            engine: 'webgpu',
            get ctx() {
              return gpu.ctx;
            },
          }),
        options,
      );
    }
  }
}

/** Parameters of {@link assertGpuBatchProperty}. */
export interface GpuBatchParameters {
  /** Most cases packed into one batch (one dispatch). Default 32. */
  readonly batchSize?: number;
  /** Batches to run (fast-check runs). Default 20. */
  readonly numRuns?: number;
  readonly seed?: number;
  /** Extra fast-check parameters. */
  readonly fc?: fc.Parameters<[unknown[]]>;
}

/**
 * Checks a property of a GPU kernel on many random cases at once: fast-check draws batches of
 * cases, `runBatch` runs a whole batch in one dispatch and returns one result per case, and
 * `check` judges each (throw or return false to fail). A failing batch shrinks towards one case.
 *
 * @example
 * ```ts
 * await assertGpuBatchProperty(fc.array(fc.boolean()), async (teams) => runAllocKernel(ctx, teams),
 *   (wants, indices) => expect(indices.filter((i) => i !== INVALID_ELEMENT)).toHaveLength(count(wants)));
 * ```
 */
export async function assertGpuBatchProperty<T, R>(
  arbitrary: fc.Arbitrary<T>,
  runBatch: (cases: T[]) => Promise<readonly R[]>,
  check: (testCase: T, result: R, index: number) => boolean | undefined,
  parameters: GpuBatchParameters = {},
): Promise<void> {
  const property = fc.asyncProperty(
    fc.array(arbitrary, { minLength: 1, maxLength: parameters.batchSize ?? 32 }),
    async (cases: T[]) => {
      const results = await runBatch(cases);
      if (results.length !== cases.length) {
        throw new Error(`runBatch returned ${results.length} results for ${cases.length} cases`);
      }
      cases.forEach((testCase, i) => {
        if (check(testCase, results[i] as R, i) === false) throw new Error(`case ${i} of the batch failed`);
      });
    },
  );
  const fcParameters: fc.Parameters<[T[]]> = {
    numRuns: parameters.numRuns ?? 20,
    ...(parameters.fc as fc.Parameters<[T[]]> | undefined),
  };
  if (parameters.seed !== undefined) fcParameters.seed = parameters.seed;
  await fc.assert(property, fcParameters);
}
