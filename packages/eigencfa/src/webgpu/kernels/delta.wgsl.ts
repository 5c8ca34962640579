/**
 * WGSL of the delta engine: word-level difference propagation in one persistent workgroup.
 *
 * Why deltas: an engine that re-joins whole rows for every selected call does pairs × words of
 * work per round although a round changes only a few hundred words of the store, and with three
 * dispatches per round it pays for the Van Horn–Mairson programs' 3n rounds. Here a round's work is a list of *items* (row v, word w, bits newly set in that word): each bit of the
 * store travels as an item exactly once (atomicOr hands every new bit to exactly one writer), so the
 * items of a whole solve are as many as the store's entries. One workgroup runs many rounds inside
 * one dispatch, separated by workgroup barriers, so a round costs a few barriers instead of
 * three dispatches. For an item of row v:
 * - a call c with `Arg1[c] = v` (`Arg2`) joins the item's bits into word w of a_λ (b_λ) for every λ
 *   in σ(Fun[c]); σ(Fun[c]) is read from the row's append-only member list;
 * - a call c with `Fun[c] = v` gets each new λ of the item as a new (call, λ) pair, which joins all of
 *   σ(Arg1[c]) into a_λ and σ(Arg2[c]) into b_λ, word by word over the row's nonzero-word summary.
 * Member lists grow in place: segment s of a row holds `MEMBER_BASE·2^s` members and is carved from
 * the member pool by a bump pointer when the row's count first reaches it. A round whose segments do
 * not fit in the pool is undone before it starts and the host grows the pool; items that do not fit
 * in the item list leave a mark in a dirty bitmap, and the next dispatch turns marked words back into
 * items (with all their bits, which is redundant but exact), so nothing is lost either way.
 * @module
 */
import type { PageGeometry, StoreGeometry } from '../layout';
import { storeAccessWgsl } from './store.wgsl';

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
}

/** Sizes of one program in the delta engine (sent to the kernel as a uniform). */
export interface DeltaGeometry extends StoreGeometry {
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
 * when no call has the row as its function).
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
  return { fun, arg1, arg2, readerStart, funSlot, readers };
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
    0,
  );
}

const S = (name: keyof typeof DELTA_STATE) => `${DELTA_STATE[name]}u`;

/**
 * The persistent delta kernel (dispatched as one workgroup).
 *
 * @example
 * ```ts
 * const code = deltaWgsl(bindings.wgsl(), geometry);
 * ```
 */
export function deltaWgsl(bindings: string, shape: DeltaShape): string {
  return /* wgsl */ `${bindings}
struct DeltaParams {
  lams: u32, calls: u32, words: u32, rowsPerChunk: u32,
  summaryWords: u32, funRows: u32, segments: u32, rows: u32,
  arg1: u32, arg2: u32, readerStart: u32, funSlot: u32,
  readers: u32, followBudget: u32, pageCapacity: u32, pad: u32,
}
// Sizes come from the uniform, not from constants, so one pipeline serves every program (a
// software adapter spends seconds compiling each one).
const BASE: u32 = ${MEMBER_BASE}u;
const T: u32 = ${shape.threads}u;
const NONE: u32 = 0xffffffffu;
const STACK: u32 = ${DEPTH_FIRST_STACK}u;
const FOLLOW_FUNCTION_ROWS: bool = ${shape.followFunctionRows ? 'true' : 'false'};
var<private> LAMS: u32;
var<private> CALLS: u32;
var<private> WORDS: u32;
var<private> P_ROWS_PER_CHUNK: u32;
var<private> SW: u32;
var<private> DIRTY: u32;
var<private> SW2: u32;
var<private> TOP: u32;
var<private> FUNROWS: u32;
var<private> SEGS: u32;
var<private> G_FUN: u32;
var<private> G_ARG1: u32;
var<private> G_ARG2: u32;
var<private> G_RSTART: u32;
var<private> G_FUNSLOT: u32;
var<private> G_READERS: u32;
var<private> PAGE_CAPACITY: u32;

fn loadParams() {
  LAMS = params.lams;
  CALLS = params.calls;
  WORDS = params.words;
  P_ROWS_PER_CHUNK = params.rowsPerChunk;
  SW = params.summaryWords;
  DIRTY = params.rows * params.summaryWords;
  SW2 = (params.summaryWords + 31u) / 32u;
  // Paged, the summary and dirty marks live in the pages and \`marks\` holds the top summary alone.
  TOP = ${shape.paging ? '0u' : '2u * DIRTY'};
  PAGE_CAPACITY = params.pageCapacity;
  FUNROWS = params.funRows;
  SEGS = params.segments;
  G_FUN = 0u;
  G_ARG1 = params.arg1;
  G_ARG2 = params.arg2;
  G_RSTART = params.readerStart;
  G_FUNSLOT = params.funSlot;
  G_READERS = params.readers;
  BUDGET = params.followBudget;
}

${storeAccessWgsl(shape, { pageNext: DELTA_STATE.pageNext, pageOverflow: DELTA_STATE.pageOverflow })}

var<workgroup> wgNext: atomic<u32>;
var<workgroup> wgFull: atomic<u32>;
var<workgroup> wgOverflow: atomic<u32>;
// One variable per broadcast, so a fast invocation never overwrites a value a slow one has yet to read.
var<workgroup> ctlParity: u32;
var<workgroup> ctlCount: u32;
var<workgroup> ctlMaxRounds: u32;
var<workgroup> ctlPhase: u32;
var<workgroup> ctlCapacity: u32;
var<workgroup> ctlFirst: u32;
var<workgroup> ctlFull: u32;
var<workgroup> ctlProduced: u32;
var<workgroup> ctlFunItems: u32;
var<workgroup> ctlPoolStart: u32;
// The persistent kernel keeps the pool's bump pointer in workgroup memory for the whole dispatch
// (one fewer device-memory round trip per round on the critical path) and writes it back at the end.
var<workgroup> wgPoolNext: atomic<u32>;
var<workgroup> ctlPoolCap: u32;
var<private> poolInWorkgroup: bool;
var<workgroup> wgFunItems: atomic<u32>;
var<private> outBase: u32;
var<private> useStack: bool;
var<private> depth: u32;
// Joins this invocation has made in the current round; past BUDGET it stops following items.
var<private> spent: u32;
var<private> BUDGET: u32;
var<private> stack: array<vec3u, STACK>;
var<private> cap: u32;
var<private> gridMode: bool;
var<workgroup> stageCount: atomic<u32>;
var<workgroup> stageFunItems: atomic<u32>;
var<workgroup> staged: array<vec4u, ${GRID_STAGE}>;
var<workgroup> ctlStageBase: u32;

// Grid mode: puts an item at place i of the round's output, or marks its word dirty when the half is full.
fn place(i: u32, v: u32, w: u32, bits: u32, slot: u32) {
  if (i < cap) {
    let at = outBase + ${ITEM_WORDS}u * i;
    items[at] = v;
    items[at + 1u] = w;
    items[at + 2u] = bits;
    items[at + 3u] = slot;
  } else {
    markDirty(v, w);
    atomicStore(&state[${S('itemOverflow')}], 1u);
  }
}

// Appends an item to the output half, or marks its word dirty when the half is full.
fn emit(v: u32, w: u32, bits: u32, slot: u32) {
  if (gridMode) {
    // Staged in workgroup memory so that the workgroup takes one shared counter value for all
    // (a global counter hit by every item would serialise the grid); past the stage, one each.
    let k = atomicAdd(&stageCount, 1u);
    if (k < ${GRID_STAGE}u) {
      staged[k] = vec4u(v, w, bits, slot);
      return;
    }
    if (slot != NONE) { atomicAdd(&state[${S('gridFunItems')}], 1u); }
    place(atomicAdd(&state[${S('gridNext')}], 1u), v, w, bits, slot);
    return;
  }
  if (slot != NONE) { atomicAdd(&wgFunItems, 1u); }
  let i = atomicAdd(&wgNext, 1u);
  if (i < cap) {
    let at = outBase + ${ITEM_WORDS}u * i;
    items[at] = v;
    items[at + 1u] = w;
    items[at + 2u] = bits;
    items[at + 3u] = slot;
  } else {
    markDirty(v, w);
    atomicStore(&wgOverflow, 1u);
  }
}

// Joins bits into word w of variable row v; new bits become an item.
fn join(v: u32, w: u32, bits: u32) {
  if (bits == 0u) { return; }
  spent++;
  let slot = graph[G_FUNSLOT + v];
  let old = orWord(v, w, bits);
  let fresh = bits & ~old;
  if (fresh == 0u) { return; }
  if (old == 0u) {
    // The row's top summary (orWord set the nonzero-word summary); the result is not waited for.
    atomicOr(&marks[TOP + v * SW2 + (w >> 10u)], 1u << ((w >> 5u) & 31u));
  }
  // Rows without a member list need no member phase: during propagation the invocation that made
  // the item follows it at once, depth first (chains of such rows then cost no round each).
  // With FOLLOW_FUNCTION_ROWS, items of rows with member lists are followed as well and also go to
  // the next round, whose propagation repeats their new pairs once the members are in their lists.
  if (useStack && depth < STACK && spent < BUDGET && (slot == NONE || FOLLOW_FUNCTION_ROWS)) {
    stack[depth] = vec3u(v, w, fresh);
    depth++;
    if (slot == NONE) { return; }
  }
  emit(v, w, fresh, slot);
}

// Joins all of store row src (a lambda row or variable row src - LAMS) into variable row dst.
fn joinRow(src: u32, dst: u32) {
  if (src < LAMS) {
    join(dst, src >> 5u, 1u << (src & 31u));
    return;
  }
  let s = src - LAMS;
  // The top summary names the nonzero summary words, so a row of a few members costs a few
  // dependent loads instead of one per summary word (on a round's critical path when a pair forms).
  for (var tw = 0u; tw < SW2; tw++) {
    var top = atomicLoad(&marks[TOP + s * SW2 + tw]);
    loop {
      if (top == 0u) { break; }
      let sw = tw * 32u + firstTrailingBit(top);
      top = top & (top - 1u);
      var nz = summaryLoad(s, sw);
      loop {
        if (nz == 0u) { break; }
        let b = firstTrailingBit(nz);
        nz = nz & (nz - 1u);
        let w = sw * 32u + b;
        join(dst, w, loadWord(s, w));
      }
    }
  }
}

// A new (call, λ) pair: σ(Arg1[c]) ⊆ a_λ and σ(Arg2[c]) ⊆ b_λ, given Arg1[c] and Arg2[c].
fn joinPair(l: u32, arg1: u32, arg2: u32) {
  joinRow(arg1, l);
  joinRow(arg2, LAMS + l);
}

fn newPair(c: u32, l: u32) {
  joinPair(l, graph[G_ARG1 + c], graph[G_ARG2 + c]);
}

fn segmentOf(i: u32) -> u32 { return firstLeadingBit(i / BASE + 1u); }
fn segmentStart(s: u32) -> u32 { return BASE * ((1u << s) - 1u); }

// Member i of the list in slot f.
fn member(f: u32, i: u32) -> u32 {
  let s = segmentOf(i);
  return pool[atomicLoad(&memIndex[FUNROWS + f * SEGS + s]) + i - segmentStart(s)];
}

// Phase A for one item (its words start at index at of items): reserves member indices in its row's list for its new
// λs and carves the segments that start inside the reservation. Returns false when a segment did
// not fit in the pool (the caller undoes the round).
fn reserveMembers(at: u32, poolCap: u32) -> bool {
  let f = items[at + 3u];
  if (f == NONE) { return true; }
  let k = countOneBits(items[at + 2u]);
  let start = atomicAdd(&memIndex[f], k);
  items[at + 4u] = start;
  var fits = true;
  if (segmentOf(start + k - 1u) >= SEGS) {
    atomicStore(&state[${S('segmentOverflow')}], 1u);
    fits = false;
  }
  var s = segmentOf(start);
  if (segmentStart(s) != start) { s++; }
  loop {
    if (s >= SEGS || segmentStart(s) >= start + k) { break; }
    var base: u32;
    if (poolInWorkgroup) {
      base = atomicAdd(&wgPoolNext, BASE << s);
    } else {
      base = atomicAdd(&state[${S('poolNext')}], BASE << s);
    }
    if (base > poolCap || (BASE << s) > poolCap - base) { fits = false; }
    atomicStore(&memIndex[FUNROWS + f * SEGS + s], base);
    s++;
  }
  return fits;
}

// Takes back what reserveMembers reserved for that item.
fn unreserveMembers(at: u32) {
  let f = items[at + 3u];
  if (f != NONE) { atomicSub(&memIndex[f], countOneBits(items[at + 2u])); }
}

// Phase C for that item: writes its new λs at the indices reserveMembers gave it.
fn writeMembers(at: u32) {
  let f = items[at + 3u];
  if (f == NONE) { return; }
  let w = items[at + 1u];
  var bits = items[at + 2u];
  var index = items[at + 4u];
  loop {
    if (bits == 0u) { break; }
    let b = firstTrailingBit(bits);
    bits = bits & (bits - 1u);
    let s = segmentOf(index);
    pool[atomicLoad(&memIndex[FUNROWS + f * SEGS + s]) + index - segmentStart(s)] = w * 32u + b;
    index++;
  }
}

// Joins the bits of item (v, w) into every row that a call reading row v makes depend on it.
fn propagate(v: u32, w: u32, bits: u32) {
  let end = graph[G_RSTART + v + 1u];
  for (var e = graph[G_RSTART + v]; e < end; e++) {
    let entry = graph[G_READERS + 2u * e];
    let callee = graph[G_READERS + 2u * e + 1u];
    let c = entry >> 2u;
    let kind = entry & 3u;
    if (kind == 0u) {
      // A pair's chain of dependent loads is the round's critical path on the Van Horn–Mairson
      // programs: Arg1[c] came with the entry, and Arg2[c] is asked for before Arg1's join starts.
      let arg2 = graph[G_ARG2 + c];
      var fresh = bits;
      loop {
        if (fresh == 0u) { break; }
        let b = firstTrailingBit(fresh);
        fresh = fresh & (fresh - 1u);
        joinPair(w * 32u + b, callee, arg2);
      }
      continue;
    }
    let dst = select(LAMS, 0u, kind == 1u);
    if (callee < LAMS) {
      join(dst + callee, w, bits);
      continue;
    }
    let slot = callee - LAMS;
    let n = atomicLoad(&memIndex[slot]);
    for (var j = 0u; j < n; j++) { join(dst + member(slot, j), w, bits); }
  }
}

// Follows the items on this invocation's stack, depth first, until it has made BUDGET joins this
// round; the rest go to the next round like any other item (items of rows with member lists are
// there already), so one invocation does not carry a long chain alone while the others wait.
fn drainStack() {
  loop {
    if (depth == 0u) { break; }
    depth--;
    let next = stack[depth];
    if (spent < BUDGET) {
      propagate(next.x, next.y, next.z);
      continue;
    }
    if (graph[G_FUNSLOT + next.x] == NONE) { emit(next.x, next.y, next.z, NONE); }
  }
}

// ---- Grid mode: one round over many workgroups, one dispatch per phase ----

fn gridItems() -> u32 { return atomicLoad(&state[${S('count')}]); }
fn gridInBase() -> u32 {
  return atomicLoad(&state[${S('parity')}]) * atomicLoad(&state[${S('itemCapacity')}]) * ${ITEM_WORDS}u;
}
fn gridStride(nwg: vec3u) -> u32 { return nwg.x * nwg.y * ${GRID_WORKGROUP}u; }
fn gridIndex(wg: vec3u, nwg: vec3u, lid: u32) -> u32 { return (wg.x + wg.y * nwg.x) * ${GRID_WORKGROUP}u + lid; }

// Closes the open round, if one ran: its output becomes the current items.
fn gridCloseRound() {
  if (atomicLoad(&state[${S('gridActive')}]) == 0u) { return; }
  let produced = atomicLoad(&state[${S('gridNext')}]);
  atomicMax(&state[${S('itemPeak')}], produced);
  atomicStore(&state[${S('parity')}], 1u - atomicLoad(&state[${S('parity')}]));
  atomicStore(&state[${S('count')}], min(produced, atomicLoad(&state[${S('itemCapacity')}])));
  atomicStore(&state[${S('funItems')}], atomicLoad(&state[${S('gridFunItems')}]));
  atomicAdd(&state[${S('rounds')}], 1u);
  atomicStore(&state[${S('gridActive')}], 0u);
}

// The last dispatch of a batch: closes its last round, so the host reads a settled state.
@compute @workgroup_size(1)
fn grid_close() { gridCloseRound(); }

// Closes the open round and opens the next one, unless something halts the batch: no items, or an
// overflow the host must handle.
@compute @workgroup_size(1)
fn grid_prep() {
  gridCloseRound();
  let count = atomicLoad(&state[${S('count')}]);
  atomicStore(&state[${S('gridUndo')}], 0u);
  let halted = count == 0u || atomicLoad(&state[${S('itemOverflow')}]) != 0u ||
    atomicLoad(&state[${S('poolOverflow')}]) != 0u || atomicLoad(&state[${S('segmentOverflow')}]) != 0u ||
    atomicLoad(&state[${S('pageOverflow')}]) != 0u;
  if (halted) { return; }
  atomicStore(&state[${S('gridNext')}], 0u);
  atomicStore(&state[${S('gridFunItems')}], 0u);
  atomicStore(&state[${S('gridFull')}], 0u);
  atomicStore(&state[${S('gridPoolStart')}], atomicLoad(&state[${S('poolNext')}]));
  atomicStore(&state[${S('gridMembers')}], select(0u, 1u, atomicLoad(&state[${S('funItems')}]) != 0u));
  atomicStore(&state[${S('gridActive')}], 1u);
}

fn gridRunsMembers() -> bool {
  return atomicLoad(&state[${S('gridActive')}]) != 0u && atomicLoad(&state[${S('gridMembers')}]) != 0u;
}

// A: reserve member indices for the new λs of function rows and carve the segments they start.
@compute @workgroup_size(${GRID_WORKGROUP})
fn grid_reserve(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  loadParams();
  if (!gridRunsMembers()) { return; }
  let count = gridItems();
  let inBase = gridInBase();
  let poolCap = atomicLoad(&state[${S('poolCapacity')}]);
  for (var i = gridIndex(wg, nwg, lid); i < count; i += gridStride(nwg)) {
    if (!reserveMembers(inBase + ${ITEM_WORDS}u * i, poolCap)) { atomicStore(&state[${S('gridFull')}], 1u); }
  }
}

// After A: if the pool was too small, the round is undone (grid_undo) and the batch halts.
@compute @workgroup_size(1)
fn grid_check() {
  if (!gridRunsMembers()) { return; }
  let full = atomicLoad(&state[${S('gridFull')}]) != 0u || atomicLoad(&state[${S('segmentOverflow')}]) != 0u;
  if (!full) { return; }
  let poolStart = atomicLoad(&state[${S('gridPoolStart')}]);
  atomicStore(&state[${S('poolOverflow')}], 1u);
  atomicStore(&state[${S('poolDemand')}], atomicLoad(&state[${S('poolNext')}]) - poolStart);
  atomicStore(&state[${S('poolNext')}], poolStart);
  atomicStore(&state[${S('gridUndo')}], 1u);
  // The round stays unclosed: its items are still the current ones when the host resumes.
  atomicStore(&state[${S('gridActive')}], 0u);
}

@compute @workgroup_size(${GRID_WORKGROUP})
fn grid_undo(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  if (atomicLoad(&state[${S('gridUndo')}]) == 0u) { return; }
  let count = gridItems();
  let inBase = gridInBase();
  for (var i = gridIndex(wg, nwg, lid); i < count; i += gridStride(nwg)) {
    unreserveMembers(inBase + ${ITEM_WORDS}u * i);
  }
}

// C: write the new members.
@compute @workgroup_size(${GRID_WORKGROUP})
fn grid_members(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  loadParams();
  if (!gridRunsMembers()) { return; }
  let count = gridItems();
  let inBase = gridInBase();
  for (var i = gridIndex(wg, nwg, lid); i < count; i += gridStride(nwg)) {
    writeMembers(inBase + ${ITEM_WORDS}u * i);
  }
}

// D: propagate every item, and what that makes, depth first; the workgroup's staged output is
// placed with one shared counter value.
@compute @workgroup_size(${GRID_WORKGROUP})
fn grid_propagate(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  loadParams();
  gridMode = true;
  if (lid == 0u) {
    ctlFirst = atomicLoad(&state[${S('gridActive')}]);
    atomicStore(&stageCount, 0u);
    atomicStore(&stageFunItems, 0u);
  }
  if (workgroupUniformLoad(&ctlFirst) == 0u) { return; }
  let count = gridItems();
  let inBase = gridInBase();
  cap = atomicLoad(&state[${S('itemCapacity')}]);
  outBase = (1u - atomicLoad(&state[${S('parity')}])) * cap * ${ITEM_WORDS}u;
  useStack = true;
  for (var i = gridIndex(wg, nwg, lid); i < count; i += gridStride(nwg)) {
    let at = inBase + ${ITEM_WORDS}u * i;
    propagate(items[at], items[at + 1u], items[at + 2u]);
    drainStack();
  }
  workgroupBarrier();
  let n = min(atomicLoad(&stageCount), ${GRID_STAGE}u);
  var fun = 0u;
  for (var k = lid; k < n; k += ${GRID_WORKGROUP}u) {
    if (staged[k].w != NONE) { fun++; }
  }
  if (fun != 0u) { atomicAdd(&stageFunItems, fun); }
  if (lid == 0u) { ctlStageBase = atomicAdd(&state[${S('gridNext')}], n); }
  let base = workgroupUniformLoad(&ctlStageBase);
  for (var k = lid; k < n; k += ${GRID_WORKGROUP}u) {
    let it = staged[k];
    place(base + k, it.x, it.y, it.z, it.w);
  }
  workgroupBarrier();
  if (lid == 0u) {
    let f = atomicLoad(&stageFunItems);
    if (f != 0u) { atomicAdd(&state[${S('gridFunItems')}], f); }
  }
}

@compute @workgroup_size(${shape.threads})
fn main(@builtin(local_invocation_index) lid: u32) {
  loadParams();
  if (lid == 0u) {
    ctlParity = atomicLoad(&state[${S('parity')}]);
    ctlCount = atomicLoad(&state[${S('count')}]);
    ctlMaxRounds = atomicLoad(&state[${S('maxRounds')}]);
    ctlPhase = atomicLoad(&state[${S('started')}]) | (atomicLoad(&state[${S('recover')}]) << 1u);
    ctlCapacity = atomicLoad(&state[${S('itemCapacity')}]);
    atomicStore(&wgOverflow, 0u);
    atomicStore(&wgNext, ctlCount);
    atomicStore(&wgFunItems, atomicLoad(&state[${S('funItems')}]));
    atomicStore(&wgPoolNext, atomicLoad(&state[${S('poolNext')}]));
    ctlPoolCap = atomicLoad(&state[${S('poolCapacity')}]);
  }
  poolInWorkgroup = true;
  var parity = workgroupUniformLoad(&ctlParity);
  var count = workgroupUniformLoad(&ctlCount);
  let maxRounds = workgroupUniformLoad(&ctlMaxRounds);
  let phase = workgroupUniformLoad(&ctlPhase);
  let capacity = workgroupUniformLoad(&ctlCapacity);
  let poolCap = workgroupUniformLoad(&ctlPoolCap);
  cap = capacity;
  var stop = false;

  if ((phase & 1u) == 0u || (phase & 2u) != 0u) {
    // Into the current half, after the items already there.
    outBase = parity * capacity * ${ITEM_WORDS}u;
    if ((phase & 1u) == 0u) {
      // First dispatch: the calls whose function is a lambda are pairs from the start.
      for (var c = lid; c < CALLS; c += T) {
        let f = graph[G_FUN + c];
        if (f < LAMS) { newPair(c, f); }
      }
    } else {
      // After the item buffer grew: every dirty word becomes an item again, with all its bits.
      let units = dirtyUnits();
      for (var i = lid; i < units; i += T) {
        let dirty = takeDirty(i);
        var m = dirty.x;
        loop {
          if (m == 0u) { break; }
          let b = firstTrailingBit(m);
          m = m & (m - 1u);
          let v = dirty.y / SW;
          let w = (dirty.y % SW) * 32u + b;
          emit(v, w, loadWord(v, w), graph[G_FUNSLOT + v]);
        }
      }
    }
    storageBarrier();
    workgroupBarrier();
    if (lid == 0u) { ctlFirst = atomicLoad(&wgNext); }
    let produced = workgroupUniformLoad(&ctlFirst);
    count = min(produced, capacity);
    stop = produced > capacity;
  }

  var r = 0u;
  loop {
    if (stop || r >= maxRounds || count == 0u) { break; }
    let inBase = parity * capacity * ${ITEM_WORDS}u;
    outBase = (1u - parity) * capacity * ${ITEM_WORDS}u;
    if (lid == 0u) {
      ctlFunItems = atomicLoad(&wgFunItems);
      atomicStore(&wgNext, 0u);
      atomicStore(&wgFunItems, 0u);
    }
    let funItems = workgroupUniformLoad(&ctlFunItems);
    // Phases A–C only when the round has items of rows with member lists.
    if (funItems != 0u) {
      // A: reserve member indices for the new λs of function rows and carve the segments that start
      // inside each reservation (undone below if the pool is too small).
      if (lid == 0u) { ctlPoolStart = atomicLoad(&wgPoolNext); }
      let poolStart = workgroupUniformLoad(&ctlPoolStart);
      for (var i = lid; i < count; i += T) {
        if (!reserveMembers(inBase + ${ITEM_WORDS}u * i, poolCap)) { atomicStore(&wgFull, 1u); }
      }
      storageBarrier();
      workgroupBarrier();
      if (lid == 0u) {
        // reserveMembers reports a list past its last segment as not fitting too.
        let full = atomicLoad(&wgFull);
        if (full != 0u) {
          atomicStore(&state[${S('poolOverflow')}], 1u);
          atomicStore(&state[${S('poolDemand')}], atomicLoad(&wgPoolNext) - poolStart);
          atomicStore(&wgPoolNext, poolStart);
          atomicStore(&wgFull, 0u);
        }
        ctlFull = full;
      }
      if (workgroupUniformLoad(&ctlFull) != 0u) {
        // Undo the reservations: the round runs again once the host has grown the pool (the segments
        // carved above are carved again then, over the same pool range).
        if (lid == 0u) { atomicStore(&wgFunItems, funItems); }
        for (var i = lid; i < count; i += T) { unreserveMembers(inBase + ${ITEM_WORDS}u * i); }
        break;
      }
      // C: write the new members.
      for (var i = lid; i < count; i += T) { writeMembers(inBase + ${ITEM_WORDS}u * i); }
      storageBarrier();
      workgroupBarrier();
    }
    // D: propagate every item along the calls that read its row, and what that makes, depth first.
    useStack = true;
    spent = 0u;
    for (var i = lid; i < count; i += T) {
      let at = inBase + ${ITEM_WORDS}u * i;
      propagate(items[at], items[at + 1u], items[at + 2u]);
      drainStack();
    }
    useStack = false;
    storageBarrier();
    workgroupBarrier();
    if (lid == 0u) { ctlProduced = atomicLoad(&wgNext); }
    let produced = workgroupUniformLoad(&ctlProduced);
    if (lid == 0u) { atomicMax(&state[${S('itemPeak')}], produced); }
    parity = 1u - parity;
    count = min(produced, capacity);
    r++;
    stop = produced > capacity;
  }
  if (lid == 0u) {
    atomicStore(&state[${S('parity')}], parity);
    atomicStore(&state[${S('count')}], count);
    atomicStore(&state[${S('funItems')}], atomicLoad(&wgFunItems));
    atomicAdd(&state[${S('rounds')}], r);
    atomicStore(&state[${S('started')}], 1u);
    atomicStore(&state[${S('recover')}], 0u);
    atomicStore(&state[${S('poolNext')}], atomicLoad(&wgPoolNext));
    if (atomicLoad(&wgOverflow) != 0u) { atomicStore(&state[${S('itemOverflow')}], 1u); }
  }
}
`;
}
