import type { GpuContext } from '../context/context';
import { BufferUsage } from '../webgpu-constants';

/** Duration of one labelled compute pass. */
export interface PassTiming {
  readonly label: string;
  readonly ms: number;
}

/** Timings of one measured submission. */
export interface GpuTimings {
  /** `timestamp` when per-pass GPU timestamps were used, else `wall-clock` (submit → completion). */
  readonly method: 'timestamp' | 'wall-clock';
  /** Per-pass durations (timestamps only; empty for wall clock). */
  readonly passes: readonly PassTiming[];
  /** Sum of the pass durations, or the wall-clock time of the submission. */
  readonly totalMs: number;
}

/** Handed to the encode callback of {@link measureGpu}: begins compute passes that are timed. */
export interface PassTimer {
  beginComputePass(encoder: GPUCommandEncoder, label: string): GPUComputePassEncoder;
}

/**
 * Encodes work with `encode`, submits it, waits for completion and returns how long it took on
 * the GPU: per pass from timestamp queries when the device has them (Dawn's quantization is off),
 * else the wall clock from submit to completion.
 *
 * @example
 * ```ts
 * const t = await measureGpu(ctx, (encoder, timer) => {
 *   const pass = timer.beginComputePass(encoder, 'copy');
 *   // … setPipeline, setBindGroup, dispatch
 *   pass.end();
 * });
 * console.log(t.method, t.totalMs);
 * ```
 */
export async function measureGpu(
  ctx: GpuContext,
  encode: (encoder: GPUCommandEncoder, timer: PassTimer) => void,
  options: { label?: string; maxPasses?: number } = {},
): Promise<GpuTimings> {
  const label = options.label ?? 'measured work';
  if (!ctx.features.timestampQuery) {
    const command = await ctx.guard(label, () => {
      const encoder = ctx.device.createCommandEncoder({ label });
      encode(encoder, { beginComputePass: (e, passLabel) => e.beginComputePass({ label: passLabel }) });
      return encoder.finish();
    });
    await ctx.idle();
    const start = performance.now();
    await ctx.submit(label, [command]);
    await ctx.idle();
    return { method: 'wall-clock', passes: [], totalMs: performance.now() - start };
  }
  const maxPasses = options.maxPasses ?? 256;
  const labels: string[] = [];
  const querySet = await ctx.guard(label, () =>
    ctx.device.createQuerySet({ label, type: 'timestamp', count: 2 * maxPasses }),
  );
  const resolve = await ctx.createBuffer({
    label: `${label} timestamps`,
    size: 16 * maxPasses,
    usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
  });
  try {
    await ctx.guard(label, () => {
      const encoder = ctx.device.createCommandEncoder({ label });
      encode(encoder, {
        beginComputePass: (e, passLabel) => {
          const index = labels.length;
          if (index >= maxPasses) throw new RangeError(`${label}: more than ${maxPasses} timed passes`);
          labels.push(passLabel);
          return e.beginComputePass({
            label: passLabel,
            timestampWrites: {
              querySet,
              beginningOfPassWriteIndex: 2 * index,
              endOfPassWriteIndex: 2 * index + 1,
            },
          });
        },
      });
      if (labels.length > 0) encoder.resolveQuerySet(querySet, 0, 2 * labels.length, resolve, 0);
      ctx.queue.submit([encoder.finish()]);
    });
    if (labels.length === 0) {
      await ctx.idle();
      return { method: 'timestamp', passes: [], totalMs: 0 };
    }
    const stamps = new BigUint64Array(await ctx.readBuffer(resolve, 0, 16 * labels.length));
    const passes = labels.map((passLabel, i) => {
      const begin = stamps[2 * i] ?? 0n;
      const end = stamps[2 * i + 1] ?? 0n;
      return { label: passLabel, ms: end > begin ? Number(end - begin) / 1e6 : 0 };
    });
    return { method: 'timestamp', passes, totalMs: passes.reduce((sum, p) => sum + p.ms, 0) };
  } finally {
    querySet.destroy();
    resolve.destroy();
  }
}

/** Median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
