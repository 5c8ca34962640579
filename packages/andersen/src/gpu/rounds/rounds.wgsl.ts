import { NODE_SET_SLOTS } from '../layout';
import type { SolverWgsl } from '../module/context';

/** init_state, a round's and an attempt's begin. */
export function roundBeginWgsl(w: SolverWgsl): string {
  const { threadKernel, slot, A, singleKernel, S, beginAttempt, activeLists, closeList } = w;
  return /* wgsl */ `${threadKernel(
    'init_state',
    /* wgsl */ `
  // Once, before the first iteration: the slots and per-node arrays that start empty. The host
  // uploads only what is not NONE or 0 (the union–find, the initial sets' pairs); the rest of
  // every buffer is zero when created. The pairs are merged into the pending slots after this.
  for (var i = first_item; i < params.n; i += item_stride) {
    pts_heads[${slot('points', 'i')}] = NONE;
    pts_heads[${slot('delta', 'i')}] = NONE;
    pts_heads[${slot('pending', 'i')}] = NONE;
    pts_heads[${slot('hop', 'i')}] = NONE;
    edg_heads[${slot('points', 'i')}] = NONE;
    edg_heads[${slot('delta', 'i')}] = NONE;
    edg_heads[${slot('pending', 'i')}] = NONE;
    atomicStore(&control[${A('segmentStart')} + i], NONE);
    atomicStore(&control[${A('segmentStart')} + params.n + i], NONE);
    atomicStore(&control[${A('mergeSize')} + i], 0u);
    atomicStore(&control[${A('hcdSlot')} + i], NONE);
  }
  for (var i = first_item; i < params.chunk_capacity; i += item_stride) {
    pts_heads[${NODE_SET_SLOTS}u * params.n + i] = NONE;
  }`,
  )}
${singleKernel(
  'begin_iteration',
  /* wgsl */ `
  atomicStore(&control[${S('markPts')}], min(atomicLoad(&pts_header.next), pts_header.capacity));
  atomicStore(&control[${S('markEdges')}], min(atomicLoad(&edg_header.next), edg_header.capacity));
  // The iteration's first attempt begins here too (one dispatch fewer a round).
${beginAttempt}${
  activeLists
    ? `
  // The first submission's initial sets were merged from a segments list: closed here (later
  // rounds' lists are closed by then, and this does nothing).${closeList('segments')}`
    : ''
}`,
)}
${singleKernel('begin_attempt', beginAttempt)}
`;
}

/** The gates of work queued ahead (rules_gate, sort_gate) and the tables' clearing. */
export function gatesWgsl(w: SolverWgsl): string {
  const {
    singleKernel,
    S,
    gateUpdate,
    rulesSkipped,
    mergeBits,
    reportPools,
    closeDeltaAndPull,
    threadKernel,
    clearTables,
  } = w;
  return /* wgsl */ `${singleKernel(
    'rules_gate',
    /* wgsl */ `
  // First in a submission of the next round's rules queued right behind an update, before the
  // host has read that update's status (GpuSolverOptions.rulesAhead): the folds queued with them
  // and the rules run only when the host will have nothing to do between the two, i.e. when the
  // update ran and was not redone, the round's merges (if any) are taken by the folds queued
  // (params.fold_levels: NONE when no folds were queued, else log2 of the most children a class may
  // have, 31 or more for any: merge_data folds the roots their levels leave), it was not the
  // last round, and neither pool is short of room for three times what the round allocated nor
  // the worklist for three times the round's pairs (the host's grow-ahead tests, in integers:
  // (capacity − next) / below < last ⇔ capacity − next < below · last). Otherwise every rules and
  // fold kernel returns at once and the host runs them.
  let merged = atomicLoad(&control[${S('merged')}]);
  let quiet = atomicLoad(&control[${S('active')}]) == 0u && atomicLoad(&control[${S('freshNodes')}]) == 0u && merged == 0u;
  let folds = params.fold_levels;
  let folded = merged == 0u || (folds != NONE &&
    (folds >= 31u || atomicLoad(&control[${S('mergeMaxChildren')}]) <= (1u << folds)));
  var skip = atomicLoad(&control[${S('fatal')}]) != 0u || atomicLoad(&control[${S('skipUpdate')}]) != 0u ||
    atomicLoad(&control[${S('skipMerge')}]) != 0u || !folded || quiet;
  let below = params.grow_below;
  let pts_next = atomicLoad(&control[${S('ptsNext')}]);
  let pts_capacity = atomicLoad(&control[${S('ptsCapacity')}]);
  let pts_last = pts_next - min(pts_next, atomicLoad(&control[${S('markPts')}]));
  skip = skip || pts_next >= pts_capacity || (below > 0u && (pts_capacity - pts_next) / below < pts_last);
  let edg_next = atomicLoad(&control[${S('edgesNext')}]);
  let edg_capacity = atomicLoad(&control[${S('edgesCapacity')}]);
  let edg_last = edg_next - min(edg_next, atomicLoad(&control[${S('markEdges')}]));
  skip = skip || edg_next >= edg_capacity || (below > 0u && (edg_capacity - edg_next) / below < edg_last);
  skip = skip || (below > 0u && params.pair_capacity / below < atomicLoad(&control[${S('pairCount')}]));${
    gateUpdate
      ? `
  // A round queued behind one held back is held back too (its gate would test stale words), and
  // the radix sort queued with it (which reads its count from the GPU) sorts nothing.
  skip = skip || ${rulesSkipped};
  if (skip) { atomicStore(&control[${S('sortedCount')}], 0u); }`
      : ''
  }
  atomicStore(&control[${S('rulesSkipped')}], select(0u, 1u, skip));`,
  )}
${singleKernel(
  'sort_gate',
  /* wgsl */ `
  // After the rules: the pairs to sort and merge, unless the worklist overflowed or the sort and
  // partial-merge levels the host recorded for this submission (on a guess, before it could read
  // the rules' counts) fall short. Then nothing is sorted or merged, the update is skipped, and
  // the host runs the missing levels, the right sort and the update in a submission of its own.
  let count = atomicLoad(&control[${S('pairCount')}]);
  let levels_cover = params.guess_levels * ${mergeBits}u >= 31u || atomicLoad(&control[${S('pullMaxChunks')}]) <= (1u << (params.guess_levels * ${mergeBits}u));
  let fits = count <= params.pair_capacity && count <= params.guess_sort_capacity && levels_cover;
  atomicStore(&control[${S('sortedCount')}], select(0u, count, fits));
  atomicStore(&control[${S('guessMissed')}], select(1u, 0u, fits));
  // And the pools' state: a pool the rules ran out of is grown before any update is submitted.
${reportPools}
  // The rules' lists, their readers done.${closeDeltaAndPull}`,
)}
${threadKernel('delta_clear', clearTables)}
`;
}
