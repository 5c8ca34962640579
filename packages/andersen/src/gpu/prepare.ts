import { type PackedMemberPairs, packMemberPairs } from '@gpumorph/sparse-bitvector';
import { ConstraintKind, type ConstraintProgram } from '../model/program';
import type { HcdPairs } from '../offline/hcd-pairs';
import { RULE_KIND } from './layout';

const NONE = 0xffff_ffff;

/** What the host hands the GPU solver: the program on representatives, laid out for the kernels. */
export interface PreparedProgram {
  readonly nodeCount: number;
  /** Per node, its class's representative (the smallest id), after the offline merges. */
  readonly parent: Uint32Array;
  /** Variables merged before solving. */
  readonly offlineMerges: number;
  /** Per node `(objectSize, firstRule, endRule, nextMember)`: 4 words each. */
  readonly nodes: Uint32Array;
  /** Rules `(kind, other, offset, owner)` grouped by owning node, then the HCD online pairs `(y, x, 0, 0)`. */
  readonly rules: Uint32Array;
  readonly ruleCount: number;
  readonly hcdCount: number;
  /**
   * Initial pending points-to sets (address-of) and copy⁻¹ sets, packed from element 0 in the
   * pools' layout; `heads[v]` is representative v's list (`NONE` when it has none).
   */
  readonly initialPoints: PackedMemberPairs;
  readonly initialEdges: PackedMemberPairs;
  /** Distinct initial copy edges between representatives. */
  readonly initialEdgeCount: number;
}

/**
 * Applies the offline merges on the host (each class's representative is its smallest id, as the
 * GPU's lock-free union–find keeps it), builds each node's list of loads, stores and offsets
 * (the member lists the rules kernel walks for a class) and the initial sets: `x = &o` puts o in x's
 * pending set, `x = y` puts y in x's pending copy⁻¹ set, so the first update publishes both.
 *
 * @example
 * ```ts
 * const prepared = prepareProgram(program, hcd);
 * prepared.nodes.length === 4 * program.nodeCount; // true
 * ```
 */
export function prepareProgram(program: ConstraintProgram, hcd: HcdPairs | undefined): PreparedProgram {
  const n = program.nodeCount;
  const parent = new Uint32Array(n);
  for (let v = 0; v < n; v++) parent[v] = v;
  const find = (v: number): number => {
    let root = v;
    while (parent[root] !== root) root = parent[root] as number;
    while (parent[v] !== root) {
      const next = parent[v] as number;
      parent[v] = root;
      v = next;
    }
    return root;
  };
  let offlineMerges = 0;
  const merges = hcd?.offlineMerges ?? new Uint32Array(0);
  for (let i = 0; i + 1 < merges.length; i += 2) {
    const a = find(merges[i] as number);
    const b = find(merges[i + 1] as number);
    if (a === b) continue;
    if (a < b) parent[b] = a;
    else parent[a] = b;
    offlineMerges++;
  }
  for (let v = 0; v < n; v++) parent[v] = find(v);

  const nodes = new Uint32Array(4 * n);
  for (let v = 0; v < n; v++) {
    nodes[4 * v] = program.objectSize[v] as number;
    nodes[4 * v + 3] = NONE;
  }
  // Member chains: each representative heads the list of its class.
  for (let v = n - 1; v >= 0; v--) {
    const r = parent[v] as number;
    if (r === v) continue;
    nodes[4 * v + 3] = nodes[4 * r + 3] as number;
    nodes[4 * r + 3] = v;
  }

  const c = program.constraints;
  // (representative, member) pairs of the initial sets, packed in one pass each below.
  const pointOwners = new Uint32Array(c.length);
  const pointMembers = new Uint32Array(c.length);
  let pointPairs = 0;
  const edgeOwners = new Uint32Array(c.length);
  const edgeMembers = new Uint32Array(c.length);
  let edgePairs = 0;
  const perOwner = new Uint32Array(n + 1);
  let ruleCount = 0;
  for (let i = 0; i < c.length; i++) {
    const kind = c.kind[i] as number;
    const dst = c.dst[i] as number;
    const src = c.src[i] as number;
    if (kind === ConstraintKind.AddressOf) {
      pointOwners[pointPairs] = parent[dst] as number;
      pointMembers[pointPairs++] = src;
    } else if (kind === ConstraintKind.Copy) {
      const from = parent[src] as number;
      const to = parent[dst] as number;
      if (from !== to) {
        edgeOwners[edgePairs] = to;
        edgeMembers[edgePairs++] = from;
      }
    } else {
      (perOwner[dst + 1] as number)++;
      ruleCount++;
    }
  }
  const initialPoints = packMemberPairs(n, pointOwners, pointMembers, pointPairs);
  const initialEdges = packMemberPairs(n, edgeOwners, edgeMembers, edgePairs);
  for (let v = 0; v < n; v++) perOwner[v + 1] = (perOwner[v + 1] as number) + (perOwner[v] as number);
  const online = hcd?.online ?? new Uint32Array(0);
  const hcdCount = Math.floor(online.length / 2);
  const rules = new Uint32Array(4 * Math.max(1, ruleCount + hcdCount));
  const fill = perOwner.slice(0, n);
  for (let i = 0; i < c.length; i++) {
    const kind = c.kind[i] as number;
    if (kind === ConstraintKind.AddressOf || kind === ConstraintKind.Copy) continue;
    const dst = c.dst[i] as number;
    const at = (fill[dst] as number) * 4;
    fill[dst] = (fill[dst] as number) + 1;
    rules[at] =
      kind === ConstraintKind.Load
        ? RULE_KIND.load
        : kind === ConstraintKind.Store
          ? RULE_KIND.store
          : RULE_KIND.offset;
    rules[at + 1] = c.src[i] as number;
    rules[at + 2] = c.offset[i] as number;
    rules[at + 3] = dst;
  }
  for (let v = 0; v < n; v++) {
    nodes[4 * v + 1] = perOwner[v] as number;
    nodes[4 * v + 2] = perOwner[v + 1] as number;
  }
  for (let i = 0; i < hcdCount; i++) {
    rules[4 * (ruleCount + i)] = online[2 * i] as number;
    rules[4 * (ruleCount + i) + 1] = online[2 * i + 1] as number;
  }
  const initialEdgeCount = initialEdges.members;
  return {
    nodeCount: n,
    parent,
    offlineMerges,
    nodes,
    rules,
    ruleCount,
    hcdCount,
    initialPoints,
    initialEdges,
    initialEdgeCount,
  };
}
