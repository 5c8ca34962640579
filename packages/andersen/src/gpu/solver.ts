import {
  acquireGpu,
  BufferUsage,
  createElementPool,
  type ElementPool,
  encodeDispatch,
  type GpuContext,
  GpumorphError,
  type Kernel,
  type MappedRead,
  type PageToucher,
  POOL_HEADER_WORDS,
  type StagedRead,
  WindowBudget,
} from '@gpumorph/gpu-allocator';
import {
  createMergeSort,
  createRadixSort,
  type MergeSort,
  type MergeSortTuning,
  type RadixSort,
  subgroupLayoutIsLinear,
} from '@gpumorph/gpu-primitives';
import { ELEMENT_WORDS, NO_ELEMENT, type TeamKind } from '@gpumorph/sparse-bitvector';
import { EventEmitter } from 'events';
// A namespace import: typed-emitter is CommonJS with `export default`, which a default import
// mistypes for users on `moduleResolution: node16/nodenext` (the interface sits under `.default`).
import type * as TypedEmitter from 'typed-emitter';
import type { IterationEvent, SolvePhase } from '../cpu/solver';
import { EngineUnavailableError, SolveAbortedError } from '../errors';
import type { ConstraintProgram } from '../model/program';
import { AndersenResult, type SolveStatistics } from '../result/result';
import { DispatchGrids } from './dispatch';
import { DEFAULT_GROW_AHEAD, PoolGrowth } from './growth';
import { type HostArrays, takeHostArrays } from './host-arrays';
import { compositeKeysInto } from './host-loops';
import {
  deltaBitmapWords,
  SOLVER_ENTRY_POINTS,
  type SolverEntryPoint,
  smallSortCapacity,
  smallSortWorkgroupBytes,
} from './module/solver.wgsl';
import {
  CONTROL_ARRAY_COUNT,
  CONTROL_ARRAYS,
  CONTROL_HEAD_WORDS,
  EDGE_SET_SLOTS,
  NODE_SET_SLOTS,
  paramsOffset,
  paramsWords,
  poolWindowShares,
  STATUS,
  teamWorkgroupSize as teamWorkgroupSizeFor,
} from './layout';
import { modulesOf, solverModuleWgsl } from './module/module';
import type { GpuSolverOptions, GpuSolverTuning } from './options';
import { prepareProgram, writeOnlineRules } from './prepare/prepare';
import {
  countForGpu,
  encodePrepare,
  type PreparedCounts,
  type PrepareSizes,
  prepareKernels,
  programWords,
  uploadProgram,
} from './prepare/prepare-gpu';
import { adoptSets, readSets } from './readback/readback';
import {
  type GpuSolvePhase,
  type GpuSolveReport,
  type HostTimes,
  PHASE_OF,
  type SubmissionKind,
} from './report';
import { type PipelineGuess, RoundGuesses } from './rounds/schedule';
import { readSubmissionSpans } from './timing';

/**
 * The GPU solver failed in a way growing a pool cannot fix (a corrupt list, a guard that did not hold).
 *
 * @example
 * ```ts
 * try { await solver.solve(); } catch (e) { if (e instanceof GpuSolverError) console.error(e.message); }
 * ```
 */
export class GpuSolverError extends GpumorphError {
  override name = 'GpuSolverError';
}

/** `guess_sort_capacity` and `guess_levels` of a submission whose sort and levels the host chose from the rules' counts: any count fits. */
const NO_GUESS = [0xffffffff, 31] as const;

/**
 * Folds queued ahead take a class of up to 2^(levels + FOLD_ROOT_LEVELS) children: the levels
 * leave up to 2^FOLD_ROOT_LEVELS roots of it, which merge_data folds one after another. Rules held
 * back for a class the levels did not cover were most of python's held-back rounds (counted on
 * the development machine: classes of 122–1,137 children after merges that needed 3–8 levels).
 */
const FOLD_ROOT_LEVELS = 3;

/**
 * The worklist is sorted by `source >> SOURCE_WORD_SHIFT` within a key's run: a source's bit is in
 * word (source mod 960) / 32 of the element of base source / 960 (30 words of 32 bits an
 * element), so this group is base · 30 + word, and the merges OR each group's bits together.
 */
const SOURCE_WORD_SHIFT = 5;

/** `fold_levels` when no folds were queued with the rules. */
const NO_FOLDS = 0xffff_ffff;

/** Final readbacks from this size on go into memory that worker threads touched first. */
const TOUCHED_READ_BYTES = 16 * 2 ** 20;

/**
 * A worklist source buffer of up to this size is copied out whole with the submission that lays
 * the live sets out in it, of which the host keeps the bytes they took (one round trip, where a
 * larger buffer is read after it, only as far as the sets reach).
 */
const LIVE_READ_WITH_LAYOUT_BYTES = 16 * 2 ** 20;

/**
 * The second copy hop when the options leave it out: only after the rounds whose pairs are at
 * most a sixteenth of the most pairs of a round since the second (see `GpuSolverOptions.hop`;
 * an eighth made python slower on the H100, through its mid-solve dips).
 */
const DEFAULT_HOP: NonNullable<Exclude<GpuSolverTuning['hop'], false>> = { tail: 1 / 16 };

/**
 * Events of {@link GpuSolver} (the CPU engine's, plus growth: `pool` is `pts` or `edg`, in
 * elements, or `worklist`, in pairs).
 *
 * @example
 * ```ts
 * solver.on('grow', ({ pool, from, to }) => console.error(`${pool}: ${from} → ${to}`));
 * ```
 */
export type GpuSolverEvents = {
  phase: (phase: SolvePhase, round: number) => void;
  iteration: (event: IterationEvent) => void;
  grow: (event: { readonly pool: string; readonly from: number; readonly to: number }) => void;
  done: (statistics: SolveStatistics) => void;
};

interface Compiled {
  readonly key: string;
  readonly kernels: Record<SolverEntryPoint, Kernel>;
  /** The bind group every kernel takes (they share one layout: the module's bindings). */
  readonly bindGroup: GPUBindGroup;
}

const _NONE = NO_ELEMENT;

/**
 * Worklist sorts that ended solves leave on their context for the next solve there, with their
 * scratch buffers, plans and bind groups (a solve of linux makes dozens of plans, and a plan's
 * parameters buffer took about 0.4 ms to create on the H100 machine). At most
 * {@link MAX_KEPT_SORTERS} a context; they go with it.
 */
const keptSorters = new WeakMap<GpuContext, WorklistSorts[]>();
const MAX_KEPT_SORTERS = 2;

/** The worklist's two sorts (see GpuSolverOptions.mergeSortPairs). */
interface WorklistSorts {
  readonly radix: RadixSort;
  readonly merge: MergeSort;
  /** The merge sort's tuning, as a key (`''`: the default). */
  readonly mergeTuning: string;
}

/** A key of a merge sort's tuning for the kept sorters (`''`: the default shape). */
function mergeTuningKey(tuning: MergeSortTuning | undefined): string {
  return tuning === undefined ? '' : `${tuning.workgroupSize ?? ''}x${tuning.itemsPerThread ?? ''}`;
}

/** Default of GpuSolverOptions.mergeSortPairs: every size the merge sort's arrays allow. */
const MERGE_SORT_PAIRS = 2 ** 32 - 1;

/**
 * The team kernels' shape on `ctx`: with subgroup teams, workgroups of `teamsPerWorkgroup`
 * subgroups of the largest size (see the tuning's `teamsPerWorkgroup`, default 2) and the words a
 * lane owns at the smallest size; otherwise one 32-invocation workgroup per team, one word a lane.
 */
function teamShape(
  ctx: GpuContext,
  team: TeamKind,
  teamsPerWorkgroup = 2,
): { teamWorkgroupSize: number; laneWords: number; teamsPerWorkgroup: number } {
  if (team !== 'subgroup') return { teamWorkgroupSize: 32, laneWords: 1, teamsPerWorkgroup: 1 };
  const largest = ctx.adapter.subgroupMaxSize || 128;
  const smallest = Math.max(4, ctx.adapter.subgroupMinSize || 4);
  const teamWorkgroupSize = teamWorkgroupSizeFor(
    largest,
    teamsPerWorkgroup,
    Math.min(ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX),
  );
  return {
    teamWorkgroupSize,
    laneWords: Math.ceil((ELEMENT_WORDS - 1) / smallest),
    teamsPerWorkgroup: Math.max(1, teamWorkgroupSize / largest),
  };
}

/**
 * The WebGPU Andersen engine (PPoPP'12 §5–6 on WebGPU). Every node has a points-to set P, what it
 * gained in the last update (ΔP) and what the rules gathered this iteration (N), and three copy⁻¹
 * edge sets — E (propagated), F (added by the last update) and G (gathered) — all wide sparse bit
 * vectors in two growable element pools (points-to and edges). Each iteration, every class
 * representative pulls ΔP of its E sources and P of its F sources into N — split into chunks on
 * separate teams when it has many (partial sets merged by a tree of unions), skipping a ΔP equal to
 * one the team already pulled (ΔP-equivalence) — and one team per load, store and offset turns new
 * pointees into worklist pairs (copy⁻¹ sources, copy edges, field addresses), which are sorted and
 * merged into the targets' G / N; a guarded update sets ΔP = N − P, P ∪= ΔP,
 * F = G − E, E ∪= F; HCD online pairs hook every new pointee under the pair's target with a
 * lock-free union–find, and the merged classes' sets are moved to the representative. The host reads
 * 128 bytes of status per iteration; when a pool or the worklist ran short the guard committed
 * nothing, the host grows it and runs the iteration again. Only the points-to pool, the heads of P
 * and the union–find are read back at the end.
 *
 * @example
 * ```ts
 * const solver = await createGpuSolver(program, { hcd });
 * try {
 *   solver.on('iteration', (e) => console.error(`iteration ${e.round}: ${e.propagated} nodes`));
 *   const result = await solver.solve();
 *   result.pointsTo(v);
 * } finally {
 *   solver.destroy();
 * }
 * ```
 */
export class GpuSolver extends (EventEmitter as new () => TypedEmitter.default<GpuSolverEvents>) {
  readonly program: ConstraintProgram;
  readonly ctx: GpuContext;
  readonly #ownsContext: boolean;
  /** The options with the tuning (`'~unstable'`) beside them. */
  readonly #options: SolverSettings;
  #solved = false;
  #destroyed = false;
  #buffers: GPUBuffer[] = [];
  /** The worklist's sorts (their scratch buffers): kept on the context by destroy(), or freed. */
  #sorter: WorklistSorts | undefined;
  #pools: ElementPool[] = [];
  /** Kept buffers and the byte from which each is still to be cleared (see {@link #clearKept}). */
  #keptToClear: { buffer: GPUBuffer; from: number }[] = [];
  /** The context's page-touching workers for the final readback, asked for once the sets grow large. */
  #toucher: Promise<PageToucher | undefined> | undefined;
  /** What the last solve measured (undefined before `solve()` ends). */
  report: GpuSolveReport | undefined;

  /** Use {@link createGpuSolver}. */
  constructor(program: ConstraintProgram, ctx: GpuContext, ownsContext: boolean, options: GpuSolverOptions) {
    super();
    const fanIn = options['~unstable']?.partialMergeFanIn;
    if (fanIn !== undefined && ![2, 4, 8, 16].includes(fanIn)) {
      throw new RangeError(`partialMergeFanIn must be 2, 4, 8 or 16, not ${fanIn}`);
    }
    this.program = program;
    this.ctx = ctx;
    this.#ownsContext = ownsContext;
    this.#options = { ...options['~unstable'], ...options };
  }

  /** Solves to the least fixed point; may be called once. */
  async solve(): Promise<AndersenResult> {
    if (this.#solved) throw new Error('GpuSolver.solve() may be called once; create another solver');
    if (this.#destroyed) throw new Error('GpuSolver.solve() after destroy()');
    this.#solved = true;
    return this.#run();
  }

  /** Releases the solver's buffers (and the GPU context when the solver acquired it). */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const buffer of this.#buffers) this.#giveBack(buffer);
    for (const pool of this.#pools) pool.destroy();
    if (this.#sorter) {
      const kept = keptSorters.get(this.ctx) ?? [];
      if (!this.#keepsBuffers || this.ctx.isLost || kept.length >= MAX_KEPT_SORTERS) {
        this.#sorter.radix.destroy();
        this.#sorter.merge.destroy();
      } else {
        kept.push(this.#sorter);
        keptSorters.set(this.ctx, kept);
      }
    }
    this.#sorter = undefined;
    this.#buffers = [];
    this.#pools = [];
    this.#endToucher();
    if (this.#ownsContext) this.ctx.destroy();
  }

  /**
   * Whether the solver takes buffers, sorts and upload arrays that solves before it left on the
   * context, and leaves its own there for the next solve (`keepBuffers`, with a context it was
   * given), instead of creating and freeing them.
   */
  get #keepsBuffers(): boolean {
    return this.#options.keepBuffers === true && !this.#ownsContext;
  }

  /** A buffer the solver is done with: to the context's kept buffers (`keepBuffers`) or freed. */
  #giveBack(buffer: GPUBuffer): void {
    if (this.#keepsBuffers) this.ctx.releaseBuffer(buffer);
    else buffer.destroy();
  }

  /** Lets go of the page toucher (the context keeps its workers for the next solve). */
  #endToucher(): void {
    this.#toucher = undefined;
  }

  #checkAbort(): void {
    const signal = this.#options.signal;
    if (signal?.aborted) {
      throw new SolveAbortedError('the Andersen solve was cancelled', { cause: signal.reason });
    }
  }

  /**
   * A buffer of at least `size` bytes that holds `data` from byte 0 and zeros after it: one the
   * context kept (see {@link GpuContext.reuseBuffer}; `destroy()` hands them back), cleared on the
   * GPU, or a new one. Creating linux's (about 200 MB with the worklist) took tens of milliseconds
   * of each solve on the H100 machine; a clear there is microseconds of GPU time.
   */
  async #buffer(label: string, data: Uint32Array, usage: number, size = data.byteLength): Promise<GPUBuffer> {
    // Only the bytes after the data need clearing: the clear and the write touch different bytes,
    // so they may reach the GPU in either order.
    const buffer = await this.#reuse(label, Math.max(16, size), usage, data.byteLength);
    if (data.byteLength > 0) await this.ctx.writeBuffer(buffer, 0, data);
    return buffer;
  }

  /**
   * A kept buffer whose bytes from `keepBytes` on are to be cleared to zero (by
   * {@link #clearKept}, which the caller awaits before anything reads them), or a new one; freed
   * by `destroy()`.
   */
  async #reuse(label: string, size: number, usage: number, keepBytes = 0): Promise<GPUBuffer> {
    if (!this.#keepsBuffers) {
      // A new buffer is zero: nothing to clear.
      const buffer = await this.ctx.createBuffer({ label, size, usage: usage | BufferUsage.COPY_DST });
      this.#buffers.push(buffer);
      return buffer;
    }
    // The kernels bind whole buffers: a kept one may be larger than asked, not past one binding.
    const maxSize = Math.max(size, Math.min(2 * size, this.ctx.limits.maxStorageBufferBindingSize));
    const { buffer, reused } = await this.ctx.reuseBuffer({
      label,
      size,
      maxSize,
      usage: usage | BufferUsage.COPY_DST,
    });
    this.#buffers.push(buffer);
    if (reused && keepBytes < buffer.size) this.#keptToClear.push({ buffer, from: keepBytes });
    return buffer;
  }

  /**
   * The rule table when the GPU prepares the program: `prep_emit` writes its first `ruleCount`
   * rules, the host uploads the HCD online pairs `(y, x, 0, 0)` after them, and a kept buffer is
   * cleared past those.
   */
  async #onlineRules(ruleCount: number, hcdCount: number, arrays: HostArrays): Promise<GPUBuffer> {
    const words = 4 * Math.max(1, ruleCount + hcdCount);
    const buffer = await this.#reuse(
      'andersen rules',
      4 * words,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC,
      16 * (ruleCount + hcdCount),
    );
    const online = this.#options.hcd?.online;
    if (hcdCount > 0 && online !== undefined) {
      const tail = arrays.uint32('onlineRules', 4 * hcdCount);
      writeOnlineRules(tail, online, hcdCount);
      await this.ctx.writeBuffer(buffer, 16 * ruleCount, tail);
    }
    return buffer;
  }

  /**
   * Clears what {@link #reuse} left to clear, in one submission: one each cost the setup a
   * submission and an error scope's round trip per buffer, eight of them a solve.
   */
  async #clearKept(): Promise<void> {
    const clears = this.#keptToClear;
    if (clears.length === 0) return;
    this.#keptToClear = [];
    await this.ctx.guard(`clear ${clears.length} kept buffers`, () => {
      const encoder = this.ctx.device.createCommandEncoder({ label: 'andersen clear kept buffers' });
      for (const { buffer, from } of clears) encoder.clearBuffer(buffer, from);
      this.ctx.queue.submit([encoder.finish()]);
    });
  }

  async #run(): Promise<AndersenResult> {
    const ctx = this.ctx;
    const started = performance.now();
    this.#checkAbort();
    this.emit('phase', 'setup', 0);
    // Host memory for the uploads, given back once they are queued (see host-arrays.ts).
    const hostArrays = takeHostArrays(ctx, { keep: this.#keepsBuffers });
    // The status words, the active lists' words (all 0 at first), then, when the host prepares
    // the program, the union–find (the first per-node array), which prepareProgram writes in place.
    const n = this.program.nodeCount;
    const hcdTable = this.#options.hcd;
    // The GPU prepares the program (prepare.wgsl.ts) unless told not to: the host only counts the
    // constraint kinds. On the H100 machines the host's preparation took 1.6–3.4 ms of gcc's
    // solve, warm, with the GPU idle (docs/decisions/andersen-gpu-setup-readback.md).
    const prepareOnGpu = this.#options.prepareOnGpu !== false;
    const controlHead = hostArrays.uint32('controlHead', CONTROL_HEAD_WORDS + (prepareOnGpu ? 0 : n));
    const prepared: PreparedCounts = prepareOnGpu
      ? countForGpu(this.program, hcdTable)
      : prepareProgram(
          this.program,
          hcdTable,
          hostArrays,
          controlHead.subarray(
            CONTROL_HEAD_WORDS + CONTROL_ARRAYS.parent * n,
            CONTROL_HEAD_WORDS + (CONTROL_ARRAYS.parent + 1) * n,
          ),
        );
    const programMs = performance.now() - started;
    const team: TeamKind = (await subgroupLayoutIsLinear(ctx)) ? 'subgroup' : 'workgroup';
    // Teams per rule in member_rules and per online pair in hcd_hook (see the options).
    const ruleSplit = this.#options.ruleSplit ?? 4;
    const partialMergeBits = Math.log2(this.#options.partialMergeFanIn ?? 4);
    const shareRules = this.#options.shareRules !== false;
    const hookSplit = this.#options.hookSplit ?? 16;
    const { teamWorkgroupSize, laneWords, teamsPerWorkgroup } = teamShape(
      ctx,
      team,
      this.#options.teamsPerWorkgroup,
    );

    // Pools: empty; the first submission builds the initial sets from their pairs, at most one
    // element a pair (the capacities below hold them all).
    const poolsStarted = performance.now();
    const initialPairs = prepared.initialPairs;
    // Elements the initial sets may take: at most one a pair.
    const pointsElements = initialPairs.points;
    const edgeElements = initialPairs.count - initialPairs.points;
    const { points, edges } = await this.#createPools(n, pointsElements, edgeElements);
    const poolsMs = performance.now() - poolsStarted;

    const storage = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
    const pullChunk = Math.max(1, Math.floor(this.#options.pullChunk ?? 4));
    const maxPullChunks = Math.max(1, Math.floor(this.#options.maxPullChunks ?? 1024));
    const chunkCapacity = Math.max(1, Math.floor(this.#options.pullChunkCapacity ?? Math.max(4096, n)));
    // Head slots: P, ΔP, N and H per node, one partial set per extra pull chunk, then the delta_bits
    // bitmap. New buffers are zero: only the object sizes, the rules, the status words, the
    // union–find and the initial sets' pairs are uploaded (the host writes about 1 GB/s on the
    // H100 machine); init_state fills the slots and arrays that start empty (NONE) on the GPU.
    const deltaBitmap = this.#options.deltaBitmap !== false;
    const activeLists = this.#options.activeLists !== false;
    // member_rules over the rule list, which pull_items builds from the delta_bits bitmap.
    const ruleList = this.#options.ruleList !== false && activeLists && deltaBitmap;
    // The second copy hop reuses the delta_bits bitmap's words.
    const hopOption = this.#options.hop ?? DEFAULT_HOP;
    const hopOn = hopOption !== false && deltaBitmap ? hopOption : undefined;
    const hop =
      hopOn === undefined
        ? undefined
        : {
            pulls: Math.max(1, Math.floor(hopOn.pulls ?? 2)),
            slots: Math.max(1, Math.floor(hopOn.slots ?? 60)),
            setElements:
              hopOn.setElements === undefined ? undefined : Math.max(1, Math.floor(hopOn.setElements)),
            pointsElements:
              hopOn.pointsElements === undefined ? undefined : Math.max(0, Math.floor(hopOn.pointsElements)),
          };
    const shareEqualSets = this.#options.shareEqualSets !== false;
    const ptsHeads = await this.#buffer(
      'andersen pts heads',
      new Uint32Array(0),
      storage,
      4 * (NODE_SET_SLOTS * n + chunkCapacity + (deltaBitmap ? deltaBitmapWords(n) : 0)),
    );
    const edgHeads = await this.#buffer(
      'andersen edg heads',
      new Uint32Array(0),
      storage,
      4 * EDGE_SET_SLOTS * n,
    );
    const nodes = await this.#buffer('andersen nodes', prepared.objectSize, storage);
    const rules =
      prepared.rules !== undefined
        ? await this.#buffer('andersen rules', prepared.rules, storage)
        : await this.#onlineRules(prepared.ruleCount, prepared.hcdCount, hostArrays);
    // Status, the per-node arrays, the extra pull chunks' owners, then the ΔP leader table (a power
    // of two of at least twice the nodes, and twice the rules, so that the signature table of the
    // same size has room too and probe sequences stay short).
    const deltaTableSlots = this.#options.deltaTableSlots ?? Math.max(1024, 2 * n, 2 * prepared.ruleCount);
    const deltaTableSize = 2 ** Math.ceil(Math.log2(Math.max(1, deltaTableSlots)));
    // The rules' signatures have a table as large after it (emptied with it by delta_clear), then
    // the worklist's table of pushed pairs (two words a slot); none when off.
    const dedupePairs = this.#options.dedupePairs !== false;
    const pairTableSize = dedupePairs
      ? 2 **
        Math.ceil(
          Math.log2(Math.max(2, this.#options.pairTableSlots ?? Math.min(2 ** 23, Math.max(4096, 8 * n)))),
        )
      : 0;
    const arrayAt = (name: keyof typeof CONTROL_ARRAYS) => CONTROL_HEAD_WORDS + CONTROL_ARRAYS[name] * n;
    controlHead.fill(0, 0, CONTROL_HEAD_WORDS);
    // The initial sets sit in the pending slots like the sets merges leave there: the first update
    // may copy them once, so the guard counts them (at most one element a pair). The pairs are the
    // first submission's worklist.
    controlHead[STATUS.mergeNeedPts] = pointsElements;
    controlHead[STATUS.mergeNeedEdges] = edgeElements;
    // The GPU's preparation counts its pairs into these words as it appends them.
    controlHead[STATUS.pairCount] = prepareOnGpu ? 0 : initialPairs.count;
    controlHead[STATUS.sortedCount] = prepareOnGpu ? 0 : initialPairs.count;
    const control = await this.#buffer(
      'andersen control',
      controlHead,
      storage,
      4 *
        (CONTROL_HEAD_WORDS +
          CONTROL_ARRAY_COUNT * n +
          chunkCapacity +
          2 * deltaTableSize +
          2 * pairTableSize +
          // The rule list (activeLists with the delta_bits bitmap), the buffer's last words.
          Math.max(1, prepared.ruleCount)),
    );
    const keyBits = Math.max(1, Math.ceil(Math.log2(2 * n + 1)));
    const sourceBits = Math.max(1, Math.ceil(Math.log2(n + 1)));
    // The worklist is sorted by key and, within a key's run, by the source's word group
    // (source >> SOURCE_WORD_SHIFT: the element base and the word of it that the source's bit is
    // in), the order in which the merge ORs a run's sources into its set, each (base, word) group
    // adjacent; the order within a group does not matter to an OR. One sort of the composite
    // (key, group) when both fit in 32 bits (ex: 15 + 9, python 18 + 12), otherwise a sort by
    // group and then a stable sort by key. Sorting by the whole source took 3–6 bits more (a
    // radix pass more, or a second sort, on gcc, perl and python).
    const groupBits = Math.max(0, sourceBits - SOURCE_WORD_SHIFT);
    const composite = keyBits + groupBits <= 32 && this.#options.compositeSort !== false;
    const compositeBits = composite ? groupBits : 0;
    let pairCapacity = Math.max(
      16,
      initialPairs.count,
      this.#options.initialPairCapacity ?? Math.max(4096, 4 * n),
    );
    // sort_small holds 8 bytes of workgroup memory per pair, 8 or 4 pairs per invocation: 2,048
    // pairs where 17 KiB fit, else 1,024. (16, 4,096 pairs, fits the H100's 48 KiB, but showed no
    // gain in an A/B on ex, gcc, perl and python there: within that machine's spread.)
    const workgroupBytes = ctx.limits.maxComputeWorkgroupStorageSize;
    const sortSmallFits = (items: number) => workgroupBytes >= smallSortWorkgroupBytes(items);
    const smallSortItems = this.#options.smallSortItems ?? [8, 4].find((items) => sortSmallFits(items)) ?? 4;
    // Worklists of up to this many pairs go to the merge sort, longer ones to the radix sort.
    const mergeSortPairs = Math.min(
      this.#options.mergeSortPairs ?? MERGE_SORT_PAIRS,
      Math.floor(ctx.limits.maxStorageBufferBindingSize / 4),
    );
    // By default a short worklist goes to the merge sort too (one dispatch: its tile kernel sorts
    // the power of two above the pairs, fewer barriers than sort_small's one-bit passes), and to
    // sort_small only where the merge sort is off (mergeSortPairs 0: the radix sort's dozen
    // dispatches would take it).
    const smallSortOn = this.#options.smallSort ?? mergeSortPairs <= 0;
    const smallSortPairs =
      !smallSortOn || !sortSmallFits(smallSortItems) ? 0 : smallSortCapacity(smallSortItems);
    let pairs = await this.#createPairs(pairCapacity);
    // The program as the GPU's preparation reads it (written whole: nothing of it is cleared).
    let programBuffer: GPUBuffer | undefined;
    let prepareSizes: PrepareSizes | undefined;
    if (prepareOnGpu) {
      const programBytes = 4 * programWords(this.program, hcdTable);
      programBuffer = await this.#reuse('andersen program', programBytes, storage, programBytes);
      prepareSizes = await uploadProgram(
        ctx,
        programBuffer,
        this.program,
        hcdTable,
        hostArrays,
        compositeBits,
      );
    } else if (
      initialPairs.keys !== undefined &&
      initialPairs.sources !== undefined &&
      initialPairs.count > 0
    ) {
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
    // Every upload of them is queued (writeBuffer copies its data when called).
    hostArrays.release();
    // Growing ahead is a guess: see PoolGrowth.
    const growAhead = this.#options.growAhead ?? DEFAULT_GROW_AHEAD;
    const growBelowWord =
      Number.isInteger(growAhead.below) && growAhead.below >= 0 && growAhead.below <= 0xffff_ffff
        ? growAhead.below
        : 0;
    const profile = this.#options.profile === true && ctx.features.timestampQuery;
    // Kernels recorded while the GPU runs the submission before them (see encodeAhead below).
    const encodeAheadEnabled = !profile && this.#options.encodeAhead !== false;
    // The worklist's sort and the partial-merge levels depend on counts the rules leave, so they
    // are recorded ahead on a guess, those of the last round that sorted (merged): a submission
    // whose sort and levels match the guess records nothing but its status copy after the host
    // reads the rules' counts.
    const sortAheadEnabled = this.#options.sortAhead !== false;
    // The next round's rules submitted behind an update (rulesAhead), with their status words.
    const rulesAheadEnabled =
      encodeAheadEnabled && this.#options.rulesAhead !== false && growBelowWord === growAhead.below;
    // Whole rounds queued two deep (see GpuSolverOptions.pipelineRounds): the update's kernels are
    // compiled with the rules' gate.
    const pipeline = rulesAheadEnabled && sortAheadEnabled && this.#options.pipelineRounds !== false;
    const params = await this.#buffer(
      'andersen params',
      paramsWords({
        n,
        hcd_start: prepared.ruleCount,
        hcd_count: prepared.hcdCount,
        pair_capacity: pairCapacity,
        base_bits: compositeBits,
        pull_chunk: pullChunk,
        max_chunks: maxPullChunks,
        chunk_capacity: chunkCapacity,
        table_mask: deltaTableSize - 1,
        sort_key_bits: keyBits + compositeBits,
        sort_value_bits: composite ? 0 : groupBits,
        // 0: no table (a table has at least two slots).
        pair_table_mask: Math.max(0, pairTableSize - 1),
        // The sort and partial-merge levels of a guessed submission (see sort_gate): none yet.
        guess_sort_capacity: NO_GUESS[0],
        guess_levels: NO_GUESS[1],
        // The host's grow-ahead test, for rules_gate (0 when not an integer: rulesAhead is off).
        grow_below: growBelowWord,
        // None queued yet.
        fold_levels: NO_FOLDS,
      }),
      BufferUsage.UNIFORM,
    );
    const worklistSorts = this.#takeSorts();
    this.#sorter = worklistSorts;
    const sorter = worklistSorts.radix;
    const mergeSorter = worklistSorts.merge;
    // A sort recorded ahead on a guess may be the merge sort's first in this solve (after rounds
    // the radix sort took, with a smaller mergeSortPairs): its kernels are compiled up front.
    if (mergeSortPairs > 1) await mergeSorter.prepare({ count: 1 });

    let compiled: Compiled | undefined;
    // The kernel pairs run as one dispatch (see the options), and the entry points the fused ones
    // stand for (never dispatched on their own, so built into no pipeline).
    // pull_rules runs pull_sources and member_rules, which do not depend on one another, as one
    // dispatch (a dispatch fewer each round for the host to record and the GPU to drain, and the
    // two kernels' slowest teams overlap); guard_pending runs guard_update and pending_list.
    const fuseGuardPending = activeLists;
    const supersededEntries = new Set<SolverEntryPoint>([
      'pull_sources',
      'member_rules',
      ...(fuseGuardPending ? (['guard_update', 'pending_list'] as const) : []),
    ]);
    const kernelSets = new Map<string, Record<SolverEntryPoint, Kernel>>();
    const compiledKey = () =>
      `${points.generation}/${edges.generation}/${pairs.keys.label}/${pairs.values.label}`;
    const compile = async (): Promise<Compiled> => {
      const key = compiledKey();
      if (compiled?.key === key) return compiled;
      const { code, layout } = solverModuleWgsl(
        points,
        edges,
        {
          team,
          teamWorkgroupSize,
          laneWords,
          smallSortItems,
          deltaBitmap,
          ruleList,
          hop,
          shareEqualSets,
          collideHashes: this.#options.collideHashes,
          hcdSkipJoined: this.#options.hcdSkipJoined,
          ruleSplit,
          hookSplit,
          partialMergeBits,
          shareRules,
          activeLists,
          gateUpdate: pipeline,
        },
        modulesOf(ctx),
      );
      // A pool that grows within its binding windows keeps its WGSL: only the bind group changes.
      let kernels = kernelSets.get(code);
      if (!kernels) {
        // Every entry point the solve may dispatch, less those a fused one stands for (pipelines
        // cost time to build, most of all on a software adapter).
        const entries = (Object.keys(SOLVER_ENTRY_POINTS) as SolverEntryPoint[]).filter(
          (entry) => !supersededEntries.has(entry),
        );
        const built = await Promise.all(
          entries.map((entryPoint) =>
            ctx.kernels.get({ label: `andersen ${entryPoint}`, code, layout, entryPoint }),
          ),
        );
        kernels = Object.fromEntries(entries.map((e, i) => [e, built[i]])) as unknown as Record<
          SolverEntryPoint,
          Kernel
        >;
        kernelSets.set(code, kernels);
      }
      const resources = {
        params,
        ...points.resources(),
        pts_heads: ptsHeads,
        ...edges.resources(),
        edg_heads: edgHeads,
        nodes,
        rule_table: rules,
        control,
        pair_keys: pairs.keys,
        pair_values: pairs.values,
      } as never;
      const bindGroup = kernels.init_state.bindGroup(resources, 'andersen bindings');
      compiled = { key, kernels, bindGroup };
      return compiled;
    };

    // Items of the kernels that visit merged children and extra pull chunks: the teams launched
    // for them, from the counts the host read before encoding them.
    const fixedMergeTeams = this.#options.mergeTeams;
    const grids = new DispatchGrids({
      team,
      teamsPerWorkgroup,
      maxGrid: ctx.limits.maxComputeWorkgroupsPerDimension,
      teamGridCap: Math.max(1, Math.floor(this.#options.gridCaps?.team ?? 1 << 15)),
      threadGridCap: Math.max(1, Math.floor(this.#options.gridCaps?.thread ?? 1 << 14)),
      nodeCount: n,
      ruleCount: prepared.ruleCount,
      hcdCount: prepared.hcdCount,
      chunkCapacity,
      deltaTableSize,
      pairTableSize,
      ruleSplit,
      hookSplit,
      activeLists,
      deltaBitmap,
      ruleList,
      listFloorItems: this.#options.listFloorItems,
      fixedMergeTeams,
    });
    const readListItems = (status: Uint32Array) =>
      grids.readListItems(status, (message) => new GpuSolverError(message));
    const phaseMs: Record<GpuSolvePhase, number> = {
      rules: 0,
      equivalence: 0,
      sort: 0,
      worklist: 0,
      update: 0,
      hcd: 0,
      transfer: 0,
    };
    const kernelMs: Record<string, number> = {};
    // This round's share of kernelMs, for the iteration event.
    let roundKernelMs: Record<string, number> = {};
    const host: HostTimes = {
      prepare: 0,
      encode: 0,
      submit: 0,
      encodeAhead: 0,
      wait: 0,
      grow: 0,
      submissions: 0,
      react: 0,
    };
    // Worklists sorted in one workgroup, by the merge sort or by the radix sort; `ahead`: of those, the sorts recorded
    // on a guess that held (see sortAhead).
    const sorts = { small: 0, merge: 0, radix: 0, ahead: 0 };
    let pairsPushed = 0;
    // Every entry point once, up to 16 levels of the children tree and 11 of the partial-pull tree,
    // and the radix sort's passes.
    const maxPasses = Object.keys(SOLVER_ENTRY_POINTS).length + 16 + 11 + 64;
    const querySet = profile
      ? await ctx.guard('andersen timestamps', () =>
          ctx.device.createQuerySet({
            label: 'andersen timestamps',
            type: 'timestamp',
            count: 2 * maxPasses,
          }),
        )
      : undefined;
    const stampBuffer = profile
      ? await this.#buffer(
          'andersen timestamps',
          new Uint32Array(0),
          BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
          16 * maxPasses,
        )
      : undefined;
    // With timeSubmissions: a timestamp before the first kernel and after the last of each
    // submission (2,048 submissions at most: a query set holds 4,096).
    const spanQueries = 4096;
    const spanSet =
      !profile && this.#options.timeSubmissions === true && ctx.features.timestampQuery
        ? await ctx.guard('andersen submission timestamps', () =>
            ctx.device.createQuerySet({
              label: 'andersen submission timestamps',
              type: 'timestamp',
              count: spanQueries,
            }),
          )
        : undefined;
    let spansTimed = 0;
    const spanKinds: SubmissionKind[] = [];
    /** A submission's pair of span timestamps, while the query set has room. */
    const takeSpan = (kind: SubmissionKind): number | undefined => {
      if (!spanSet || 2 * spansTimed >= spanQueries) return undefined;
      spanKinds.push(kind);
      return spansTimed++;
    };
    /** An empty pass that writes the first (or, with `end`, the last) timestamp of span `span`. */
    const stampSpan = (encoder: GPUCommandEncoder, span: number | undefined, end: boolean) => {
      if (!spanSet || span === undefined) return;
      const at = 2 * span + (end ? 1 : 0);
      encoder
        .beginComputePass({
          timestampWrites: end
            ? { querySet: spanSet, endOfPassWriteIndex: at }
            : { querySet: spanSet, beginningOfPassWriteIndex: at },
        })
        .end();
    };
    // The radix sort reads the pair count on the GPU (the status word the rules counted) and is
    // planned for the power of two above it, so that a solve makes a plan, with its parameters
    // and bind groups, per doubling of the worklist instead of one for nearly every round (the
    // tiles past the count only write empty histogram rows). Planned per count (four sizes per
    // doubling, the gap filled with the largest key), a new plan made about 25 bind groups, and
    // creating bind groups took perl's solves about 15 ms each in a profile on the H100 machine.
    const sortSizeFor = (count: number) =>
      count <= 1 ? count : Math.min(pairCapacity, 2 ** Math.ceil(Math.log2(count)));
    // The radix sort's sizes run has prepared (a sort recorded ahead needs its kernels, and a
    // size's scatter kernel may differ from another's).
    const preparedSorts = new Set<number>();
    const sortedCountWord = { buffer: control, offset: STATUS.sortedCount * 4 };
    // The sorts by (key, source's word group): one of the composite, or by the group (bits 5 and
    // up of the values' array, as keys) and then stably by key.
    const radixSorts: readonly { bySource: boolean; bits: { start: number; end: number } }[] = composite
      ? [{ bySource: false, bits: { start: 0, end: keyBits + compositeBits } }]
      : [
          ...(groupBits > 0 ? [{ bySource: true, bits: { start: SOURCE_WORD_SHIFT, end: sourceBits } }] : []),
          { bySource: false, bits: { start: 0, end: keyBits } },
        ];
    /**
     * Records `entries` (after sorting the worklist's `pairCount` pairs, when given) into
     * `encoder`, one compute pass (one per kernel when profiling). Synchronous: the kernels and the
     * sort plans must be ready.
     */
    const encodeEntries = (
      encoder: GPUCommandEncoder,
      label: string,
      { kernels, bindGroup }: Compiled,
      entries: readonly SolverEntryPoint[],
      pairCount: number,
      sortCount: number,
      passPhases: GpuSolvePhase[],
      passKernels: string[],
      beforeSort: readonly SolverEntryPoint[] = [],
    ) => {
      const timedPass = (phase: GpuSolvePhase, passLabel: string): GPUComputePassEncoder => {
        // Passes past the query set's room run untimed rather than fail validation.
        if (!querySet || passPhases.length >= maxPasses)
          return encoder.beginComputePass({ label: passLabel });
        const i = passPhases.length;
        passPhases.push(phase);
        passKernels.push(phase === 'sort' ? 'sort' : passLabel);
        return encoder.beginComputePass({
          label: passLabel,
          timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 },
        });
      };
      const encodePass = (passEntries: readonly SolverEntryPoint[]) => {
        if (querySet) {
          for (const entry of passEntries) {
            const pass = timedPass(PHASE_OF[entry], entry);
            pass.setPipeline(kernels[entry].pipeline);
            pass.setBindGroup(0, bindGroup);
            encodeDispatch(pass, grids.grid(entry, pairCount));
            pass.end();
          }
        } else if (passEntries.length > 0) {
          const pass = encoder.beginComputePass({ label });
          // The group stays bound across the pipelines (they share its layout).
          pass.setBindGroup(0, bindGroup);
          for (const entry of passEntries) {
            pass.setPipeline(kernels[entry].pipeline);
            encodeDispatch(pass, grids.grid(entry, pairCount));
          }
          pass.end();
        }
      };
      encodePass(beforeSort);
      if (sortCount > 1) {
        // Timed, each radix pass is a compute pass of its own; untimed, the sort records all of
        // them in one (fewer passes for the host to record).
        const timer = querySet
          ? { beginComputePass: (_: GPUCommandEncoder, l: string) => timedPass('sort', l) }
          : undefined;
        if (sortCount <= mergeSortPairs) {
          mergeSorter.encode(
            encoder,
            { keys: pairs.keys, values: pairs.values, count: sortCount, countFrom: sortedCountWord },
            timer,
          );
        } else {
          for (const { bySource, bits } of radixSorts) {
            const [keys, values] = bySource ? [pairs.values, pairs.keys] : [pairs.keys, pairs.values];
            sorter.encode(
              encoder,
              { keys, values, bits, count: sortCount, countFrom: sortedCountWord },
              timer,
            );
          }
        }
      }
      encodePass(entries);
    };
    /**
     * Kernels recorded while the GPU runs the submission before them (the host's encoding costs
     * 0.3–0.6 ms a submission on the H100 machine, during which the GPU would idle), for a later
     * {@link run} to submit after its own: valid while the kernels and bind group they were
     * recorded with are current (no pool or worklist grew since). Not when profiling, whose passes
     * are numbered in submission order.
     */
    interface Ahead {
      readonly key: string;
      readonly entries: readonly SolverEntryPoint[];
      /** The radix sort's size recorded before the entries (0: none). */
      readonly sortCount: number;
      readonly commandBuffer: GPUCommandBuffer;
    }
    const encodeAhead = (entries: readonly SolverEntryPoint[], sortCount = 0): Ahead | undefined => {
      if (!encodeAheadEnabled || compiled?.key !== compiledKey()) return undefined;
      const started = performance.now();
      const label = `andersen ${entries[0] ?? 'sort'}…`;
      const encoder = ctx.device.createCommandEncoder({ label });
      // Kernels that depend on a pair count (mark_segments) stride over the count on the GPU: the
      // grid for the worklist's capacity covers any.
      encodeEntries(encoder, label, compiled, entries, pairCapacity, sortCount, [], []);
      const commandBuffer = encoder.finish();
      host.encodeAhead += performance.now() - started;
      return { key: compiled.key, entries, sortCount, commandBuffer };
    };
    /** The recorded kernels when they are still valid and exactly `entries`, else `undefined`. */
    const takeAhead = (ahead: Ahead | undefined, entries: readonly SolverEntryPoint[], sortCount = 0) =>
      ahead !== undefined &&
      ahead.key === compiledKey() &&
      ahead.sortCount === sortCount &&
      ahead.entries.length === entries.length &&
      ahead.entries.every((entry, i) => entry === entries[i])
        ? ahead
        : undefined;
    interface RunOptions {
      /** Worklist pairs to sort before `entries` (0 or 1: no sort). */
      readonly pairCount?: number;
      /** Entry points encoded before the sort. */
      readonly beforeSort?: readonly SolverEntryPoint[];
      /** Small ranges copied out with the status words (each takes a staging buffer of its own). */
      readonly reads?: readonly { buffer: GPUBuffer; byteOffset: number; byteLength: number }[];
      /**
       * Ranges copied out after `reads` and returned mapped, of which the caller copies out as
       * many bytes as the status or the reads say (it must take each once).
       */
      readonly mappedReads?: readonly { buffer: GPUBuffer; byteOffset: number; byteLength: number }[];
      /** Command buffers recorded earlier by {@link encodeAhead}, submitted after `entries` in order. */
      readonly ahead?: readonly Ahead[];
      /** Runs on the host once the work is submitted, before the wait. */
      readonly whileRunning?: () => void;
      /** What the submission carries, for `timeSubmissions` (default `other`). */
      readonly kind?: SubmissionKind;
      /**
       * Submit `entries` (with the sort) and the first `submitFirst` of `ahead` on their own, so that
       * the GPU starts on them while Dawn records the rest (it records a command buffer's backend
       * commands in `queue.submit`).
       */
      readonly submitFirst?: number | undefined;
    }
    /**
     * Encodes `beforeSort`, the sort of the worklist's `pairCount` pairs (when given), `entries`,
     * then the kernels of `ahead`, as one submission that also copies out the status words and the
     * `reads`; returns them once the submission has run, with one wait on the device.
     */
    const run = async (
      label: string,
      entries: readonly SolverEntryPoint[],
      {
        pairCount = 0,
        beforeSort = [],
        reads = [],
        mappedReads = [],
        ahead = [],
        whileRunning,
        kind = 'other',
        submitFirst,
      }: RunOptions = {},
    ): Promise<{ status: Uint32Array; reads: ArrayBuffer[]; mapped: MappedRead[] }> => {
      const prepareStarted = performance.now();
      // Unchanged pools and worklist keep their kernels and bind group: no await (each one yields
      // to the event loop) on the path every submission takes.
      const current = compiled?.key === compiledKey() ? compiled : await compile();
      // A short worklist is sorted by sort_small in one workgroup; a longer one by the radix sort.
      const smallSort = pairCount > 1 && pairCount <= smallSortPairs;
      const sortCount = smallSort ? 0 : sortSizeFor(pairCount);
      const passEntries: readonly SolverEntryPoint[] = smallSort ? ['sort_small', ...entries] : entries;
      if (sortCount > 1) {
        if (sortCount <= mergeSortPairs) await mergeSorter.prepare({ count: sortCount });
        else {
          for (const { bits } of radixSorts) {
            await sorter.prepare({ count: sortCount, withValues: true, bits, countFromGpu: true });
          }
        }
        preparedSorts.add(sortCount);
      }
      const passPhases: GpuSolvePhase[] = [];
      const passKernels: string[] = [];
      const encodeStarted = performance.now();
      host.prepare += encodeStarted - prepareStarted;
      let encodeEnded = encodeStarted;
      const staged: StagedRead[] = [];
      const stagedMapped: StagedRead[] = [];
      const span = takeSpan(kind);
      // With submitFirst: when the first part went up.
      let firstSubmitted: number | undefined;
      const submitted = ctx.guard(label, () => {
        const encoder = ctx.device.createCommandEncoder({ label });
        stampSpan(encoder, span, false);
        encodeEntries(
          encoder,
          label,
          current,
          passEntries,
          pairCount,
          sortCount,
          passPhases,
          passKernels,
          beforeSort,
        );
        // The copies out come after every kernel, the ones recorded ahead included.
        const buffers: GPUCommandBuffer[] = [];
        let tail = encoder;
        if (ahead.length > 0) {
          const first = submitFirst !== undefined && submitFirst < ahead.length ? submitFirst : undefined;
          const aheadBuffers = ahead.map((recorded) => recorded.commandBuffer);
          if (first !== undefined) {
            const submitStarted = performance.now();
            ctx.queue.submit([encoder.finish(), ...aheadBuffers.slice(0, first)]);
            firstSubmitted = performance.now();
            host.submit += firstSubmitted - submitStarted;
            buffers.push(...aheadBuffers.slice(first));
          } else {
            buffers.push(encoder.finish(), ...aheadBuffers);
          }
          tail = ctx.device.createCommandEncoder({ label: `${label} (status)` });
        }
        stampSpan(tail, span, true);
        if (querySet && stampBuffer && passPhases.length > 0) {
          tail.resolveQuerySet(querySet, 0, 2 * passPhases.length, stampBuffer, 0);
        }
        // The status words and the active lists' words.
        staged.push(ctx.staging.recordRead(tail, control, 0, CONTROL_HEAD_WORDS * 4));
        for (const read of reads) {
          staged.push(ctx.staging.recordRead(tail, read.buffer, read.byteOffset, read.byteLength));
        }
        for (const read of mappedReads) {
          stagedMapped.push(ctx.staging.recordRead(tail, read.buffer, read.byteOffset, read.byteLength));
        }
        buffers.push(tail.finish());
        const submitStarted = performance.now();
        ctx.queue.submit(buffers);
        encodeEnded = performance.now();
        host.submit += encodeEnded - submitStarted;
        if (kind === 'update' && rulesStatusAt > 0) {
          host.react += (firstSubmitted ?? encodeEnded) - rulesStatusAt;
          rulesStatusAt = 0;
        }
      });
      host.encode += encodeEnded - encodeStarted;
      host.submissions++;
      const aheadBefore = host.encodeAhead;
      whileRunning?.();
      // The error scopes and the copies resolve together: one wait on the device per submission.
      const mappedAll = Promise.all(stagedMapped.map((read) => read.mapped()));
      const [, mapped, ...bytes] = await Promise.all([
        submitted,
        mappedAll,
        ...staged.map((read) => read.read()),
      ]).catch((error: unknown) => {
        // The mapped reads no one will take go back to the pool (or, unmappable, are gone).
        for (const read of stagedMapped)
          read.mapped().then(
            (m) => m.take(0),
            () => undefined,
          );
        throw error;
      });
      const statusAt = performance.now();
      host.wait += statusAt - encodeEnded - (host.encodeAhead - aheadBefore);
      if (kind === 'rules') rulesStatusAt = statusAt;
      if (stampBuffer && passPhases.length > 0) {
        const stamps = new BigUint64Array(await ctx.readBuffer(stampBuffer, 0, 16 * passPhases.length));
        passPhases.forEach((phase, i) => {
          const begin = stamps[2 * i] ?? 0n;
          const end = stamps[2 * i + 1] ?? 0n;
          if (end > begin) {
            const ms = Number(end - begin) / 1e6;
            phaseMs[phase] += ms;
            const kernel = passKernels[i] as string;
            kernelMs[kernel] = (kernelMs[kernel] ?? 0) + ms;
            roundKernelMs[kernel] = (roundKernelMs[kernel] ?? 0) + ms;
          }
        });
      }
      const status = new Uint32Array(bytes[0] as ArrayBuffer);
      if (activeLists) readListItems(status);
      return { status, reads: bytes.slice(1) as ArrayBuffer[], mapped };
    };
    const checkFatal = (status: Uint32Array) => {
      const fatal = status[STATUS.fatal] as number;
      if (fatal !== 0) {
        throw new GpuSolverError(
          fatal & 1
            ? 'a sparse bit vector list on the GPU is corrupt (longer than its pool)'
            : 'a pool ran out during a guarded update or merge',
        );
      }
    };

    const touchFrom =
      this.#options.touchReadback === true
        ? (this.#options.touchedReadbackBytes ?? TOUCHED_READ_BYTES)
        : Number.POSITIVE_INFINITY;
    const stats = {
      rounds: 0,
      hcdMerges: 0,
      edgesAdded: 0,
      propagations: 0,
      reruns: 0,
      updateRedos: 0,
      mergeGrows: 0,
    };
    // Distinct copy edges between representatives before solving (see round 1 below).
    let initialEdgeCount = 0;
    const pullSplit = { extraChunks: 0, maxChunks: 1, refused: 0, skippedEqualDeltas: 0 };
    let sharedRules = 0;
    const rulesEntries: SolverEntryPoint[] = [
      'begin_attempt',
      // delta_bits clears the tables too.
      ...(deltaBitmap ? (['delta_bits'] as const) : (['delta_clear'] as const)),
      'delta_leaders',
      'pull_count',
      'pull_items',
      'pull_rules',
      'sort_gate',
    ];
    // The worklist's runs (and their list) merged into the pending sets.
    const applyEntries: SolverEntryPoint[] = ['mark_segments', 'apply_pairs'];
    const updateEntries: SolverEntryPoint[] = [
      ...applyEntries,
      // The second copy hop, whose pulls guard_update's room counts.
      ...(hop ? (['hop_bits', 'hop_pull'] as const) : []),
      ...(fuseGuardPending
        ? (['guard_pending'] as const)
        : activeLists
          ? (['guard_update', 'pending_list'] as const)
          : (['guard_update'] as const)),
      'update_sets',
      'hcd_hook',
      // compress also links each merged node to its new root.
      'compress',
    ];
    // A round's merges are planned at the end of its update (merge_rank lays the classes' new
    // children out and guard_merge checks that the pools hold the folds), and folded at the start
    // of the next submission, once the host has read how many children there are and the largest
    // class: a round that merges nothing encodes no fold, and one that does runs only the levels of
    // the tree (merge_level) that its largest class needs, at most 16; merge_data folds what a
    // larger class leaves in more than one root.
    const fixedMergeLevels = this.#options.mergeTreeLevels;
    // guard_update begins the plan when it commits (its counts at 0), and guard_merge also reports
    // the pools' state.
    const mergePlanEntries: SolverEntryPoint[] = ['merge_rank', 'merge_count', 'guard_merge'];
    /** The folds of the merges the last update planned (none when it merged nothing). */
    let pendingFolds: SolverEntryPoint[] = [];
    /** The merge levels the last round that merged needed. */
    let lastFoldLevels = 0;
    /** The folds of a round's merges with `levelCount` levels of the children's tree. */
    const foldEntries = (levelCount: number): SolverEntryPoint[] => {
      const levels: SolverEntryPoint[] = [];
      for (let level = 0; level < levelCount; level++) levels.push('merge_level');
      return ['merge_prepare', ...levels, 'merge_data', 'merge_done'];
    };
    const planFolds = (status: Uint32Array) => {
      const merged = status[STATUS.merged] as number;
      if (merged === 0 || status[STATUS.skipUpdate] !== 0 || status[STATUS.skipMerge] !== 0) {
        pendingFolds = [];
        return;
      }
      const children = status[STATUS.mergeMaxChildren] as number;
      const levelCount = fixedMergeLevels ?? Math.min(16, Math.ceil(Math.log2(Math.max(1, children))));
      lastFoldLevels = levelCount;
      grids.mergeItems = fixedMergeTeams ?? Math.min(n, merged);
      pendingFolds = foldEntries(levelCount);
    };
    /** The rules (again after growing the worklist until it holds them all), then the sorted worklist and the update. */
    let initialized = false;
    // With the second copy hop only after rounds that pushed at most hopMaxPairs pairs (see
    // GpuSolverOptions.hop): the update is recorded with or without it, as the last round chose.
    const hopMaxPairs = hopOn === undefined ? 0 : (hopOn.maxPairs ?? 65_536);
    const hopTail: SolverEntryPoint[] = [...updateEntries, ...mergePlanEntries];
    const plainTail = hopTail.filter((entry) => entry !== 'hop_bits' && entry !== 'hop_pull');
    // With hop.tail: the most pairs of a round since the second (the first round's rules read
    // every initial set).
    const hopTailShare = hopOn?.tail;
    let peakPairs = 0;
    let updateTail = hopTailShare === undefined ? hopTail : plainTail;
    const chooseHop = (pairCount: number) => {
      const inTail =
        hopTailShare === undefined || (stats.rounds >= 2 && pairCount <= hopTailShare * peakPairs);
      if (stats.rounds >= 2) peakPairs = Math.max(peakPairs, pairCount);
      updateTail = pairCount <= hopMaxPairs && inTail ? hopTail : plainTail;
    };
    // begin_iteration also begins the iteration's first attempt (begin_attempt's resets).
    const firstAttemptEntries = rulesEntries.slice(1);
    const nextRulesEntries: SolverEntryPoint[] = ['begin_iteration', ...firstAttemptEntries];
    // The counts of the last rounds that sorted and merged, which the guesses are sized by.
    const guesses = new RoundGuesses({
      queueRoom: this.#options.queueRoom ?? 2,
      queueExtraLevels: this.#options.queueExtraLevels ?? 1,
      smallSortPairs,
      sortSizeFor,
      preparedSorts,
    });
    const levelEntries = (levels: number) => {
      const entries: SolverEntryPoint[] = [];
      for (let level = 0; level < levels; level++) entries.push('merge_partials');
      return entries;
    };
    // The next round's rules (up to sort_gate), recorded while this round runs (see encodeAhead).
    let nextRules: Ahead | undefined;
    const recordNextRound = () => {
      nextRules = encodeAhead(nextRulesEntries);
    };
    // The guess that sort_gate checks, as the params buffer holds it.
    let gateParams: readonly number[] = NO_GUESS;
    const setGate = (sortCapacity: number, levels: number) => {
      if (gateParams[0] === sortCapacity && gateParams[1] === levels) return;
      gateParams = [sortCapacity, levels];
      // guess_sort_capacity, then guess_levels after it (PARAMS_FIELDS).
      ctx.queue.writeBuffer(
        params,
        paramsOffset('guess_sort_capacity'),
        Uint32Array.of(sortCapacity, levels),
      );
    };
    const guessed = { held: 0, missed: 0 };
    // When the status words of the last rules reached the host (for host.react).
    let rulesStatusAt = 0;
    const rulesAheadCounts = { ran: 0, skipped: 0 };
    /**
     * Rules queued behind an update: their status words, and the `fold_levels` word they were
     * queued with (NO_FOLDS: no folds); with `pipelineRounds`, the guess of the update queued
     * behind them, whose status the words then are.
     */
    let rulesAhead:
      | {
          readonly status: Promise<Uint32Array>;
          readonly foldLevels: number;
          readonly guess?: PipelineGuess | undefined;
        }
      | undefined;
    // Whether the last round whose status the host read merged classes. Merges come in runs of
    // rounds (gcc: 6, 6 and 5 in a row, then one at a time), so after a round that merged the folds
    // of the next one's merges are queued too, with one level more than the last merges needed:
    // rules_gate runs them and the rules when they take the round's largest class (FOLD_ROOT_LEVELS).
    let lastRoundMerged = false;
    let foldLevelsParam: number = NO_FOLDS;
    /** Whether the folds queued with the rules (`fold_levels`: NO_FOLDS, log2 of the most children a class may have, or 31 for any) take what the update merged, as rules_gate tests it. */
    const foldsCover = (status: Uint32Array, foldLevels: number) =>
      status[STATUS.merged] === 0 ||
      (foldLevels !== NO_FOLDS &&
        (foldLevels >= 31 || (status[STATUS.mergeMaxChildren] as number) <= 2 ** foldLevels));
    // The update's kernels after the sort do not depend on the rules' status words: they are
    // recorded ahead, with the sort and the partial-merge levels on the guess of the last round
    // that sorted (merged chunks), whose plan is prepared (and the last round's extra chunks for
    // merge_partials' grid, whose loop strides over the real count).
    let updateAhead: Ahead | undefined;
    let sortAhead: Ahead | undefined;
    let levelsAhead: Ahead | undefined;
    const encodeUpdate = () => {
      updateAhead = encodeAhead(updateTail);
      sortAhead = undefined;
      levelsAhead = undefined;
      if (!sortAheadEnabled || updateAhead === undefined) return;
      if (guesses.pairs > 1 && guesses.pairs <= smallSortPairs) sortAhead = encodeAhead(['sort_small']);
      else if (guesses.pairs > 1) sortAhead = encodeAhead([], sortSizeFor(guesses.pairs));
      if (guesses.levels > 0) levelsAhead = encodeAhead(levelEntries(guesses.levels));
    };
    const foldRootLevels = this.#options.foldRootLevels ?? FOLD_ROOT_LEVELS;
    /** While an update runs (or, with pipelineRounds, the round before): records the next rules (and with pipelineRounds its guessed update) and submits them behind it with rules_gate first. */
    const recordAndQueueNextRules = () => {
      const guess = pipeline ? guesses.pipelineGuess() : undefined;
      if (!pipeline || guess === undefined) recordNextRound();
      if (!rulesAheadEnabled || compiled === undefined) return;
      if (guess === undefined && nextRules === undefined) return;
      const current = compiled;
      const started = performance.now();
      // The encodeAhead calls below count their own time; this one's total replaces theirs.
      const aheadBefore = host.encodeAhead;
      // After a round that merged: the folds of this round's merges too, on a guess of their levels
      // (rules_gate checks it); the rules recorded without them stay for the host.
      const foldLevels = lastRoundMerged ? (fixedMergeLevels ?? Math.min(16, lastFoldLevels + 1)) : undefined;
      const queued =
        foldLevels === undefined && nextRules !== undefined
          ? nextRules
          : encodeAhead([...(foldLevels === undefined ? [] : foldEntries(foldLevels)), ...nextRulesEntries]);
      if (queued === undefined) return;
      if (queued === nextRules) nextRules = undefined;
      const update =
        guess === undefined
          ? undefined
          : encodeAhead(
              [
                ...(guess.small ? (['sort_small'] as const) : []),
                ...levelEntries(guess.levels),
                ...updateTail,
              ],
              guess.sortCount,
            );
      if (guess !== undefined && update === undefined) return;
      // The largest class the folds take, as log2 of its children: merge_data folds the roots the
      // levels leave one after another, so up to 2^foldRootLevels of them a class.
      const levelsWord =
        foldLevels === undefined
          ? NO_FOLDS
          : fixedMergeLevels !== undefined
            ? 31
            : Math.min(31, foldLevels + foldRootLevels);
      if (levelsWord !== foldLevelsParam) {
        foldLevelsParam = levelsWord;
        ctx.queue.writeBuffer(params, paramsOffset('fold_levels'), Uint32Array.of(levelsWord));
      }
      // Written in queue order: the submissions before this one see the guess they were queued with.
      if (guess !== undefined) setGate(guess.capacity, guess.levels);
      const label = update ? 'andersen round ahead' : 'andersen rules ahead';
      const span = takeSpan(update ? 'queued round' : 'queued rules');
      let staged: StagedRead | undefined;
      const submitted = ctx.guard(label, () => {
        const encoder = ctx.device.createCommandEncoder({ label });
        stampSpan(encoder, span, false);
        encodeEntries(encoder, label, current, ['rules_gate'], 0, 0, [], []);
        const tail = ctx.device.createCommandEncoder({ label: `${label} (status)` });
        stampSpan(tail, span, true);
        staged = ctx.staging.recordRead(tail, control, 0, CONTROL_HEAD_WORDS * 4);
        ctx.queue.submit([
          encoder.finish(),
          queued.commandBuffer,
          ...(update ? [update.commandBuffer] : []),
          tail.finish(),
        ]);
      });
      host.encodeAhead = aheadBefore + (performance.now() - started);
      host.submissions++;
      const status = Promise.all([submitted, staged?.read()]).then(([, bytes]) => {
        if (bytes === undefined)
          throw new GpuSolverError('the rules submitted ahead recorded no status read');
        return new Uint32Array(bytes);
      });
      // Awaited by the next round or by settleRulesAhead; an error meanwhile must not count as unhandled.
      status.catch(() => undefined);
      rulesAhead = { status, foldLevels: levelsWord, guess: update ? guess : undefined };
      // The host has nothing else to do until these rules' counts come back, whereas recording the
      // update while they run could delay its submission past them.
      if (update === undefined) encodeUpdate();
    };
    // Checks of rules that rules_gate must have held back (awaited before the sets are read).
    const heldBackChecks: Promise<void>[] = [];
    const clearRulesSkipped = () =>
      ctx.queue.writeBuffer(control, 4 * STATUS.rulesSkipped, Uint32Array.of(0));
    /** Adds a check that the rules queued with `status` were held back (the host runs them). */
    const expectHeldBack = (status: Promise<Uint32Array>) => {
      const check = status.then((words) => {
        if (words[STATUS.rulesSkipped] === 0) {
          throw new GpuSolverError(
            'internal error: rules queued behind an update ran although the host had to act first (rules_gate and the host disagree)',
          );
        }
      });
      // Awaited before the sets are read; a solve that fails before then must not leave it unhandled.
      check.catch(() => undefined);
      heldBackChecks.push(check);
    };
    /**
     * After a queued round that was held back or outran its guess: the one queued behind it (if
     * any) was held back too. Clears the flag behind both, for the host's own submissions.
     */
    const dropQueuedRound = () => {
      if (rulesAhead !== undefined) {
        expectHeldBack(rulesAhead.status);
        rulesAhead = undefined;
        rulesAheadCounts.skipped++;
      }
      clearRulesSkipped();
    };
    /** One level of the partial-merge tree per `partialMergeBits` doublings of the most chunks one representative got. */
    const partialMergeLevels = (status: Uint32Array) =>
      Math.ceil(Math.ceil(Math.log2(Math.max(1, status[STATUS.pullMaxChunks] as number))) / partialMergeBits);
    /** Adds an attempt's pull and rule counts to the report; returns the partial-merge levels it needs. */
    const countAttempt = (status: Uint32Array, pairCount: number) => {
      pairsPushed += pairCount;
      pullSplit.extraChunks += Math.min(status[STATUS.pullChunkCount] as number, chunkCapacity);
      pullSplit.maxChunks = Math.max(pullSplit.maxChunks, status[STATUS.pullMaxChunks] as number);
      pullSplit.refused += status[STATUS.pullRefused] as number;
      pullSplit.skippedEqualDeltas += status[STATUS.pullsSkipped] as number;
      sharedRules += status[STATUS.rulesShared] as number;
      grids.extraChunks = Math.max(1, Math.min(status[STATUS.pullChunkCount] as number, chunkCapacity));
      return partialMergeLevels(status);
    };
    /** An update queued on a guess that held: counts it and its sort, and notes the counts for the next guesses. */
    const countSort = (sortCount: number) => {
      if (sortCount <= mergeSortPairs) sorts.merge++;
      else sorts.radix++;
    };
    const noteHeldGuess = (status: Uint32Array, small: boolean, sortCount: number) => {
      const pairCount = status[STATUS.pairCount] as number;
      guessed.held++;
      if (pairCount > 1) {
        if (small) sorts.small++;
        else countSort(sortCount);
        sorts.ahead++;
      }
      guesses.note(pairCount, countAttempt(status, pairCount));
    };
    // Every decision to grow the pools and the worklist (see growth.ts).
    const growth = new PoolGrowth(points, edges, {
      growAhead,
      maxStorageBuffers: ctx.limits.maxStorageBuffersPerShaderStage,
      maxBindingBytes: ctx.limits.maxStorageBufferBindingSize,
      pairCapacity: () => pairCapacity,
      // Moves the worklist to buffers of `capacity` pairs (what it held is not kept: only between
      // attempts or rounds).
      growWorklist: async (capacity) => {
        pairs = await this.#createPairs(capacity, pairs);
        const from = pairCapacity;
        pairCapacity = capacity;
        await ctx.writeBuffer(params, paramsOffset('pair_capacity'), Uint32Array.of(capacity));
        this.emit('grow', { pool: 'worklist', from, to: capacity });
      },
      timed: (ms) => {
        host.grow += ms;
      },
      heads: {
        points: Array.from({ length: NODE_SET_SLOTS }, (_, slot) => ({
          buffer: ptsHeads,
          first: slot * n,
          count: n,
        })),
        edges: Array.from({ length: EDGE_SET_SLOTS }, (_, slot) => ({
          buffer: edgHeads,
          first: slot * n,
          count: n,
        })),
      },
      writeControl: (word, value) => ctx.queue.writeBuffer(control, 4 * word, Uint32Array.of(value)),
    });
    /** Whether the last update went up after rules that ran out of nothing, counted by the host (not on a guess). */
    let updateAloneAgain = false;
    /**
     * Runs the last update again, from its partial-merge levels and sort, after growing the pools
     * it ran short of. Its rules ran out of nothing (else they run again too), and every step before
     * the update's commit is idempotent: the levels and the sort repeat on the same chunks and
     * pairs, and apply_pairs merges again what a union left out (an exhausted union links nothing
     * half made). Only the skip flag and the level counter start again; the rules' counts (pairs,
     * most chunks) are still in the status words.
     */
    const redoUpdate = async (label: string, status: Uint32Array) => {
      ctx.queue.writeBuffer(control, 4 * STATUS.skipUpdate, Uint32Array.of(0));
      ctx.queue.writeBuffer(control, 4 * STATUS.pullLevel, Uint32Array.of(0));
      const pairCount = status[STATUS.pairCount] as number;
      return (
        await run(label, [...levelEntries(partialMergeLevels(status)), ...updateTail], {
          pairCount,
          whileRunning: recordAndQueueNextRules,
          kind: 'update',
          submitFirst: pairCount > 1 ? 0 : undefined,
        })
      ).status;
    };
    const iterate = async (label: string, first: boolean): Promise<Uint32Array> => {
      updateAloneAgain = false;
      growth.attemptBegins();
      const begin: SolverEntryPoint[] = first ? ['begin_iteration'] : [];
      // The very first submission fills the heads and arrays that start empty, then builds the
      // initial sets from their pairs (sorted, then merged into the pending slots by key).
      const initialCount = initialized ? 0 : initialPairs.count;
      if (!initialized) {
        begin.unshift('init_state', ...(initialCount > 0 ? applyEntries : []));
      }
      initialized = true;
      const rules = first ? [...begin, ...firstAttemptEntries] : rulesEntries;
      // This round's rules, submitted behind the last update when rulesAhead is on.
      const queuedRules = first ? rulesAhead : undefined;
      rulesAhead = undefined;
      const recorded = takeAhead(nextRules, rules);
      nextRules = undefined;
      // Partial-merge levels this attempt has run (the guessed ones).
      let levelsRun = 0;
      let status: Uint32Array;
      let ranAhead: Uint32Array | undefined;
      if (queuedRules !== undefined) {
        const queuedGuess = queuedRules.guess;
        // A whole round queued (pipelineRounds): the one after it goes up behind it before the
        // wait, so that the GPU runs it while the host reads this one. Else the update's kernels
        // are recorded while those rules run, unless they were recorded behind the last update
        // for the kernels still current.
        if (queuedGuess !== undefined) recordAndQueueNextRules();
        else if (updateAhead?.key !== compiledKey()) encodeUpdate();
        const waitStarted = performance.now();
        const aheadStatus = await queuedRules.status;
        rulesStatusAt = performance.now();
        host.wait += rulesStatusAt - waitStarted;
        if (aheadStatus[STATUS.rulesSkipped] === 0) {
          rulesAheadCounts.ran++;
          if (activeLists) readListItems(aheadStatus);
          ranAhead = aheadStatus;
          // The folds of the last round's merges ran before them.
          pendingFolds = [];
          if (queuedGuess !== undefined) {
            checkFatal(aheadStatus);
            if (aheadStatus[STATUS.guessMissed] === 0) {
              rulesStatusAt = 0;
              noteHeldGuess(aheadStatus, queuedGuess.small, queuedGuess.sortCount);
              return aheadStatus;
            }
            // Short: sort_gate sorted nothing and skipped the update (the levels run stay run),
            // and the round queued behind this one is held back (its gate sees the skip).
            guessed.missed++;
            levelsRun = queuedGuess.levels;
            dropQueuedRound();
            setGate(...NO_GUESS);
          }
        } else {
          // rules_gate held them back (it tests more than the host, e.g. a pool filled to its
          // capacity): the host runs them below; a round queued behind them is held back too.
          rulesAheadCounts.skipped++;
          dropQueuedRound();
        }
      }
      if (ranAhead !== undefined) {
        status = ranAhead;
      } else {
        setGate(...NO_GUESS);
        // The folds of the last round's merges come first: the rules see the merged classes.
        status = (
          await run(label, recorded ? pendingFolds : [...pendingFolds, ...rules], {
            pairCount: initialCount,
            ahead: recorded ? [recorded] : [],
            // Recorded already while the rules held back ran.
            whileRunning: queuedRules === undefined ? encodeUpdate : () => undefined,
            kind: 'rules',
          })
        ).status;
        pendingFolds = [];
      }
      for (;;) {
        checkFatal(status);
        const pairCount = status[STATUS.pairCount] as number;
        // sort_gate reported the pools after the rules: a pool they ran out of is grown now, and
        // the rules run again, rather than after an update that could only have been skipped.
        const rulesRanOut = status[STATUS.ptsExhausted] !== 0 || status[STATUS.edgesExhausted] !== 0;
        if (pairCount <= pairCapacity && !rulesRanOut) {
          const levels = countAttempt(status, pairCount);
          // An update skipped for room alone is run again from its levels and sort (see redoUpdate).
          updateAloneAgain = !pipeline && status[STATUS.guessMissed] === 0;
          const merges = levelEntries(Math.max(0, levels - levelsRun));
          const recordedUpdate = takeAhead(updateAhead, updateTail);
          // A command buffer goes up once: what is not taken now is recorded anew.
          updateAhead = undefined;
          const smallSort = pairCount > 1 && pairCount <= smallSortPairs;
          const sortCount = smallSort ? 0 : sortSizeFor(pairCount);
          // The sort and the levels recorded on a guess, when it was right (they go before the
          // update, which they were recorded with). A sort recorded for twice the pairs
          // sorts them too (it reads their count on the GPU; its tiles past the count do nothing
          // or, in the radix sort, write empty histogram rows), and a level more than needed merges nothing (no chunk's
          // number has that many trailing zeros).
          const recordedSort =
            recordedUpdate === undefined
              ? undefined
              : smallSort
                ? takeAhead(sortAhead, ['sort_small'])
                : sortCount > 1
                  ? (takeAhead(sortAhead, [], sortCount) ?? takeAhead(sortAhead, [], 2 * sortCount))
                  : undefined;
          const recordedLevels =
            recordedUpdate !== undefined && merges.length > 0
              ? (takeAhead(levelsAhead, merges) ??
                takeAhead(levelsAhead, levelEntries(levels - levelsRun + 1)))
              : undefined;
          sortAhead = undefined;
          levelsAhead = undefined;
          guesses.note(pairCount, levels);
          if (smallSort) sorts.small++;
          else if (sortCount > 1) countSort(recordedSort?.sortCount ?? sortCount);
          if (recordedSort) sorts.ahead++;
          return (
            await run(label, [...(recordedLevels ? [] : merges), ...(recordedUpdate ? [] : updateTail)], {
              // After a guess fell short sort_gate runs again, with none (it sorted nothing).
              beforeSort: status[STATUS.guessMissed] !== 0 ? ['sort_gate'] : [],
              pairCount: recordedSort ? 0 : pairCount,
              ahead: [recordedSort, recordedLevels, recordedUpdate].filter(
                (recorded) => recorded !== undefined,
              ),
              whileRunning: recordAndQueueNextRules,
              kind: 'update',
              // The sort goes up first: Dawn records each dispatch's backend commands in
              // queue.submit (about 4.5 µs each on the H100 machine) and the GPU starts a
              // submission only once it is recorded, so the GPU sorts while the update's
              // thirty-odd dispatches are recorded.
              submitFirst: pairCount > 1 ? (recordedSort ? 1 : 0) : undefined,
            })
          ).status;
        }
        stats.reruns++;
        levelsRun = 0;
        if (pairCount > pairCapacity) await growth.growWorklist(Math.max(2 * pairCapacity, 2 * pairCount));
        if (rulesRanOut) await growth.growShortPools(status);
        status = (
          await run(`${label} (${rulesRanOut ? 'pools' : 'worklist'} grown)`, rulesEntries, {
            whileRunning: encodeUpdate,
            kind: 'rules',
          })
        ).status;
      }
    };

    /**
     * After an update's status: when the host has something to do before the next rules (redo the
     * update or the merges, fold, stop, or grow a pool ahead), rules_gate held the rules queued
     * behind the update back, as it tests the same words. Clears its flag (queued behind them) and
     * checks, before the sets are read, that they did return at once.
     */
    const settleRulesAhead = (status: Uint32Array) => {
      if (rulesAhead === undefined) return;
      const quiet =
        status[STATUS.active] === 0 && status[STATUS.freshNodes] === 0 && status[STATUS.merged] === 0;
      const hostActs =
        status[STATUS.fatal] !== 0 ||
        status[STATUS.skipUpdate] !== 0 ||
        status[STATUS.skipMerge] !== 0 ||
        !foldsCover(status, rulesAhead.foldLevels) ||
        quiet ||
        growth.growsAhead(status);
      if (!hostActs) return;
      dropQueuedRound();
    };

    // The kept buffers' clears, before anything reads them; then the GPU's preparation, whose
    // errors are awaited with the held-back checks at the end.
    await this.#clearKept();
    if (programBuffer !== undefined && prepareSizes !== undefined) {
      const sizes = prepareSizes;
      const kernels = await prepareKernels(ctx);
      const buffers = {
        control,
        program: programBuffer,
        pairKeys: pairs.keys,
        pairValues: pairs.values,
        rules,
      };
      heldBackChecks.push(
        ctx.guard('andersen prepare', () => {
          const encoder = ctx.device.createCommandEncoder({ label: 'andersen prepare' });
          const span = takeSpan('other');
          stampSpan(encoder, span, false);
          encodePrepare(encoder, kernels, buffers, sizes);
          stampSpan(encoder, span, true);
          ctx.queue.submit([encoder.finish()]);
        }),
      );
      host.submissions++;
    }
    const setupMs = performance.now() - started;
    const iterateStarted = performance.now();
    for (;;) {
      this.#checkAbort();
      const round = ++stats.rounds;
      this.emit('phase', 'wave', round);
      let status = await iterate(`andersen iteration ${round}`, true);
      settleRulesAhead(status);
      for (;;) {
        checkFatal(status);
        if (status[STATUS.skipUpdate] === 0) break;
        stats.reruns++;
        this.#checkAbort();
        await growth.growShortPools(status);
        // The update alone again when only it ran short (pairCount ≤ capacity and the rules ran out
        // of nothing: else iterate would not have submitted it), as often as it does; the whole
        // iteration otherwise.
        const alone = updateAloneAgain && !growth.compactedThisAttempt && status[STATUS.guessMissed] === 0;
        if (alone) stats.updateRedos++;
        status = alone
          ? await redoUpdate(`andersen update ${round} (again)`, status)
          : await iterate(`andersen iteration ${round} (again)`, false);
        settleRulesAhead(status);
      }
      checkFatal(status);
      if (status[STATUS.skipMerge] !== 0) {
        // guard_merge found a pool short of room for the folds (the plan itself allocates nothing
        // and stands): grow that pool to hold them, and let the folds run, as the guard would now.
        stats.mergeGrows++;
        await growth.growForMerges(status);
        ctx.queue.writeBuffer(control, 4 * STATUS.skipMerge, Uint32Array.of(0));
        status = status.slice();
        status[STATUS.skipMerge] = 0;
      }
      planFolds(status);
      lastRoundMerged = (status[STATUS.merged] as number) !== 0;
      const propagated = status[STATUS.active] as number;
      const fresh = status[STATUS.freshNodes] as number;
      const merged = status[STATUS.merged] as number;
      const edgesAdded = status[STATUS.edgesAdded] as number;
      stats.propagations += propagated;
      stats.hcdMerges += merged;
      stats.edgesAdded += edgesAdded;
      // The rules of round 1 see empty sets, so its update adds exactly the initial copy edges.
      if (round === 1) initialEdgeCount = edgesAdded;
      this.emit('iteration', {
        round,
        propagated,
        edgesAdded,
        merged,
        elapsedMs: performance.now() - started,
        kernelMs: profile ? roundKernelMs : undefined,
      });
      roundKernelMs = {};
      if (propagated === 0 && fresh === 0 && merged === 0) break;
      // Sets that will take long to read back: start the context's page-touching workers now
      // (once a context: starting them cost gcc's solves a millisecond of the main thread each),
      // so they are ready by the end (the live sets are at most what the pool holds).
      const pointsNext = status[STATUS.ptsNext] as number;
      if (this.#toucher === undefined && pointsNext * points.elementBytes >= touchFrom) {
        this.#toucher = ctx.pageToucher();
      }
      chooseHop(status[STATUS.pairCount] as number);
      // Grow ahead of need: an iteration that would not fit runs twice.
      await growth.growAheadAfter(status);
    }
    await Promise.all(heldBackChecks);
    const iterateMs = performance.now() - iterateStarted;

    // Read back the union–find and the representatives' P sets. The pool holds every ΔP, N and
    // partial set ever built (bump allocation), 3.6–5.8× the live sets on python, php and linux:
    // the GPU first copies the live lists one after another into the worklist's source buffer, so
    // that only they cross the bus; the whole pool is read only when they would not fit a binding.
    const transferStarted = performance.now();
    const compactOption = this.#options.compactReadback !== false;
    const elementBytes = ELEMENT_WORDS * 4;
    // live_count writes each set's head and length into the worklist's keys: 2n words.
    if (pairCapacity < 2 * n) {
      pairCapacity = 2 * n;
      pairs = await this.#createPairs(pairCapacity, pairs);
    }
    // One submission lays the live sets out (live_count reserves each distinct set's elements,
    // live_copy copies them there, unless they do not fit the buffer), flattens the union–find
    // and copies out the union–find, the heads, both pool headers and the leaders; and, where the
    // worklist's source buffer is small, the buffer itself, of which the host keeps the bytes the
    // sets took. The host neither lays the sets out between two submissions nor walks every node
    // after them.
    const headerBytes = POOL_HEADER_WORDS * 4;
    const layOut = (valuesBytes: number) =>
      run(
        'andersen live sets',
        [
          ...(shareEqualSets ? (['delta_clear', 'live_leaders'] as const) : []),
          'live_count',
          ...(compactOption ? (['live_copy'] as const) : []),
        ],
        {
          reads: [
            { buffer: control, byteOffset: arrayAt('parent') * 4, byteLength: n * 4 },
            { buffer: pairs.keys, byteOffset: 0, byteLength: n * 4 },
            { buffer: points.header, byteOffset: 0, byteLength: headerBytes },
            { buffer: edges.header, byteOffset: 0, byteLength: headerBytes },
            ...(shareEqualSets
              ? [{ buffer: control, byteOffset: arrayAt('deltaLeader') * 4, byteLength: n * 4 }]
              : []),
          ],
          mappedReads:
            valuesBytes > 0 ? [{ buffer: pairs.values, byteOffset: 0, byteLength: valuesBytes }] : [],
        },
      );
    // A buffer that could hold sets large enough for touched memory is read after the layout,
    // only as far as they reach.
    const valuesWithLayout = (bytes: number) =>
      compactOption && bytes <= LIVE_READ_WITH_LAYOUT_BYTES && bytes < touchFrom ? bytes : 0;
    let laid = await layOut(valuesWithLayout(pairs.values.size));
    // live_copy checked every list it laid out (a corrupt one is fatal here).
    checkFatal(laid.status);
    const live = laid.status[STATUS.liveElements] as number;
    const liveBytes = live * elementBytes;
    const compacted =
      compactOption &&
      liveBytes <= Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
    const valuesRoom = Math.floor(pairs.values.size / elementBytes);
    let liveLayouts = compacted ? 1 : 0;
    if (compacted && live > valuesRoom) {
      liveLayouts++;
      // The sets did not fit, so live_copy left them: lay them out again in a buffer that holds them.
      for (const mapped of laid.mapped) mapped.take(0);
      pairs = await this.#createPairs(pairCapacity, pairs, Math.max(pairCapacity, live * ELEMENT_WORDS));
      // Its counters start again at 0: liveElements and the counts after it, through liveShared.
      await ctx.writeBuffer(
        control,
        STATUS.liveElements * 4,
        new Uint32Array(STATUS.liveShared - STATUS.liveElements + 1),
      );
      laid = await layOut(0);
      checkFatal(laid.status);
    }
    const read = await readSets({
      ctx,
      nodeCount: n,
      laid,
      compacted,
      liveBytes,
      touchFrom,
      toucher: this.#toucher,
      values: pairs.values,
      ptsHeads,
      points,
    });
    const transferReadMs = performance.now() - transferStarted;
    const { parent, sets, sharedSets, pointsToElements } = adoptSets(read, laid, compacted, n);
    const { readbackBytes, touchedReadback } = read;
    const transferMs = performance.now() - transferStarted;
    this.#endToucher();

    const statistics: SolveStatistics = {
      rounds: stats.rounds,
      offlineMerges: prepared.offlineMerges ?? (laid.status[STATUS.offlineMerges] as number),
      cycleMerges: 0,
      hcdMerges: stats.hcdMerges,
      copyEdgesAdded: Math.max(0, stats.edgesAdded - initialEdgeCount),
      propagations: stats.propagations,
      solveMs: performance.now() - started,
      pointsToElements,
    };
    const submissionSpans = spanSet ? await readSubmissionSpans(ctx, spanSet, spanKinds) : undefined;
    let gpuBytes = 0;
    for (const buffer of this.#buffers) gpuBytes += buffer.size;
    gpuBytes += points.capacity * points.elementBytes + edges.capacity * edges.elementBytes + 32;
    gpuBytes += sorter.gpuBytes + mergeSorter.gpuBytes;
    this.report = {
      gpuBytes,
      pointsPool: { capacity: points.capacity, used: read.pointsUsed },
      edgePool: { capacity: edges.capacity, used: read.edgesUsed },
      reruns: stats.reruns,
      updateRedos: stats.updateRedos,
      mergeGrows: stats.mergeGrows,
      compactions: growth.compactions,
      setupMs,
      setupParts: { program: programMs, pools: poolsMs, buffers: setupMs - programMs - poolsMs },
      iterateMs,
      transferMs,
      transferReadMs,
      readbackBytes,
      sharedSets,
      liveLayouts,
      touchedReadback,
      adapter: String(ctx),
      pullSplit,
      sharedRules,
      pairs: pairsPushed,
      sorts,
      phaseMs: profile ? phaseMs : undefined,
      kernelMs: profile ? kernelMs : undefined,
      host,
      guessedRounds: guessed,
      rulesAhead: rulesAheadCounts,
      submissionSpans,
    };
    querySet?.destroy();
    spanSet?.destroy();
    const result = new AndersenResult(n, parent, sets, statistics, { flat: true });
    this.emit('phase', 'done', stats.rounds);
    this.emit('done', statistics);
    return result;
  }

  /**
   * The points-to and edge pools, empty, with room for the initial sets (`pointsElements` and
   * `edgeElements`, at most one element a pair) and the default or asked-for start.
   */
  async #createPools(
    n: number,
    pointsElements: number,
    edgeElements: number,
  ): Promise<{ points: ElementPool; edges: ElementPool }> {
    const ctx = this.ctx;
    // The two pools share the storage bindings the kernels leave for windows: each may grow into
    // the windows the other does not use (linux's points-to pool outgrew a fixed five of seven).
    const windowRoom = poolWindowShares(ctx.limits.maxStorageBuffersPerShaderStage).room;
    const windowBudget = new WindowBudget(windowRoom);
    const pointsWindows = windowRoom - 1;
    const edgeWindows = windowRoom - 1;
    const initial = this.#options.initialPoolElements;
    // Every kernel writes all the words of an element it allocates, so a kept buffer's stale
    // contents are harmless.
    const reuseBuffers = this.#keepsBuffers;
    const windowOption = {
      ...(this.#options.windowElements !== undefined ? { windowElements: this.#options.windowElements } : {}),
      ...(this.#options.maxPoolElements !== undefined ? { maxCapacity: this.#options.maxPoolElements } : {}),
    };
    const points = await createElementPool(ctx, {
      name: 'pts',
      capacity: Math.max(pointsElements + 1, initial ?? Math.max(4096, 4 * pointsElements, 8 * n)),
      maxWindows: pointsWindows,
      windowBudget,
      reuseBuffers,
      ...windowOption,
    });
    this.#pools.push(points);
    const edges = await createElementPool(ctx, {
      name: 'edg',
      capacity: Math.min(
        Math.max(edgeElements + 1, initial ?? Math.max(4096, 4 * edgeElements, n >> 1)),
        // With small windows (tests) the edge pool starts in one window (it may grow into more).
        this.#options.windowElements !== undefined
          ? Math.max(edgeElements + 1, this.#options.windowElements)
          : Number.POSITIVE_INFINITY,
      ),
      maxWindows: edgeWindows,
      windowBudget,
      reuseBuffers,
      ...windowOption,
    });
    this.#pools.push(edges);
    for (const pool of [points, edges]) {
      pool.on('grow', ({ pool: name, from, to }) => this.emit('grow', { pool: name, from, to }));
    }
    return { points, edges };
  }

  /** The worklist's sorts: those a solve left on the context (`keepBuffers`), or new ones. */
  #takeSorts(): WorklistSorts {
    const ctx = this.ctx;
    const tuning = this.#options.mergeSortTuning;
    const mergeTuning = mergeTuningKey(tuning);
    const kept = (this.#keepsBuffers ? keptSorters.get(ctx) : undefined) ?? [];
    const keptAt = kept.findIndex((sorts) => sorts.mergeTuning === mergeTuning);
    return (
      (keptAt >= 0 ? kept.splice(keptAt, 1)[0] : undefined) ?? {
        radix: createRadixSort(ctx),
        merge: createMergeSort(ctx, tuning ? { tuning } : {}),
        mergeTuning,
      }
    );
  }

  /** The worklist's key and source buffers for `capacity` pairs (replacing `old`). */
  async #createPairs(
    capacity: number,
    old?: { keys: GPUBuffer; values: GPUBuffer },
    valueCapacity = capacity,
  ): Promise<{ keys: GPUBuffer; values: GPUBuffer }> {
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
    // The labels name the capacities: the kernels' bind group is looked up by them (compiledKey).
    const keys = await this.#reuse(`andersen pair keys ${capacity}`, capacity * 4, usage);
    const values = await this.#reuse(`andersen pair sources ${valueCapacity}`, valueCapacity * 4, usage);
    await this.#clearKept();
    if (old && this.#keepsBuffers) {
      this.#buffers = this.#buffers.filter((b) => b !== old.keys && b !== old.values);
      // Work already submitted that reads them runs first (the queue's order).
      this.ctx.releaseBuffer(old.keys);
      this.ctx.releaseBuffer(old.values);
    }
    // Otherwise they stay in #buffers, freed with the rest by destroy(): kernels recorded ahead
    // for them may still be in flight.
    return { keys, values };
  }
}

/** The solve's settings: the options, with the tuning (`'~unstable'`) beside them. */
type SolverSettings = Omit<GpuSolverOptions, '~unstable'> & GpuSolverTuning;

/**
 * A new {@link GpuSolver} for `program` on `options.gpu`, or on a GPU it acquires (throws
 * {@link EngineUnavailableError} when there is none).
 *
 * @example
 * ```ts
 * const solver = await createGpuSolver(program, { hcd: input.hcd, initialPoolElements: 64 });
 * const result = await solver.solve();
 * solver.destroy();
 * ```
 */
export async function createGpuSolver(
  program: ConstraintProgram,
  options: GpuSolverOptions = {},
): Promise<GpuSolver> {
  if (options.gpu) return new GpuSolver(program, options.gpu, false, options);
  const ctx = await acquireGpu();
  if (!ctx) {
    throw new EngineUnavailableError(
      'no WebGPU adapter for the Andersen webgpu engine (run `gpumorph doctor`; engine "auto" falls back to the CPU)',
    );
  }
  return new GpuSolver(program, ctx, true, options);
}
