import { defineBindings, type ElementPool } from '@gpumorph/gpu-allocator';

/**
 * Words of the solver's control buffer before the per-node arrays: counters and flags one
 * iteration sets and the host reads back (once per iteration, in one read of {@link STATUS_WORDS} words).
 *
 * @example
 * ```ts
 * const skipped = status[STATUS.skipUpdate] !== 0;
 * ```
 */
export const STATUS = {
  /** Roots whose ΔP is not empty after the update (propagations of the iteration). */
  active: 0,
  /** Roots that received new copy edges this iteration. */
  freshNodes: 1,
  /** New copy edges of this iteration (members of the fresh edge sets). */
  edgesAdded: 2,
  /** Set by the update guard: the pools could not hold the update, so nothing was committed. */
  skipUpdate: 3,
  /** Set by the merge guard: the pools could not hold the merges, so they were not moved yet. */
  skipMerge: 4,
  /** Worklist pairs emitted this attempt (may exceed the buffers: then they grow and the rules re-run). */
  pairCount: 5,
  /** Pool bump pointers when the iteration started (elements allocated since bound the update). */
  markPts: 6,
  markEdges: 7,
  /**
   * Elements the last merges left in pending sets, and the elements of the second copy hop's sets
   * H this round (the next update may copy them once more).
   */
  mergeNeedPts: 8,
  mergeNeedEdges: 9,
  /** Nodes hooked under another by HCD this iteration (entries of the merged list). */
  merged: 10,
  /** Bit 1: a list was corrupt; bit 2: an update or merge ran out of pool despite its guard. */
  fatal: 11,
  /** Copies of the pool headers (next, capacity, exhausted), written by the report kernel. */
  ptsNext: 12,
  ptsCapacity: 13,
  ptsExhausted: 14,
  edgesNext: 15,
  edgesCapacity: 16,
  edgesExhausted: 17,
  /** Extra pull chunks handed out this attempt (may exceed the chunk capacity: the excess was refused). */
  pullChunkCount: 18,
  /** The most chunks one representative's pulls were split into this attempt (sets the merge levels). */
  pullMaxChunks: 19,
  /**
   * The level of the tree that merges a representative's partial pulls: `merge_partials` runs it,
   * and the last of its teams to finish moves it on (see {@link STATUS.pullLevelDone}).
   */
  pullLevel: 20,
  /** Representatives whose extra chunks did not fit in the chunk capacity this attempt (they ran unsplit). */
  pullRefused: 21,
  /** ΔP pulls skipped this attempt because the team had already pulled an equal ΔP (§6.3). */
  pullsSkipped: 22,
  /** Slots of mergeOrder handed out this iteration (merge_rank). */
  mergeCursor: 23,
  /** The most children one representative got this iteration. */
  mergeMaxChildren: 24,
  /** The stride of the level of the tree that folds a representative's children (merge_level). */
  mergeStride: 25,
  /** Rules member_rules skipped this attempt because a rule of the same signature ran (equal pairs). */
  rulesShared: 26,
  /**
   * The pairs the sort, `mark_segments` and `apply_pairs` take this attempt: the pair count, or 0
   * when `sort_gate` found that the sort or the partial-merge levels recorded for the submission
   * do not cover the rules' counts (then the update is skipped and the host sorts again).
   */
  sortedCount: 27,
  /** Set by `sort_gate`: the guessed sort or levels fell short (see {@link STATUS.sortedCount}). */
  guessMissed: 28,
  /**
   * Set by `rules_gate`: the folds and rules submitted behind the update (rulesAhead) returned at
   * once, because the host has something to do before them; it clears the word and runs them itself.
   */
  rulesSkipped: 29,
  /**
   * Teams of the running `merge_partials` dispatch that have finished: the last one (the count
   * reaching the dispatch's teams) sets it back to 0 and moves {@link STATUS.pullLevel} on, so that
   * no one-invocation kernel between the levels is needed (that would be a dispatch per level,
   * about six a round on gcc with the guessed levels).
   */
  pullLevelDone: 30,
  /** The same for `merge_level`, whose last team doubles {@link STATUS.mergeStride} (was `merge_next_level`). */
  mergeLevelDone: 31,
  /**
   * After the last iteration: the elements `live_count` has laid out for the readback so far (each
   * distinct set reserves its elements of the worklist's source buffer here; 0 until then).
   */
  liveElements: 32,
  /**
   * After `live_stats`: the representatives' P elements, a shared copy counted for every
   * representative that reads it (the low and high words of a 64-bit count), and how many
   * representatives read another's copy.
   */
  liveCountLow: 33,
  liveCountHigh: 34,
  liveShared: 35,
  /** Classes the offline merges joined, counted by `prep_merge` when the GPU prepares the program. */
  offlineMerges: 36,
  /** Rules `prep_emit` has written to the rule table so far (the GPU's preparation). */
  preparedRules: 37,
} as const;

/** Words of {@link STATUS} (the control buffer's first words; the host reads them all back each iteration). */
export const STATUS_WORDS = 38;

/**
 * The compact lists the solver builds on the GPU each round (with `activeLists`), so that the
 * kernels after them visit only the nodes or worklist keys that have work instead of sweeping every
 * node: `delta` (roots with a ΔP, built by `delta_bits`, read by `delta_leaders`), `pull`
 * (representatives with pulls, `pull_items`, read by `pull_sources`), `segments` (worklist keys
 * with a run of pairs, `mark_segments`, read by `apply_pairs`) and `pending` (nodes with a pending
 * or ΔP set, `pending_list`, read by `update_sets`),
 * and `rules` (the loads, stores and offsets whose read class has a ΔP, built by `pull_items` from
 * the `delta_bits` bitmap, read by `member_rules`; its array, one word per rule, is the control
 * buffer's last). Each of the others has a per-node array in the control buffer
 * ({@link CONTROL_ARRAYS}); each has {@link WORDS_PER_LIST} of the {@link LIST_WORDS}
 * ({@link LIST_WORD}).
 *
 * @example
 * ```ts
 * const counterWord = STATUS_WORDS + WORDS_PER_LIST * ACTIVE_LIST.pending + LIST_WORD.counter;
 * ```
 */
export const ACTIVE_LIST = { delta: 0, pull: 1, segments: 2, pending: 3, rules: 4 } as const;

/**
 * The words of each {@link ACTIVE_LIST} after the status words: `counter` (items appended so far:
 * once the kernel that builds the list has run, its readers run over that many) and `items` (the
 * teams or invocations its reader had work for: the length, and for `pull` the extra pull chunks
 * too). The last single-invocation kernel of the submission that built the list closes it: it
 * copies a counter that is not 0 into `items` and starts it again at 0 (`sort_gate` the `delta`,
 * `pull` and `rules` lists, `guard_merge` the `segments` and `pending` lists, `begin_iteration` the
 * initial sets' `segments`), so that no dispatch of its own does. The host reads `items` back
 * with the status and launches the next round's readers for about twice as many (a list left
 * empty leaves `items` as it was: a larger launch, never a wrong one).
 *
 * @example
 * ```ts
 * const items = status[STATUS_WORDS + WORDS_PER_LIST * ACTIVE_LIST.pull + LIST_WORD.items];
 * ```
 */
export const LIST_WORD = { counter: 0, items: 1 } as const;

/** Control words per {@link ACTIVE_LIST} ({@link LIST_WORD}). */
export const WORDS_PER_LIST = Object.keys(LIST_WORD).length;

/** Words after the status words: {@link WORDS_PER_LIST} per {@link ACTIVE_LIST}. */
export const LIST_WORDS = WORDS_PER_LIST * Object.keys(ACTIVE_LIST).length;

/** Words of the control buffer before its per-node arrays: the status words, then the list words. */
export const CONTROL_HEAD_WORDS = STATUS_WORDS + LIST_WORDS;

/**
 * The per-node arrays of the control buffer after its head ({@link CONTROL_HEAD_WORDS}), as word offsets in units of
 * `nodeCount`: `parent` (union–find, roots are the smallest id of their class), `segmentStart` and
 * `segmentEnd` (per pair key `2·node + pool`, the run of the sorted worklist that goes into that
 * node's pending set), `childSlot` (a merged node's position among its root's new children, which
 * `mergeSize` counts: a root has children to fold while it is not 0),
 * `mergedList`, `hcdSlot` (the HCD target a root's online pairs name, so that targets of
 * merged pointers merge), and the pull split of each root: `pullSlots` (words of its E and F lists
 * that the chunks share out), `pullChunks` (chunks its pulls run in), `pullBase` (the extra chunk
 * index of its chunk 1), and ΔP-equivalence (§6.3): `deltaHash` (the hash of a root's ΔP) and
 * `deltaLeader` (a root whose ΔP is equal, the same for all of them), and the {@link ACTIVE_LIST}s
 * (`deltaList`, `pullList`, `segmentList` of two units, `pendingList`). After the per-node arrays
 * come the extra chunks' owners (one word per extra chunk: the representative, or `NONE`), then the
 * open-addressed table (a power of two of words) that finds the ΔP leaders.
 *
 * @example
 * ```ts
 * const parentWord = CONTROL_HEAD_WORDS + CONTROL_ARRAYS.parent * nodeCount + v;
 * ```
 */
export const CONTROL_ARRAYS = {
  parent: 0,
  segmentStart: 1,
  segmentEnd: 3,
  childSlot: 5,
  mergedList: 6,
  hcdSlot: 7,
  pullSlots: 8,
  pullChunks: 9,
  pullBase: 10,
  deltaHash: 11,
  deltaLeader: 12,
  mergeOrder: 13,
  mergeStart: 14,
  mergeSize: 15,
  deltaList: 16,
  pullList: 17,
  segmentList: 18,
  pendingList: 20,
} as const;

/** Per-node words of the control buffer after its head ({@link CONTROL_HEAD_WORDS}). */
export const CONTROL_ARRAY_COUNT = 21;

/** Pool bit of a worklist key `2·node + pool`: 0 = the node's pending copy⁻¹ set, 1 = its pending points-to set. */
export const PAIR_POOL = { edges: 0, points: 1 } as const;

/**
 * Which set of a node a head index names: points-to pool heads hold P (the points-to set), ΔP
 * (what P gained in the last update), N (what the rules gathered this iteration) and H (what the
 * second copy hop gathered from the sources' N, which the update adds to N; points-to pool only);
 * edge pool heads hold E (copy⁻¹ sources already propagated), F (sources added by the last
 * update, which pull the whole P once) and G (sources gathered this iteration).
 *
 * @example
 * ```ts
 * const deltaHead = heads[SET_SLOT.delta * nodeCount + v];
 * ```
 */
export const SET_SLOT = {
  points: 0,
  delta: 1,
  pending: 2,
  hop: 3,
} as const;

/**
 * Head slots of the points-to pool per node ({@link SET_SLOT}); after them come the partial sets
 * of the extra pull chunks (one per chunk), which the partial-merge tree folds into N.
 */
export const NODE_SET_SLOTS = 4;

/** Head slots per node of the edge pool: E, F and G ({@link SET_SLOT}'s first three). */
export const EDGE_SET_SLOTS = 3;

/** Constraint kinds as the rules kernel sees them (the owner's own loads, stores and offsets). */
export const RULE_KIND = { load: 0, store: 1, offset: 2 } as const;

/** Invocations per workgroup of the kernels that run one invocation per node. */
export const THREAD_WORKGROUP = 64;

/**
 * Invocations per workgroup of the subgroup team kernels: room for a subgroup of the largest size
 * (at least 32 invocations, a power of two) times the teams asked for, rounded to a power of two
 * and cut to what the device's workgroups hold (`maxInvocations`: the smaller of its invocation
 * and x-size limits), but never under one team.
 *
 * @example
 * ```ts
 * teamWorkgroupSize(32, 2, 1024); // 64: two 32-lane teams
 * teamWorkgroupSize(128, 4, 256); // 256: as many 128-lane teams as fit
 * ```
 */
export function teamWorkgroupSize(
  subgroupMaxSize: number,
  teamsAsked: number,
  maxInvocations: number,
): number {
  const teamWidth = 2 ** Math.ceil(Math.log2(Math.max(32, subgroupMaxSize)));
  const asked = 2 ** Math.round(Math.log2(Math.max(1, teamsAsked)));
  const room = 2 ** Math.floor(Math.log2(Math.max(1, maxInvocations / teamWidth)));
  return Math.min(asked, room) * teamWidth;
}

/** The bindings of every solver kernel: both pools, the object sizes, the static rules, control and the worklist. */
export function solverLayout(points: ElementPool, edges: ElementPool) {
  return defineBindings(`andersen ${points.geometry.windows}+${edges.geometry.windows}`, {
    params: { kind: 'uniform', type: 'AndersenParams' },
    ...points.bindingSpecs(),
    pts_heads: { kind: 'storage', type: 'array<u32>' },
    ...edges.bindingSpecs(),
    edg_heads: { kind: 'storage', type: 'array<u32>' },
    nodes: { kind: 'storage', type: 'array<u32>', access: 'read' },
    rule_table: { kind: 'storage', type: 'array<vec4u>', access: 'read' },
    control: { kind: 'storage', type: 'array<atomic<u32>>' },
    pair_keys: { kind: 'storage', type: 'array<u32>' },
    pair_values: { kind: 'storage', type: 'array<u32>' },
  });
}

/** Storage bindings of {@link solverLayout} besides the pool windows. */
export const FIXED_STORAGE_BINDINGS = 9;

/**
 * The pool windows a shader stage's storage bindings leave (`room`), and each pool's share of
 * them: the points-to pool five eighths, the edge pool the rest. Either pool may borrow the other's
 * free windows when it truly needs them (`WindowBudget`); growing ahead of need, a guess, stays
 * within its share, so that a guess never takes the windows the other pool will need.
 *
 * @example
 * ```ts
 * poolWindowShares(16); // { room: 7, points: 5, edges: 2 }
 * ```
 */
export function poolWindowShares(storageBuffersPerStage: number): {
  room: number;
  points: number;
  edges: number;
} {
  const room = Math.max(2, storageBuffersPerStage - FIXED_STORAGE_BINDINGS);
  const points = Math.max(1, Math.ceil((room * 5) / 8));
  return { room, points, edges: Math.max(1, room - points) };
}

/**
 * The fields of the solver's uniform parameters (WGSL `AndersenParams`), in their order, each a
 * `u32`: the one description the WGSL struct, the buffer's first contents and the host's later
 * writes of single fields are made from.
 */
export const PARAMS_FIELDS = [
  'n',
  /** The first online HCD pair's index in the rule table (the rules' count). */
  'hcd_start',
  'hcd_count',
  'pair_capacity',
  /** Bits of the source's word group in a composite sort key (0: sorted twice). */
  'base_bits',
  'pull_chunk',
  'max_chunks',
  'chunk_capacity',
  /** The ΔP leader table's slots less one (a power of two less one). */
  'table_mask',
  'sort_key_bits',
  'sort_value_bits',
  /** The pushed-pairs table's slots less one (0: no table). */
  'pair_table_mask',
  /** The sort and partial-merge levels a guessed submission was queued with (see sort_gate). */
  'guess_sort_capacity',
  'guess_levels',
  /** The host's grow-ahead test, for rules_gate. */
  'grow_below',
  /** The largest class the folds queued with the rules take, as log2 of its children. */
  'fold_levels',
] as const;

/** A field of the solver's parameters (see {@link PARAMS_FIELDS}). */
export type ParamsField = (typeof PARAMS_FIELDS)[number];

/** The byte offset of `field` in the parameters buffer. */
export function paramsOffset(field: ParamsField): number {
  return 4 * PARAMS_FIELDS.indexOf(field);
}

/** The parameters buffer's words, from every field's value. */
export function paramsWords(values: Readonly<Record<ParamsField, number>>): Uint32Array {
  return Uint32Array.from(PARAMS_FIELDS, (field) => values[field]);
}

/** The WGSL declaration of the parameters' struct. */
export function paramsStructWgsl(): string {
  return `struct AndersenParams { ${PARAMS_FIELDS.map((field) => `${field}: u32`).join(', ')} }`;
}
