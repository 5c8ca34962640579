/**
 * The small graph kit the offline passes share: a compressed (CSR) adjacency built from flat edge
 * pairs, an iterative Tarjan (real constraint graphs have paths far deeper than the JS stack) and
 * a union–find over merge pairs.
 * @module
 */

import { findRoot } from '../model/union-find';

/** A directed graph in compressed sparse row form: the successors of `v` are `targets[start[v] … start[v + 1])`. */
export interface CompressedGraph {
  readonly nodeCount: number;
  readonly start: Uint32Array;
  readonly targets: Uint32Array;
}

/**
 * Builds a {@link CompressedGraph} from `edgeCount` pairs `from, to` stored flat in `edges`.
 *
 * @example
 * ```ts
 * const graph = compressEdges(3, Uint32Array.of(0, 1, 1, 2), 2);
 * graph.targets.subarray(graph.start[1], graph.start[2]); // Uint32Array [2]
 * ```
 */
export function compressEdges(nodeCount: number, edges: Uint32Array, edgeCount: number): CompressedGraph {
  const start = new Uint32Array(nodeCount + 1);
  for (let e = 0; e < edgeCount; e++) {
    const slot = (edges[2 * e] as number) + 1;
    start[slot] = (start[slot] as number) + 1;
  }
  for (let v = 0; v < nodeCount; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const fill = start.slice(0, nodeCount);
  const targets = new Uint32Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    const from = edges[2 * e] as number;
    const slot = fill[from] as number;
    fill[from] = slot + 1;
    targets[slot] = edges[2 * e + 1] as number;
  }
  return { nodeCount, start, targets };
}

/** A growable list of u32 pairs (edges, merges). */
export class PairList {
  data = new Uint32Array(64);
  /** Number of pairs. */
  count = 0;

  push(first: number, second: number): void {
    if (2 * this.count + 2 > this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[2 * this.count] = first;
    this.data[2 * this.count + 1] = second;
    this.count++;
  }

  /** The pairs as a tight flat array. */
  toArray(): Uint32Array {
    return this.data.slice(0, 2 * this.count);
  }
}

/** Strongly connected components: `component[v]` numbers them in the order Tarjan closes them. */
export interface Components {
  /**
   * Component of each node. Tarjan closes a component only after every component it reaches, so
   * increasing numbers go from sinks towards sources: walk them downwards for a topological order.
   */
  readonly component: Uint32Array;
  readonly count: number;
  /** Nodes grouped by component: members of component `c` are `members[memberStart[c] … memberStart[c + 1])`, increasing. */
  readonly memberStart: Uint32Array;
  readonly members: Uint32Array;
}

/**
 * Tarjan's strongly connected components, iterative (no recursion, so any path length works).
 *
 * @example
 * ```ts
 * const { component, count } = stronglyConnectedComponents(compressEdges(3, Uint32Array.of(0, 1, 1, 0), 2));
 * count; // 2: {0, 1} and {2}
 * component[0] === component[1]; // true
 * ```
 */
export function stronglyConnectedComponents(graph: CompressedGraph): Components {
  const { nodeCount: n, start, targets } = graph;
  const UNVISITED = 0xffff_ffff;
  const index = new Uint32Array(n).fill(UNVISITED);
  const lowLink = new Uint32Array(n);
  const component = new Uint32Array(n).fill(UNVISITED);
  const stack = new Uint32Array(n);
  let stackTop = 0;
  // The depth-first path: node and the position in its successor list.
  const pathNode = new Uint32Array(n);
  const pathEdge = new Uint32Array(n);
  let nextIndex = 0;
  let count = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== UNVISITED) continue;
    let depth = 0;
    pathNode[0] = root;
    pathEdge[0] = start[root] as number;
    index[root] = lowLink[root] = nextIndex++;
    stack[stackTop++] = root;
    while (depth >= 0) {
      const v = pathNode[depth] as number;
      const edge = pathEdge[depth] as number;
      if (edge < (start[v + 1] as number)) {
        pathEdge[depth] = edge + 1;
        const w = targets[edge] as number;
        if (index[w] === UNVISITED) {
          index[w] = lowLink[w] = nextIndex++;
          stack[stackTop++] = w;
          depth++;
          pathNode[depth] = w;
          pathEdge[depth] = start[w] as number;
        } else if (component[w] === UNVISITED && (index[w] as number) < (lowLink[v] as number)) {
          // w is still on the stack: part of the component being built.
          lowLink[v] = index[w] as number;
        }
        continue;
      }
      if (lowLink[v] === index[v]) {
        let w: number;
        do {
          w = stack[--stackTop] as number;
          component[w] = count;
        } while (w !== v);
        count++;
      }
      depth--;
      if (depth >= 0) {
        const parent = pathNode[depth] as number;
        if ((lowLink[v] as number) < (lowLink[parent] as number)) lowLink[parent] = lowLink[v] as number;
      }
    }
  }
  return { component, count, ...groupMembers(component, count) };
}

/**
 * The representative of every node after merging the pairs `y, x` (flat) in order, each pair
 * meaning "y joins x's class". A class's representative is the `x` of its last merge into it, as a
 * solver applying the pairs in order would leave it (up to the solver's own choice of root).
 *
 * @example
 * ```ts
 * representativesOf(4, Uint32Array.of(3, 1, 1, 0)); // Uint32Array [0, 0, 2, 0]
 * ```
 */
export function representativesOf(nodeCount: number, merges: Uint32Array): Uint32Array {
  const parent = new Uint32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) parent[v] = v;
  for (let i = 0; i + 1 < merges.length; i += 2) {
    const y = findRoot(parent, merges[i] as number);
    const x = findRoot(parent, merges[i + 1] as number);
    if (y !== x) parent[y] = x;
  }
  for (let v = 0; v < nodeCount; v++) parent[v] = findRoot(parent, v);
  return parent;
}

/**
 * Nodes grouped by component, increasing within each: component `c`'s members are
 * `members[memberStart[c] .. memberStart[c + 1])`.
 *
 * @example
 * ```ts
 * groupMembers(Uint32Array.of(1, 0, 1), 2); // memberStart [0, 1, 3], members [1, 0, 2]
 * ```
 */
export function groupMembers(
  component: Uint32Array,
  count: number,
): { memberStart: Uint32Array; members: Uint32Array } {
  const n = component.length;
  const memberStart = new Uint32Array(count + 1);
  for (let v = 0; v < n; v++) {
    const slot = (component[v] as number) + 1;
    memberStart[slot] = (memberStart[slot] as number) + 1;
  }
  for (let c = 0; c < count; c++)
    memberStart[c + 1] = (memberStart[c + 1] as number) + (memberStart[c] as number);
  const fill = memberStart.slice(0, count);
  const members = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    const c = component[v] as number;
    members[fill[c] as number] = v;
    fill[c] = (fill[c] as number) + 1;
  }
  return { memberStart, members };
}
