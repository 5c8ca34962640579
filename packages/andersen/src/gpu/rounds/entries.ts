import type { SolverEntryPoint } from '../module/solver.wgsl';

/**
 * The entry points of a round's submissions, in dispatch order, for a solve's settings: the rules
 * (up to sort_gate), the merge of the sorted worklist, the update (with or without the second
 * copy hop) and the plan of the round's merges.
 *
 * @example
 * ```ts
 * const { rulesEntries, hopTail } = roundEntries({ deltaBitmap: true, activeLists: true, hop: undefined });
 * ```
 */
export function roundEntries({
  deltaBitmap,
  activeLists,
  hop,
}: {
  readonly deltaBitmap: boolean;
  readonly activeLists: boolean;
  readonly hop: object | undefined;
}) {
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
  // guard_pending runs guard_update and pending_list as one dispatch (with the active lists).
  const fuseGuardPending = activeLists;
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
  // larger class leaves in more than one root. guard_update begins the plan when it commits (its
  // counts at 0), and guard_merge also reports the pools' state.
  const mergePlanEntries: SolverEntryPoint[] = ['merge_rank', 'merge_count', 'guard_merge'];
  const hopTail: SolverEntryPoint[] = [...updateEntries, ...mergePlanEntries];
  const plainTail = hopTail.filter((entry) => entry !== 'hop_bits' && entry !== 'hop_pull');
  // begin_iteration also begins the iteration's first attempt (begin_attempt's resets).
  const firstAttemptEntries = rulesEntries.slice(1);
  const nextRulesEntries: SolverEntryPoint[] = ['begin_iteration', ...firstAttemptEntries];
  return { rulesEntries, applyEntries, hopTail, plainTail, firstAttemptEntries, nextRulesEntries };
}

/**
 * The folds of a round's merges with `levelCount` levels of the children's tree.
 *
 * @example
 * ```ts
 * foldEntries(2); // ['merge_prepare', 'merge_level', 'merge_level', 'merge_data', 'merge_done']
 * ```
 */
export function foldEntries(levelCount: number): SolverEntryPoint[] {
  const levels: SolverEntryPoint[] = [];
  for (let level = 0; level < levelCount; level++) levels.push('merge_level');
  return ['merge_prepare', ...levels, 'merge_data', 'merge_done'];
}

/**
 * `levels` levels of the partial-merge tree.
 *
 * @example
 * ```ts
 * levelEntries(2); // ['merge_partials', 'merge_partials']
 * ```
 */
export function levelEntries(levels: number): SolverEntryPoint[] {
  const entries: SolverEntryPoint[] = [];
  for (let level = 0; level < levels; level++) entries.push('merge_partials');
  return entries;
}
