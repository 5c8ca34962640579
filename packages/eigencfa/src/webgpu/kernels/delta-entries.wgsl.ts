/**
 * WGSL of the delta engine's entry points: the grid-mode kernels (one round over many workgroups,
 * one dispatch per phase) and the persistent single-workgroup kernel `main`. They call the
 * functions of {@link ./delta.wgsl}.
 * @module
 */
import { type DeltaShape, GRID_STAGE, GRID_WORKGROUP, ITEM_WORDS, S } from './delta-state';

/** Grid mode: the round's bookkeeping, `grid_close` and `grid_prep`. */
export function gridControlWgsl(): string {
  return /* wgsl */ `// ---- Grid mode: one round over many workgroups, one dispatch per phase ----

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
}`;
}

/** Grid mode: phases A (`grid_reserve`, `grid_check`, `grid_undo`) and C (`grid_members`). */
export function gridMemberPhasesWgsl(): string {
  return /* wgsl */ `// A: reserve member indices for the new λs of function rows and carve the segments they start.
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
}`;
}

/** Grid mode: phase D (`grid_propagate`), its output staged per workgroup. */
export function gridPropagateWgsl(): string {
  return /* wgsl */ `// D: propagate every item, and what that makes, depth first; the workgroup's staged output is
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
}`;
}

/** The persistent kernel: first items, recovery of dirty words, and rounds in one workgroup. */
export function mainKernelWgsl(shape: DeltaShape): string {
  return /* wgsl */ `@compute @workgroup_size(${shape.threads})
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
        if (f < LAMS && applies(c, f)) { newPair(c, f); }
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
}`;
}
