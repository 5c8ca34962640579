/**
 * One entry for the offline passes on either engine.
 * @module
 */
import { acquireGpu, type GpuContext } from '@gpumorph/gpu-allocator';
import { EngineUnavailableError } from '../errors';
import type { ConstraintProgram } from '../model/program';
import { createGpuOfflinePasses } from './gpu/passes';
import { computeOfflineHcd, type OfflineHcd, type OfflineHcdOptions } from './hcd';
import { computeHvn, type HvnOptions, type HvnResult } from './hvn';

/** Options of {@link runOfflinePasses}. */
export interface OfflinePassesOptions {
  /** Where the passes run: `cpu` (default) or `webgpu`; both give the same merges and pairs. */
  readonly engine?: 'cpu' | 'webgpu';
  /** The GPU for `webgpu` (default: one acquired for this call and released after it). */
  readonly gpu?: GpuContext;
  /** HVN's options, or false to skip HVN (default `{}`). */
  readonly hvn?: HvnOptions | false;
  /** Offline HCD's options, or false to skip it (default `{}`). */
  readonly hcd?: OfflineHcdOptions | false;
}

/** What {@link runOfflinePasses} computed: each pass on the program as given. */
export interface OfflinePassesResult {
  readonly engine: 'cpu' | 'webgpu';
  readonly hvn?: HvnResult;
  readonly hcd?: OfflineHcd;
}

/**
 * Runs HVN and offline HCD on `program`, on the CPU or on WebGPU. Each pass sees the program as
 * given; the results are the CPU passes' (`computeHvn`, `computeOfflineHcd`) on either engine.
 * `webgpu` without `gpu` acquires one and throws {@link EngineUnavailableError} when there is none.
 *
 * @example
 * ```ts
 * const { hvn, hcd } = await runOfflinePasses(program, { engine: 'webgpu', gpu: ctx });
 * const table = appendOfflineMerges(hcd, hvn?.merges);
 * const result = await solveAndersen(program, { hcd: table });
 * ```
 */
export async function runOfflinePasses(
  program: ConstraintProgram,
  options: OfflinePassesOptions = {},
): Promise<OfflinePassesResult> {
  const hvnOptions = options.hvn ?? {};
  const hcdOptions = options.hcd ?? {};
  if ((options.engine ?? 'cpu') === 'cpu') {
    return {
      engine: 'cpu',
      ...(hvnOptions === false ? {} : { hvn: computeHvn(program, hvnOptions) }),
      ...(hcdOptions === false ? {} : { hcd: computeOfflineHcd(program, hcdOptions) }),
    };
  }
  const ctx = options.gpu ?? (await acquireGpu({ require: false }));
  if (!ctx) {
    throw new EngineUnavailableError(
      'no WebGPU adapter for the offline passes on the webgpu engine (run `gpumorph doctor`); use engine "cpu"',
    );
  }
  const passes = createGpuOfflinePasses(ctx);
  try {
    const hvn = hvnOptions === false ? undefined : await passes.computeHvn(program, hvnOptions);
    const hcd = hcdOptions === false ? undefined : await passes.computeOfflineHcd(program, hcdOptions);
    return { engine: 'webgpu', ...(hvn ? { hvn } : {}), ...(hcd ? { hcd } : {}) };
  } finally {
    passes.destroy();
    if (!options.gpu) ctx.destroy();
  }
}
