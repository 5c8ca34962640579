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

import {
  gridControlWgsl,
  gridMemberPhasesWgsl,
  gridPropagateWgsl,
  mainKernelWgsl,
} from './delta-entries.wgsl';
import {
  DELTA_STATE,
  DEPTH_FIRST_STACK,
  type DeltaShape,
  GRID_STAGE,
  ITEM_WORDS,
  MEMBER_BASE,
  S,
} from './delta-state';
import { storeAccessWgsl } from './store.wgsl';

export {
  DEFAULT_FOLLOW_BUDGET,
  DELTA_ENTRY_POINTS,
  DELTA_STATE,
  DELTA_STATE_WORDS,
  DEPTH_FIRST_STACK,
  type DeltaEntryPoint,
  type DeltaGeometry,
  type DeltaShape,
  deltaParams,
  GRID_STAGE,
  GRID_WORKGROUP,
  graphSections,
  ITEM_WORDS,
  MEMBER_BASE,
  memberSegments,
} from './delta-state';

/**
 * The delta engine's WGSL: every entry point of {@link DELTA_ENTRY_POINTS} over `bindings`.
 *
 * @example
 * ```ts
 * const code = deltaWgsl(bindings.wgsl(), { chunks: 2, threads: 1024, followFunctionRows: true });
 * ```
 */
export function deltaWgsl(bindings: string, shape: DeltaShape): string {
  const parts = [
    paramsWgsl(shape),
    storeAccessWgsl(shape, { pageNext: DELTA_STATE.pageNext, pageOverflow: DELTA_STATE.pageOverflow }),
    workgroupStateWgsl(),
    itemsWgsl(),
    membersWgsl(),
    propagateWgsl(),
    gridControlWgsl(),
    gridMemberPhasesWgsl(),
    gridPropagateWgsl(),
    mainKernelWgsl(shape),
  ];
  return `${bindings}\n${parts.join('\n\n')}\n`;
}

/** The uniform, the constants the shape fixes, and the sizes each invocation loads from the uniform. */
function paramsWgsl(shape: DeltaShape): string {
  return /* wgsl */ `struct DeltaParams {
  lams: u32, calls: u32, words: u32, rowsPerChunk: u32,
  summaryWords: u32, funRows: u32, segments: u32, rows: u32,
  arg1: u32, arg2: u32, readerStart: u32, funSlot: u32,
  readers: u32, followBudget: u32, pageCapacity: u32, arity: u32,
}
// Sizes come from the uniform, not from constants, so one pipeline serves every program (a
// software adapter spends seconds compiling each one).
const BASE: u32 = ${MEMBER_BASE}u;
const T: u32 = ${shape.threads}u;
const NONE: u32 = 0xffffffffu;
const STACK: u32 = ${DEPTH_FIRST_STACK}u;
const FOLLOW_FUNCTION_ROWS: bool = ${shape.followFunctionRows ? 'true' : 'false'};
const ARITY: bool = ${shape.arity ? 'true' : 'false'};
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
var<private> G_ARITY: u32;
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
  G_ARITY = params.arity;
  BUDGET = params.followBudget;
}`;
}

/** Workgroup and private variables: the round's broadcasts, counters, the follow stack, the grid stage. */
function workgroupStateWgsl(): string {
  return /* wgsl */ `var<workgroup> wgNext: atomic<u32>;
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
var<workgroup> ctlStageBase: u32;`;
}

/** Items: emitting and placing them, joining bits into rows, joining whole rows for new pairs. */
function itemsWgsl(): string {
  return /* wgsl */ `// Grid mode: puts an item at place i of the round's output, or marks its word dirty when the half is full.
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

// Arity-aware flows: whether call c applies λl (bit class(c) of mask(l)); always without them.
fn applies(c: u32, l: u32) -> bool {
  if (!ARITY) { return true; }
  return ((graph[G_ARITY + CALLS + l] >> graph[G_ARITY + c]) & 1u) != 0u;
}

// A new (call, λ) pair: σ(Arg1[c]) ⊆ a_λ and σ(Arg2[c]) ⊆ b_λ, given Arg1[c] and Arg2[c].
fn joinPair(l: u32, arg1: u32, arg2: u32) {
  joinRow(arg1, l);
  joinRow(arg2, LAMS + l);
}

fn newPair(c: u32, l: u32) {
  joinPair(l, graph[G_ARG1 + c], graph[G_ARG2 + c]);
}`;
}

/** Member lists: segments, and phases A (reserve, undo) and C (write) for one item. */
function membersWgsl(): string {
  return /* wgsl */ `fn segmentOf(i: u32) -> u32 { return firstLeadingBit(i / BASE + 1u); }
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
}`;
}

/** Phase D for one item, and the depth-first stack of the items it makes. */
function propagateWgsl(): string {
  return /* wgsl */ `// Joins the bits of item (v, w) into every row that a call reading row v makes depend on it.
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
        if (applies(c, w * 32u + b)) { joinPair(w * 32u + b, callee, arg2); }
      }
      continue;
    }
    let dst = select(LAMS, 0u, kind == 1u);
    if (callee < LAMS) {
      if (applies(c, callee)) { join(dst + callee, w, bits); }
      continue;
    }
    let slot = callee - LAMS;
    let n = atomicLoad(&memIndex[slot]);
    for (var j = 0u; j < n; j++) {
      let l = member(slot, j);
      if (applies(c, l)) { join(dst + l, w, bits); }
    }
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
}`;
}
