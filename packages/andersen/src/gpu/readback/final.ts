import { type ElementPool, POOL_HEADER_WORDS } from '@gpumorph/gpu-allocator';
import { ELEMENT_WORDS } from '@gpumorph/sparse-bitvector';
import { checkFatal } from '../errors';
import { CONTROL_ARRAYS, CONTROL_HEAD_WORDS, STATUS } from '../layout';
import type { SolveResources } from '../session/resources';
import type { SessionSettings } from '../session/settings';
import type { SessionBuffers } from '../session/setup';
import type { RunResult, Submitter, Worklist } from '../session/submitter';
import { adoptSets, readSets } from './readback';

/**
 * A worklist source buffer of up to this size is copied out whole with the submission that lays
 * the live sets out in it, of which the host keeps the bytes they took (one round trip, where a
 * larger buffer is read after it, only as far as the sets reach).
 */
const LIVE_READ_WITH_LAYOUT_BYTES = 16 * 2 ** 20;

/** What the final readback returns: the result's sets and what the report says of it. */
export type FinalSets = ReturnType<typeof adoptSets> & {
  readonly readbackBytes: number;
  readonly touchedReadback: boolean;
  readonly pointsUsed: number;
  readonly edgesUsed: number;
  /** The status words after the layout (the offline merges the GPU's preparation counted). */
  readonly status: Uint32Array;
  /** Layouts of the live sets: 0 (the whole pool read), 1, or 2 when the first did not fit. */
  readonly liveLayouts: number;
  /** Milliseconds until the sets were read (before the host adopted them). */
  readonly readMs: number;
};

/**
 * Reads back the union–find and the representatives' P sets. The pool holds every ΔP, N and
 * partial set ever built (bump allocation), 3.6–5.8× the live sets on python, php and linux: the
 * GPU first copies the live lists one after another into the worklist's source buffer, so that
 * only they cross the bus; the whole pool is read only when they would not fit a binding.
 *
 * One submission lays the live sets out (live_count reserves each distinct set's elements,
 * live_copy copies them there, unless they do not fit the buffer), flattens the union–find and
 * copies out the union–find, the heads, both pool headers and the leaders; and, where the
 * worklist's source buffer is small, the buffer itself, of which the host keeps the bytes the
 * sets took. The host neither lays the sets out between two submissions nor walks every node
 * after them.
 *
 * @example
 * ```ts
 * const { parent, sets } = await readFinalSets({ submitter, resources, settings, buffers, worklist, points, edges });
 * ```
 */
export async function readFinalSets(o: {
  readonly submitter: Submitter;
  readonly resources: SolveResources;
  readonly settings: SessionSettings;
  readonly buffers: SessionBuffers;
  readonly worklist: Worklist;
  readonly points: ElementPool;
  readonly edges: ElementPool;
}): Promise<FinalSets> {
  const transferStarted = performance.now();
  const { resources, settings, worklist } = o;
  const ctx = resources.ctx;
  const { n, compactReadback: compactOption, touchFrom } = settings;
  const elementBytes = ELEMENT_WORDS * 4;
  // live_count writes each set's head and length into the worklist's keys: 2n words.
  if (worklist.capacity < 2 * n) {
    worklist.capacity = 2 * n;
    worklist.pairs = await resources.createPairs(worklist.capacity, worklist.pairs);
  }
  // A buffer that could hold sets large enough for touched memory is read after the layout,
  // only as far as they reach.
  const valuesWithLayout = (bytes: number) =>
    compactOption && bytes <= LIVE_READ_WITH_LAYOUT_BYTES && bytes < touchFrom ? bytes : 0;
  let laid = await layOut(o, valuesWithLayout(worklist.pairs.values.size));
  // live_copy checked every list it laid out (a corrupt one is fatal here).
  checkFatal(laid.status);
  const live = laid.status[STATUS.liveElements] as number;
  const liveBytes = live * elementBytes;
  const compacted =
    compactOption && liveBytes <= Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  const valuesRoom = Math.floor(worklist.pairs.values.size / elementBytes);
  let liveLayouts = compacted ? 1 : 0;
  if (compacted && live > valuesRoom) {
    liveLayouts++;
    // The sets did not fit, so live_copy left them: lay them out again in a buffer that holds them.
    for (const mapped of laid.mapped) mapped.take(0);
    worklist.pairs = await resources.createPairs(
      worklist.capacity,
      worklist.pairs,
      Math.max(worklist.capacity, live * ELEMENT_WORDS),
    );
    // Its counters start again at 0: liveElements and the counts after it, through liveShared.
    await ctx.writeBuffer(
      o.buffers.control,
      STATUS.liveElements * 4,
      new Uint32Array(STATUS.liveShared - STATUS.liveElements + 1),
    );
    laid = await layOut(o, 0);
    checkFatal(laid.status);
  }
  const read = await readSets({
    ctx,
    nodeCount: n,
    laid,
    compacted,
    liveBytes,
    touchFrom,
    toucher: resources.toucher,
    values: worklist.pairs.values,
    ptsHeads: o.buffers.ptsHeads,
    points: o.points,
  });
  const readMs = performance.now() - transferStarted;
  return {
    ...adoptSets(read, laid, compacted, n),
    readbackBytes: read.readbackBytes,
    touchedReadback: read.touchedReadback,
    pointsUsed: read.pointsUsed,
    edgesUsed: read.edgesUsed,
    status: laid.status,
    liveLayouts,
    readMs,
  };
}

/** The submission that lays the live sets out and copies them (and `valuesBytes` of the worklist's sources) out. */
function layOut(o: Parameters<typeof readFinalSets>[0], valuesBytes: number): Promise<RunResult> {
  const { settings, buffers, worklist } = o;
  const { n, shareEqualSets } = settings;
  const control = buffers.control;
  const headerBytes = POOL_HEADER_WORDS * 4;
  const arrayAt = (name: keyof typeof CONTROL_ARRAYS) => CONTROL_HEAD_WORDS + CONTROL_ARRAYS[name] * n;
  return o.submitter.run(
    'andersen live sets',
    [
      ...(shareEqualSets ? (['delta_clear', 'live_leaders'] as const) : []),
      'live_count',
      ...(settings.compactReadback ? (['live_copy'] as const) : []),
    ],
    {
      reads: [
        { buffer: control, byteOffset: arrayAt('parent') * 4, byteLength: n * 4 },
        { buffer: worklist.pairs.keys, byteOffset: 0, byteLength: n * 4 },
        { buffer: o.points.header, byteOffset: 0, byteLength: headerBytes },
        { buffer: o.edges.header, byteOffset: 0, byteLength: headerBytes },
        ...(shareEqualSets
          ? [{ buffer: control, byteOffset: arrayAt('deltaLeader') * 4, byteLength: n * 4 }]
          : []),
      ],
      mappedReads:
        valuesBytes > 0 ? [{ buffer: worklist.pairs.values, byteOffset: 0, byteLength: valuesBytes }] : [],
    },
  );
}
