/** A directed graph as an edge list: edge `e` goes from `sources[e]` to `targets[e]`. */
export interface EdgeList {
  readonly nodeCount: number;
  readonly sources: Uint32Array;
  readonly targets: Uint32Array;
}

/** Throws a RangeError unless `graph` is a well-formed edge list (equal lengths, ids below `nodeCount`). */
export function assertEdgeList(graph: EdgeList): void {
  const { nodeCount, sources, targets } = graph;
  if (!Number.isInteger(nodeCount) || nodeCount < 0 || nodeCount > 0xffff_fffe) {
    throw new RangeError(
      `strongly connected components: node count ${nodeCount} is not an integer in [0, 2^32 - 2]`,
    );
  }
  if (sources.length !== targets.length) {
    throw new RangeError(
      `strongly connected components: ${sources.length} edge sources but ${targets.length} targets`,
    );
  }
  for (let e = 0; e < sources.length; e++) {
    if ((sources[e] as number) >= nodeCount || (targets[e] as number) >= nodeCount) {
      throw new RangeError(
        `strongly connected components: edge ${e} (${sources[e]} → ${targets[e]}) names a node ≥ ${nodeCount}`,
      );
    }
  }
}

function adjacency(
  nodeCount: number,
  from: Uint32Array,
  to: Uint32Array,
): { start: Uint32Array; next: Uint32Array } {
  const start = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < from.length; e++) {
    const slot = (from[e] as number) + 1;
    start[slot] = (start[slot] as number) + 1;
  }
  for (let v = 0; v < nodeCount; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const fill = start.slice(0, nodeCount);
  const next = new Uint32Array(from.length);
  for (let e = 0; e < from.length; e++) {
    const v = from[e] as number;
    next[fill[v] as number] = to[e] as number;
    fill[v] = (fill[v] as number) + 1;
  }
  return { start, next };
}

/**
 * CPU reference of {@link StronglyConnectedComponents}: for each node, the smallest node of its
 * strongly connected component. Kosaraju's two passes, iterative (any path length works), so it
 * shares no code or method with the GPU's coloring.
 *
 * @example
 * ```ts
 * // 0 → 1 → 2 → 1, 3 alone
 * stronglyConnectedComponentsReference({ nodeCount: 4, sources: Uint32Array.of(0, 1, 2), targets: Uint32Array.of(1, 2, 1) });
 * // Uint32Array [0, 1, 1, 3]
 * ```
 */
export function stronglyConnectedComponentsReference(graph: EdgeList): Uint32Array {
  assertEdgeList(graph);
  const n = graph.nodeCount;
  const forward = adjacency(n, graph.sources, graph.targets);
  const backward = adjacency(n, graph.targets, graph.sources);
  // Pass 1: nodes in order of finishing a depth-first search over forward edges.
  const finished = new Uint32Array(n);
  let finishedCount = 0;
  const seen = new Uint8Array(n);
  const stackNode = new Uint32Array(n);
  const stackEdge = new Uint32Array(n);
  for (let root = 0; root < n; root++) {
    if (seen[root]) continue;
    seen[root] = 1;
    let depth = 0;
    stackNode[0] = root;
    stackEdge[0] = forward.start[root] as number;
    while (depth >= 0) {
      const v = stackNode[depth] as number;
      const edge = stackEdge[depth] as number;
      if (edge < (forward.start[v + 1] as number)) {
        stackEdge[depth] = edge + 1;
        const w = forward.next[edge] as number;
        if (!seen[w]) {
          seen[w] = 1;
          depth++;
          stackNode[depth] = w;
          stackEdge[depth] = forward.start[w] as number;
        }
        continue;
      }
      finished[finishedCount++] = v;
      depth--;
    }
  }
  // Pass 2: in reverse finishing order, everything a node reaches backwards is its component.
  const label = new Uint32Array(n).fill(0xffff_ffff);
  const members: number[] = [];
  for (let k = n - 1; k >= 0; k--) {
    const root = finished[k] as number;
    if (label[root] !== 0xffff_ffff) continue;
    members.length = 0;
    label[root] = root;
    members.push(root);
    for (let head = 0; head < members.length; head++) {
      const v = members[head] as number;
      for (let e = backward.start[v] as number; e < (backward.start[v + 1] as number); e++) {
        const w = backward.next[e] as number;
        if (label[w] !== 0xffff_ffff) continue;
        label[w] = root;
        members.push(w);
      }
    }
    let smallest = root;
    for (const v of members) if (v < smallest) smallest = v;
    for (const v of members) label[v] = smallest;
  }
  return label;
}
