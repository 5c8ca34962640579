/**
 * The delta engine's constants shared by the host and its WGSL: the slots of the `state` buffer,
 * the entry points, the item and member-list layouts, the `graph` buffer's sections and the
 * uniform (see {@link ./delta.wgsl} for the algorithm).
 * @module
 */
import type { PageGeometry, StoreGeometry } from '../layout';

/** Slots of the delta engine's `state` buffer (u32 atomics, read and written by the host between dispatches). */
export const DELTA_STATE = {
  /** Which half of the item buffer holds the current round's items. */
  parity: 0,
  /** Items of the current round. */
  count: 1,
  /** Rounds completed so far. */
  rounds: 2,
  /** 1 once the initial pairs (calls on a lambda) have been joined. */
  started: 3,
  /** Set by the host after growing the item buffer: turn dirty marks back into items first. */
  recover: 4,
  /** Most rounds to run in this dispatch (written by the host). */
  maxRounds: 5,
  /** Capacity of each half of the item buffer, in items (written by the host). */
  itemCapacity: 6,
  /** Capacity of the member pool, in members (written by the host). */
  poolCapacity: 7,
  /** Members handed out by the bump pointer. */
  poolNext: 8,
  /** Set when a round's segments did not fit in the pool (the round was undone). */
  poolOverflow: 9,
  /** Members the undone round needed. */
  poolDemand: 10,
  /** Set when a round produced more items than a half holds (the rest are dirty marks). */
  itemOverflow: 11,
  /** Most items a round produced (capacity overflow included). */
  itemPeak: 12,
  /** Set when a member list would pass its last segment (cannot happen on valid input). */
  segmentOverflow: 13,
  /** Items of the current round whose rows have member lists (0: the member phases are skipped). */
  funItems: 14,
  /** Grid mode: items the open round has produced so far. */
  gridNext: 15,
  /** Grid mode: of those, items of rows with member lists. */
  gridFunItems: 16,
  /** Grid mode: 1 while a round is open (opened by `grid_prep`, closed by the next `grid_prep`). */
  gridActive: 17,
  /** Grid mode: the pool's bump pointer when the open round began (restored if the round is undone). */
  gridPoolStart: 18,
  /** Grid mode: set by `grid_reserve` when a segment did not fit in the pool. */
  gridFull: 19,
  /** Grid mode: 1 when the open round runs the member phases (it has items of rows with member lists). */
  gridMembers: 20,
  /** Grid mode: 1 when `grid_undo` must take back the open round's reservations. */
  gridUndo: 21,
  /** Paged store: pages handed out by the bump pointer. */
  pageNext: 22,
  /** Paged store: set when a write found the page pool full (the host solves again with more pages). */
  pageOverflow: 23,
} as const;

/** Words of the delta state buffer. */
export const DELTA_STATE_WORDS = 24;

/** Invocations per workgroup of the grid-mode kernels. */
export const GRID_WORKGROUP = 256;

/** Items a grid-mode workgroup collects in workgroup memory before it reserves room for them at once. */
export const GRID_STAGE = 512;

/**
 * Entry points of {@link deltaWgsl}: `main` is the persistent single-workgroup kernel (it also
 * makes the first items and recovers dirty words in grid mode, with no rounds); the `grid_*`
 * kernels run one round over many workgroups, one dispatch per phase, in the order
 * prep, reserve, check, undo, members, propagate (and `grid_close` ends a batch).
 */
export const DELTA_ENTRY_POINTS = [
  'main',
  'grid_prep',
  'grid_reserve',
  'grid_check',
  'grid_undo',
  'grid_members',
  'grid_propagate',
  'grid_close',
] as const;

/** One entry point of {@link deltaWgsl}. */
export type DeltaEntryPoint = (typeof DELTA_ENTRY_POINTS)[number];

/** Items one invocation may hold while it follows rows without member lists depth first. */
export const DEPTH_FIRST_STACK = 16;

/**
 * Joins an invocation makes in one round before it stops following new items depth first and
 * hands them to the next round instead (where the whole workgroup or grid shares them out).
 * Without a budget one invocation followed whole subtrees alone while the rest of the workgroup
 * waited at the round's end: on the H100, one workgroup following function rows ran n = 1024 in
 * 31 ms unbounded and 20.5–20.8 ms with a budget of 32, 64 or 128 (28.5 ms without following).
 */
export const DEFAULT_FOLLOW_BUDGET = 64;

/** Members in a row's first segment; segment s holds MEMBER_BASE·2^s. */
export const MEMBER_BASE = 8;

/** u32 words per item: row, word, new bits, the row's member-list slot, and the item's first member index (scratch). */
export const ITEM_WORDS = 5;

/** What the delta kernel's WGSL depends on: the store's layout and the workgroup size. */
export interface DeltaShape {
  /** Dense store buffers (0 when paged). */
  readonly chunks: number;
  /** The paged store's bindings (absent: dense). */
  readonly paging?: PageGeometry | undefined;
  readonly threads: number;
  /** Also follow items of function rows at once (they still go to the next round for their member phase). */
  readonly followFunctionRows?: boolean;
  /** The graph holds arity classes and masks ({@link graphSections}' `arity`): pairs are filtered by them. */
  readonly arity?: boolean;
}

/** Sizes of one program in the delta engine (sent to the kernel as a uniform). */
export interface DeltaGeometry extends StoreGeometry {
  /** Reader entries of the graph (where its arity section starts). */
  readonly readerEntries: number;
  /** Summary words per row: ⌈words / 32⌉ (one bit per store word that is nonzero). */
  readonly summaryWords: number;
  /** Rows that are the function of some call (and so keep a member list). */
  readonly funRows: number;
  /** Segments per member list. */
  readonly segments: number;
  /** Workgroup size of the persistent kernel. */
  readonly threads: number;
  /** Joins an invocation makes in a round before it stops following items depth first. */
  readonly followBudget: number;
}

/**
 * Segments a member list needs to hold `maxMembers` members.
 *
 * @example
 * ```ts
 * memberSegments(8); // 1
 * memberSegments(24); // 2 (8 + 16)
 * ```
 */
export function memberSegments(maxMembers: number): number {
  let s = 0;
  while (MEMBER_BASE * (2 ** s - 1) < maxMembers) s++;
  return Math.max(1, s);
}

/**
 * Word offsets of the sections of the read-only `graph` buffer: Fun, Arg1, Arg2, the readers of
 * each row (CSR start, and entries of two words: `call << 2 | kind`, kind 0 = Fun, 1 = Arg1,
 * 2 = Arg2, then for kind 0 the call's Arg1 row, for kinds 1 and 2 its function: a lambda, or
 * `|Lam|` + the function row's member-list slot) and each row's member-list slot (`0xffffffff`
 * when no call has the row as its function). With arity-aware flows, the reader entries are
 * followed (at `arity(entries)`) by each call's arity class and then each lambda's arity mask.
 *
 * @example
 * ```ts
 * graphSections(10, 5).readerStart; // 15
 * ```
 */
export function graphSections(calls: number, rows: number) {
  const fun = 0;
  const arg1 = calls;
  const arg2 = 2 * calls;
  const readerStart = 3 * calls;
  const funSlot = readerStart + rows + 1;
  const readers = funSlot + rows;
  const arity = (readerEntries: number) => readers + 2 * readerEntries;
  return { fun, arg1, arg2, readerStart, funSlot, readers, arity };
}

/**
 * The delta kernel's uniform (16 u32, the layout of the WGSL struct `DeltaParams`).
 *
 * @example
 * ```ts
 * ctx.queue.writeBuffer(paramsBuffer, 0, deltaParams(geometry));
 * ```
 */
export function deltaParams(g: DeltaGeometry): Uint32Array {
  const rows = 2 * g.lams;
  const sec = graphSections(g.calls, rows);
  return Uint32Array.of(
    g.lams,
    g.calls,
    g.words,
    g.rowsPerChunk,
    g.summaryWords,
    g.funRows,
    g.segments,
    rows,
    sec.arg1,
    sec.arg2,
    sec.readerStart,
    sec.funSlot,
    sec.readers,
    g.followBudget,
    g.paging?.pageCapacity ?? 0,
    sec.arity(g.readerEntries),
  );
}

/** A state slot as a WGSL literal. */
export const S = (name: keyof typeof DELTA_STATE) => `${DELTA_STATE[name]}u`;
