import { ConstraintKind, type ConstraintProgram } from '../model/program';
import { findRoot } from '../model/union-find';
import type { HcdPairs } from '../offline/hcd-pairs';
import { type HostArrays, takeHostArrays } from './host-arrays';
import { PAIR_POOL, RULE_KIND } from './layout';

const NONE = 0xffff_ffff;

/** What the host hands the GPU solver: the program on representatives, laid out for the kernels. */
export interface PreparedProgram {
  readonly nodeCount: number;
  /** Per node, its class's representative (the smallest id), after the offline merges. */
  readonly parent: Uint32Array;
  /** Variables merged before solving. */
  readonly offlineMerges: number;
  /** Per node `(objectSize, firstRule, endRule, unused)`: 4 words each (a `vec4<u32>` on the GPU). */
  readonly nodes: Uint32Array;
  /** Rules `(kind, other, offset, owner)` grouped by owning node, then the HCD online pairs `(y, x, 0, 0)`. */
  readonly rules: Uint32Array;
  readonly ruleCount: number;
  readonly hcdCount: number;
  /**
   * The initial pending sets as worklist pairs, in constraint order (unsorted, repeats kept): the
   * GPU sorts them and merges each key's run like any round's worklist.
   */
  readonly initialPairs: InitialPairs;
}

/**
 * The initial sets as pairs `(key, source)`: `key = 2·r + PAIR_POOL.points` puts object `source`
 * in representative r's pending points-to set (`x = &o`), `key = 2·r + PAIR_POOL.edges` puts
 * representative `source` in r's pending copy⁻¹ set (`x = y` between two classes).
 */
export interface InitialPairs {
  readonly keys: Uint32Array;
  readonly sources: Uint32Array;
  /** Pairs in `keys` and `sources` (their first `count` entries). */
  readonly count: number;
  /** Of `count`, the pairs into points-to sets (the rest go into copy⁻¹ sets). */
  readonly points: number;
}

/**
 * Applies the offline merges on the host (each class's representative is its smallest id, as the
 * GPU's lock-free union–find keeps it), builds each node's list of loads, stores and offsets and
 * the pairs of the initial sets: `x = &o` puts o in x's pending set, `x = y` puts y in x's pending
 * copy⁻¹ set, so the first update publishes both. The GPU builds the sets from the pairs: packing them here took about 25 ms of
 * linux's setup on the dev machine, and uploading the packed elements about 20 MB more than the
 * pairs.
 *
 * The arrays come from `arrays` (kept from an earlier solve, see {@link HostArrays}; new ones when
 * not given): they are valid until the caller releases it.
 *
 * @example
 * ```ts
 * const prepared = prepareProgram(program, hcd);
 * prepared.nodes.length === 4 * program.nodeCount; // true
 * ```
 */
export function prepareProgram(
  program: ConstraintProgram,
  hcd: HcdPairs | undefined,
  arrays: HostArrays = takeHostArrays({}, { keep: false }),
): PreparedProgram {
  // Each pass is a small function over typed arrays held in locals: a program is usually prepared
  // once per process (the CLI, a compiler pass), so these loops mostly run before V8 has optimized
  // them, where every property load and closure call of a loop body costs (on the development
  // machine gcc's first preparation took 15–35 ms with the passes inline in one function, and
  // 4–7 ms so).
  const n = program.nodeCount;
  const parent = arrays.uint32('parent', n);
  const offlineMerges = mergeOffline(parent, hcd?.offlineMerges);
  // Every word of the node table is written: the object size and an unused word here, the rule
  // range below.
  const nodes = arrays.uint32('nodes', 4 * n);
  flattenParents(parent, nodes, program.objectSize);

  const c = program.constraints;
  const pairKeys = arrays.uint32('pairKeys', c.length);
  const pairSources = arrays.uint32('pairSources', c.length);
  const ruleCounts = arrays.uint32('ruleCounts', n, 0);
  const counted = initialPairsAndRuleCounts(
    c.kind,
    c.dst,
    c.src,
    c.length,
    parent,
    pairKeys,
    pairSources,
    ruleCounts,
  );
  const fill = arrays.uint32('ruleFill', n);
  ruleRanges(ruleCounts, nodes, fill);
  const online = hcd?.online ?? new Uint32Array(0);
  const hcdCount = Math.floor(online.length / 2);
  const ruleCount = counted.rules;
  const rules = arrays.uint32('rules', 4 * Math.max(1, ruleCount + hcdCount), 0);
  fillRules(c.kind, c.dst, c.src, c.offset, c.length, fill, rules);
  for (let i = 0; i < hcdCount; i++) {
    rules[4 * (ruleCount + i)] = online[2 * i] as number;
    rules[4 * (ruleCount + i) + 1] = online[2 * i + 1] as number;
  }
  return {
    nodeCount: n,
    parent,
    offlineMerges,
    nodes,
    rules,
    ruleCount,
    hcdCount,
    initialPairs: {
      keys: pairKeys,
      sources: pairSources,
      count: counted.pairs,
      points: counted.points,
    },
  };
}

/**
 * Unites the offline merges' pairs in `parent` (set here to the identity first), the larger root
 * under the smaller; returns how many merges joined two classes.
 */
function mergeOffline(parent: Uint32Array, merges: Uint32Array | undefined): number {
  const n = parent.length;
  for (let v = 0; v < n; v++) parent[v] = v;
  if (merges === undefined) return 0;
  let joined = 0;
  for (let i = 0; i + 1 < merges.length; i += 2) {
    const a = findRoot(parent, merges[i] as number);
    const b = findRoot(parent, merges[i + 1] as number);
    if (a === b) continue;
    if (a < b) parent[b] = a;
    else parent[a] = b;
    joined++;
  }
  return joined;
}

/**
 * Points every node straight at its class's root, and writes each node's object size and unused
 * word. A class's root is its smallest id (the larger root goes under the smaller), so a node's
 * parent is never above it: in id order its parent's root is final when it is read.
 */
function flattenParents(parent: Uint32Array, nodes: Uint32Array, objectSize: Uint32Array): void {
  const n = parent.length;
  for (let v = 0; v < n; v++) {
    parent[v] = parent[parent[v] as number] as number;
    nodes[4 * v] = objectSize[v] as number;
    nodes[4 * v + 3] = NONE;
  }
}

/**
 * The initial sets' pairs (`x = &o`: o into x's pending points-to set; `x = y` between two
 * classes: y's class into x's pending copy⁻¹ set), and each node's count of loads, stores and
 * offsets in `ruleCounts` (zero on entry).
 */
function initialPairsAndRuleCounts(
  kinds: Uint8Array,
  dsts: Uint32Array,
  srcs: Uint32Array,
  length: number,
  parent: Uint32Array,
  pairKeys: Uint32Array,
  pairSources: Uint32Array,
  ruleCounts: Uint32Array,
): { pairs: number; points: number; rules: number } {
  let pairs = 0;
  let points = 0;
  let rules = 0;
  for (let i = 0; i < length; i++) {
    const kind = kinds[i] as number;
    const dst = dsts[i] as number;
    if (kind === ConstraintKind.AddressOf) {
      pairKeys[pairs] = 2 * (parent[dst] as number) + PAIR_POOL.points;
      pairSources[pairs++] = srcs[i] as number;
      points++;
    } else if (kind === ConstraintKind.Copy) {
      const from = parent[srcs[i] as number] as number;
      const to = parent[dst] as number;
      if (from !== to) {
        pairKeys[pairs] = 2 * to + PAIR_POOL.edges;
        pairSources[pairs++] = from;
      }
    } else {
      ruleCounts[dst] = (ruleCounts[dst] as number) + 1;
      rules++;
    }
  }
  return { pairs, points, rules };
}

/** Each node's rules are the range [first, end) of the rules, in node order; `fill` starts at first. */
function ruleRanges(ruleCounts: Uint32Array, nodes: Uint32Array, fill: Uint32Array): void {
  const n = ruleCounts.length;
  let end = 0;
  for (let v = 0; v < n; v++) {
    const first = end;
    end += ruleCounts[v] as number;
    nodes[4 * v + 1] = first;
    nodes[4 * v + 2] = end;
    fill[v] = first;
  }
}

/** Writes each load, store and offset as `(kind, other, offset, owner)` at its owner's next slot. */
function fillRules(
  kinds: Uint8Array,
  dsts: Uint32Array,
  srcs: Uint32Array,
  offsets: Uint32Array,
  length: number,
  fill: Uint32Array,
  rules: Uint32Array,
): void {
  for (let i = 0; i < length; i++) {
    const kind = kinds[i] as number;
    if (kind === ConstraintKind.AddressOf || kind === ConstraintKind.Copy) continue;
    const dst = dsts[i] as number;
    const slot = fill[dst] as number;
    fill[dst] = slot + 1;
    const at = 4 * slot;
    rules[at] =
      kind === ConstraintKind.Load
        ? RULE_KIND.load
        : kind === ConstraintKind.Store
          ? RULE_KIND.store
          : RULE_KIND.offset;
    rules[at + 1] = srcs[i] as number;
    rules[at + 2] = offsets[i] as number;
    rules[at + 3] = dst;
  }
}
