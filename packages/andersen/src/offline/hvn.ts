/**
 * Offline variable substitution by hash-based value numbering (Hardekopf & Lin, SAS'07
 * "Exploiting Pointer and Location Equivalence to Optimize Pointer Analysis").
 * @module
 */
import { ConstraintKind, type ConstraintProgram } from '../model/program';
import { type Components, compressEdges, PairList } from './graph';
import { type OfflinePass, runOnCpu } from './pass';

/** Options of {@link computeHvn}. */
export interface HvnOptions {
  /**
   * Also merge the variables that can never point anywhere (label 0) into one; default false
   * (they cost the solver nothing, and their number is reported as `nonPointers` either way).
   */
  readonly mergeNonPointers?: boolean;
}

/** What {@link computeHvn} saw and found. */
export interface HvnStatistics {
  /** Nodes whose value the offline graph cannot see (memory objects and their fields): fresh labels. */
  readonly indirectNodes: number;
  /** Nodes merged because they lie on a cycle of copies. */
  readonly copyCycleMerges: number;
  /** Distinct non-zero labels given out. */
  readonly labels: number;
  /** Variables merged into another (pairs in `merges`). */
  readonly mergedVariables: number;
  /** Milliseconds the pass took. */
  readonly elapsedMs: number;
}

/** The result of {@link computeHvn}. */
export interface HvnResult {
  /** Pairs `y, x` (flat): y is pointer-equivalent to x; pass them as `hcd.offlineMerges`. */
  readonly merges: Uint32Array;
  /** Nodes that point to nothing in any solution (label 0). */
  readonly nonPointers: number;
  /** The pointer-equivalence label of each node: equal non-zero labels mean equal points-to sets; 0 = points nowhere. */
  readonly labels: Uint32Array;
  readonly statistics: HvnStatistics;
}

/** Indirect nodes: every object and every field an offset can reach from one. */
function findIndirectNodes(program: ConstraintProgram): { indirect: Uint8Array; indirectNodes: number } {
  const n = program.nodeCount;
  const indirect = new Uint8Array(n);
  let coveredUntil = 0;
  let indirectNodes = 0;
  for (let v = 0; v < n; v++) {
    const size = program.objectSize[v] as number;
    if (size > 0 && v + size > coveredUntil) coveredUntil = v + size;
    if (size > 0 || v < coveredUntil) {
      indirect[v] = 1;
      indirectNodes++;
    }
  }
  return { indirect, indirectNodes };
}

/**
 * The (constraint, destination) pairs of `incoming` grouped by destination, as CSR: node v's
 * constraints are `inConstraint[inStart[v] .. inStart[v + 1])`, in the order they were pushed.
 */
function groupByDestination(
  n: number,
  incoming: PairList,
): { inStart: Uint32Array; inConstraint: Uint32Array } {
  const inStart = new Uint32Array(n + 1);
  for (let e = 0; e < incoming.count; e++) {
    const slot = (incoming.data[2 * e + 1] as number) + 1;
    inStart[slot] = (inStart[slot] as number) + 1;
  }
  for (let v = 0; v < n; v++) inStart[v + 1] = (inStart[v + 1] as number) + (inStart[v] as number);
  const inFill = inStart.slice(0, n);
  const inConstraint = new Uint32Array(incoming.count);
  for (let e = 0; e < incoming.count; e++) {
    const destination = incoming.data[2 * e + 1] as number;
    const slot = inFill[destination] as number;
    inFill[destination] = slot + 1;
    inConstraint[slot] = incoming.data[2 * e] as number;
  }
  return { inStart, inConstraint };
}

/**
 * Finds pointer-equivalent variables before solving by hash-based value numbering. Each node gets
 * a label standing for its final points-to set; nodes with the same non-zero label merge.
 *
 * - Memory objects and their fields are *indirect*: stores and offset arithmetic reach them in ways
 *   the offline graph does not see, so each (with the copy cycle it lies on) gets a fresh label.
 * - Every other node's set is the union of what flows into it: the labels of its copy
 *   predecessors, one label per object whose address it takes (`a = &o`), one label per
 *   (label of b, k) for `a = *(b + k)` and another per (label of b, k) for `a = b + k` (equal
 *   pointers give equal loads and equal field addresses). The sorted set of these is hashed: a
 *   single member is the node's label, an empty set is label 0 (never points anywhere), equal sets
 *   share a label.
 * - Copy cycles are collapsed first. A load or offset whose result feeds back into its own
 *   pointer (a cycle through the dependency) gives fresh labels to the nodes on that cycle.
 *
 * Every merge is exact: solving with the merges gives every variable the same points-to set.
 *
 * @example
 * ```ts
 * const hvn = computeHvn(program);
 * const result = await createCpuSolver(program, { hcd: { offlineMerges: hvn.merges, online: new Uint32Array() } }).solve();
 * hvn.statistics.mergedVariables; // how many variables the solver no longer sees
 * ```
 */
export function computeHvn(program: ConstraintProgram, options: HvnOptions = {}): HvnResult {
  return runOnCpu(hvnPass(program, options));
}

/**
 * {@link computeHvn} as an {@link OfflinePass}: it yields the copy graph, then the dependency
 * graph, and takes each one's strongly connected components from whoever drives it (Tarjan on
 * the CPU, the GPU's coloring in `offline/gpu/`).
 */
export function* hvnPass(program: ConstraintProgram, options: HvnOptions = {}): OfflinePass<HvnResult> {
  const problem = yield* hvnLabellingProblem(program);
  return finishHvn(problem, labelOnCpu(problem), options);
}

/** HVN's graph work, done: what giving labels needs. */
export interface HvnLabellingProblem {
  readonly program: ConstraintProgram;
  /** When the pass started (`performance.now()`). */
  readonly started: number;
  readonly indirectNodes: number;
  /** The copy cycle of each node, named by its smallest member (the cycle's root). */
  readonly cycleOf: Uint32Array;
  /** Components of the dependency graph over roots, numbered sinks first (a topological order walked downwards). */
  readonly order: Components;
  /** Constraints into each root (all but stores): `inConstraint[inStart[v] … inStart[v + 1])`. */
  readonly inStart: Uint32Array;
  readonly inConstraint: Uint32Array;
  /**
   * Roots whose value the offline graph cannot see, each given a label of its own: indirect nodes,
   * roots on a dependency cycle, and roots that load or offset from their own copy cycle.
   */
  readonly fresh: Uint8Array;
}

/** Labels given to roots (others read their root's), and how many distinct non-zero labels were given out. */
export interface HvnLabels {
  readonly label: Uint32Array;
  readonly labelCount: number;
}

/** Steps 1 and 2 of HVN: copy cycles, then the dependency graph and which roots take fresh labels. */
export function* hvnLabellingProblem(program: ConstraintProgram): OfflinePass<HvnLabellingProblem> {
  const started = performance.now();
  const n = program.nodeCount;
  const c = program.constraints;

  const { indirect, indirectNodes } = findIndirectNodes(program);

  // 1. Copy cycles: members have equal sets whatever else happens.
  const copies = new PairList();
  for (let i = 0; i < c.length; i++) {
    if (c.kind[i] === ConstraintKind.Copy && c.src[i] !== c.dst[i])
      copies.push(c.src[i] as number, c.dst[i] as number);
  }
  const copyComponents: Components = yield compressEdges(n, copies.data, copies.count);
  // The copy cycle of v is named by its smallest member.
  const cycleOf = new Uint32Array(n);
  for (let comp = 0; comp < copyComponents.count; comp++) {
    const first = copyComponents.memberStart[comp] as number;
    const end = copyComponents.memberStart[comp + 1] as number;
    const root = copyComponents.members[first] as number;
    for (let k = first; k < end; k++) {
      const v = copyComponents.members[k] as number;
      cycleOf[v] = root;
      if (indirect[v]) indirect[root] = 1;
    }
  }

  // 2. Dependency graph on cycle roots: copy, load and offset sources before their destinations.
  const dependencies = new PairList();
  const incoming = new PairList(); // (constraint index, destination root), grouped below
  const fresh = indirect; // indirect roots, joined below by dependency cycles
  for (let i = 0; i < c.length; i++) {
    const kind = c.kind[i] as number;
    if (kind === ConstraintKind.Store) continue; // writes only into objects, which are indirect
    const dst = cycleOf[c.dst[i] as number] as number;
    incoming.push(i, dst);
    if (kind === ConstraintKind.AddressOf) continue;
    const src = cycleOf[c.src[i] as number] as number;
    if (src !== dst || kind !== ConstraintKind.Copy) dependencies.push(src, dst);
    // A load or offset from its own copy cycle: no stable value.
    if (src === dst && kind !== ConstraintKind.Copy) fresh[dst] = 1;
  }
  const order: Components = yield compressEdges(n, dependencies.data, dependencies.count);
  for (let comp = 0; comp < order.count; comp++) {
    const first = order.memberStart[comp] as number;
    const end = order.memberStart[comp + 1] as number;
    if (end - first > 1) for (let k = first; k < end; k++) fresh[order.members[k] as number] = 1;
  }
  const { inStart, inConstraint } = groupByDestination(n, incoming);
  return { program, started, indirectNodes, cycleOf, order, inStart, inConstraint, fresh };
}

/** Step 3 on the CPU: labels in topological order, equal predecessor-label sets sharing a label through a hash map of keys. */
function labelOnCpu(problem: HvnLabellingProblem): HvnLabels {
  const { program, cycleOf, order, inStart, inConstraint, fresh } = problem;
  const c = program.constraints;
  const label = new Uint32Array(program.nodeCount);
  let nextLabel = 1;
  const labelOfKey = new Map<string, number>();
  const keyed = (key: string): number => {
    let found = labelOfKey.get(key);
    if (found === undefined) {
      found = nextLabel++;
      labelOfKey.set(key, found);
    }
    return found;
  };
  const elements: number[] = [];
  // Tarjan numbers components sinks first: walk them downwards.
  for (let comp = order.count - 1; comp >= 0; comp--) {
    const first = order.memberStart[comp] as number;
    const end = order.memberStart[comp + 1] as number;
    for (let k = first; k < end; k++) {
      const v = order.members[k] as number;
      if (cycleOf[v] !== v) continue; // not a root: labelled through its root
      if (fresh[v]) {
        label[v] = nextLabel++;
        continue;
      }
      elements.length = 0;
      for (let e = inStart[v] as number; e < (inStart[v + 1] as number); e++) {
        const i = inConstraint[e] as number;
        const kind = c.kind[i] as number;
        if (kind === ConstraintKind.AddressOf) {
          elements.push(keyed(`&${c.src[i]}`));
          continue;
        }
        const sourceRoot = cycleOf[c.src[i] as number] as number;
        if (kind === ConstraintKind.Copy && sourceRoot === v) continue; // inside the copy cycle
        const source = label[sourceRoot] as number;
        if (source === 0) continue; // from a non-pointer nothing flows
        if (kind === ConstraintKind.Copy) elements.push(source);
        else if (kind === ConstraintKind.Load) elements.push(keyed(`*${source}+${c.offset[i]}`));
        else elements.push(keyed(`${source}+${c.offset[i]}`));
      }
      elements.sort((a, b) => a - b);
      let distinct = 0;
      for (let j = 0; j < elements.length; j++) {
        if (j === 0 || elements[j] !== elements[j - 1]) elements[distinct++] = elements[j] as number;
      }
      elements.length = distinct;
      label[v] = distinct === 0 ? 0 : distinct === 1 ? (elements[0] as number) : keyed(elements.join(','));
    }
  }
  return { label, labelCount: nextLabel - 1 };
}

/** Step 4: every node takes its cycle root's label; equal non-zero labels (and 0 with `mergeNonPointers`) merge into the smallest node. */
export function finishHvn(
  problem: HvnLabellingProblem,
  labelling: HvnLabels,
  options: HvnOptions,
): HvnResult {
  const { program, cycleOf } = problem;
  const n = program.nodeCount;
  const labels = new Uint32Array(n);
  const firstWithLabel = new Map<number, number>();
  const merges = new PairList();
  let nonPointers = 0;
  let copyCycleMerges = 0;
  for (let v = 0; v < n; v++) {
    const root = cycleOf[v] as number;
    const l = labelling.label[root] as number;
    labels[v] = l;
    if (root !== v) copyCycleMerges++;
    if (l === 0) {
      nonPointers++;
      if (!options.mergeNonPointers) continue;
    }
    const into = firstWithLabel.get(l);
    if (into === undefined) firstWithLabel.set(l, v);
    else merges.push(v, into);
  }
  return {
    merges: merges.toArray(),
    nonPointers,
    labels,
    statistics: {
      indirectNodes: problem.indirectNodes,
      copyCycleMerges,
      labels: labelling.labelCount,
      mergedVariables: merges.count,
      elapsedMs: performance.now() - problem.started,
    },
  };
}
