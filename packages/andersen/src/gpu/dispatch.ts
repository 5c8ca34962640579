import { type DispatchGrid, dispatchGrid } from '@gpumorph/gpu-allocator';
import type { TeamKind } from '@gpumorph/sparse-bitvector';
import { ACTIVE_LIST, LIST_WORD, STATUS_WORDS, THREAD_WORKGROUP, WORDS_PER_LIST } from './layout';
import { deltaBitmapWords, type SolverEntryPoint, solverEntryKinds } from './module/solver.wgsl';

/** The active list each of its readers runs over (see `activeLists`). */
const LIST_READ: Partial<Record<SolverEntryPoint, keyof typeof ACTIVE_LIST>> = {
  delta_leaders: 'delta',
  pull_sources: 'pull',
  apply_pairs: 'segments',
  update_sets: 'pending',
  member_rules: 'rules',
};

/**
 * The fewest teams (or invocations) a list's reader is launched for: a round whose list outgrows
 * the last one's twice over still spreads it over this many (linux's busy rounds have up to
 * 80,000 pending nodes), while a grid of 2^15 teams that finds nothing costs the H100 about 0.1 ms.
 */
const LIST_FLOOR_ITEMS = 8192;

/** What the grids of a solve depend on that does not change during it. */
export interface DispatchShape {
  readonly team: TeamKind;
  readonly teamsPerWorkgroup: number;
  readonly maxGrid: number;
  /** The most workgroups a team kernel and a thread kernel launch (the tuning's `gridCaps`). */
  readonly teamGridCap: number;
  readonly threadGridCap: number;
  readonly nodeCount: number;
  readonly ruleCount: number;
  readonly hcdCount: number;
  readonly chunkCapacity: number;
  readonly deltaTableSize: number;
  readonly pairTableSize: number;
  readonly ruleSplit: number;
  readonly hookSplit: number;
  readonly activeLists: boolean;
  readonly deltaBitmap: boolean;
  readonly ruleList: boolean;
  /** The tuning's `listFloorItems` (default {@link LIST_FLOOR_ITEMS}). */
  readonly listFloorItems?: number | undefined;
  /** The tuning's `mergeTeams`: a fixed team count for the merge tree's kernels. */
  readonly fixedMergeTeams?: number | undefined;
}

/**
 * How many workgroups each entry point is launched with. Team kernels get a team per item (node,
 * rule, chunk, child), thread kernels an invocation per item, up to the caps; their loops stride
 * over whatever is there, so the items are the teams launched, not a bound. The readers of the
 * active lists are launched for about twice the items their list had when last read back, at
 * least `listFloorItems`, at most their sweep's; the merge tree's kernels and `merge_partials`
 * for the counts the host read before encoding them.
 *
 * @example
 * ```ts
 * const grids = new DispatchGrids(shape);
 * encodeDispatch(pass, grids.grid('update_sets', pairCount));
 * ```
 */
export class DispatchGrids {
  readonly #shape: DispatchShape;
  readonly #kinds: Record<SolverEntryPoint, 'single' | 'team' | 'thread'>;
  readonly #listFloorItems: number;
  /** The classes the last merge plan merged (the merge tree's items). */
  mergeItems: number;
  /** The extra pull chunks of the last attempt (`merge_partials`' items). */
  extraChunks: number;
  /** The items each active list had when last read back (before the first read: unbounded). */
  readonly #listItems: Record<keyof typeof ACTIVE_LIST, number> = {
    delta: Number.POSITIVE_INFINITY,
    pull: Number.POSITIVE_INFINITY,
    segments: Number.POSITIVE_INFINITY,
    pending: Number.POSITIVE_INFINITY,
    rules: Number.POSITIVE_INFINITY,
  };

  constructor(shape: DispatchShape) {
    this.#shape = shape;
    this.#kinds = solverEntryKinds(shape.team);
    this.#listFloorItems = shape.listFloorItems ?? LIST_FLOOR_ITEMS;
    this.mergeItems = shape.fixedMergeTeams ?? shape.nodeCount;
    this.extraChunks = shape.chunkCapacity;
  }

  /**
   * Notes the items of every active list from a submission's status words. Every submission ends
   * with its lists closed (see LIST_WORD): a count left over would make the next build append past
   * it, and past the list's array in the end, so one left open is an internal error (`onOpen`).
   */
  readListItems(status: Uint32Array, onOpen: (message: string) => Error): void {
    for (const [name, list] of Object.entries(ACTIVE_LIST) as [keyof typeof ACTIVE_LIST, number][]) {
      const words = STATUS_WORDS + WORDS_PER_LIST * list;
      const open = status[words + LIST_WORD.counter] as number;
      if (open !== 0)
        throw onOpen(
          `the active list '${name}' was left open with ${open} items at the end of a submission (an internal error of the solver)`,
        );
      this.#listItems[name] = status[words + LIST_WORD.items] as number;
    }
  }

  /** The grid of `entry` with the worklist's `pairCount` pairs. */
  grid(entry: SolverEntryPoint, pairCount: number): DispatchGrid {
    const { maxGrid, teamGridCap, threadGridCap, teamsPerWorkgroup } = this.#shape;
    const kind = this.#kinds[entry];
    const items = this.itemsOf(entry, pairCount);
    if (kind === 'single') return dispatchGrid(1, maxGrid);
    if (kind === 'team') {
      const teams = dispatchGrid(
        Math.min(teamGridCap, Math.max(1, Math.ceil(items / teamsPerWorkgroup))),
        maxGrid,
      );
      // pull_rules: z 0 runs pull_sources, z 1 member_rules (items: the larger of the two).
      return entry === 'pull_rules' ? { ...teams, z: 2 } : teams;
    }
    return dispatchGrid(Math.min(threadGridCap, Math.max(1, Math.ceil(items / THREAD_WORKGROUP))), maxGrid);
  }

  /** The items (teams or invocations) `entry` is launched for. */
  itemsOf(entry: SolverEntryPoint, pairCount: number): number {
    if (entry === 'pull_rules') {
      return Math.max(this.itemsOf('pull_sources', pairCount), this.itemsOf('member_rules', pairCount));
    }
    const { activeLists, deltaBitmap, ruleList, ruleSplit } = this.#shape;
    const swept = this.#sweptItemsOf(entry, pairCount);
    // delta_leaders runs over its list only where delta_bits builds it, member_rules only with
    // ruleList.
    const list =
      activeLists && (entry === 'delta_leaders' ? deltaBitmap : entry === 'member_rules' ? ruleList : true)
        ? LIST_READ[entry]
        : undefined;
    // member_rules runs ruleSplit teams per rule of its list.
    const perItem = entry === 'member_rules' ? ruleSplit : 1;
    return list
      ? Math.min(swept, Math.max(this.#listFloorItems, 2 * perItem * this.#listItems[list]))
      : swept;
  }

  /** The items `entry` would visit sweeping every node, rule, chunk or child. */
  #sweptItemsOf(entry: SolverEntryPoint, pairCount: number): number {
    const s = this.#shape;
    const n = s.nodeCount;
    switch (entry) {
      case 'hcd_hook':
        return s.hcdCount * s.hookSplit;
      case 'mark_segments':
        return pairCount;
      case 'apply_pairs':
        return 2 * n;
      case 'member_rules':
        return s.ruleCount * s.ruleSplit;
      case 'pull_sources':
        return n + s.chunkCapacity;
      case 'merge_partials':
        return this.extraChunks;
      case 'merge_prepare':
      case 'merge_done':
        return this.mergeItems;
      // Two teams per child pair, and per root: the points-to sets and the edge sets (a fixed
      // team count stays fixed, so that tests can run every fold on one team).
      case 'merge_level':
      case 'merge_data':
        return s.fixedMergeTeams ?? 2 * this.mergeItems;
      case 'delta_clear':
        return Math.max(s.deltaTableSize, 2 * s.pairTableSize);
      case 'delta_bits':
      case 'hop_bits':
        return 32 * deltaBitmapWords(n);
      case 'init_state':
        return Math.max(n, s.chunkCapacity);
      default:
        return n;
    }
  }
}
