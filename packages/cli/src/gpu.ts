/**
 * The one rule every analysis command follows for its engine choice:
 *
 * - `cpu` (and the octagon's `exact` and `f64`): no GPU is looked for;
 * - `webgpu`: any WebGPU adapter, software ones (lavapipe) included; none is exit status 3;
 * - `auto`: a hardware adapter, else the CPU engine; and the CPU engine, with a warning, when the
 *   GPU engine cannot run the input. `GPUMORPH_REQUIRE_GPU=1` turns `auto` into `webgpu` (CI runs
 *   the GPU engines on lavapipe that way) and forbids the fallbacks.
 *
 * The CLI reads `GPUMORPH_REQUIRE_GPU` through its registry (`environment.ts`); the libraries take
 * `require` as an option.
 * @module
 */
import { EngineUnavailableError } from '@gpumorph/andersen';
import { CfaEngineError } from '@gpumorph/eigencfa';
import {
  acquireGpu,
  type GpuContext,
  GpuLimitError,
  GpuOutOfMemoryError,
  GpuUnavailableError,
  PoolCapacityError,
} from '@gpumorph/gpu-allocator';
import { gpuOptionsFromEnvironment, readCliEnvironment } from './environment';
import { type CliIo, colorsFor } from './io';

/** Whether `GPUMORPH_REQUIRE_GPU=1` is set: the run must use a GPU. */
export function gpuRequired(): boolean {
  return readCliEnvironment().requireGpu;
}

/**
 * The GPU context for `engine` under the rule above, or null for the CPU engine. Throws
 * {@link GpuUnavailableError} (exit status 3) naming what demanded the GPU: `--engine webgpu`, or
 * `GPUMORPH_REQUIRE_GPU=1` only when it is set.
 *
 * @example
 * ```ts
 * const gpu = await gpuForEngine('auto'); // null on a machine with only lavapipe
 * ```
 */
export async function gpuForEngine(engine: string): Promise<GpuContext | null> {
  if (engine !== 'auto' && engine !== 'webgpu') return null;
  const required = engine === 'webgpu' || gpuRequired();
  try {
    return await acquireGpu({ ...gpuOptionsFromEnvironment(), require: required, allowSoftware: required });
  } catch (error) {
    if (!(error instanceof GpuUnavailableError)) throw error;
    const demand =
      engine === 'webgpu'
        ? '--engine webgpu needs one'
        : 'GPUMORPH_REQUIRE_GPU=1 forbids falling back to the CPU';
    throw new GpuUnavailableError(`${error.message} (${demand})`, { cause: error.cause });
  }
}

/** Errors that say the GPU engine cannot run this input here (the CPU engine can). */
export function isGpuEngineLimit(error: unknown): boolean {
  return (
    error instanceof EngineUnavailableError ||
    error instanceof CfaEngineError ||
    error instanceof GpuLimitError ||
    error instanceof GpuOutOfMemoryError ||
    error instanceof PoolCapacityError
  );
}

/**
 * Runs `onGpu` when there is a GPU; with `auto` (and no `GPUMORPH_REQUIRE_GPU=1`), a GPU engine
 * that cannot run the input falls back to `onCpu` with one warning line on stderr.
 *
 * @example
 * ```ts
 * const result = await withCpuFallback('auto', gpu, io, () => solve('webgpu'), () => solve('cpu'));
 * ```
 */
export async function withCpuFallback<T>(
  engine: string,
  gpu: GpuContext | null,
  io: Pick<CliIo, 'stderr' | 'color'>,
  onGpu: () => Promise<T>,
  onCpu: () => Promise<T>,
): Promise<T> {
  if (!gpu) return onCpu();
  try {
    return await onGpu();
  } catch (error) {
    if (engine !== 'auto' || gpuRequired() || !isGpuEngineLimit(error)) throw error;
    const c = colorsFor({ stdout: io.stderr, ...io });
    const why = error instanceof Error ? error.message : String(error);
    io.stderr.write(
      `${c.yellow(`warning: the WebGPU engine cannot run this input (${why}); using the CPU engine`)}\n`,
    );
    return onCpu();
  }
}
