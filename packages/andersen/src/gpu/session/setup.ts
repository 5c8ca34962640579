import { BufferUsage, type ElementPool } from '@gpumorph/gpu-allocator';
import { subgroupLayoutIsLinear } from '@gpumorph/gpu-primitives';
import type { TeamKind } from '@gpumorph/sparse-bitvector';
import type { ConstraintProgram } from '../../model/program';
import { type HostArrays, takeHostArrays } from '../host-arrays';
import { compositeKeysInto } from '../host-loops';
import {
  CONTROL_ARRAY_COUNT,
  CONTROL_ARRAYS,
  CONTROL_HEAD_WORDS,
  EDGE_SET_SLOTS,
  NODE_SET_SLOTS,
  paramsWords,
  STATUS,
} from '../layout';
import { deltaBitmapWords } from '../module/solver.wgsl';
import type { SolverSettings } from '../options';
import { prepareProgram, writeOnlineRules } from '../prepare/prepare';
import {
  countForGpu,
  type PreparedCounts,
  type PrepareSizes,
  programWords,
  uploadProgram,
} from '../prepare/prepare-gpu';
import { SOURCE_WORD_SHIFT, takeSorts, type WorklistSorts } from '../worklist/sorts';
import type { PairBuffers, SolveResources } from './resources';
import { type SessionSettings, solveSettings } from './settings';

/** `guess_sort_capacity` and `guess_levels` of a submission whose sort and levels the host chose from the rules' counts: any count fits. */
export const NO_GUESS = [0xffffffff, 31] as const;

/** `fold_levels` when no folds were queued with the rules. */
export const NO_FOLDS = 0xffff_ffff;

/** The buffers every kernel binds (the pools' and the worklist's aside). */
export interface SessionBuffers {
  readonly ptsHeads: GPUBuffer;
  readonly edgHeads: GPUBuffer;
  readonly nodes: GPUBuffer;
  readonly rules: GPUBuffer;
  readonly control: GPUBuffer;
  readonly params: GPUBuffer;
}

/** A solve as {@link setUpSession} leaves it: uploaded, its first submission not yet made. */
export interface SessionParts {
  readonly settings: SessionSettings;
  readonly prepared: PreparedCounts;
  readonly points: ElementPool;
  readonly edges: ElementPool;
  readonly buffers: SessionBuffers;
  /** The worklist's first buffers (the session's `worklist` holds the current ones). */
  readonly pairs: PairBuffers;
  readonly sorts: WorklistSorts;
  /** The program as the GPU's preparation reads it, and its sizes (when the GPU prepares it). */
  readonly gpuPrepare: { readonly program: GPUBuffer; readonly sizes: PrepareSizes } | undefined;
  /** Milliseconds of the setup's parts: the host's preparation and the pools. */
  readonly programMs: number;
  readonly poolsMs: number;
}

/**
 * Sets a solve of `program` up: counts (or, with `prepareOnGpu: false`, prepares) the program on
 * the host, creates the pools and buffers, uploads the program and the initial worklist, and
 * takes the worklist's sorts.
 *
 * @example
 * ```ts
 * const parts = await setUpSession(resources, options, program, (e) => solver.emit('grow', e), performance.now());
 * ```
 */
export async function setUpSession(
  resources: SolveResources,
  options: SolverSettings,
  program: ConstraintProgram,
  onGrow: (event: { pool: string; from: number; to: number }) => void,
  started: number,
): Promise<SessionParts> {
  const ctx = resources.ctx;
  // Host memory for the uploads, given back once they are queued (see host-arrays.ts).
  const hostArrays = takeHostArrays(ctx, { keep: resources.keep });
  // The status words, the active lists' words (all 0 at first), then, when the host prepares
  // the program, the union–find (the first per-node array), which prepareProgram writes in place.
  const n = program.nodeCount;
  const hcdTable = options.hcd;
  // The GPU prepares the program (prepare.wgsl.ts) unless told not to: the host only counts the
  // constraint kinds. On the H100 machines the host's preparation took 1.6–3.4 ms of gcc's
  // solve, warm, with the GPU idle (docs/decisions/andersen-gpu-setup-readback.md).
  const prepareOnGpu = options.prepareOnGpu !== false;
  const controlHead = hostArrays.uint32('controlHead', CONTROL_HEAD_WORDS + (prepareOnGpu ? 0 : n));
  const prepared: PreparedCounts = prepareOnGpu
    ? countForGpu(program, hcdTable)
    : prepareProgram(
        program,
        hcdTable,
        hostArrays,
        controlHead.subarray(
          CONTROL_HEAD_WORDS + CONTROL_ARRAYS.parent * n,
          CONTROL_HEAD_WORDS + (CONTROL_ARRAYS.parent + 1) * n,
        ),
      );
  const programMs = performance.now() - started;
  const team: TeamKind = (await subgroupLayoutIsLinear(ctx)) ? 'subgroup' : 'workgroup';
  const settings = solveSettings(ctx, options, n, prepared, team);

  // Pools: empty; the first submission builds the initial sets from their pairs, at most one
  // element a pair (the capacities below hold them all).
  const poolsStarted = performance.now();
  const initialPairs = prepared.initialPairs;
  const { points, edges } = await resources.createPools(
    options,
    n,
    initialPairs.points,
    initialPairs.count - initialPairs.points,
    onGrow,
  );
  const poolsMs = performance.now() - poolsStarted;
  const tables = await createTables(resources, options, settings, prepared, controlHead, hostArrays);
  const pairs = await resources.createPairs(settings.initialPairCapacity);
  const gpuPrepare = await uploadWorklist(resources, program, options, settings, prepared, pairs, hostArrays);
  // Every upload of them is queued (writeBuffer copies its data when called).
  hostArrays.release();
  const params = await resources.buffer(
    'andersen params',
    initialParams(settings, prepared),
    BufferUsage.UNIFORM,
  );
  const sorts = takeSorts(ctx, resources.keep, options.mergeSortTuning);
  resources.sorts = sorts;
  // A sort recorded ahead on a guess may be the merge sort's first in this solve (after rounds
  // the radix sort took, with a smaller mergeSortPairs): its kernels are compiled up front.
  if (settings.mergeSortPairs > 1) await sorts.merge.prepare({ count: 1 });
  return {
    settings,
    prepared,
    points,
    edges,
    buffers: { ...tables, params },
    pairs,
    sorts,
    gpuPrepare,
    programMs,
    poolsMs,
  };
}

/**
 * The heads, object sizes, rules and control buffers. New buffers are zero: only the object sizes,
 * the rules, the status words, the union–find and the initial sets' pairs are uploaded (the host
 * writes about 1 GB/s on the H100 machine); init_state fills the slots and arrays that start empty
 * (NONE) on the GPU.
 */
async function createTables(
  resources: SolveResources,
  options: SolverSettings,
  settings: SessionSettings,
  prepared: PreparedCounts,
  controlHead: Uint32Array,
  hostArrays: HostArrays,
): Promise<Omit<SessionBuffers, 'params'>> {
  const { n, chunkCapacity, deltaBitmap, deltaTableSize, pairTableSize } = settings;
  const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
  // Head slots: P, ΔP, N and H per node, one partial set per extra pull chunk, then the delta_bits
  // bitmap.
  const ptsHeads = await resources.buffer(
    'andersen pts heads',
    new Uint32Array(0),
    storage,
    4 * (NODE_SET_SLOTS * n + chunkCapacity + (deltaBitmap ? deltaBitmapWords(n) : 0)),
  );
  const edgHeads = await resources.buffer(
    'andersen edg heads',
    new Uint32Array(0),
    storage,
    4 * EDGE_SET_SLOTS * n,
  );
  const nodes = await resources.buffer('andersen nodes', prepared.objectSize, storage);
  const rules =
    prepared.rules !== undefined
      ? await resources.buffer('andersen rules', prepared.rules, storage)
      : await onlineRules(resources, options, prepared.ruleCount, prepared.hcdCount, hostArrays);
  controlHead.fill(0, 0, CONTROL_HEAD_WORDS);
  // The initial sets sit in the pending slots like the sets merges leave there: the first update
  // may copy them once, so the guard counts them (at most one element a pair). The pairs are the
  // first submission's worklist.
  const initialPairs = prepared.initialPairs;
  controlHead[STATUS.mergeNeedPts] = initialPairs.points;
  controlHead[STATUS.mergeNeedEdges] = initialPairs.count - initialPairs.points;
  // The GPU's preparation counts its pairs into these words as it appends them.
  controlHead[STATUS.pairCount] = settings.prepareOnGpu ? 0 : initialPairs.count;
  controlHead[STATUS.sortedCount] = settings.prepareOnGpu ? 0 : initialPairs.count;
  // Status, the per-node arrays, the extra pull chunks' owners, the ΔP leader table and the
  // rules' signature table, the table of pushed pairs, then the rule list (activeLists with the
  // delta_bits bitmap), the buffer's last words.
  const control = await resources.buffer(
    'andersen control',
    controlHead,
    storage,
    4 *
      (CONTROL_HEAD_WORDS +
        CONTROL_ARRAY_COUNT * n +
        chunkCapacity +
        2 * deltaTableSize +
        2 * pairTableSize +
        Math.max(1, prepared.ruleCount)),
  );
  return { ptsHeads, edgHeads, nodes, rules, control };
}

/**
 * The rule table when the GPU prepares the program: `prep_emit` writes its first `ruleCount`
 * rules, the host uploads the HCD online pairs `(y, x, 0, 0)` after them, and a kept buffer is
 * cleared past those.
 */
async function onlineRules(
  resources: SolveResources,
  options: SolverSettings,
  ruleCount: number,
  hcdCount: number,
  arrays: HostArrays,
): Promise<GPUBuffer> {
  const words = 4 * Math.max(1, ruleCount + hcdCount);
  const buffer = await resources.reuse(
    'andersen rules',
    4 * words,
    BufferUsage.STORAGE | BufferUsage.COPY_SRC,
    16 * (ruleCount + hcdCount),
  );
  const online = options.hcd?.online;
  if (hcdCount > 0 && online !== undefined) {
    const tail = arrays.uint32('onlineRules', 4 * hcdCount);
    writeOnlineRules(tail, online, hcdCount);
    await resources.ctx.writeBuffer(buffer, 16 * ruleCount, tail);
  }
  return buffer;
}

/**
 * Uploads the program for the GPU's preparation (returned with its sizes), or the initial pairs the
 * host prepared into the worklist.
 */
async function uploadWorklist(
  resources: SolveResources,
  program: ConstraintProgram,
  options: SolverSettings,
  settings: SessionSettings,
  prepared: PreparedCounts,
  pairs: PairBuffers,
  hostArrays: HostArrays,
): Promise<SessionParts['gpuPrepare']> {
  const ctx = resources.ctx;
  const { compositeBits } = settings;
  const initialPairs = prepared.initialPairs;
  if (settings.prepareOnGpu) {
    // The program as the GPU's preparation reads it (written whole: nothing of it is cleared).
    const programBytes = 4 * programWords(program, options.hcd);
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
    const programBuffer = await resources.reuse('andersen program', programBytes, storage, programBytes);
    const sizes = await uploadProgram(ctx, programBuffer, program, options.hcd, hostArrays, compositeBits);
    return { program: programBuffer, sizes };
  }
  if (initialPairs.keys !== undefined && initialPairs.sources !== undefined && initialPairs.count > 0) {
    // In the worklist's layout (see push_pair): the sort key is (key, source's word group) in
    // one word when both fit.
    const sources = initialPairs.sources;
    let keyWords = initialPairs.keys.subarray(0, initialPairs.count);
    if (compositeBits > 0) {
      keyWords = compositeKeysInto(
        hostArrays.uint32('compositeKeys', keyWords.length),
        keyWords,
        sources,
        keyWords.length,
        compositeBits,
        SOURCE_WORD_SHIFT,
      );
    }
    await ctx.writeBuffer(pairs.keys, 0, keyWords);
    await ctx.writeBuffer(pairs.values, 0, sources.subarray(0, initialPairs.count));
  }
  return undefined;
}

/** The params buffer's first contents (see PARAMS_FIELDS). */
function initialParams(settings: SessionSettings, prepared: PreparedCounts): Uint32Array {
  const { keyBits, compositeBits, composite, groupBits, pairTableSize } = settings;
  return paramsWords({
    n: settings.n,
    hcd_start: prepared.ruleCount,
    hcd_count: prepared.hcdCount,
    pair_capacity: settings.initialPairCapacity,
    base_bits: compositeBits,
    pull_chunk: settings.pullChunk,
    max_chunks: settings.maxPullChunks,
    chunk_capacity: settings.chunkCapacity,
    table_mask: settings.deltaTableSize - 1,
    sort_key_bits: keyBits + compositeBits,
    sort_value_bits: composite ? 0 : groupBits,
    // 0: no table (a table has at least two slots).
    pair_table_mask: Math.max(0, pairTableSize - 1),
    // The sort and partial-merge levels of a guessed submission (see sort_gate): none yet.
    guess_sort_capacity: NO_GUESS[0],
    guess_levels: NO_GUESS[1],
    // The host's grow-ahead test, for rules_gate (0 when not an integer: rulesAhead is off).
    grow_below: settings.growBelowWord,
    // None queued yet.
    fold_levels: NO_FOLDS,
  });
}
