import type { GpuContext } from '@gpumorph/gpu-allocator';
import { ELEMENT_WORDS, type TeamKind } from '@gpumorph/sparse-bitvector';
import { DEFAULT_GROW_AHEAD } from '../growth';
import { teamWorkgroupSize as teamWorkgroupSizeFor } from '../layout';
import type { GpuSolverTuning, SolverSettings } from '../options';
import type { PreparedCounts } from '../prepare/prepare-gpu';
import { smallSortCapacity, smallSortWorkgroupBytes } from '../worklist/sizes';
import { MERGE_SORT_PAIRS, SOURCE_WORD_SHIFT } from '../worklist/sorts';

/**
 * Folds queued ahead take a class of up to 2^(levels + FOLD_ROOT_LEVELS) children: the levels
 * leave up to 2^FOLD_ROOT_LEVELS roots of it, which merge_data folds one after another. Rules held
 * back for a class the levels did not cover were most of python's held-back rounds (counted on
 * the development machine: classes of 122–1,137 children after merges that needed 3–8 levels).
 */
const FOLD_ROOT_LEVELS = 3;

/** Final readbacks from this size on go into memory that worker threads touched first. */
const TOUCHED_READ_BYTES = 16 * 2 ** 20;

/**
 * The second copy hop when the options leave it out: only after the rounds whose pairs are at
 * most a sixteenth of the most pairs of a round since the second (see the tuning's `hop`;
 * an eighth made python slower on the H100, through its mid-solve dips).
 */
const DEFAULT_HOP: NonNullable<Exclude<GpuSolverTuning['hop'], false>> = { tail: 1 / 16 };

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

/** The second copy hop's settings (see the tuning's `hop`), or undefined when it is off. */
function hopSettings(options: SolverSettings, deltaBitmap: boolean) {
  const hopOption = options.hop ?? DEFAULT_HOP;
  // The second copy hop reuses the delta_bits bitmap's words.
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
  return {
    hop,
    // With the second copy hop only after rounds that pushed at most hopMaxPairs pairs.
    hopMaxPairs: hopOn === undefined ? 0 : (hopOn.maxPairs ?? 65_536),
    // With hop.tail: only after rounds of at most this share of the most pairs since the second.
    hopTailShare: hopOn?.tail,
  };
}

/** The worklist's sort keys and sorts (see {@link solveSettings}). */
function worklistSettings(ctx: GpuContext, options: SolverSettings, n: number) {
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
  const composite = keyBits + groupBits <= 32 && options.compositeSort !== false;
  const compositeBits = composite ? groupBits : 0;
  // sort_small holds 8 bytes of workgroup memory per pair, 8 or 4 pairs per invocation: 2,048
  // pairs where 17 KiB fit, else 1,024. (16, 4,096 pairs, fits the H100's 48 KiB, but showed no
  // gain in interleaved runs of ex, gcc, perl and python there: within that machine's spread.)
  const workgroupBytes = ctx.limits.maxComputeWorkgroupStorageSize;
  const sortSmallFits = (items: number) => workgroupBytes >= smallSortWorkgroupBytes(items);
  const smallSortItems = options.smallSortItems ?? [8, 4].find((items) => sortSmallFits(items)) ?? 4;
  // Worklists of up to this many pairs go to the merge sort, longer ones to the radix sort.
  const mergeSortPairs = Math.min(
    options.mergeSortPairs ?? MERGE_SORT_PAIRS,
    Math.floor(ctx.limits.maxStorageBufferBindingSize / 4),
  );
  // By default a short worklist goes to the merge sort too (one dispatch: its tile kernel sorts
  // the power of two above the pairs, fewer barriers than sort_small's one-bit passes), and to
  // sort_small only where the merge sort is off (mergeSortPairs 0: the radix sort's dozen
  // dispatches would take it).
  const smallSortOn = options.smallSort ?? mergeSortPairs <= 0;
  const smallSortPairs =
    !smallSortOn || !sortSmallFits(smallSortItems) ? 0 : smallSortCapacity(smallSortItems);
  return {
    keyBits,
    sourceBits,
    groupBits,
    composite,
    compositeBits,
    smallSortItems,
    mergeSortPairs,
    smallSortPairs,
  };
}

/** How far ahead of the GPU the host records and queues work (see {@link solveSettings}). */
function aheadSettings(ctx: GpuContext, options: SolverSettings) {
  // Growing ahead is a guess: see PoolGrowth.
  const growAhead = options.growAhead ?? DEFAULT_GROW_AHEAD;
  const growBelowWord =
    Number.isInteger(growAhead.below) && growAhead.below >= 0 && growAhead.below <= 0xffff_ffff
      ? growAhead.below
      : 0;
  const profile = options.profile === true && ctx.features.timestampQuery;
  // Kernels recorded while the GPU runs the submission before them (see Submitter.encodeAhead).
  const encodeAheadEnabled = !profile && options.encodeAhead !== false;
  // The worklist's sort and the partial-merge levels depend on counts the rules leave, so they
  // are recorded ahead on a guess, those of the last round that sorted (merged): a submission
  // whose sort and levels match the guess records nothing but its status copy after the host
  // reads the rules' counts.
  const sortAheadEnabled = options.sortAhead !== false;
  // The next round's rules submitted behind an update (rulesAhead), with their status words.
  const rulesAheadEnabled =
    encodeAheadEnabled && options.rulesAhead !== false && growBelowWord === growAhead.below;
  // Whole rounds queued two deep (see the tuning's pipelineRounds): the update's kernels are
  // compiled with the rules' gate.
  const pipeline = rulesAheadEnabled && sortAheadEnabled && options.pipelineRounds !== false;
  return {
    growAhead,
    growBelowWord,
    profile,
    encodeAheadEnabled,
    sortAheadEnabled,
    rulesAheadEnabled,
    pipeline,
    queueRoom: options.queueRoom ?? 2,
    queueExtraLevels: options.queueExtraLevels ?? 1,
    foldRootLevels: options.foldRootLevels ?? FOLD_ROOT_LEVELS,
  };
}

/**
 * The numbers one solve runs with, from the options (their defaults), the device and the
 * program's counts: team shape, chunking, tables, the worklist's sorts and how far ahead of the
 * GPU the host records work.
 *
 * @example
 * ```ts
 * const settings = solveSettings(ctx, options, program.nodeCount, countForGpu(program, hcd), 'subgroup');
 * settings.pipeline; // whole rounds queued two deep
 * ```
 */
export function solveSettings(
  ctx: GpuContext,
  options: SolverSettings,
  n: number,
  prepared: PreparedCounts,
  team: TeamKind,
) {
  const deltaBitmap = options.deltaBitmap !== false;
  const activeLists = options.activeLists !== false;
  // The rules' signatures have a table as large after the ΔP leader table (a power of two of at
  // least twice the nodes, and twice the rules, so that probe sequences stay short).
  const deltaTableSlots = options.deltaTableSlots ?? Math.max(1024, 2 * n, 2 * prepared.ruleCount);
  // The worklist's table of pushed pairs (two words a slot); none when off.
  const dedupePairs = options.dedupePairs !== false;
  return {
    n,
    team,
    // The GPU prepares the program (prepare.wgsl.ts) unless told not to.
    prepareOnGpu: options.prepareOnGpu !== false,
    ...teamShape(ctx, team, options.teamsPerWorkgroup),
    // Teams per rule in member_rules and per online pair in hcd_hook.
    ruleSplit: options.ruleSplit ?? 4,
    hookSplit: options.hookSplit ?? 16,
    partialMergeBits: Math.log2(options.partialMergeFanIn ?? 4),
    shareRules: options.shareRules !== false,
    pullChunk: Math.max(1, Math.floor(options.pullChunk ?? 4)),
    maxPullChunks: Math.max(1, Math.floor(options.maxPullChunks ?? 1024)),
    chunkCapacity: Math.max(1, Math.floor(options.pullChunkCapacity ?? Math.max(4096, n))),
    deltaBitmap,
    activeLists,
    // member_rules over the rule list, which pull_items builds from the delta_bits bitmap.
    ruleList: options.ruleList !== false && activeLists && deltaBitmap,
    ...hopSettings(options, deltaBitmap),
    shareEqualSets: options.shareEqualSets !== false,
    deltaTableSize: 2 ** Math.ceil(Math.log2(Math.max(1, deltaTableSlots))),
    pairTableSize: dedupePairs
      ? 2 **
        Math.ceil(Math.log2(Math.max(2, options.pairTableSlots ?? Math.min(2 ** 23, Math.max(4096, 8 * n)))))
      : 0,
    ...worklistSettings(ctx, options, n),
    initialPairCapacity: Math.max(
      16,
      prepared.initialPairs.count,
      options.initialPairCapacity ?? Math.max(4096, 4 * n),
    ),
    ...aheadSettings(ctx, options),
    touchFrom:
      options.touchReadback === true
        ? (options.touchedReadbackBytes ?? TOUCHED_READ_BYTES)
        : Number.POSITIVE_INFINITY,
    fixedMergeTeams: options.mergeTeams,
    fixedMergeLevels: options.mergeTreeLevels,
    compactReadback: options.compactReadback !== false,
    maxWorklistPairs: options.maxWorklistPairs,
  };
}

/** What {@link solveSettings} returns. */
export type SessionSettings = ReturnType<typeof solveSettings>;
