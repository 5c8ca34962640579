import type { SolverWgsl } from '../module/context';

/** The merge plan: compress, each class's new children ranked and counted, the guard. */
export function mergePlanWgsl(w: SolverWgsl): string {
  const { threadKernel, S, A, slot, singleKernel, reportPools, closeSegmentsAndPending } = w;
  return /* wgsl */ `${threadKernel(
    'compress',
    /* wgsl */ `
  if (atomicLoad(&control[${S('merged')}]) == 0u) { return; }
  for (var v = first_item; v < params.n; v += item_stride) {
    atomicStore(&control[${A('parent')} + v], find(v));
  }
  // In the same dispatch (shortening parents leaves every find's root as it is), each merged node
  // takes its position among its root's new children (mergeSize[r] is 0 until then: merge_done
  // sets it back once the children are folded, before the next round's merges).
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let a = atomicLoad(&control[${A('mergedList')} + i]);
    let r = find(a);
    atomicStore(&control[${A('childSlot')} + a], atomicAdd(&control[${A('mergeSize')} + r], 1u));
  }`,
  )}
${threadKernel(
  'merge_rank',
  /* wgsl */ `
  if (skip_update()) { return; }
  // Gives each representative with new children its range of mergeOrder (the children's first
  // stands for it), so that the levels of merge_level can pair them by position; merge_count puts
  // each child at its position. (Walking each root's chain of children here left a class of a
  // thousand new children to one invocation's dependent loads.)
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let a = atomicLoad(&control[${A('mergedList')} + i]);
    if (atomicLoad(&control[${A('childSlot')} + a]) != 0u) { continue; }
    let r = find(a);
    let k = atomicLoad(&control[${A('mergeSize')} + r]);
    atomicStore(&control[${A('mergeStart')} + r], atomicAdd(&control[${S('mergeCursor')}], k));
    atomicMax(&control[${S('mergeMaxChildren')}], k);
  }`,
)}
${threadKernel(
  'merge_count',
  /* wgsl */ `
  if (skip_update()) { return; }
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let a = atomicLoad(&control[${A('mergedList')} + i]);
    let r = find(a);
    let at = atomicLoad(&control[${A('mergeStart')} + r]) + atomicLoad(&control[${A('childSlot')} + a]);
    atomicStore(&control[${A('mergeOrder')} + at], a);
    // A bound, not an exact figure: a child's P is copied once (K), then its union U at most once per
    // level of its representative's tree and once more into N(r); the root's own P counts once per child.
    let copies = 3u + firstLeadingBit(max(1u, atomicLoad(&control[${A('mergeSize')} + r])));
    atomicAdd(&control[${S('mergeNeedPts')}], pts_elements(${slot('points', 'a')}) * copies + pts_elements(${slot('points', 'r')}));
    atomicAdd(&control[${S('mergeNeedEdges')}], (edg_elements(${slot('points', 'a')}) + edg_elements(${slot('delta', 'a')})) * copies);
  }`,
)}
${singleKernel(
  'guard_merge',
  /* wgsl */ `
  // The pools' state for the host first (whatever the guards decided), and the update's lists,
  // their readers done.
${reportPools}${closeSegmentsAndPending}
  if (skip_update()) { return; }
  let pts_next = atomicLoad(&pts_header.next);
  let edg_next = atomicLoad(&edg_header.next);
  let pts_cap = pts_header.capacity;
  let edg_cap = edg_header.capacity;
  var skip = pts_next >= pts_cap || pts_cap - pts_next < atomicLoad(&control[${S('mergeNeedPts')}]);
  skip = skip || edg_next >= edg_cap || edg_cap - edg_next < atomicLoad(&control[${S('mergeNeedEdges')}]);
  atomicStore(&control[${S('skipMerge')}], select(0u, 1u, skip));`,
)}
`;
}

/** The folds of a round's merges: the children's tree and the roots it leaves. */
export function mergeFoldsWgsl(w: SolverWgsl): string {
  const { teamKernel, S, A, slot, foldPointsTo, foldEdges, foldFailed, nextLevel, sweep } = w;
  return /* wgsl */ `${teamKernel(
    'merge_prepare',
    /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u)) != 0u) { return; }
  // What each member of a class has already pushed through its edges and rules is its P − ΔP; the
  // class keeps the intersection K of those as P and gathers the union U in N, so the next update
  // makes ΔP = U − K: every member's edges and rules see exactly what they have not seen. (Moving
  // all of U to ΔP would be exact too, but re-propagates whole sets at every merge.) Each child
  // starts as U = P in N and K = P − ΔP in P; merge_level folds them pairwise, merge_data into r.
  let count = pts_team_u(atomicLoad(&control[${S('merged')}]));
  for (var i = first_team; i < count; i += team_stride) {
    let a = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + i]));
    if (pts_lane == 0u) {
      pts_heads[${slot('pending', 'a')}] = pts_heads[${slot('points', 'a')}];
      pts_heads[${slot('points', 'a')}] = NONE;
    }
    var status = pts_union(${slot('points', 'a')}, ${slot('pending', 'a')});
    status |= pts_difference(${slot('points', 'a')}, ${slot('delta', 'a')});
    if (pts_lane == 0u) {
      pts_heads[${slot('delta', 'a')}] = NONE;
      edg_heads[${slot('pending', 'a')}] = NONE;
      if ((status & (pts_INCOMPLETE | pts_CORRUPT)) != 0u) {
        atomicOr(&control[${S('fatal')}], select(FATAL_EXHAUSTED, FATAL_CORRUPT, (status & pts_CORRUPT) != 0u));
      }
    }
  }`,
  )}
${teamKernel(
  'merge_level',
  /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u)) != 0u) { return; }
  let stride = pts_team_u(atomicLoad(&control[${S('mergeStride')}]));
  if (stride >= pts_team_u(atomicLoad(&control[${S('mergeMaxChildren')}]))) { return; }
  // One level of the tree: the child at position p (p a multiple of 2·stride) absorbs the child at
  // p + stride, so no team folds more than one set per level; two teams per pair, the even one
  // the points-to sets, the odd one the edge sets.
  let count = pts_team_u(atomicLoad(&control[${S('merged')}]));
  for (var u = first_team; u < 2u * count; u += team_stride) {
    let i = u >> 1u;
    let a = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + i]));
    let r = pts_team_u(find(a));
    let p = i - pts_team_u(atomicLoad(&control[${A('mergeStart')} + r]));
    if (p % (2u * stride) != 0u || p + stride >= pts_team_u(atomicLoad(&control[${A('mergeSize')} + r]))) { continue; }
    let b = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + i + stride]));
    var status = 0u;
    if ((u & 1u) == 0u) {${foldPointsTo('a', 'b')}
    } else {${foldEdges('a', 'b')}
    }${foldFailed}
  }${nextLevel('mergeLevelDone', `atomicStore(&control[${S('mergeStride')}], 2u * stride);`)}`,
)}
${teamKernel(
  'merge_data',
  /* wgsl */ `
  if (pts_team_u(select(0u, 1u, skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u)) != 0u) { return; }
  // Folds queued ahead for a round that merged nothing (rulesAhead): no child anywhere.
  if (pts_team_u(atomicLoad(&control[${S('merged')}])) == 0u) { return; }
  // The levels run left the children's sets in the tree roots at positions 0, 2·stride, 4·stride…
  // (one root when the levels covered the largest class): r takes K = P − ΔP and U = P of its own
  // and folds the roots in. Two teams per root, as in merge_level: part 0 the points-to sets, part
  // 1 the edge sets; merge_done then sets each root's count of children back to 0 (here one part
  // could see the other's reset before it began).
  let stride = pts_team_u(atomicLoad(&control[${S('mergeStride')}]));
  // Two items per child in the merge order; the first child of each root's run stands for the
  // root, so the grid follows the children merged (a sweep of two items per node was gcc's
  // 30,000 workgroups in every round that merged).
  let children = pts_team_u(atomicLoad(&control[${S('merged')}]));
  ${sweep({
    item: 'u',
    count: '2u * children',
    test: `u >> 1u == atomicLoad(&control[${A('mergeStart')} + find(atomicLoad(&control[${A('mergeOrder')} + (u >> 1u)]))])`,
    body: /* wgsl */ `
    let r = pts_team_u(find(atomicLoad(&control[${A('mergeOrder')} + (u >> 1u)])));
    let start = u >> 1u;
    let size = pts_team_u(atomicLoad(&control[${A('mergeSize')} + r]));
    var status = 0u;
    if ((u & 1u) == 0u) {
      if (pts_lane == 0u) {
        pts_heads[${slot('pending', 'r')}] = pts_heads[${slot('points', 'r')}];
        pts_heads[${slot('points', 'r')}] = NONE;
      }
      status |= pts_union(${slot('points', 'r')}, ${slot('pending', 'r')});
      status |= pts_difference(${slot('points', 'r')}, ${slot('delta', 'r')});
      for (var p = 0u; p < size; p += stride) {
        let c = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + start + p]));${foldPointsTo('r', 'c')}
      }
      if (pts_lane == 0u) { pts_heads[${slot('delta', 'r')}] = NONE; }
    } else {
      for (var p = 0u; p < size; p += stride) {
        let c = pts_team_u(atomicLoad(&control[${A('mergeOrder')} + start + p]));${foldEdges('r', 'c')}
      }
    }${foldFailed}`,
  })}`,
)}
`;
}

/** The end of a round's folds. */
export function mergeDoneWgsl(w: SolverWgsl): string {
  const { threadKernel, S, A } = w;
  return /* wgsl */ `${threadKernel(
    'merge_done',
    /* wgsl */ `
  if (skip_update() || atomicLoad(&control[${S('skipMerge')}]) != 0u) { return; }
  // After merge_data: each root with children is done (its children's count set back to 0 for the
  // next round's merges). Every child of a root writes the same words.
  let count = atomicLoad(&control[${S('merged')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let r = find(atomicLoad(&control[${A('mergedList')} + i]));
    atomicStore(&control[${A('mergeSize')} + r], 0u);
  }`,
  )}
`;
}
