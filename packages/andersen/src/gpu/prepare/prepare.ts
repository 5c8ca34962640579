import { ConstraintKind, type ConstraintProgram } from '../../model/program';
import { findRoot } from '../../model/union-find';
import type { HcdPairs } from '../../offline/hcd-pairs';
import { type HostArrays, takeHostArrays } from '../host-arrays';
import { PAIR_POOL, RULE_KIND } from '../layout';

/** What the host hands the GPU solver: the program on representatives, laid out for the kernels. */
export interface PreparedProgram {
  readonly nodeCount: number;
  /** Per node, its class's representative (the smallest id), after the offline merges. */
  readonly parent: Uint32Array;
  /** Variables merged before solving. */
  readonly offlineMerges: number;
  /** Per node, its object size (the program's own array: the kernels read nothing else of a node). */
  readonly objectSize: Uint32Array;
  /** Rules `(kind, other, offset, owner)` in constraint order, then the HCD online pairs `(y, x, 0, 0)`. */
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
 * GPU's lock-free union–find keeps it), lists the loads, stores and offsets as rules and builds
 * the pairs of the initial sets: `x = &o` puts o in x's pending set, `x = y` puts y in x's pending
 * copy⁻¹ set, so the first update publishes both. The GPU builds the sets from the pairs: packing them here took about 25 ms of
 * linux's setup on the dev machine, and uploading the packed elements about 20 MB more than the
 * pairs.
 *
 * The arrays come from `arrays` (kept from an earlier solve, see {@link HostArrays}; new ones when
 * not given): they are valid until the caller releases it. The union–find goes into `parentInto`
 * when given (n words: the solver's upload of the control buffer's head, so that it is not copied
 * there).
 *
 * @example
 * ```ts
 * const prepared = prepareProgram(program, hcd);
 * prepared.rules.length === 4 * (prepared.ruleCount + prepared.hcdCount); // true
 * ```
 */
export function prepareProgram(
  program: ConstraintProgram,
  hcd: HcdPairs | undefined,
  arrays: HostArrays = takeHostArrays({}, { keep: false }),
  parentInto?: Uint32Array,
): PreparedProgram {
  // Each pass is a small function over typed arrays held in locals: a program is usually prepared
  // once per process (the CLI, a compiler pass), so these loops mostly run before V8 has optimized
  // them, where every property load and closure call of a loop body costs (on the development
  // machine gcc's first preparation took 15–35 ms with the passes inline in one function, and
  // 4–7 ms so). No kernel reads more of a node than its object size, so the program's own array
  // is uploaded (no per-node table of rule ranges), and the rules stay in constraint order, built
  // in the same pass as the pairs.
  const n = program.nodeCount;
  if (parentInto !== undefined && parentInto.length !== n) {
    throw new RangeError(`parentInto holds ${parentInto.length} words for ${n} nodes`);
  }
  const parent = parentInto ?? arrays.uint32('parent', n);
  const offlineMerges = mergeOffline(parent, hcd?.offlineMerges);
  flattenParents(parent);

  const c = program.constraints;
  const online = hcd?.online ?? new Uint32Array(0);
  const hcdCount = Math.floor(online.length / 2);
  const pairKeys = arrays.uint32('pairKeys', c.length);
  const pairSources = arrays.uint32('pairSources', c.length);
  // Room for every constraint as a rule: the rules are a prefix of it (at least one, so that the
  // buffer is not empty).
  const ruleRoom = arrays.uint32('rules', 4 * Math.max(1, c.length + hcdCount));
  const counted = pairsAndRules(
    c.kind,
    c.dst,
    c.src,
    c.offset,
    c.length,
    parent,
    pairKeys,
    pairSources,
    ruleRoom,
  );
  const ruleCount = counted.rules;
  const rules = ruleRoom.subarray(0, 4 * Math.max(1, ruleCount + hcdCount));
  writeOnlineRules(rules.subarray(4 * ruleCount), online, hcdCount);
  // The unused word of a program without rules or pairs is uploaded too: zero, not a stale word.
  if (ruleCount + hcdCount === 0) rules.fill(0);
  return {
    nodeCount: n,
    parent,
    offlineMerges,
    objectSize: program.objectSize.subarray(0, n),
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
 * The HCD online pairs `(y, x)` as the rules after the loads, stores and offsets: `(y, x, 0, 0)`
 * each, the first `count` of `online` into `into` from its start (also the GPU's preparation,
 * which uploads them after the rules it writes).
 *
 * @example
 * ```ts
 * writeOnlineRules(rules.subarray(4 * ruleCount), hcd.online, hcd.online.length / 2);
 * ```
 */
export function writeOnlineRules(into: Uint32Array, online: Uint32Array, count: number): void {
  for (let i = 0; i < count; i++) {
    into[4 * i] = online[2 * i] as number;
    into[4 * i + 1] = online[2 * i + 1] as number;
    into[4 * i + 2] = 0;
    into[4 * i + 3] = 0;
  }
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
 * Points every node straight at its class's root. A class's root is its smallest id (the larger
 * root goes under the smaller), so a node's parent is never above it: in id order its parent's
 * root is final when it is read.
 */
function flattenParents(parent: Uint32Array): void {
  const n = parent.length;
  for (let v = 0; v < n; v++) parent[v] = parent[parent[v] as number] as number;
}

/**
 * The initial sets' pairs (`x = &o`: o into x's pending points-to set; `x = y` between two
 * classes: y's class into x's pending copy⁻¹ set), and each load, store and offset as a rule
 * `(kind, other, offset, owner)`, in one pass over the constraints.
 */
function pairsAndRules(
  kinds: Uint8Array,
  dsts: Uint32Array,
  srcs: Uint32Array,
  offsets: Uint32Array,
  length: number,
  parent: Uint32Array,
  pairKeys: Uint32Array,
  pairSources: Uint32Array,
  rules: Uint32Array,
): { pairs: number; points: number; rules: number } {
  let pairs = 0;
  let points = 0;
  let at = 0;
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
      rules[at] =
        kind === ConstraintKind.Load
          ? RULE_KIND.load
          : kind === ConstraintKind.Store
            ? RULE_KIND.store
            : RULE_KIND.offset;
      rules[at + 1] = srcs[i] as number;
      rules[at + 2] = offsets[i] as number;
      rules[at + 3] = dst;
      at += 4;
    }
  }
  return { pairs, points, rules: at / 4 };
}
