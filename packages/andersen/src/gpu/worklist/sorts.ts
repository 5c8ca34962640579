import type { GpuContext } from '@gpumorph/gpu-allocator';
import {
  createMergeSort,
  createRadixSort,
  type MergeSort,
  type MergeSortTuning,
  type RadixSort,
} from '@gpumorph/gpu-primitives';

/**
 * The worklist is sorted by `source >> SOURCE_WORD_SHIFT` within a key's run: a source's bit is in
 * word (source mod 960) / 32 of the element of base source / 960 (30 words of 32 bits an
 * element), so this group is base · 30 + word, and the merges OR each group's bits together.
 */
export const SOURCE_WORD_SHIFT = 5;

/** Default of the tuning's `mergeSortPairs`: every size the merge sort's arrays allow. */
export const MERGE_SORT_PAIRS = 2 ** 32 - 1;

/** The worklist's two sorts (see the tuning's `mergeSortPairs`). */
export interface WorklistSorts {
  readonly radix: RadixSort;
  readonly merge: MergeSort;
  /** The merge sort's tuning, as a key (`''`: the default). */
  readonly mergeTuning: string;
}

/**
 * Worklist sorts that ended solves leave on their context for the next solve there, with their
 * scratch buffers, plans and bind groups (a solve of linux makes dozens of plans, and a plan's
 * parameters buffer took about 0.4 ms to create on the H100 machine). At most
 * {@link MAX_KEPT_SORTERS} a context; they go with it.
 */
const keptSorters = new WeakMap<GpuContext, WorklistSorts[]>();
const MAX_KEPT_SORTERS = 2;

/** A key of a merge sort's tuning for the kept sorters (`''`: the default shape). */
function mergeTuningKey(tuning: MergeSortTuning | undefined): string {
  return tuning === undefined ? '' : `${tuning.workgroupSize ?? ''}x${tuning.itemsPerThread ?? ''}`;
}

/**
 * The worklist's sorts: those a solve left on `ctx` (with `keep`, for the same merge-sort tuning),
 * or new ones.
 *
 * @example
 * ```ts
 * const sorts = takeSorts(ctx, true, undefined);
 * // … solve …
 * releaseSorts(ctx, sorts, true);
 * ```
 */
export function takeSorts(
  ctx: GpuContext,
  keep: boolean,
  tuning: MergeSortTuning | undefined,
): WorklistSorts {
  const mergeTuning = mergeTuningKey(tuning);
  const kept = (keep ? keptSorters.get(ctx) : undefined) ?? [];
  const keptAt = kept.findIndex((sorts) => sorts.mergeTuning === mergeTuning);
  return (
    (keptAt >= 0 ? kept.splice(keptAt, 1)[0] : undefined) ?? {
      radix: createRadixSort(ctx),
      merge: createMergeSort(ctx, tuning ? { tuning } : {}),
      mergeTuning,
    }
  );
}

/**
 * Leaves `sorts` on `ctx` for the next solve (`keep`, while the context has room and lives), or
 * destroys them.
 *
 * @example
 * ```ts
 * releaseSorts(ctx, takeSorts(ctx, false, undefined), false); // destroyed
 * ```
 */
export function releaseSorts(ctx: GpuContext, sorts: WorklistSorts, keep: boolean): void {
  const kept = keptSorters.get(ctx) ?? [];
  if (!keep || ctx.isLost || kept.length >= MAX_KEPT_SORTERS) {
    sorts.radix.destroy();
    sorts.merge.destroy();
  } else {
    kept.push(sorts);
    keptSorters.set(ctx, kept);
  }
}

/** One radix sort of the worklist: by key (the composite or the key alone) or by source group. */
export interface RadixPass {
  readonly bySource: boolean;
  readonly bits: { readonly start: number; readonly end: number };
}

/**
 * The radix sorts by (key, source's word group): one of the composite, or by the group (bits 5
 * and up of the values' array, as keys) and then stably by key.
 *
 * @example
 * ```ts
 * radixPasses(true, 15, 9, 14); // [{ bySource: false, bits: { start: 0, end: 24 } }]
 * ```
 */
export function radixPasses(
  composite: boolean,
  keyBits: number,
  groupBits: number,
  sourceBits: number,
): readonly RadixPass[] {
  return composite
    ? [{ bySource: false, bits: { start: 0, end: keyBits + groupBits } }]
    : [
        ...(groupBits > 0 ? [{ bySource: true, bits: { start: SOURCE_WORD_SHIFT, end: sourceBits } }] : []),
        { bySource: false, bits: { start: 0, end: keyBits } },
      ];
}
