/**
 * Offline hybrid cycle detection (Hardekopf & Lin, PLDI'07 "The Ant and the Grasshopper") and the
 * rewrite of a program onto the representatives of offline merges.
 * @module
 */
import { ConstraintKind, type ConstraintList, type ConstraintProgram } from '../model/program';
import { compressEdges, PairList, representativesOf, stronglyConnectedComponents } from './graph';
import type { HcdPairs } from './hcd-pairs';

/** Options of {@link computeOfflineHcd}. */
export interface OfflineHcdOptions {
  /**
   * What to do with the variables of a cycle that runs through ref nodes (`*x`). `merge` (default,
   * as Hardekopf & Lin's tool does, see README.md): merge them offline with the cycle's
   * representative. `online`: leave them apart and rely on the online pairs, after which the
   * solver's own cycle detection joins them; exact even where a dereferenced pointer stays empty.
   */
  readonly refCycleVariables?: 'merge' | 'online';
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
 * stores at a nonzero offset are left out (they do not copy a points-to set as a whole). In each
 * strongly connected component the smallest variable id is the representative: the other
 * variables merge into it (`offlineMerges`), and each ref node `*x` of the component gives the
 * online pair (representative, x): whatever x comes to point to lies on the cycle too.
 *
 * The result is exact when every variable of the class of each online pair's pointer x ends up
 * pointing somewhere (true of real programs; see README.md for the corner case where it is not).
 * The pairs name x by its class's representative, and with `merge` the pointer dereferenced on the
 * cycle may be another member of that class, so x itself pointing somewhere is not enough.
 *
 * @example
 * ```ts
 * const hcd = computeOfflineHcd(program);
 * const result = await createCpuSolver(program, { hcd }).solve();
 * hcd.statistics.mergedVariables; // variables merged before solving
 * ```
 */
export function computeOfflineHcd(program: ConstraintProgram, options: OfflineHcdOptions = {}): OfflineHcd {
  const started = performance.now();
  const n = program.nodeCount;
  const c = program.constraints;
  const mergeRefCycles = (options.refCycleVariables ?? 'merge') === 'merge';
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
    const edges = new PairList();
    for (let i = 0; i < c.length; i++) {
      const kind = c.kind[i] as number;
      const dst = representative[c.dst[i] as number] as number;
      const src = representative[c.src[i] as number] as number;
      if (kind === ConstraintKind.Copy) {
        if (src !== dst) edges.push(src, dst);
      } else if (kind === ConstraintKind.Load && c.offset[i] === 0) edges.push(n + src, dst);
      else if (kind === ConstraintKind.Store && c.offset[i] === 0) edges.push(src, n + dst);
    }
    if (passes === 1) graphEdges = edges.count;
    const { count, memberStart, members } = stronglyConnectedComponents(
      compressEdges(2 * n, edges.data, edges.count),
    );
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
      const hasRefs = firstRef < end;
      if (hasRefs) refCycles++;
      else plainCycles++;
      if (!hasRefs || mergeRefCycles) {
        for (let k = first + 1; k < firstRef; k++) offlineMerges.push(members[k] as number, root);
      }
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
      elapsedMs: performance.now() - started,
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
