import type { GpuContext } from '@gpumorph/gpu-allocator';
import type { MergeSortTuning } from '@gpumorph/gpu-primitives';
import type { HcdPairs } from '../offline/hcd-pairs';

/**
 * Options of {@link createGpuSolver}: the GPU, the problem's HCD table, cancellation, the pools'
 * first size, profiling, and what the solver keeps for the next solve. The engine's tuning (for
 * tests that force its rare paths, and for measurements) is under `'~unstable'`.
 *
 * @example
 * ```ts
 * const options: GpuSolverOptions = { gpu: ctx, hcd, initialPoolElements: 64, profile: true };
 * ```
 */
export interface GpuSolverOptions {
  /** The GPU to run on; without it the solver acquires one (and releases it in `destroy()`). */
  readonly gpu?: GpuContext | undefined;
  /** Hybrid cycle detection table: offline merges applied on the host, online pairs on the GPU. */
  readonly hcd?: HcdPairs | undefined;
  /** Cancels the solve between iterations: `solve()` rejects with {@link SolveAbortedError}. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Elements (128 bytes each) each pool starts with (default: four times what the initial sets
   * take, at least 4,096, and eight per node for points-to sets, one per two nodes for edges:
   * a pool that runs short makes an iteration run again after it grows).
   * Tiny values are legal: the pools grow when an iteration runs out.
   */
  readonly initialPoolElements?: number | undefined;
  /**
   * Time every kernel with timestamp queries (one pass per kernel, read back each iteration) and
   * report the GPU milliseconds per phase in {@link GpuSolveReport.phaseMs}. Slows the solve a little.
   */
  readonly profile?: boolean | undefined;
  /**
   * Start in the GPU buffers (pools, worklist, tables, the worklist's sorts) and upload arrays that
   * earlier solves left on `gpu`, and leave this solve's there when the solver is destroyed
   * (default false: the solver creates its own and frees them). A repeated solve then skips
   * creating buffers of hundreds of megabytes (tens of milliseconds on linux on the H100); the
   * context holds them, up to its `retainBytes`, until it is destroyed or `gpu.retained.trim()`
   * frees them. Only with `gpu` given: a solver that acquires its GPU destroys it.
   */
  readonly keepBuffers?: boolean | undefined;
  /**
   * Read large final sets (16 MiB and up) into memory whose pages the context's worker threads
   * touch while the GPU copies (default false: no worker threads): a copy into fresh memory pays a
   * page fault per 4 KiB on the main thread. The workers stay with the context until it is
   * destroyed. Node only; elsewhere, and when workers cannot start, the sets are read as usual.
   */
  readonly touchReadback?: boolean | undefined;
  /**
   * The engine's tuning: **unstable**, for tests that force rare paths (tiny tables, one team per
   * kernel, grids of one workgroup) and for measurements. Names, meanings and defaults may change in
   * any release; every setting gives the same sets.
   */
  readonly '~unstable'?: GpuSolverTuning | undefined;
}

/**
 * The Andersen WebGPU engine's tuning ({@link GpuSolverOptions}' `'~unstable'`). **Unstable**: for
 * tests and measurements; any field may change or go in any release. Every setting solves to the
 * same sets.
 *
 * @example
 * ```ts
 * const solver = await createGpuSolver(program, { gpu, '~unstable': { pullChunk: 1, gridCaps: { team: 1 } } });
 * ```
 */
export interface GpuSolverTuning {
  /** Elements per binding window of the pools (default: as many as one binding holds); lower it to test windowing. */
  readonly windowElements?: number | undefined;
  /**
   * Largest size of each pool, in elements (default: what the device's storage bindings allow).
   * Lower it to meet, on a small program, what a large one meets at the device's limit.
   */
  readonly maxPoolElements?: number | undefined;
  /**
   * Largest size of the worklist, in pairs (default: what one storage binding holds). Lower it to
   * meet, on a small program, a round that emits more pairs than a binding holds.
   */
  readonly maxWorklistPairs?: number | undefined;
  /**
   * Pairs the worklist (loads, stores, offsets) starts with (default four per node, at least
   * 4,096; it grows when an iteration emits more, and the iteration's rules run again).
   */
  readonly initialPairCapacity?: number | undefined;
  /**
   * Time each submission from its first kernel to its last with two timestamp queries (nothing
   * between them), and report how long the GPU ran submissions and how long it waited between
   * them in {@link GpuSolveReport.submissionSpans}: what the round trips cost, without the
   * profile's pass per kernel. Needs timestamp queries; ignored with `profile`. Default false.
   */
  readonly timeSubmissions?: boolean | undefined;
  /**
   * Submit each round's next rules right behind its update, before the host has read the
   * update's status (default true; not with `profile`, and only with
   * `encodeAhead`). The GPU then runs the next rules while the host reads the round's counts,
   * instead of idling until the host submits them. `rules_gate`, first in that submission, lets
   * them run only when the host will do nothing between the two: the update was not redone, the
   * round's merges (if any) are folded, some node changed, and neither pool is short of room by the
   * host's grow-ahead test. After a round that merged (merges come in runs of rounds), the folds of
   * the next round's merges go up before its rules, with one merge level more than the last merges
   * needed; the gate checks that they take the round's largest class (merge_data folds up to 8
   * roots the levels leave of a class, see `foldRootLevels`). Otherwise every
   * fold and rules kernel returns at once, the host clears the flag and runs them itself, as
   * before. {@link GpuSolveReport.rulesAhead} counts both outcomes.
   */
  readonly rulesAhead?: boolean | undefined;
  /**
   * With `rulesAhead`: queue whole rounds, two in flight (default true since the worklist's merge
   * sort: with it, on the H100, queued rounds took gcc's median from 57 to 46 ms, perl's from 73
   * to 68, python's from 131 to 121, and left php's and linux's level; with the radix sort they
   * did not pay; see docs/decisions/andersen-queued-rounds.md). Behind each round the
   * host submits the next one's folds, rules, a sort and partial-merge levels on a guess (room for
   * `queueRoom` times the most pairs of the last two rounds it read, one level more than they
   * needed) and its update, before it reads the round's counts; and once it has read a round's
   * status it submits the round after the next, so that the GPU runs one round while the host
   * reads the one before. `rules_gate` holds a queued round back (every kernel of it, the update's
   * too, returns at once) when the host must act first (as with `rulesAhead`) or the round before
   * was held back or outran its guess (`sort_gate`, then, skips that round's update, which the host
   * runs with the right sort). {@link GpuSolveReport.guessedRounds} and
   * {@link GpuSolveReport.rulesAhead} count the outcomes. Needs `sortAhead` (not with `profile`).
   */
  readonly pipelineRounds?: boolean | undefined;
  /**
   * With `rulesAhead`, folds queued ahead with l merge levels take a class of up to 2^(l + this)
   * children (default 3; 0: only classes the levels fold into one root). For measurements.
   */
  readonly foldRootLevels?: number | undefined;
  /**
   * The most workgroups a team kernel launches (default 2^15) and a kernel of one invocation per
   * item (default 2^14); their teams and invocations stride over the rest. For measurements
   * and tests: any grid gives the same sets.
   */
  readonly gridCaps?: { readonly team?: number; readonly thread?: number } | undefined;
  /** Room the queued update's sort has, as a multiple of the last round's pairs (default 2). For measurements. */
  readonly queueRoom?: number | undefined;
  /** Partial-merge levels the queued update runs past the most the last two rounds needed (default 1; with `pipelineRounds` −1 runs one fewer, for tests of guesses that fall short). For measurements. */
  readonly queueExtraLevels?: number | undefined;
  /**
   * Sort the worklist once by (key, source's word group) when both fit in 32 bits (default true);
   * false sorts twice, by the group and then stably by key, as larger programs must.
   * For tests.
   */
  readonly compositeSort?: boolean | undefined;
  /**
   * Worklists of more than sort_small's pairs and up to this many (the sort's planned size, a
   * power of two) are sorted by gpu-primitives' merge sort, by (key word, source): a tile sort and
   * ⌈log₂ tiles⌉ merge passes, one dispatch each, reading the pair count on the GPU. Larger ones
   * by the radix sort (4 or 5 passes of 3–5 dispatches, and 8 or 10 copies of the count). 0: the
   * radix sort for every size. Default: every size one binding holds (the merge sort was faster
   * on all six benchmarks on the H100, php and linux included). For measurements and tests.
   */
  readonly mergeSortPairs?: number | undefined;
  /**
   * Pulls (copy⁻¹ unions) per chunk when a representative's pulls are split over several teams
   * (default 4: in interleaved runs on the H100, php and linux ran 3–6% faster with 4 than with 8,
   * and slower with 16): a representative with p
   * pulls runs them as ⌈p / pullChunk⌉ chunks, each on its own team, whose partial sets a tree of
   * unions folds into N. Tests force 1 to split small inputs.
   */
  readonly pullChunk?: number | undefined;
  /**
   * Sort a worklist of at most 2,048 pairs (1,024 where workgroup memory is short) in one
   * workgroup (`sort_small`: a stable split on one bit per pass) instead of with the worklist's
   * sort (default: only with `mergeSortPairs: 0`, where that is the radix sort's dozen dispatches;
   * the merge sort takes a short worklist in one dispatch, which in interleaved runs on the H100 kept ex's
   * GPU busy 23 ms against 26 with `sort_small`, and gcc and perl a little faster).
   *Tests pick each path.
   */
  readonly smallSort?: boolean | undefined;
  /**
   * Pairs each of `sort_small`'s 256 invocations holds (16, 8 or 4; default 8, or 4 where the
   * adapter's workgroup memory is short). Tests and measurements pick one.
   */
  readonly smallSortItems?: 4 | 8 | 16 | undefined;
  /**
   * Shape of the merge sort's tiles (gpu-primitives' `MergeSortTuning`: invocations per workgroup
   * and pairs per invocation; default 256 × 8, tiles of 2,048 pairs). A tile of 4,096 (16 pairs an
   * invocation: 32,784 bytes of workgroup memory, which the H100's 48 KiB hold and lavapipe's 32
   * do not, where the sort halves the pairs back to 8) takes a sort of up to 4,096 pairs in one
   * dispatch and saves a merge pass on every larger one: perl records 6.2 merge-sort dispatches a
   * round, 4.8 of them merge passes. For measurements and tests.
   */
  readonly mergeSortTuning?: MergeSortTuning | undefined;
  /**
   * Teams launched for the merge tree's kernels (default: one per child the round merged).
   *Tests force 1 to run every child of a round on one team.
   */
  readonly mergeTeams?: number | undefined;
  /**
   * Screen the ΔP pulls' sources through a bitmap of the nodes whose class has a ΔP, rebuilt each
   * round (default true). Tests and measurements turn it off.
   */
  readonly deltaBitmap?: boolean | undefined;
  /**
   * Run `member_rules` over a list of the rules whose read class has a ΔP, which `pull_items`
   * builds from the `delta_bits` bitmap (default true; only with `activeLists` and `deltaBitmap`),
   * instead of sweeping every rule. Tests and measurements turn it off.
   */
  readonly ruleList?: boolean | undefined;
  /**
   * The second copy hop (default `{ tail: 1/16 }`: on in a solve's quiet tail; `false` turns it
   * off, `{}` runs it after every round): after the worklist is merged, `hop_bits` marks the
   * nodes whose class gathered a pending set N and `hop_pull` has each representative pull the N
   * of up to `pulls` such sources, found in the first `slots` word slots of its F then E lists
   * (defaults 2 and 60: two elements; with `setElements`, only sources whose N has at most that
   * many elements, and with `pointsElements` only representatives whose P has at most that many),
   * so that new pointees cross two copy edges a round. It runs after rounds that pushed at most
   * `maxPairs` worklist pairs (default 65,536) and, with `tail`, at most `tail` times the most
   * pairs of any round since the second.
   *
   * In every round it cut perl's rounds from 52 to 35 on the H100 but made python 20–35% slower:
   * pointees that arrived together arrive a round apart, and python's ΔPs, most of them equal to
   * another's (87% of its pulls are skipped as equal), stop being equal (the CPU model of the
   * rounds has python's pulls double even when the hop runs
   * in its first seven rounds only). In the tail only the hop leaves python's pulls level: on
   * the H100 linux took 129 rounds instead of 216 and 920 ms instead of 1,043, php 76 / 100 and
   * 406 / 438, perl 45 / 52 and 44.7 / 48.5, python 61 / 63 and 123 / 125
   * (docs/decisions/andersen-tail-hop.md).
   *Tests and measurements set it.
   */
  readonly hop?:
    | false
    | {
        readonly pulls?: number;
        readonly slots?: number;
        readonly setElements?: number;
        readonly pointsElements?: number;
        readonly maxPairs?: number;
        readonly tail?: number;
      }
    | undefined;
  /**
   * Representatives with equal P sets share one copy in the final readback (default true).
   *Tests and measurements turn it off.
   */
  readonly shareEqualSets?: boolean | undefined;
  /**
   * Give every ΔP and P set the same hash, so that only the equality check tells the sets in the
   * leader tables apart. For tests.
   */
  readonly collideHashes?: boolean | undefined;
  /**
   * After a round that allocated k elements in a pool, the pool grows when fewer than `below`·k
   * are free, to hold `to`·k more (default 3 and 8). For measurements.
   */
  readonly growAhead?: { readonly below: number; readonly to: number } | undefined;
  /**
   * Record the kernels of a submission that do not depend on the last status words (the rules'
   * and the update's fixed parts) while the GPU runs the submission before (default true; off
   * when profiling). For measurements and tests.
   */
  readonly encodeAhead?: boolean | undefined;
  /**
   * `hcd_hook` skips the pointees whose parent is already the target's root instead of hooking
   * each (default true). For measurements and tests.
   */
  readonly hcdSkipJoined?: boolean | undefined;
  /**
   * Teams per rule in `member_rules` (default 4), each decoding every `ruleSplit`-th element of the
   * ΔP the rule reads. For measurements and tests.
   */
  readonly ruleSplit?: number | undefined;
  /**
   * Fan-in of the tree that folds a split representative's partial pulls into N(r) (2, 4, 8 or 16;
   * default 4): each level is a `merge_partials` dispatch, so a representative of c chunks takes
   * ⌈log_fanIn c⌉ of them instead of ⌈log2 c⌉, at the price of up to fanIn − 1 unions one after
   * another on a level's team. For measurements and tests.
   */
  readonly partialMergeFanIn?: 2 | 4 | 8 | 16 | undefined;
  /**
   * Teams per online pair in `hcd_hook` (default 16), each hooking the pointees of every
   * `hookSplit`-th element of the pointer's ΔP. For measurements and tests.
   */
  readonly hookSplit?: number | undefined;
  /**
   * Subgroup teams per workgroup of the team kernels (default 2; rounded to a power of two, and to
   * at most what the device's largest workgroup holds). A GPU keeps a
   * bounded number of workgroups per multiprocessor (32 on the H100, which has room for 64 warps),
   * so one-subgroup workgroups leave half its warp slots empty: with two, H100 medians fell from
   * 1,872 to 1,507 ms on linux, 853 to 751 on php, 288 to 257 on python (gcc and perl within
   * their spread). For measurements.
   */
  readonly teamsPerWorkgroup?: number | undefined;
  /**
   * `member_rules` runs one rule per signature (kind, class written, ΔP leader of the class read,
   * offset) and skips the rest, which would push the same pairs (default true). For
   * measurements and tests.
   */
  readonly shareRules?: boolean | undefined;
  /**
   * Record the worklist's sort and the partial-merge levels while the rules run, guessing that
   * they match those of the last round that sorted (merged) (default true; not when profiling): a
   * submission whose guess held encodes only its status copy once the rules' counts arrive.
   *For measurements and tests.
   */
  readonly sortAhead?: boolean | undefined;
  /**
   * Build compact lists of the nodes and keys with work each round on the GPU, and run the kernels
   * that swept every node over them, launched for about twice the items each list had when last
   * read back (default true; see the kernels' `activeLists`): a round where few nodes changed then
   * launches few teams. For measurements and tests.
   */
  readonly activeLists?: boolean | undefined;
  /** The fewest items an active list's reader is launched for (default 8,192). For measurements. */
  readonly listFloorItems?: number | undefined;
  /**
   * `member_rules` pushes a worklist pair only when it is not already in a table of the pairs
   * pushed this attempt (default true): loads and stores whose pointees fall into one class push
   * one pair many times. For measurements and tests.
   */
  readonly dedupePairs?: boolean | undefined;
  /**
   * Slots of that table (rounded up to a power of two; default eight per node, from 4,096 to
   * 2^23). Tests force a few, so that probes collide and run out.
   */
  readonly pairTableSlots?: number | undefined;
  /** The most chunks one representative's pulls are split into (default 1,024). For tests. */
  readonly maxPullChunks?: number | undefined;
  /**
   * Extra chunks (beyond each representative's first) one iteration may hand out (default: the node
   * count, at least 4,096); a representative whose chunks do not fit runs unsplit. For tests.
   */
  readonly pullChunkCapacity?: number | undefined;
  /**
   * Slots of the table that finds equal ΔPs, and of the one as large that finds equal rule
   * signatures (rounded up to a power of two; default: at least twice the nodes and twice the
   * rules). Tests force one or a few slots so that unequal sets and signatures collide.
   */
  readonly deltaTableSlots?: number | undefined;
  /**
   * Lay the representatives' sets out on the GPU and read back only them (default true; the whole
   * pool is read when they exceed a binding). Tests force false to cover the pool path.
   */
  readonly compactReadback?: boolean | undefined;
  /**
   * The GPU prepares the program (default true): it unites the offline merges, and turns the
   * constraints into the initial pairs and the rules, from the constraint arrays uploaded as
   * they are (`prepare.wgsl.ts`); false prepares it on the host (`prepareProgram`, the CPU
   * reference; docs/decisions/andersen-gpu-setup-readback.md). For measurements and tests.
   */
  readonly prepareOnGpu?: boolean | undefined;
  /**
   * Final readbacks of at least this many bytes go into memory whose pages worker threads touched
   * while the GPU copied (Node; default 16 MiB). Tests force 0 to cover that path.
   */
  readonly touchedReadbackBytes?: number | undefined;
  /**
   * Levels of the tree that folds a class's new children pairwise, fixed (default: enough for the
   * round's largest class, at most 16). Tests force few levels so merge_data folds several roots.
   */
  readonly mergeTreeLevels?: number | undefined;
}

/** A solve's settings as the engine reads them: the options, with the tuning (`'~unstable'`) beside them. */
export type SolverSettings = Omit<GpuSolverOptions, '~unstable'> & GpuSolverTuning;
