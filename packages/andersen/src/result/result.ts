import type { SparseBitVector } from '@gpumorph/sparse-bitvector';

/** What a solve did and what it cost. */
export interface SolveStatistics {
  /** Rounds of collapse, wave and complex phases (GPU engine: iterations of its rule kernels). */
  readonly rounds: number;
  /** Variables merged before solving (offline HCD, HVN). */
  readonly offlineMerges: number;
  /** Nodes merged because they lay on a cycle of copy edges. */
  readonly cycleMerges: number;
  /** Nodes merged by hybrid cycle detection's online pairs. */
  readonly hcdMerges: number;
  /** Copy edges that loads and stores added while solving. */
  readonly copyEdgesAdded: number;
  /** Times a node pushed new members to its successors. */
  readonly propagations: number;
  /** Milliseconds from the start of the solve to the fixed point. */
  readonly solveMs: number;
  /** Sparse-bit-vector elements (128 bytes each) holding the final points-to sets. */
  readonly pointsToElements: number;
  /**
   * `solveAndersen` with engine `auto` only: why the WebGPU engine could not solve this program on
   * its device (a pool or a round past what it can hold), so that the CPU engine ran instead.
   */
  readonly fallback?: string;
}

/**
 * Each representative's set by node id: an array, or a table that makes them on demand (the
 * WebGPU engine's, over the sets it read back).
 */
export interface NodeSets {
  at(node: number): SparseBitVector | undefined;
}

/**
 * Each node's root in the union–find `parent`, so that `representative()` is one read. A parent
 * below v has its root already (the WebGPU engine's parents only decrease, so it never walks a
 * chain); a parent above is followed to the root.
 */
function flattened(nodeCount: number, parent: Uint32Array): Uint32Array {
  const representative = new Uint32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    let r = parent[v] as number;
    if (r < v) r = representative[r] as number;
    else while (parent[r] !== r) r = parent[r] as number;
    representative[v] = r;
  }
  return representative;
}

/**
 * The answer of a points-to solve: for every node, the objects it may point to. Nodes merged with
 * others (cycles, HCD, offline passes) share their representative's set.
 *
 * @example
 * ```ts
 * const result = await solveAndersen(program);
 * result.pointsTo(p);          // Uint32Array [3, 17]
 * result.mayAlias(p, q);       // true when the sets intersect
 * result.representative(p);    // the node p was merged into (p itself when none)
 * result.pointsToEdges;        // Σ |pts(v)| over all nodes
 * ```
 */
export class AndersenResult {
  readonly nodeCount: number;
  readonly statistics: SolveStatistics;
  readonly #representative: Uint32Array;
  readonly #sets: NodeSets;
  #edges: number | undefined;

  /**
   * @internal Engines build results; users receive them. With `flat` every parent is its node's
   * root already (the WebGPU engine's readback kernel flattens the union–find) and `parent` becomes
   * the result's.
   */
  constructor(
    nodeCount: number,
    parent: Uint32Array,
    sets: NodeSets,
    statistics: SolveStatistics,
    { flat = false }: { flat?: boolean } = {},
  ) {
    this.nodeCount = nodeCount;
    this.statistics = statistics;
    this.#representative = flat ? parent : flattened(nodeCount, parent);
    this.#sets = sets;
  }

  #check(v: number): void {
    if (!Number.isInteger(v) || v < 0 || v >= this.nodeCount) {
      throw new RangeError(`node ${v} is not in 0 … ${this.nodeCount - 1}`);
    }
  }

  /** The node `v` was merged into, or `v` itself. */
  representative(v: number): number {
    this.#check(v);
    return this.#representative[v] as number;
  }

  /** The objects `v` may point to, in increasing order (a fresh array). */
  pointsTo(v: number): Uint32Array {
    this.#check(v);
    return this.#sets.at(this.#representative[v] as number)?.toArray() ?? new Uint32Array(0);
  }

  /** How many objects `v` may point to. */
  pointsToCount(v: number): number {
    this.#check(v);
    return this.#sets.at(this.#representative[v] as number)?.count() ?? 0;
  }

  /** Whether `v` may point to `object`. */
  mayPointTo(v: number, object: number): boolean {
    this.#check(v);
    return this.#sets.at(this.#representative[v] as number)?.test(object) ?? false;
  }

  /** Whether `a` and `b` may point to a common object (may-alias of the pointers `a` and `b`). */
  mayAlias(a: number, b: number): boolean {
    this.#check(a);
    this.#check(b);
    const x = this.#sets.at(this.#representative[a] as number);
    const y = this.#sets.at(this.#representative[b] as number);
    return x !== undefined && y !== undefined && x.intersects(y);
  }

  /** Σ over all nodes of |pts(v)|: the points-to edges of the solution graph. */
  get pointsToEdges(): number {
    if (this.#edges === undefined) {
      const perRepresentative = new Map<number, number>();
      let total = 0;
      for (let v = 0; v < this.nodeCount; v++) {
        const r = this.#representative[v] as number;
        let count = perRepresentative.get(r);
        if (count === undefined) {
          count = this.#sets.at(r)?.count() ?? 0;
          perRepresentative.set(r, count);
        }
        total += count;
      }
      this.#edges = total;
    }
    return this.#edges;
  }
}
