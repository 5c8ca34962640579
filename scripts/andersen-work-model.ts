// Run: MODEL_SECONDS=1500 PULL_CHUNK=8 npx tsx scripts/andersen-work-model.ts gcc python php linux
// (needs ../shared/data; see packages/andersen/README.md for what it showed).
//
// CPU model of the WebGPU Andersen engine's rounds (src/gpu/): the same Jacobi iteration (rules read the
// sets of the last update; ΔP = N − P, P ∪= ΔP, F = G − E, E ∪= F; HCD hooks; merged classes keep the
// intersection of what members propagated), instrumented with the work each team of the `rules`
// kernel does in the engine as it was (one team per class representative).
//
// Work units of a team r:
//   pulls      = union_minus calls (one per E source with ΔP ≠ ∅, one per F source with P ≠ ∅)
//   pullWords  = Σ over pulls of (elements of the source set + elements of P(r)): each pull walks the
//                source list and the P(r) / N(r) lists (an upper bound of that walk); 1 element = 32 words
//   ruleItems  = Σ over the rules of the class's members of (elements of the ΔP the rule decodes + 1)
// Team work = pullWords + ruleItems (element visits). Per round: total, max, total/max, teams with work.
//
//   npx tsx scratch/andersen-work.ts [bench ...]   (env MODEL_SECONDS = time budget per benchmark)
import type { SparseBitVector } from '../packages/sparse-bitvector/src/index';
import { loadRoundsModel, RULE_LOAD, RULE_STORE } from './andersen-rounds-model';

const PULL_CHUNK = Number(process.env.PULL_CHUNK ?? 32);
const MAX_CHUNKS = 1024;
const budgetMs = 1000 * Number(process.env.MODEL_SECONDS ?? 240);

async function model(bench: string) {
  const { prep, n, objectSize, parent, find, P, D, N, E, F, G, get, pool, update, hcdAndMerge } =
    await loadRoundsModel(bench);
  const rules = prep.rules;
  const nonEmpty = (set: SparseBitVector | undefined) => set !== undefined && !set.isEmpty();

  update();
  hcdAndMerge();
  const started = performance.now();
  const rows: string[] = [];
  const totals = {
    splitDedupMax: 0,
    duplicatePulls: 0,
    duplicateWork: 0,
    splitMax: 0,
    treeWork: 0,
    work: 0,
    max: 0,
    pulls: 0,
    rounds: 0,
    pullWords: 0,
    ruleItems: 0,
    maxPulls: 0,
  };
  let complete = false;
  const teamWork = new Float64Array(n);
  // Worklist pairs per key (2·node + pool: 0 points, 1 edges) this round, as push_pair emits them.
  const pairRun = new Float64Array(2 * n);
  const pairTotals = { pairs: 0, maxRun: 0, sumMaxRun: 0, distinct: 0, sumMaxDistinct: 0 };
  // Distinct sources per key this round (what a (key, source) sort leaves after dropping duplicates).
  const pairSets = new Map<number, SparseBitVector>();
  // Pairs left when a rule is skipped whose (kind, written class, ΔP contents, offset) another
  // rule of the round already has: equal signatures push equal pairs.
  let dedupPairs = 0;
  let ruleDuplicate = false;
  const dedupRun = new Float64Array(2 * n);
  const pushPair = (key: number, source: number) => {
    pairRun[key]++;
    if (!ruleDuplicate) {
      dedupPairs++;
      dedupRun[key]++;
    }
    let set = pairSets.get(key);
    if (!set) {
      set = pool.create();
      pairSets.set(key, set);
    }
    set.set(source);
  };
  for (let round = 1; ; round++) {
    if (performance.now() - started > budgetMs) break;
    // Each class's rules (those whose owner it holds).
    const rulesOf = new Map<number, number[]>();
    for (let c = 0; c < prep.ruleCount; c++) {
      const owner = find(rules[4 * c + 3] as number);
      const own = rulesOf.get(owner) ?? [];
      rulesOf.set(owner, own);
      own.push(c);
    }
    teamWork.fill(0);
    pairRun.fill(0);
    dedupRun.fill(0);
    dedupPairs = 0;
    const deltaIds = new Map<number, SparseBitVector[]>();
    const deltaIdOf = (v: SparseBitVector) => {
      const h = hashOf(v);
      const list = deltaIds.get(h) ?? [];
      deltaIds.set(h, list);
      let i = list.findIndex((t) => t.equals(v));
      if (i < 0) i = list.push(v) - 1;
      return `${h}/${i}`;
    };
    const signatures = new Set<string>();
    let pulls = 0;
    let pullWords = 0;
    let ruleItems = 0;
    let maxPullsOfTeam = 0;
    let maxClassRules = 0;
    // The split engine: chunks of PULL_CHUNK pulls (an even share of r's pull work each) plus the
    // union tree (one union of at most |N(r)| elements per level), and one team per rule.
    let splitPullMax = 0;
    let duplicatePulls = 0;
    let splitDedupMax = 0;
    let duplicateWork = 0;
    const hashes = new Map<SparseBitVector, number>();
    const hashOf = (v: SparseBitVector) => {
      let h = hashes.get(v);
      if (h === undefined) {
        h = v.hash();
        hashes.set(v, h);
      }
      return h;
    };
    const seen = new Map<number, SparseBitVector[]>();
    let splitRuleMax = 0;
    let treeWork = 0;
    for (let r = 0; r < n; r++) {
      if (parent[r] !== r) continue;
      let work = 0;
      let myPulls = 0;
      const pr = P[r];
      const prElements = pr ? pr.elementCount : 0;
      seen.clear();
      let myDistinct = 0;
      let myDistinctWork = 0;
      const pull = (src: SparseBitVector) => {
        myPulls++;
        work += src.elementCount + prElements;
        // ΔP-equivalence as a pull would see it: a set equal to one r already pulled this round.
        const h = hashOf(src);
        const same = seen.get(h);
        if (same?.some((t) => t.equals(src))) {
          duplicatePulls++;
          duplicateWork += src.elementCount + prElements;
        } else {
          myDistinct++;
          myDistinctWork += src.elementCount + prElements;
          if (same) same.push(src);
          else seen.set(h, [src]);
        }
        get(N, r).unionWith(src);
      };
      const e = E[r];
      if (e)
        for (const m of e) {
          const s = find(m);
          if (s !== r && nonEmpty(D[s])) pull(D[s] as SparseBitVector);
        }
      const f = F[r];
      if (f)
        for (const m of f) {
          const s = find(m);
          if (s !== r && nonEmpty(P[s])) pull(P[s] as SparseBitVector);
        }
      pulls += myPulls;
      pullWords += work;
      if (myPulls > 0) {
        const chunks = Math.min(MAX_CHUNKS, Math.ceil(myPulls / PULL_CHUNK));
        const levels = Math.ceil(Math.log2(chunks));
        const nElements = N[r]?.elementCount ?? 0;
        splitPullMax = Math.max(splitPullMax, work / chunks + levels * nElements);
        treeWork += (chunks - 1) * nElements;
        // With ΔP-equivalence too: only distinct sets are pulled and counted for the split.
        const chunksD = Math.max(1, Math.min(MAX_CHUNKS, Math.ceil(myDistinct / PULL_CHUNK)));
        const levelsD = Math.ceil(Math.log2(chunksD));
        splitDedupMax = Math.max(splitDedupMax, myDistinctWork / chunksD + levelsD * nElements);
      }
      maxPullsOfTeam = Math.max(maxPullsOfTeam, myPulls);
      let ruleWork = 0;
      let classRules = 0;
      {
        const own = rulesOf.get(r) ?? [];
        classRules += own.length;
        for (const c of own) {
          const kind = rules[4 * c] as number;
          const other = find(rules[4 * c + 1] as number);
          const k = rules[4 * c + 2] as number;
          const delta = kind === RULE_STORE ? D[r] : D[other];
          ruleWork += 1 + (delta ? delta.elementCount : 0);
          splitRuleMax = Math.max(splitRuleMax, 1 + (delta ? delta.elementCount : 0));
          if (!delta) continue;
          const signature = `${kind}:${kind === RULE_STORE ? other : r}:${deltaIdOf(delta)}:${k}`;
          ruleDuplicate = signatures.has(signature);
          signatures.add(signature);
          for (const o of delta) {
            if (k >= (objectSize[o] as number)) continue;
            if (kind === RULE_LOAD) {
              const field = find(o + k);
              if (field !== r) {
                get(G, r).set(field);
                pushPair(2 * r + 1, field);
              }
            } else if (kind === RULE_STORE) {
              const field = find(o + k);
              if (field !== other) {
                get(G, field).set(other);
                pushPair(2 * field + 1, other);
              }
            } else {
              get(N, r).set(o + k);
              pushPair(2 * r, o + k);
            }
          }
        }
      }
      maxClassRules = Math.max(maxClassRules, classRules);
      ruleItems += ruleWork;
      teamWork[r] = work + ruleWork;
    }
    let total = 0;
    let max = 0;
    let busy = 0;
    for (let r = 0; r < n; r++) {
      const w = teamWork[r] as number;
      total += w;
      if (w > max) max = w;
      if (w > 0) busy++;
    }
    totals.work += total;
    let roundPairs = 0;
    let maxRun = 0;
    let maxDedupRun = 0;
    let keys = 0;
    for (let key = 0; key < 2 * n; key++) {
      const run = pairRun[key] as number;
      roundPairs += run;
      if (run > maxRun) maxRun = run;
      maxDedupRun = Math.max(maxDedupRun, dedupRun[key] as number);
      if (run > 0) keys++;
    }
    pairTotals.pairs += roundPairs;
    let distinct = 0;
    let maxDistinct = 0;
    for (const set of pairSets.values()) {
      const c = set.count();
      distinct += c;
      if (c > maxDistinct) maxDistinct = c;
      set.destroy();
    }
    pairSets.clear();
    pairTotals.distinct += distinct;
    pairTotals.sumMaxDistinct += maxDistinct;
    pairTotals.sumMaxRun += maxRun;
    pairTotals.maxRun = Math.max(pairTotals.maxRun, maxRun);
    console.log(
      `${bench} round ${round}: pairs ${roundPairs} keys ${keys} longest-run ${maxRun} pairs/longest ${(roundPairs / Math.max(1, maxRun)).toFixed(1)} distinct ${distinct} most-distinct-one-key ${maxDistinct} rule-dedup pairs ${dedupPairs} longest ${maxDedupRun}`,
    );
    totals.duplicatePulls += duplicatePulls;
    totals.splitDedupMax += splitDedupMax + splitRuleMax;
    totals.duplicateWork += duplicateWork;
    totals.splitMax += splitPullMax + splitRuleMax;
    totals.treeWork += treeWork;
    totals.max += max;
    totals.pulls += pulls;
    totals.pullWords += pullWords;
    totals.ruleItems += ruleItems;
    totals.maxPulls = Math.max(totals.maxPulls, maxPullsOfTeam);
    totals.rounds = round;
    rows.push(
      `${bench} round ${round}: total ${total} max ${max} total/max ${(total / Math.max(1, max)).toFixed(1)} teams-with-work ${busy} pulls ${pulls} max-pulls-one-team ${maxPullsOfTeam} pull-elements ${pullWords} rule-elements ${ruleItems} split: pull-chunk-max ${splitPullMax.toFixed(0)} rule-max ${splitRuleMax} total/(pull+rule max) ${(total / Math.max(1, splitPullMax + splitRuleMax)).toFixed(1)} duplicate-pulls ${duplicatePulls} (${duplicateWork} element visits)`,
    );
    console.log(rows[rows.length - 1]);
    const { active, fresh } = update();
    const merged = hcdAndMerge();
    if (active === 0 && fresh === 0 && merged === 0) {
      complete = true;
      break;
    }
  }
  console.log(
    `${bench} PAIRS: Σ pairs ${pairTotals.pairs.toExponential(3)}, Σ per-round longest run ${pairTotals.sumMaxRun.toExponential(3)} (Σpairs/Σlongest ${(pairTotals.pairs / Math.max(1, pairTotals.sumMaxRun)).toFixed(1)}), longest run ${pairTotals.maxRun}; distinct (key, source) pairs ${pairTotals.distinct.toExponential(3)}, Σ per-round most distinct of one key ${pairTotals.sumMaxDistinct.toExponential(3)}`,
  );
  console.log(
    `${bench} SUMMARY: ${totals.rounds} rounds${complete ? ' (fixpoint)' : ' (stopped at the time budget)'}; Σ total work ${totals.work.toExponential(3)} element visits; Σ per-round max ${totals.max.toExponential(3)}; Σtotal/Σmax = ${(totals.work / Math.max(1, totals.max)).toFixed(1)} (teams resident on an H100 at once: 132 SMs × 64 = 8,448); pulls ${totals.pulls}; largest pulls by one team in a round ${totals.maxPulls}; pull element visits ${totals.pullWords.toExponential(3)}, rule element visits ${totals.ruleItems.toExponential(3)}. Split engine (chunks of ${PULL_CHUNK} pulls, ≤ ${MAX_CHUNKS} per representative, one team per rule): Σ per-round critical path (largest chunk incl. its merge tree + largest rule) ${totals.splitMax.toExponential(3)} (${(totals.max / Math.max(1, totals.splitMax)).toFixed(1)}× shorter than the one-team-per-class Σmax), Σtotal/Σcritical = ${(totals.work / Math.max(1, totals.splitMax)).toFixed(1)}; merge-tree work added ${totals.treeWork.toExponential(3)} element visits. Pulls of a set equal to one the same representative already pulled that round (what ΔP-equivalence would save): ${totals.duplicatePulls} of ${totals.pulls} pulls, ${totals.duplicateWork.toExponential(3)} of ${totals.pullWords.toExponential(3)} pull element visits. Split + ΔP-equivalence: Σ critical path ${totals.splitDedupMax.toExponential(3)} (${(totals.max / Math.max(1, totals.splitDedupMax)).toFixed(1)}× shorter than one team per class), total work ${(totals.work - totals.duplicateWork).toExponential(3)}`,
  );
}

const benches = process.argv.slice(2);
for (const bench of benches.length > 0 ? benches : ['gcc', 'python', 'php', 'linux']) await model(bench);
