import type { TeamKind } from '@gpumorph/sparse-bitvector';
import { mergeDoneWgsl, mergeFoldsWgsl, mergePlanWgsl } from '../merge/merge.wgsl';
import { liveSetsWgsl } from '../readback/readback.wgsl';
import { gatesWgsl, roundBeginWgsl } from '../rounds/rounds.wgsl';
import {
  deltaBitsWgsl,
  memberRulesWgsl,
  pullCountWgsl,
  pullSourcesWgsl,
  ruleSignaturesWgsl,
} from '../rules/rules.wgsl';
import { hopWgsl, unionMinusWgsl, updateSetsWgsl } from '../update/update.wgsl';
import {
  activeListsWgsl,
  applyPairsWgsl,
  insertSortedWgsl,
  mergeSortedRunsWgsl,
  pairsWgsl,
  sortSmallWgsl,
} from '../worklist/worklist.wgsl';
import { moduleHeaderWgsl, setHashWgsl, unionFindWgsl } from './common.wgsl';
import { solverWgslContext } from './context';

export {
  deltaBitmapWords,
  SMALL_SORT_THREADS,
  smallSortCapacity,
  smallSortWorkgroupBytes,
} from '../worklist/sizes';

/**
 * Inputs of {@link solverKernelsWgsl}.
 *
 * @example
 * ```ts
 * const params: SolverKernelParams = { team: 'subgroup', teamWorkgroupSize: 32, layoutWgsl, laneWords: 1 };
 * ```
 */
export interface SolverKernelParams {
  readonly team: TeamKind;
  /** Invocations per workgroup of the team kernels (32 for `workgroup` teams). */
  readonly teamWorkgroupSize: number;
  /** The bind-group declarations (`solverLayout(…).wgsl()`). */
  readonly layoutWgsl: string;
  /** Words one lane owns at most (`ceil(31 / smallest subgroup size)`; 1 for `workgroup` teams). */
  readonly laneWords: number;
  /**
   * Pairs each of the 256 invocations of `sort_small` holds (default 8): the worklists it sorts
   * in one workgroup have up to 256 × this many pairs, which take 8 bytes each of workgroup memory
   * (plus 1 KiB).
   */
  readonly smallSortItems?: number;
  /**
   * Screen the sources of the ΔP pulls through the `delta_bits` bitmap (default true): lanes AND
   * each word of E with the bitmap's word and decode only the sources whose class has a ΔP, where
   * without it every member of E is looked up (a find and a head load) every round.
   */
  readonly deltaBitmap?: boolean | undefined;
  /**
   * `member_rules` runs over the rule list, which `pull_items` builds from the `delta_bits` bitmap
   * (default true; only with `activeLists` and `deltaBitmap`), instead of over every rule.
   */
  readonly ruleList?: boolean | undefined;
  /**
   * Representatives with equal P sets share one copy in the readback (default true): the host
   * runs `delta_clear` and `live_leaders` before `live_count`, and reads the leaders back.
   */
  readonly shareEqualSets?: boolean | undefined;
  /** Give every set the hash 0, so that only `pts_equals` tells sets apart (tests). */
  readonly collideHashes?: boolean | undefined;
  /**
   * hcd_hook skips a pointee whose parent is already the pointer's target class (one load instead
   * of the two finds of a hook; default true). False for measurements.
   */
  readonly hcdSkipJoined?: boolean | undefined;
  /**
   * Teams per rule in member_rules (`ruleSplit`) and per online pair in hcd_hook (`hookSplit`),
   * default 1: each decodes every n-th element of the ΔP, so that a large ΔP's members, a few
   * dependent loads each, spread over several teams.
   */
  readonly ruleSplit?: number | undefined;
  readonly hookSplit?: number | undefined;
  /**
   * log2 of the partial-merge tree's fan-in (`merge_partials`): at each level a representative's
   * chunks fold in groups of 2^bits, so ⌈log2 chunks / bits⌉ levels (dispatches) take them all
   * (default 1: pairs).
   */
  readonly partialMergeBits?: number | undefined;
  /**
   * member_rules runs one rule of each signature (kind, class written, ΔP leader of the class
   * read, offset) and skips the others, which would push the same pairs (default true; `delta_clear`
   * empties the table of signatures first). False for measurements.
   */
  readonly shareRules?: boolean | undefined;
  /**
   * The kernels that sweep every node for the few with work (`delta_leaders`, `pull_sources`,
   * `apply_pairs`, `update_sets`) run instead over compact
   * lists built on the GPU (`ACTIVE_LIST` in `layout.ts`), striding over whatever the list holds for the
   * teams the host launched (default true; `delta_leaders` only with `deltaBitmap`, whose kernel
   * builds its list). False for measurements.
   */
  readonly activeLists?: boolean | undefined;
  /**
   * The update's kernels (the partial-merge levels, `sort_small`, `mark_segments` to `guard_merge`)
   * return at once while `rulesSkipped` is set, as the rules' do, and `rules_gate` keeps the flag
   * once set and sets the sort's count to 0: a whole round (rules, guessed sort and update) queued
   * behind the one before it does nothing when its gate holds it back, nor does one queued behind
   * it (see `GpuSolverOptions.pipelineRounds`). Default false.
   */
  readonly gateUpdate?: boolean | undefined;
  /**
   * The second copy hop (`hop_bits`, `hop_pull`, after `apply_pairs`): each representative pulls,
   * from the first `slots` word slots of its F then E lists, the pending sets N of up to `pulls`
   * sources (with `setElements`, only those whose N has at most that many elements; with
   * `pointsElements`, only representatives whose P has at most that many) into its set H, which
   * `update_sets` adds to N. Needs `deltaBitmap` (its words are reused). Undefined: off.
   */
  readonly hop?:
    | {
        readonly pulls: number;
        readonly slots: number;
        readonly setElements?: number | undefined;
        readonly pointsElements?: number | undefined;
      }
    | undefined;
}

/**
 * The entry points of one solver iteration, in the order the host encodes them. First submission:
 * the folds of the last round's merges (`merge_prepare`, `merge_level` once per level of the
 * children's tree, its last team doubling the stride, `merge_data`, `merge_done`; only after a
 * round that merged), `init_state` then the initial sets' sort, `mark_segments` and `apply_pairs`
 * (first submission only), `begin_iteration` (which also begins the first attempt) or
 * `begin_attempt` (an attempt after a pool grew), `delta_bits` (which also empties the ΔP leader,
 * rule signature and pair tables; `delta_clear` does that without the bitmap), `delta_leaders`,
 * `pull_count`, `pull_items` (which also builds the rule list), `pull_sources`, `member_rules`,
 * `sort_gate`. Second (after a `sort_gate` again when the first ran on a guess that fell short):
 * the worklist's sort (the merge sort, or the radix sort, or `sort_small`), `merge_partials` once
 * per level of the partial-merge tree (the last team of each moves the level on),
 * `mark_segments`, `apply_pairs`, `guard_update`,
 * `pending_list`, `update_sets`, `hcd_hook`,
 * `compress` (which also links the merged nodes to their roots), then the merge plan
 * (`merge_rank`, `merge_count`, `guard_merge`, which also copies the pools' state out; the plan's
 * counts start at 0 in `guard_update`; a pool short of room for the folds grows and the plan
 * stands). Each of those doubles saves a dispatch a round. After the last iteration one
 * submission runs `delta_clear`, `live_leaders`, `live_count` and `live_copy`, which lay the
 * distinct representatives' P sets out for the readback, count them and flatten the union–find.
 * With `rulesAhead` the first submission of a round (from `begin_iteration` on, no folds) may go up
 * right behind the update before it, with `rules_gate` first: every kernel of it returns at once
 * when the gate sets `rulesSkipped`.
 * `pending_list` runs only with `activeLists` (see `ACTIVE_LIST` in `layout.ts`); `sort_gate` closes the
 * rules' lists and `guard_merge` the update's.
 * Team kernels run one team (subgroup, or emulated 32-lane workgroup) per node, calling the sparse
 * bit vector library of the `pts` and `edg` pools; the rest run one invocation per node or item.
 *
 * @example
 * ```ts
 * const code = linkWgsl(solverKernelsWgsl({ team: 'subgroup', teamWorkgroupSize: 128, layoutWgsl, laneWords: 4 }), [gridWgsl, ptsLib, edgLib]);
 * ```
 */
export function solverKernelsWgsl(params: SolverKernelParams): string {
  const w = solverWgslContext(params);
  const code = [
    moduleHeaderWgsl(w),
    ruleSignaturesWgsl(w),
    setHashWgsl(w),
    unionFindWgsl(w),
    insertSortedWgsl(w),
    mergeSortedRunsWgsl(w),
    unionMinusWgsl(w),
    pairsWgsl(w),
    activeListsWgsl(w),
    sortSmallWgsl(w),
    roundBeginWgsl(w),
    gatesWgsl(w),
    deltaBitsWgsl(w),
    pullCountWgsl(w),
    pullSourcesWgsl(w),
    memberRulesWgsl(w),
    applyPairsWgsl(w),
    hopWgsl(w),
    updateSetsWgsl(w),
    mergePlanWgsl(w),
    mergeFoldsWgsl(w),
    mergeDoneWgsl(w),
    liveSetsWgsl(w),
  ].join('');
  // pull_sources writes N(r) and the partial sets; member_rules reads only ΔP and pushes pairs.
  return `${code}${w.fusedTeamKernel('pull_rules', ['pull_sources', 'member_rules'])}`;
}

/** Entry points of {@link solverKernelsWgsl} and how each is dispatched. */
export const SOLVER_ENTRY_POINTS = {
  init_state: 'thread',
  rules_gate: 'single',
  begin_iteration: 'single',
  begin_attempt: 'single',
  sort_gate: 'single',
  pending_list: 'thread',
  delta_clear: 'thread',
  delta_bits: 'thread',
  delta_leaders: 'team',
  pull_count: 'team',
  pull_items: 'thread',
  pull_sources: 'team',
  member_rules: 'team',
  pull_rules: 'team',
  merge_partials: 'team',
  sort_small: 'single',
  mark_segments: 'thread',
  apply_pairs: 'thread',
  hop_bits: 'thread',
  hop_pull: 'team',
  guard_update: 'single',
  guard_pending: 'thread',
  update_sets: 'team',
  hcd_hook: 'team',
  compress: 'thread',
  merge_rank: 'thread',
  merge_count: 'thread',
  guard_merge: 'single',
  merge_prepare: 'team',
  merge_level: 'team',
  merge_data: 'team',
  merge_done: 'thread',
  live_leaders: 'team',
  live_count: 'thread',
  live_copy: 'team',
} as const;

/** How each entry point is dispatched for a team kind (`apply_pairs` runs per team with subgroups). */
export function solverEntryKinds(team: TeamKind): Record<SolverEntryPoint, 'single' | 'team' | 'thread'> {
  return { ...SOLVER_ENTRY_POINTS, apply_pairs: team === 'subgroup' ? 'team' : 'thread' };
}

/** Name of one entry point of the solver module. */
export type SolverEntryPoint = keyof typeof SOLVER_ENTRY_POINTS;
