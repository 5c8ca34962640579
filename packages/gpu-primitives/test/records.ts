import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import fc from 'fast-check';
import type { HostRecords, RecordBuffers } from '../src/index';

/** Records that repeat, like ΔP sets do: drawn from a small pool of distinct word lists. */
export const recordsArb = (maxRecords: number, maxLength = 12): fc.Arbitrary<HostRecords> =>
  fc
    .array(fc.array(fc.nat({ max: 2 ** 32 - 1 }), { maxLength }), { minLength: 1, maxLength: 6 })
    .chain((distinct) =>
      fc.array(
        fc.oneof(
          fc.constantFrom(...distinct),
          fc.array(fc.constantFrom(0, 1, 2, 0xffff_ffff), { maxLength: 3 }), // short lists that differ by one word
        ),
        { maxLength: maxRecords },
      ),
    )
    .map(toHostRecords);

export function toHostRecords(lists: readonly (readonly number[])[]): HostRecords {
  const offsets = new Uint32Array(lists.length + 1);
  lists.forEach((list, i) => {
    offsets[i + 1] = (offsets[i] as number) + list.length;
  });
  return { offsets, words: Uint32Array.from(lists.flat()) };
}

/** Uploads host records; returns the buffers and a cleanup function. */
export async function uploadRecords(
  ctx: GpuContext,
  records: HostRecords,
): Promise<RecordBuffers & { destroy(): void }> {
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
  const offsets = await ctx.createBuffer({ label: 'test offsets', size: records.offsets.length * 4, usage });
  const words = await ctx.createBuffer({
    label: 'test words',
    size: Math.max(4, records.words.length * 4),
    usage,
  });
  await ctx.writeBuffer(offsets, 0, records.offsets);
  if (records.words.length > 0) await ctx.writeBuffer(words, 0, records.words);
  return {
    offsets,
    words,
    count: records.offsets.length - 1,
    destroy() {
      offsets.destroy();
      words.destroy();
    },
  };
}
