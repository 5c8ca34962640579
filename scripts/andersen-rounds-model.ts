// The CPU model of the WebGPU Andersen engine's rounds that scripts/andersen-work-model.ts and
// scripts/andersen-hops-model.ts instrument: the program as the engine gets it (the shipped HCD
// table and HVN merges, prepareProgram), its sets as sparse bit vectors (P, ΔP, N; E, F, G), and
// the two steps every round ends with, the update (ΔP = N − P, P ∪= ΔP, F = G − E, E ∪= F) and the
// HCD hooks with the merges they cause (a merged class keeps in P only what every member
// propagated, and everything any member had waits in N). The rules and pulls are the scripts' own.
import { resolve } from 'node:path';
import { PAIR_POOL } from '../packages/andersen/src/gpu/layout';
import { type PreparedProgram, prepareProgram } from '../packages/andersen/src/gpu/prepare';
import { readHardekopf } from '../packages/andersen/src/io/read';
import { appendOfflineMerges } from '../packages/andersen/src/offline/hcd-pairs';
import { computeHvn } from '../packages/andersen/src/offline/hvn';
import { type SparseBitVector, SparseBitVectorPool } from '../packages/sparse-bitvector/src/index';

export const RULE_LOAD = 0;
export const RULE_STORE = 1;

/** A set per node, undefined while empty. */
export type NodeSets = (SparseBitVector | undefined)[];

export interface RoundsModel {
  readonly prep: PreparedProgram;
  readonly n: number;
  readonly objectSize: Uint32Array;
  readonly pool: SparseBitVectorPool;
  /** The union–find (roots are the smallest id), path-compressed by {@link RoundsModel.find}. */
  readonly parent: Uint32Array;
  readonly find: (v: number) => number;
  readonly P: NodeSets;
  readonly D: NodeSets;
  readonly N: NodeSets;
  readonly E: NodeSets;
  readonly F: NodeSets;
  readonly G: NodeSets;
  /** The set of `v` in `sets`, created empty when it has none. */
  readonly get: (sets: NodeSets, v: number) => SparseBitVector;
  /** The update: returns the roots with a ΔP and those with fresh copy sources. */
  readonly update: () => { active: number; fresh: number };
  /** The HCD hooks on this round's ΔPs and the merges they cause; returns the nodes hooked. */
  readonly hcdAndMerge: () => number;
}

export const nonEmpty = (s: SparseBitVector | undefined): s is SparseBitVector =>
  s !== undefined && !s.isEmpty();

/** Reads `bench` from `dir` (or GPUMORPH_DATA) and builds its initial sets, before any update. */
export async function loadRoundsModel(
  bench: string,
  dir = process.env.GPUMORPH_DATA ?? '/work/shared/data/andersen/hardekopf',
): Promise<RoundsModel> {
  const input = await readHardekopf({ prefix: resolve(dir, bench) }, { nonObjectAddress: 'make-object' });
  const hvn = computeHvn(input.program);
  const prep = prepareProgram(input.program, appendOfflineMerges(input.hcd, hvn.merges));
  const n = prep.nodeCount;
  const pool = new SparseBitVectorPool();
  const parent = Uint32Array.from(prep.parent);
  const find = (v0: number): number => {
    let v = v0;
    while (parent[v] !== v) v = parent[v] as number;
    let w = v0;
    while (parent[w] !== v) {
      const next = parent[w] as number;
      parent[w] = v;
      w = next;
    }
    return v;
  };
  const sets = (): NodeSets => new Array(n);
  const [P, D, N, E, F, G] = [sets(), sets(), sets(), sets(), sets(), sets()];
  const get = (sets: NodeSets, v: number) => {
    let s = sets[v];
    if (!s) {
      s = pool.create();
      sets[v] = s;
    }
    return s;
  };
  const { keys, sources, count } = prep.initialPairs;
  for (let i = 0; i < count; i++) {
    const key = keys[i] as number;
    get((key & 1) === PAIR_POOL.points ? N : G, key >> 1).set(sources[i] as number);
  }

  // The pending set of v becomes its delta (what `all` did not have yet), which `all` takes in;
  // returns whether the delta is not empty.
  const publish = (pending: NodeSets, delta: NodeSets, all: NodeSets, v: number) => {
    const gathered = pending[v];
    pending[v] = undefined;
    delta[v]?.destroy();
    delta[v] = undefined;
    if (gathered === undefined) return false;
    if (gathered.isEmpty()) {
      gathered.destroy();
      return false;
    }
    const into = get(all, v);
    gathered.subtract(into);
    into.unionWith(gathered);
    if (gathered.isEmpty()) {
      gathered.destroy();
      return false;
    }
    delta[v] = gathered;
    return true;
  };
  const update = () => {
    let active = 0;
    let fresh = 0;
    for (let v = 0; v < n; v++) {
      if (publish(N, D, P, v)) active++;
      if (publish(G, F, E, v)) fresh++;
    }
    return { active, fresh };
  };

  const rules = prep.rules;
  const hcdSlot = new Map<number, number>();
  const hooked: number[] = [];
  const hook = (a0: number, b0: number) => {
    const a = find(a0);
    const b = find(b0);
    if (a === b) return;
    const hi = Math.max(a, b);
    parent[hi] = Math.min(a, b);
    hooked.push(hi);
  };
  const hcdAndMerge = () => {
    hooked.length = 0;
    for (let i = 0; i < prep.hcdCount; i++) {
      const y = rules[4 * (prep.ruleCount + i)] as number;
      const x = find(rules[4 * (prep.ruleCount + i) + 1] as number);
      const claimed = hcdSlot.get(x);
      if (claimed === undefined) hcdSlot.set(x, y);
      else hook(claimed, y);
      const d = D[x];
      if (d) for (const o of d) hook(o, y);
    }
    const children = new Map<number, number[]>();
    for (const a of hooked) {
      const r = find(a);
      const list = children.get(r) ?? [];
      children.set(r, list);
      list.push(a);
    }
    for (const [r, list] of children) {
      // P ⊇ ΔP, so the class's pending set is everything any member has.
      const pending = P[r] ?? pool.create();
      N[r]?.destroy();
      N[r] = pending;
      const kept = pending.clone();
      if (D[r]) kept.subtract(D[r] as SparseBitVector);
      for (const a of list) {
        if (P[a]) pending.unionWith(P[a] as SparseBitVector);
        if (P[a]) kept.intersectWith(P[a] as SparseBitVector);
        else kept.clear();
        if (D[a]) kept.subtract(D[a] as SparseBitVector);
        if (E[a]) get(E, r).unionWith(E[a] as SparseBitVector);
        if (F[a]) get(F, r).unionWith(F[a] as SparseBitVector);
        for (const of of [P, D, N, E, F, G]) {
          if (of[a] !== pending) of[a]?.destroy();
          of[a] = undefined;
        }
      }
      P[r] = kept;
      D[r]?.destroy();
      D[r] = undefined;
    }
    return hooked.length;
  };

  return {
    prep,
    n,
    objectSize: input.program.objectSize,
    pool,
    parent,
    find,
    P,
    D,
    N,
    E,
    F,
    G,
    get,
    update,
    hcdAndMerge,
  };
}
