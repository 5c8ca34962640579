import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import type { GpuSolveReport, SubmissionKind } from '../report';

/** Sums the GPU's busy and idle time over the timed submissions, of the `kinds` in the order their spans were taken (see `timeSubmissions`). */
export async function readSubmissionSpans(
  ctx: GpuContext,
  spanSet: GPUQuerySet,
  kinds: readonly SubmissionKind[],
): Promise<NonNullable<GpuSolveReport['submissionSpans']>> {
  const count = kinds.length;
  const resolved = await ctx.createBuffer({
    label: 'andersen submission timestamps',
    size: Math.max(16, 16 * count),
    usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
  });
  try {
    await ctx.guard('andersen submission timestamps', () => {
      const encoder = ctx.device.createCommandEncoder();
      if (count > 0) encoder.resolveQuerySet(spanSet, 0, 2 * count, resolved, 0);
      ctx.queue.submit([encoder.finish()]);
    });
    const stamps = new BigUint64Array(await ctx.readBuffer(resolved, 0, Math.max(16, 16 * count)));
    // In the GPU's order (that of the first timestamps), whatever the order the host took the
    // spans in: the idle time before a submission is the gap after the one the GPU ran before it.
    const order = kinds
      .map((_, i) => i)
      .sort((a, b) => {
        const [x, y] = [stamps[2 * a] as bigint, stamps[2 * b] as bigint];
        return x < y ? -1 : x > y ? 1 : a - b;
      });
    let busy = 0n;
    let idle = 0n;
    const idleBefore: Record<SubmissionKind, bigint> = {
      rules: 0n,
      'queued rules': 0n,
      'queued round': 0n,
      update: 0n,
      other: 0n,
    };
    const busyEachMs: number[] = [];
    let lastEnd: bigint | undefined;
    for (const i of order) {
      const begin = stamps[2 * i] as bigint;
      const end = stamps[2 * i + 1] as bigint;
      const span = end > begin ? end - begin : 0n;
      busy += span;
      busyEachMs.push(Number(span) / 1e6);
      if (lastEnd !== undefined && begin > lastEnd) {
        idle += begin - lastEnd;
        idleBefore[kinds[i] as SubmissionKind] += begin - lastEnd;
      }
      if (lastEnd === undefined || end > lastEnd) lastEnd = end;
    }
    const ms = (ns: bigint) => Number(ns) / 1e6;
    return {
      submissions: count,
      busyMs: ms(busy),
      idleMs: ms(idle),
      idleBeforeMs: {
        rules: ms(idleBefore.rules),
        'queued rules': ms(idleBefore['queued rules']),
        'queued round': ms(idleBefore['queued round']),
        update: ms(idleBefore.update),
        other: ms(idleBefore.other),
      },
      busyEachMs,
    };
  } finally {
    resolved.destroy();
  }
}
