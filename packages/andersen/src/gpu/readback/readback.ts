import type { ElementPool, GpuContext, MappedRead, PageToucher } from '@gpumorph/gpu-allocator';
import { adoptVectorTable, NO_ELEMENT } from '@gpumorph/sparse-bitvector';
import type { NodeSets } from '../../result/result';
import { STATUS } from '../layout';

/** What the submission that laid the live sets out copied back (see `live_count`, `live_copy`). */
export interface LaidOut {
  readonly status: Uint32Array;
  /** The union–find, the heads, both pool headers and, when sets are shared, the leaders. */
  readonly reads: readonly ArrayBuffer[];
  /** The worklist's source buffer, when it went up with the layout. */
  readonly mapped: readonly MappedRead[];
}

/** The sets read back, as words and heads that {@link adoptSets} turns into the result's sets. */
export interface ReadSets {
  readonly parentWords: ArrayBuffer;
  readonly leaderWords: ArrayBuffer | undefined;
  readonly heads: Uint32Array;
  readonly words: Uint32Array;
  readonly readbackBytes: number;
  readonly touchedReadback: boolean;
  /** Elements each pool had handed out (its header's `next`, at most its capacity). */
  readonly pointsUsed: number;
  readonly edgesUsed: number;
}

/** Elements a pool had handed out, from its header words (`next`, `capacity`). */
function poolUse(header: ArrayBuffer): number {
  const words = new Uint32Array(header);
  return Math.min(words[0] as number, words[1] as number);
}

/**
 * Reads the representatives' sets after the layout: the live sets laid out in the worklist's
 * source buffer (`compacted`: from the bytes that went up with the layout, or read now, into
 * memory that worker threads touched when they are large), or else the whole points-to pool and
 * the heads of every P (a non-representative's head cleared).
 */
export async function readSets(o: {
  readonly ctx: GpuContext;
  readonly nodeCount: number;
  readonly laid: LaidOut;
  readonly compacted: boolean;
  readonly liveBytes: number;
  readonly touchFrom: number;
  readonly toucher: Promise<PageToucher | undefined> | undefined;
  readonly values: GPUBuffer;
  readonly ptsHeads: GPUBuffer;
  readonly points: ElementPool;
}): Promise<ReadSets> {
  const { ctx, nodeCount: n, laid, compacted, liveBytes } = o;
  const [parentWords, headWords, pointsHeader, edgesHeader, leaderWords] = laid.reads as [
    ArrayBuffer,
    ArrayBuffer,
    ArrayBuffer,
    ArrayBuffer,
    ArrayBuffer | undefined,
  ];
  // Besides the sets: the union–find and the heads, and the leaders when sets are shared.
  const indexBytes = (leaderWords ? 12 : 8) * n;
  const pointsUsed = poolUse(pointsHeader);
  const edgesUsed = poolUse(edgesHeader);
  const valuesMapped = laid.mapped[0];
  if (!compacted) {
    valuesMapped?.take(0);
    const [poolHeads, words] = await Promise.all([
      ctx.readBuffer(o.ptsHeads, 0, n * 4),
      o.points.readElements(0, pointsUsed),
    ]);
    const heads = new Uint32Array(poolHeads);
    const parentOf = new Uint32Array(parentWords);
    for (let v = 0; v < n; v++) if (parentOf[v] !== v) heads[v] = NO_ELEMENT;
    // … and the heads of every P.
    const readbackBytes = words.byteLength + indexBytes + 4 * n;
    return {
      parentWords,
      leaderWords,
      heads,
      words,
      readbackBytes,
      touchedReadback: false,
      pointsUsed,
      edgesUsed,
    };
  }
  const heads = new Uint32Array(headWords);
  let words: Uint32Array;
  let touchedReadback = false;
  if (valuesMapped) {
    words = new Uint32Array(valuesMapped.take(liveBytes));
  } else if (liveBytes === 0) {
    words = new Uint32Array(0);
  } else {
    // Large sets go into memory whose pages worker threads touch while the GPU copies (a copy
    // into fresh memory pays a page fault per 4 KiB).
    const toucher = liveBytes >= o.touchFrom ? await o.toucher : undefined;
    const destination = toucher?.allocate(liveBytes);
    if (destination) {
      touchedReadback = true;
      const into = await destination;
      await ctx.staging.readInto(o.values, 0, liveBytes, into);
      words = new Uint32Array(into.buffer, into.byteOffset, liveBytes / 4);
    } else {
      words = new Uint32Array(await ctx.readBuffer(o.values, 0, liveBytes));
    }
  }
  const readbackBytes = liveBytes + indexBytes;
  return { parentWords, leaderWords, heads, words, readbackBytes, touchedReadback, pointsUsed, edgesUsed };
}

/**
 * The result's sets from what {@link readSets} read: the sets stay in the array read back (no
 * copy), and a node's set object is made when the node is asked for, not a million of them at
 * once. live_copy laid each list out from its head over consecutive elements and checked it; the
 * whole pool's lists are walked and checked. Also the union–find (live_count made every node's
 * parent its root), the sets shared with a leader and the representatives' elements.
 */
export function adoptSets(
  read: ReadSets,
  laid: LaidOut,
  compacted: boolean,
  nodeCount: number,
): { parent: Uint32Array; sets: NodeSets; sharedSets: number; pointsToElements: number } {
  const table = adoptVectorTable(read.words, read.heads, compacted ? { laidOut: true } : {});
  const parent = new Uint32Array(read.parentWords);
  // A representative that shares its leader's set reads the leader's list.
  const leaderOf = compacted && read.leaderWords ? new Uint32Array(read.leaderWords) : undefined;
  const sets = leaderOf ? { at: (v: number) => table.at(leaderOf[v] as number) } : table;
  // The representatives' elements (each shared set counted for every representative that has
  // it), which live_copy counted; the whole-pool path walks the lists.
  let pointsToElements =
    (laid.status[STATUS.liveCountLow] as number) + (laid.status[STATUS.liveCountHigh] as number) * 2 ** 32;
  const sharedSets = leaderOf ? (laid.status[STATUS.liveShared] as number) : 0;
  if (!compacted) {
    pointsToElements = 0;
    for (let v = 0; v < nodeCount; v++)
      if (parent[v] === v) pointsToElements += sets.at(v)?.elementCount ?? 0;
  }
  return { parent, sets, sharedSets, pointsToElements };
}
