// Run: HOPS=1,2 HOP_BUDGET=2 HOP_ELEMENTS=2 npx tsx scripts/andersen-hops-model.ts gcc perl python
// (optional: HOP_SET_ELEMENTS, HOP_POINTS_ELEMENTS bound the sets a hop pull may read and write;
// HOP_ALL, HOP_LATCH, HOP_TAIL, HOP_SINGLE and HOP_UNIQUE choose which representatives, sources
// and rounds hop; each run also prints the copy edges each update added)
// (needs ../shared/data; see packages/andersen/README.md for what it showed).
//
// How many rounds the WebGPU engine's Jacobi iteration would take if a round carried new pointees
// across more than one copy edge. The model follows src/gpu/ (rules and pulls read the sets of the
// last update; ΔP = N − P, P ∪= ΔP, F = G − E, E ∪= F; HCD hooks; a merged class keeps in P only
// what every member propagated), and after a round's pulls and rules runs HOPS − 1 more hops: each
// representative pulls, from every E and F source, what that source gathered in the hop before
// (the first hop's: its whole pending set N), into a set of its own that joins N(r) after the hop.
// Every hop only adds true members, so the fixpoint is the same; the script checks Σ|P| anyway.
// It also counts the ΔP pulls of a set the same representative already pulled that round (those
// the engine's ΔP-equivalence skips).

import type { SparseBitVector } from '../packages/sparse-bitvector/src/index';
import { loadRoundsModel, type NodeSets, nonEmpty, RULE_LOAD, RULE_STORE } from './andersen-rounds-model';

// The most pulls a representative makes in one extra hop (the rest are left to the next round).
const hopBudget = Number(process.env.HOP_BUDGET ?? Number.POSITIVE_INFINITY);
// The most list elements (960 ids each) of F then E a representative's hop reads.
const hopElements = Number(process.env.HOP_ELEMENTS ?? Number.POSITIVE_INFINITY);
// Only sources whose N, and representatives whose P, have at most this many elements hop.
const hopSetElements = Number(process.env.HOP_SET_ELEMENTS ?? Number.POSITIVE_INFINITY);
const hopPointsElements = Number(process.env.HOP_POINTS_ELEMENTS ?? Number.POSITIVE_INFINITY);
// HOP_ALL=1: a representative hops from all its sources with an N or from none (none when they
// are more than the budget or its lists longer than HOP_ELEMENTS), so that representatives with
// the same sources gain the same pointees in the same round.
const hopAll = process.env.HOP_ALL === '1';
// HOP_LATCH=k: no more hops once a round has made more than k pulls (for the rest of the solve).
const hopLatch = Number(process.env.HOP_LATCH ?? Number.POSITIVE_INFINITY);
// HOP_TAIL=f: hop only in rounds whose pulls are at most f times the most of any round since the
// second (the first pulls every initial set).
const hopTail = Number(process.env.HOP_TAIL ?? Number.POSITIVE_INFINITY);
// HOP_SINGLE=1: only representatives with one source class (across E and F) hop, so that every
// representative copied from that source alone gains its N in the same round.
const hopSingle = process.env.HOP_SINGLE === '1';
// HOP_UNIQUE=1: only from sources whose N no other root's N equals (a source whose N is shared
// keeps its copies in step with the other sources of that N).
const hopUnique = process.env.HOP_UNIQUE === '1';

async function model(bench: string, hops: number) {
  const { prep, n, objectSize, parent, find, P, D, N, E, F, G, get, update, hcdAndMerge } =
    await loadRoundsModel(bench);
  const rules = prep.rules;

  update();
  hcdAndMerge();
  const started = performance.now();
  let rounds = 0;
  let pulls = 0;
  let hopPulls = 0;
  // ΔP pulls of a set equal to one the same representative already pulled this round (what the
  // engine's ΔP-equivalence skips), and the distinct ΔPs of each round summed.
  let equalPulls = 0;
  let distinctDeltas = 0;
  const perRound: number[] = [];
  const sharePerRound: string[] = [];
  let latched = false;
  let peakPulls = 0;
  let tailHops = 0;
  let latchedAt = 0;
  let newEdges = 0;
  const newEdgesPerRound: number[] = [];
  for (;;) {
    const pullsBefore = pulls;
    const equalBefore = equalPulls;
    rounds++;
    let roundActive = 0;
    for (let r = 0; r < n; r++) if (parent[r] === r && nonEmpty(D[r])) roundActive++;
    perRound.push(roundActive);
    // Pulls (copy⁻¹) and rules, both from the last update's sets.
    const deltaId = new Map<SparseBitVector, number>();
    {
      const byHash = new Map<number, SparseBitVector[]>();
      for (let v = 0; v < n; v++) {
        const d = D[v];
        if (parent[v] !== v || !nonEmpty(d)) continue;
        const h = d.hash();
        const list = byHash.get(h) ?? [];
        byHash.set(h, list);
        const same = list.find((t) => t.equals(d));
        if (same) deltaId.set(d, deltaId.get(same) as number);
        else {
          list.push(d);
          deltaId.set(d, deltaId.size);
          distinctDeltas++;
        }
      }
    }
    for (let r = 0; r < n; r++) {
      if (parent[r] !== r) continue;
      const pr = P[r];
      const pulledIds = new Set<number>();
      const pull = (src: SparseBitVector) => {
        pulls++;
        const add = src.clone();
        if (pr) add.subtract(pr);
        if (!add.isEmpty()) get(N, r).unionWith(add);
        add.destroy();
      };
      const e = E[r];
      if (e)
        for (const m of e) {
          const s = find(m);
          if (s !== r && nonEmpty(D[s])) {
            const id = deltaId.get(D[s]) as number;
            if (pulledIds.has(id)) equalPulls++;
            else pulledIds.add(id);
            pull(D[s]);
          }
        }
      const f = F[r];
      if (f)
        for (const m of f) {
          const s = find(m);
          if (s !== r && nonEmpty(P[s])) pull(P[s]);
        }
    }
    for (let c = 0; c < prep.ruleCount; c++) {
      const kind = rules[4 * c] as number;
      const other = find(rules[4 * c + 1] as number);
      const k = rules[4 * c + 2] as number;
      const owner = find(rules[4 * c + 3] as number);
      const delta = kind === RULE_STORE ? D[owner] : D[other];
      if (!delta) continue;
      for (const o of delta) {
        if (k >= (objectSize[o] as number)) continue;
        if (kind === RULE_LOAD) {
          const field = find(o + k);
          if (field !== owner) get(G, owner).set(field);
        } else if (kind === RULE_STORE) {
          const field = find(o + k);
          if (field !== other) get(G, field).set(other);
        } else {
          get(N, owner).set(o + k);
        }
      }
    }
    sharePerRound.push(`${equalPulls - equalBefore}/${pulls - pullsBefore}`);
    // More hops: what each source gathered in the hop before, across E and F.
    let gathered: NodeSets = N.map((s, v) => (nonEmpty(s) && parent[v] === v ? s.clone() : undefined));
    if (!latched && pulls - pullsBefore > hopLatch) {
      latched = true;
      latchedAt = rounds;
    }
    const roundPulls = pulls - pullsBefore;
    const inTail = Number.isFinite(hopTail) ? rounds > 2 && roundPulls <= hopTail * peakPulls : true;
    if (rounds > 1) peakPulls = Math.max(peakPulls, roundPulls);
    if (inTail && !latched && hops > 1) tailHops++;
    for (let hop = 1; hop < (latched || !inTail ? 1 : hops); hop++) {
      const next: NodeSets = new Array(n);
      // With HOP_UNIQUE: the roots whose gathered set equals another root's.
      const shared = new Set<number>();
      if (hopUnique) {
        const byHash = new Map<number, number[]>();
        for (let v = 0; v < n; v++) {
          const g = gathered[v];
          if (!nonEmpty(g)) continue;
          const h = (g as SparseBitVector).hash();
          const list = byHash.get(h) ?? [];
          byHash.set(h, list);
          for (const u of list) {
            if ((gathered[u] as SparseBitVector).equals(g as SparseBitVector)) {
              shared.add(u);
              shared.add(v);
            }
          }
          list.push(v);
        }
      }
      for (let r = 0; r < n; r++) {
        if (parent[r] !== r) continue;
        if ((P[r]?.elementCount ?? 0) > hopPointsElements) continue;
        if (hopAll) {
          const chosen: number[] = [];
          let windows = 0;
          let fits = true;
          for (const list of [F[r], E[r]]) {
            if (!list || !fits) continue;
            let window = -1;
            for (const m of list) {
              if (Math.floor(m / 960) !== window) {
                window = Math.floor(m / 960);
                windows++;
              }
              if (windows > hopElements) {
                fits = false;
                break;
              }
              const s = find(m);
              if (s !== r && nonEmpty(gathered[s]) && !chosen.includes(s)) chosen.push(s);
            }
          }
          if (!fits || chosen.length > hopBudget) continue;
          for (const s of chosen) {
            hopPulls++;
            const add = (gathered[s] as SparseBitVector).clone();
            if (P[r]) add.subtract(P[r] as SparseBitVector);
            if (!add.isEmpty()) get(next, r).unionWith(add);
            add.destroy();
          }
          continue;
        }
        if (hopSingle) {
          let only = -1;
          let several = false;
          for (const list of [F[r], E[r]]) {
            if (!list || several) continue;
            for (const m of list) {
              const s = find(m);
              if (s === r || s === only) continue;
              if (only === -1) only = s;
              else {
                several = true;
                break;
              }
            }
          }
          if (several || only === -1) continue;
          const g = gathered[only];
          if (!nonEmpty(g)) continue;
          hopPulls++;
          const add = (g as SparseBitVector).clone();
          if (P[r]) add.subtract(P[r] as SparseBitVector);
          if (N[r]) add.subtract(N[r] as SparseBitVector);
          if (!add.isEmpty()) get(next, r).unionWith(add);
          add.destroy();
          continue;
        }
        let budget = hopBudget;
        let elements = 0;
        for (const list of [F[r], E[r]]) {
          if (!list) continue;
          let window = -1;
          for (const m of list) {
            if (Math.floor(m / 960) !== window) {
              window = Math.floor(m / 960);
              elements++;
            }
            if (elements > hopElements) break;
            const s = find(m);
            const g = gathered[s];
            if (s === r || !nonEmpty(g) || budget <= 0 || shared.has(s)) continue;
            if ((N[s]?.elementCount ?? 0) > hopSetElements) continue;
            budget--;
            hopPulls++;
            const add = g.clone();
            if (P[r]) add.subtract(P[r] as SparseBitVector);
            if (N[r]) add.subtract(N[r] as SparseBitVector);
            if (!add.isEmpty()) get(next, r).unionWith(add);
            add.destroy();
          }
        }
      }
      for (const s of gathered) s?.destroy();
      for (let r = 0; r < n; r++) {
        const add = next[r];
        if (add) get(N, r).unionWith(add);
      }
      gathered = next;
    }
    for (const s of gathered) s?.destroy();
    const { active, fresh } = update();
    // The copy edges the update added (F after it): what keeping the edges forwards as well would
    // push again as pairs (see the andersen README, "What is left").
    let edgesAdded = 0;
    for (let v = 0; v < n; v++) edgesAdded += F[v]?.count() ?? 0;
    newEdges += edgesAdded;
    newEdgesPerRound.push(edgesAdded);
    const merged = hcdAndMerge();
    if (active === 0 && fresh === 0 && merged === 0) break;
    if (rounds > 2000) throw new Error('no fixpoint after 2000 rounds');
  }
  let total = 0;
  for (let v = 0; v < n; v++) {
    const r = find(v);
    total += P[r]?.count() ?? 0;
  }
  console.log(
    `${bench} equal ΔP pulls ${equalPulls} of ${pulls}, distinct ΔPs ${distinctDeltas}; ${bench} hops ${hops} ${hopAll ? 'all-or-none ' : ''}${hopSingle ? 'single-source ' : ''}${hopUnique ? 'unique-N ' : ''}budget ${hopBudget} elements ${hopElements} N ≤ ${hopSetElements} P ≤ ${hopPointsElements} latch ${hopLatch} (at ${latchedAt}) tail ${hopTail} (${tailHops} rounds hopped): ${rounds} rounds, Σ|pts| ${total}, pulls ${pulls}, hop pulls ${hopPulls}, copy edges added ${newEdges}, ${(performance.now() - started).toFixed(0)} ms; active per round ${perRound.join(' ')}; equal/pulls per round ${sharePerRound.join(' ')}; copy edges added per round ${newEdgesPerRound.join(' ')}`,
  );
}

const benches = process.argv.slice(2);
const hopCounts = (process.env.HOPS ?? '1,2').split(',').map(Number);
for (const bench of benches.length > 0 ? benches : ['gcc', 'perl']) {
  for (const hops of hopCounts) await model(bench, hops);
}
