/**
 * Offline hybrid cycle detection (Hardekopf & Lin, PLDI'07 "The Ant and the Grasshopper") and the
 * rewrite of a program onto the representatives of offline merges.
 * @module
 */
import { ConstraintKind, type ConstraintList, type ConstraintProgram } from '../model/program';
import { type Components, compressEdges, PairList, representativesOf } from './graph';
import type { HcdPairs } from './hcd-pairs';
import { type OfflinePass, runOnCpu } from './pass';

/** Options of {@link computeOfflineHcd}. */
export interface OfflineHcdOptions {
  /**
   * What to do with the variables of a cycle that runs through ref nodes (`*x`).
   *
   * - `online` (default): exact on every program. Only cycles of plain copies merge offline; each
   *   ref node `*x` on a cycle of its own (one through no other ref node) gives online pairs
   *   `(v, x)` for the variables `v` of that cycle, so that they merge with what `x` points to
   *   only once `x` points to an object that can be dereferenced, when the cycle really closes.
   * - `merge` (Hardekopf & Lin's tool, and the shipped `_hcd.txt` tables): merge every variable of
   *   the cycle offline. Larger than the least solution wherever a pointer of the cycle never
   *   points to such an object (see README.md).
   */
  readonly refCycleVariables?: 'merge' | 'online';
  /**
   * `online` mode: most graph edges the search for each ref node's own cycle may visit (default
   * 4096). A ref node whose search stops there gets no pair: still exact, the solver's own cycle
   * detection finds that cycle later.
   */
  readonly searchLimit?: number;
}

/** What {@link computeOfflineHcd} saw and found. */
export interface OfflineHcdStatistics {
  /** Nodes of the offline graph: one per variable and one ref node per variable. */
  readonly graphNodes: number;
  /** Edges of the offline graph (copies, offset-0 loads and stores). */
  readonly graphEdges: number;
  /** Passes over the contracted graph until nothing more merged (at least 1). */
  readonly passes: number;
  /** Strongly connected components with more than one node and no ref node, summed over the passes. */
  readonly plainCycles: number;
  /** Strongly connected components holding ref nodes and at least one variable (last pass). */
  readonly refCycles: number;
  /** Variables merged into another (pairs in `offlineMerges`). */
  readonly mergedVariables: number;
  /** Online pairs (y, x). */
  readonly onlinePairs: number;
  /**
   * `online` mode: ref nodes on a cycle with other ref nodes but on none of their own, or whose
   * search stopped at `searchLimit`; they get no pair (0 in `merge` mode).
   */
  readonly refsWithoutPair: number;
  /** Milliseconds the pass took. */
  readonly elapsedMs: number;
}

/** The result of {@link computeOfflineHcd}: the HCD table and how it was found. */
export interface OfflineHcd extends HcdPairs {
  readonly statistics: OfflineHcdStatistics;
}

/**
 * Offline hybrid cycle detection from a program's raw constraints. The offline graph has a node per
 * variable `v` and a ref node `*v`; `a = b` gives the edge b → a, `a = *b` (offset 0) gives
 * `*b` → a and `*a = b` (offset 0) gives b → `*a`. Address-of and offset constraints and loads and
 * stores at a nonzero offset are left out (they do not copy a points-to set as a whole).
 *
 * A cycle through `*x` closes only once x points to an object o that can be dereferenced
 * (`objectSize[o] > 0`): then o stands where `*x` stood, and the cycle's variables and o have one
 * points-to set in the least solution. With `refCycleVariables: 'online'` (the default) the table
 * is exact on every program: cycles of plain copies merge offline (the smallest id is the
 * representative), and for each ref node `*x` the shortest cycle through `*x` and variables only
 * gives the pairs `(v, x)` for its variables `v`; both engines merge a pair's pointees only when
 * they can be dereferenced, when that cycle closes. A cycle through several ref nodes closes only
 * when all their pointers point somewhere; it gives no pair, and the solver's own cycle detection
 * merges it once it is real. With `merge` every strongly connected component merges offline and
 * each ref node gives the pair (representative, x), repeated on the contracted graph until nothing
 * merges: the shipped tables' treatment, larger than the least solution where a pointer of a
 * component never points to such an object (README.md).
 *
 * @example
 * ```ts
 * const hcd = computeOfflineHcd(program);
 * const result = await createCpuSolver(program, { hcd }).solve();
 * hcd.statistics.mergedVariables; // variables merged before solving
 * ```
 */
export function computeOfflineHcd(program: ConstraintProgram, options: OfflineHcdOptions = {}): OfflineHcd {
  return runOnCpu(offlineHcdPass(program, options));
}

/**
 * {@link computeOfflineHcd} as an {@link OfflinePass}: it yields each graph whose strongly
 * connected components it needs and takes them from whoever drives it. The table's pairs come in
 * the order of the components handed back; their set does not depend on it.
 */
export function* offlineHcdPass(
  program: ConstraintProgram,
  options: OfflineHcdOptions = {},
): OfflinePass<OfflineHcd> {
  const started = performance.now();
  const table =
    options.refCycleVariables === 'merge'
      ? yield* mergeRefCycles(program)
      : yield* pairRefCycles(program, options.searchLimit ?? 4096);
  return {
    offlineMerges: table.offlineMerges,
    online: table.online,
    statistics: { ...table.statistics, elapsedMs: performance.now() - started },
  };
}

type Table = HcdPairs & { readonly statistics: Omit<OfflineHcdStatistics, 'elapsedMs'> };

/** The offline graph's edges over `representative` (see {@link computeOfflineHcd}); `refs: false` keeps copies only. */
function offlineEdges(program: ConstraintProgram, representative: Uint32Array, refs: boolean): PairList {
  const n = program.nodeCount;
  const c = program.constraints;
  const edges = new PairList();
  for (let i = 0; i < c.length; i++) {
    const kind = c.kind[i] as number;
    const dst = representative[c.dst[i] as number] as number;
    const src = representative[c.src[i] as number] as number;
    if (kind === ConstraintKind.Copy) {
      if (src !== dst) edges.push(src, dst);
    } else if (refs && c.offset[i] === 0) {
      if (kind === ConstraintKind.Load) edges.push(n + src, dst);
      else if (kind === ConstraintKind.Store) edges.push(src, n + dst);
    }
  }
  return edges;
}

/** `refCycleVariables: 'merge'`: every component merges, repeated on the contracted graph. */
function* mergeRefCycles(program: ConstraintProgram): OfflinePass<Table> {
  const n = program.nodeCount;
  const representative = new Uint32Array(n);
  for (let v = 0; v < n; v++) representative[v] = v;
  const offlineMerges = new PairList();
  let online = new PairList();
  let plainCycles = 0;
  let refCycles = 0;
  let graphEdges = 0;
  let passes = 0;
  // Merging variables merges their ref nodes too (x ≡ x' gives *x ≡ *x'), which can close new
  // cycles: repeat on the contracted graph until a pass merges nothing. Each pass but the last
  // merges something, so there are at most as many passes as merges plus one.
  for (;;) {
    passes++;
    const edges = offlineEdges(program, representative, true);
    if (passes === 1) graphEdges = edges.count;
    const { count, memberStart, members }: Components = yield compressEdges(2 * n, edges.data, edges.count);
    const mergesBefore = offlineMerges.count;
    online = new PairList();
    refCycles = 0;
    for (let comp = 0; comp < count; comp++) {
      const first = memberStart[comp] as number;
      const end = memberStart[comp + 1] as number;
      if (end - first < 2) continue;
      // Members are increasing, so variables (ids < n) come first and the first is the smallest.
      const root = members[first] as number;
      if (root >= n) continue; // only ref nodes: impossible (no ref → ref edge), kept for safety
      let firstRef = first;
      while (firstRef < end && (members[firstRef] as number) < n) firstRef++;
      if (firstRef < end) refCycles++;
      else plainCycles++;
      for (let k = first + 1; k < firstRef; k++) offlineMerges.push(members[k] as number, root);
      for (let k = firstRef; k < end; k++) online.push(root, (members[k] as number) - n);
    }
    if (offlineMerges.count === mergesBefore) break;
    for (let i = mergesBefore; i < offlineMerges.count; i++) {
      representative[offlineMerges.data[2 * i] as number] = offlineMerges.data[2 * i + 1] as number;
    }
    // Members of earlier classes still name the old representative: follow it one step (it is
    // either current or was merged in this pass, into a current one).
    for (let v = 0; v < n; v++) {
      representative[v] = representative[representative[v] as number] as number;
    }
  }
  return {
    offlineMerges: offlineMerges.toArray(),
    online: online.toArray(),
    statistics: {
      graphNodes: 2 * n,
      graphEdges,
      passes,
      plainCycles,
      refCycles,
      mergedVariables: offlineMerges.count,
      onlinePairs: online.count,
      refsWithoutPair: 0,
    },
  };
}

/**
 * `refCycleVariables: 'online'`: cycles of copies merge (they are cycles of the solution's copy
 * graph whatever the pointers do); each ref node on a cycle of its own gives pairs for that
 * cycle's variables. The shortest such cycle is found by a breadth-first search from `*x` over
 * variables of its component, stopped after `searchLimit` edges.
 */
function* pairRefCycles(program: ConstraintProgram, searchLimit: number): OfflinePass<Table> {
  const n = program.nodeCount;
  const identity = new Uint32Array(n);
  for (let v = 0; v < n; v++) identity[v] = v;
  const copies = offlineEdges(program, identity, false);
  const plain: Components = yield compressEdges(n, copies.data, copies.count);
  const offlineMerges = new PairList();
  const representative = identity.slice();
  let plainCycles = 0;
  for (let comp = 0; comp < plain.count; comp++) {
    const first = plain.memberStart[comp] as number;
    const end = plain.memberStart[comp + 1] as number;
    if (end - first < 2) continue;
    plainCycles++;
    const root = plain.members[first] as number;
    for (let k = first + 1; k < end; k++) {
      offlineMerges.push(plain.members[k] as number, root);
      representative[plain.members[k] as number] = root;
    }
  }

  const edges = offlineEdges(program, representative, true);
  const graph = compressEdges(2 * n, edges.data, edges.count);
  const { component, count, memberStart, members }: Components = yield graph;
  const online = new PairList();
  const seen = new Uint32Array(2 * n);
  const cameFrom = new Uint32Array(2 * n);
  const queue = new Uint32Array(n + 1);
  let stamp = 0;
  let refCycles = 0;
  let refsWithoutPair = 0;
  for (let comp = 0; comp < count; comp++) {
    const first = memberStart[comp] as number;
    const end = memberStart[comp + 1] as number;
    if (end - first < 2 || (members[end - 1] as number) < n) continue;
    refCycles++;
    for (let k = first; k < end; k++) {
      const ref = members[k] as number;
      if (ref < n) continue;
      // Breadth-first from *x through variables of its component; the first variable with an
      // edge back to *x closes the shortest cycle through *x and no other ref node.
      stamp++;
      let head = 0;
      let tail = 0;
      let visited = 0;
      let closing = -1;
      seen[ref] = stamp;
      queue[tail++] = ref;
      while (head < tail && closing < 0 && visited < searchLimit) {
        const u = queue[head++] as number;
        for (let e = graph.start[u] as number; e < (graph.start[u + 1] as number); e++) {
          visited++;
          const w = graph.targets[e] as number;
          if (w === ref) {
            closing = u;
            break;
          }
          if (w >= n || seen[w] === stamp || component[w] !== comp) continue;
          seen[w] = stamp;
          cameFrom[w] = u;
          queue[tail++] = w;
        }
      }
      if (closing < 0) {
        refsWithoutPair++;
        continue;
      }
      for (let v = closing; v !== ref; v = cameFrom[v] as number) online.push(v, ref - n);
    }
  }
  return {
    offlineMerges: offlineMerges.toArray(),
    online: online.toArray(),
    statistics: {
      graphNodes: 2 * n,
      graphEdges: edges.count,
      passes: 1,
      plainCycles,
      refCycles,
      mergedVariables: offlineMerges.count,
      onlinePairs: online.count,
      refsWithoutPair,
    },
  };
}

/**
 * Rewrites a program onto the representatives of offline merges (pairs `y, x`: y joins x's class),
 * as Hardekopf & Lin's `_constraints_after_hcd` files are: every pointer operand (both ends of a
 * copy, load, store and offset constraint, the destination of an address-of) names its
 * representative; the object of `a = &o` keeps its own id, because it names a memory object,
 * not a value. Copies that became `x = x` and constraints equal to an earlier one are dropped; the
 * rest keep their order. Nodes, object sizes and names are unchanged. Solve the result with the
 * same merges (`hcd.offlineMerges`) so that merged variables report their representative's set.
 *
 * @example
 * ```ts
 * const hcd = computeOfflineHcd(program);
 * const smaller = applyOfflineMerges(program, hcd.offlineMerges);
 * const result = await createCpuSolver(smaller, { hcd }).solve();
 * ```
 */
export function applyOfflineMerges(program: ConstraintProgram, merges: Uint32Array): ConstraintProgram {
  const representative = representativesOf(program.nodeCount, merges);
  const c = program.constraints;
  const m = c.length;
  const kind = new Uint8Array(m);
  const dst = new Uint32Array(m);
  const src = new Uint32Array(m);
  const offset = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const k = c.kind[i] as number;
    kind[i] = k;
    dst[i] = representative[c.dst[i] as number] as number;
    const s = c.src[i] as number;
    src[i] = k === ConstraintKind.AddressOf ? s : (representative[s] as number);
    offset[i] = c.offset[i] as number;
  }
  // Duplicates: sort the indices by (kind, dst, src, offset) and keep the first of each run.
  const order = new Uint32Array(m);
  for (let i = 0; i < m; i++) order[i] = i;
  order.sort(
    (a, b) =>
      (kind[a] as number) - (kind[b] as number) ||
      (dst[a] as number) - (dst[b] as number) ||
      (src[a] as number) - (src[b] as number) ||
      (offset[a] as number) - (offset[b] as number) ||
      a - b,
  );
  const keep = new Uint8Array(m);
  for (let r = 0; r < m; r++) {
    const i = order[r] as number;
    if (kind[i] === ConstraintKind.Copy && dst[i] === src[i]) continue;
    if (r > 0) {
      const p = order[r - 1] as number;
      if (kind[p] === kind[i] && dst[p] === dst[i] && src[p] === src[i] && offset[p] === offset[i]) continue;
    }
    keep[i] = 1;
  }
  let kept = 0;
  for (let i = 0; i < m; i++) if (keep[i]) kept++;
  const out: { -readonly [K in keyof ConstraintList]: ConstraintList[K] } = {
    length: kept,
    kind: new Uint8Array(kept),
    dst: new Uint32Array(kept),
    src: new Uint32Array(kept),
    offset: new Uint32Array(kept),
  };
  let j = 0;
  for (let i = 0; i < m; i++) {
    if (!keep[i]) continue;
    out.kind[j] = kind[i] as number;
    out.dst[j] = dst[i] as number;
    out.src[j] = src[i] as number;
    out.offset[j] = offset[i] as number;
    j++;
  }
  return { ...program, constraints: out };
}
