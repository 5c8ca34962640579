import { BITS_WORDS, MEMBERS_PER_ELEMENT } from '@gpumorph/sparse-bitvector';
import { PAIR_POOL, RULE_KIND, THREAD_WORKGROUP } from '../layout';
import type { SolverWgsl } from '../module/context';

/** A rule's read class and signature, and the table of signatures that shares equal rules. */
export function ruleSignaturesWgsl(w: SolverWgsl): string {
  const { slot, A, params } = w;
  return /* wgsl */ `// The class whose ΔP rule c reads: y's for loads and offsets, the owner's for stores.
fn rule_read_class(c: u32) -> u32 {
  let rule = rule_table[c];
  return find(select(rule.y, rule.w, rule.x == ${RULE_KIND.store}u));
}

// Whether rule c reads a non-empty ΔP (member_rules' sweep runs only those).
fn rule_reads_delta(c: u32) -> bool { return pts_heads[${slot('delta', 'rule_read_class(c)')}] != NONE; }

// What a rule of member_rules pushes depends only on its signature: its kind, the class it writes
// (the owner's for loads and offsets, y's for stores), the ΔP leader of the class it reads (equal
// ΔPs, one leader) and its offset. Rules of one signature push the same pairs.
fn rule_signature(c: u32) -> vec4u {
  let rule = rule_table[c];
  let reads = rule_read_class(c);
  let written = find(select(rule.w, rule.y, rule.x == ${RULE_KIND.store}u));
  return vec4u(rule.x, written, atomicLoad(&control[${A('deltaLeader')} + reads]), rule.z);
}

fn rule_hash(signature: vec4u) -> u32 {
  var h = (signature.x * 0x9e3779b9u) ^ signature.y;
  h = ((h ^ (h >> 16u)) * 0x85ebca6bu) ^ signature.z;
  h = ((h ^ (h >> 13u)) * 0xc2b2ae35u) ^ signature.w;
  h = (h ^ (h >> 16u)) * 0x27d4eb2du;
  return h ^ (h >> 15u);
}

// True when another rule of rule c's signature holds its slot of the table (that rule pushes the
// pairs): the first rule of a signature to claim a slot of the hash's probe sequence runs, the
// others skip. Each slot is claimed once, so every team of rule c finds the same answer. A probe
// sequence that runs out (a full table) answers false: the rule runs, which only repeats pairs. A
// team function: team-uniform arguments, team-uniform control flow.
fn rule_shared(c: u32, signature: vec4u) -> bool {
  var at = ${params.collideHashes ? '0u' : 'rule_hash(signature)'} & params.table_mask;
  for (var probe = 0u; probe < 32u; probe++) {
    let occupant = claim_table_slot(rule_table_word(at), c);
    if (occupant == NONE || occupant == c) { return false; }
    if (pts_team_u(select(0u, 1u, all(rule_signature(occupant) == signature))) != 0u) { return true; }
    at = (at + 1u) & params.table_mask;
  }
  return false;
}
`;
}

/** The bitmap of the classes with a ΔP, and the leaders of equal ΔPs. */
export function deltaBitsWgsl(w: SolverWgsl): string {
  const { groupRulesGate, clearTables, classBitmap, deltaList, L, A, teamKernel, equalSetLeaders } = w;
  return /* wgsl */ `var<workgroup> delta_bits_words: array<atomic<u32>, ${THREAD_WORKGROUP / 32}>;
var<workgroup> rules_gate_word: u32;

@compute @workgroup_size(${THREAD_WORKGROUP})
fn delta_bits(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {${groupRulesGate}
  // Bit m of word m / 32: node m's class has a ΔP. The pulls AND it with their E words, so a
  // representative whose sources gained nothing costs a word test per word of E, not a find and
  // a head load per source (late rounds have a few hundred ΔPs among hundreds of thousands of
  // sources). Rebuilt every attempt, after the folds, which move ΔPs between classes. One
  // invocation per node, its workgroup's words gathered in workgroup memory.
  let words = ${BITS_WORDS}u * ((params.n + ${MEMBERS_PER_ELEMENT - 1}u) / ${MEMBERS_PER_ELEMENT}u);
  let stride = nwg.x * nwg.y * ${THREAD_WORKGROUP}u;
  {
    // delta_clear's work, before the tables' first reader (delta_leaders): a dispatch fewer a
    // round, and no grid of its own (gcc's was 16,384 workgroups).
    let first_item = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u + lid;
    let item_stride = stride;
    ${clearTables}
  }
  ${classBitmap(
    'delta',
    deltaList
      ? `
    // The delta list: the roots with a ΔP (delta_leaders runs over it).
    list_append(${L('delta')}, ${A('deltaList')}, set_bit && root == m, m, lid);`
      : '',
  )}
}
${teamKernel(
  'delta_leaders',
  /* wgsl */ `
  // ΔP-equivalent variables (§6.3): every root with a ΔP finds a root whose ΔP is equal (the first
  // to claim a slot of the hash's probe sequence) through an open-addressed table. An equal hash is
  // checked with pts_equals, so only equal sets share a leader; a missed match (probe limit, a stale
  // hash) only costs a pull that could have been skipped.
  ${equalSetLeaders('delta', deltaList)}`,
)}
`;
}

/** The pulls' counts and chunks, and the extra chunks handed out. */
export function pullCountWgsl(w: SolverWgsl): string {
  const {
    teamKernel,
    sourcesSweep,
    A,
    laneCount,
    scanSources,
    countDelta,
    countPoints,
    groupRulesGate,
    activeLists,
    L,
    S,
    ruleList,
  } = w;
  return /* wgsl */ `${teamKernel(
    'pull_count',
    /* wgsl */ `
  // Per representative: how many pulls its E and F lists ask for, hence how many chunks (of about
  // params.pull_chunk pulls each, at most params.max_chunks) they are split into.
  ${sourcesSweep({
    otherwise: `atomicStore(&control[${A('pullChunks')} + r], 0u);
        atomicStore(&control[${A('pullSlots')} + r], 0u);`,
    body: /* wgsl */ `
    var pulls = 0u;
    var ordinal = 0u;
    let lo = 0u;
    let hi = NONE;${
      laneCount
        ? /* wgsl */ `
    // Each lane counts its own sources, a ΔP source only when its leader is not the one the lane
    // counted last (an estimate: the chunks are word slots of the lists, so only their number
    // depends on it); the team adds the counts once.
    var lane_pulls = 0u;
    var lane_lead = NONE;
    ${scanSources(
      'points',
      'delta',
      countDelta,
      (src) => `let lead = atomicLoad(&control[${A('deltaLeader')} + ${src}]);
              if (lead != lane_lead) { lane_pulls++; lane_lead = lead; }`,
    )}
    ${scanSources('delta', 'points', countPoints, () => 'lane_pulls++;')}
    pulls = pts_team_add(lane_pulls);`
        : /* wgsl */ `
    // Pulls of a ΔP equal to one already counted are not counted (the pulls skip them too).
    pull_cache_reset();
    ${scanSources('points', 'delta', countDelta)}
    ${scanSources('delta', 'points', countPoints)}`
    }
    let chunks = min(params.max_chunks, (pulls + params.pull_chunk - 1u) / params.pull_chunk);
    if (pts_lane == 0u) {
      atomicStore(&control[${A('pullChunks')} + r], chunks);
      atomicStore(&control[${A('pullSlots')} + r], ${BITS_WORDS}u * ordinal);
    }`,
  })}`,
  )}

var<workgroup> pull_group_total: atomic<u32>;
var<workgroup> pull_group_base: u32;

@compute @workgroup_size(${THREAD_WORKGROUP})
fn pull_items(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {${groupRulesGate}
  // Hands out the extra chunks (all but chunk 0, which the representative's own team runs), one
  // global atomic per workgroup. A representative whose extra chunks do not all fit in the chunk
  // capacity gets none: its own team pulls everything (exact, just not split).
  let stride = nwg.x * nwg.y * ${THREAD_WORKGROUP}u;
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < params.n; start += stride) {
    let r = start + lid;
    var extra = 0u;
    var pulls = false;
    if (r < params.n) {
      let chunks = atomicLoad(&control[${A('pullChunks')} + r]);
      if (chunks > 1u) { extra = chunks - 1u; }
      pulls = chunks != 0u;
    }${
      activeLists
        ? `
    // The pull list: the representatives with pulls (pull_sources runs chunk 0 of each).
    list_append(${L('pull')}, ${A('pullList')}, pulls, r, lid);`
        : ''
    }
    if (lid == 0u) { atomicStore(&pull_group_total, 0u); }
    workgroupBarrier();
    var offset = 0u;
    if (extra > 0u) { offset = atomicAdd(&pull_group_total, extra); }
    workgroupBarrier();
    if (lid == 0u) {
      let total = atomicLoad(&pull_group_total);
      var base = params.chunk_capacity;
      // Past the capacity nothing more fits: leave the counter alone (it must not wrap).
      if (total > 0u && atomicLoad(&control[${S('pullChunkCount')}]) < params.chunk_capacity) {
        base = atomicAdd(&control[${S('pullChunkCount')}], total);
      }
      pull_group_base = base;
    }
    let base = workgroupUniformLoad(&pull_group_base);
    if (extra > 0u) {
      let first = base + offset;
      if (first < params.chunk_capacity && params.chunk_capacity - first >= extra) {
        atomicStore(&control[${A('pullBase')} + r], first);
        for (var j = 0u; j < extra; j++) {
          atomicStore(&control[pull_owner_word(first + j)], r);
          pts_heads[partial_slot(first + j)] = NONE;
        }
        atomicMax(&control[${S('pullMaxChunks')}], extra + 1u);
      } else {
        atomicStore(&control[${A('pullChunks')} + r], 1u);
        atomicAdd(&control[${S('pullRefused')}], 1u);
        if (first < params.chunk_capacity) {
          for (var j = first; j < min(first + extra, params.chunk_capacity); j++) {
            atomicStore(&control[pull_owner_word(j)], NONE);
          }
        }
      }
    }
  }
${
  ruleList
    ? /* wgsl */ `
  // The rule list: the loads, stores and offsets whose read class has a ΔP (member_rules runs over
  // it). Built here, after delta_bits, so that it costs no dispatch of its own; member_rules swept
  // every rule (gcc, on lavapipe: 26,000 workgroups each round, most rules finding an empty ΔP).
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < params.hcd_start; start += stride) {
    let c = start + lid;
    var reads = false;
    if (c < params.hcd_start) {
      let rule = rule_table[c];
      reads = delta_bit(select(rule.y, rule.w, rule.x == ${RULE_KIND.store}u));
    }
    list_append(${L('rules')}, rule_list_word(0u), reads, c, lid);
  }`
    : ''
}
}
`;
}

/** pull_sources and the tree that merges a split representative's partial sets. */
export function pullSourcesWgsl(w: SolverWgsl): string {
  const {
    teamKernel,
    listLimit,
    S,
    activeLists,
    listLength,
    sweep,
    A,
    slot,
    scanSources,
    pullDelta,
    pullPoints,
    mergeBits,
    nextLevel,
  } = w;
  return /* wgsl */ `${teamKernel(
    'pull_sources',
    /* wgsl */ `
  // copy⁻¹: old sources pull what they gained (ΔP), sources added by the last update pull all of P.
  // Units 0 … n−1 are chunk 0 of each representative (into N(r)), the rest its extra chunks (each
  // into its own partial set, so no two teams ever write one list).
  let n = params.n;
  ${listLimit}
  let extras = pts_team_u(min(atomicLoad(&control[${S('pullChunkCount')}]), params.chunk_capacity));
  // Units before \`firsts\` are chunk 0 of a representative (every node, or the pull list's).
  let firsts = ${activeLists ? `pts_team_u(${listLength('pull')})` : 'n'};
  ${sweep({
    item: 't',
    count: 'firsts + extras',
    // Chunk 0 of a representative with pulls, or an extra chunk handed out.
    test: `(t < firsts && ${activeLists ? 'true' : `atomicLoad(&control[${A('pullChunks')} + t]) != 0u`}) || (t >= firsts && atomicLoad(&control[pull_owner_word(t - firsts)]) != NONE)`,
    body: /* wgsl */ `
    var r = t;${
      activeLists
        ? `
    if (t < firsts) { r = pts_team_u(atomicLoad(&control[${A('pullList')} + t])); }`
        : ''
    }
    var c = 0u;
    var dst = ${slot('pending', 'r')};
    if (t >= firsts) {
      r = pts_team_u(atomicLoad(&control[pull_owner_word(t - firsts)]));
      c = t - firsts - pts_team_u(atomicLoad(&control[${A('pullBase')} + r])) + 1u;
      dst = partial_slot(t - firsts);
    }
    let chunks = pts_team_u(atomicLoad(&control[${A('pullChunks')} + r]));
    if (chunks == 0u) { continue; }
    // Chunk c gets the word slots [lo, hi): an even share of r's E and F lists.
    let slots = pts_team_u(atomicLoad(&control[${A('pullSlots')} + r]));
    let share = slots / chunks;
    let rest = slots % chunks;
    let lo = c * share + min(c, rest);
    let hi = lo + share + select(0u, 1u, c < rest);
    var status = 0u;
    var ordinal = 0u;
    var skipped = 0u;
    pull_cache_reset();
    ${scanSources('points', 'delta', pullDelta)}
    ${scanSources('delta', 'points', pullPoints)}
    if (pts_lane == 0u) {
      if (skipped > 0u) { atomicAdd(&control[${S('pullsSkipped')}], skipped); }
      if ((status & pts_CORRUPT) != 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }
    }`,
  })}`,
  )}
${teamKernel(
  'merge_partials',
  /* wgsl */ `
  // One level of the tree that folds a representative's chunks into N(r), ${1 << mergeBits} to a group: at
  // level L (shift = ${mergeBits}·L), the chunks c whose digit L (base ${1 << mergeBits}) is nonzero and whose lower
  // digits are 0 fold into c with digit L cleared (chunk 0 being N(r)); the team of the group's
  // first child (digit 1) adds its siblings' sets and its own, so each set is read or written by
  // one team per level, and every chunk's set reaches chunk 0 after ⌈log2 chunks / ${mergeBits}⌉ levels.
  let level = pts_team_u(atomicLoad(&control[${S('pullLevel')}]));
  let shift = min(level * ${mergeBits}u, 31u);
  // A level past what the most chunks of one representative need (queued on a guess) merges nothing.
  if ((1u << shift) >= pts_team_u(atomicLoad(&control[${S('pullMaxChunks')}]))) { return; }
  let extras = pts_team_u(min(atomicLoad(&control[${S('pullChunkCount')}]), params.chunk_capacity));
  let step = 1u << shift;
  for (var i = first_team; i < extras; i += team_stride) {
    let r = pts_team_u(atomicLoad(&control[pull_owner_word(i)]));
    if (r == NONE) { continue; }
    let base = pts_team_u(atomicLoad(&control[${A('pullBase')} + r]));
    let c = i - base + 1u;
    if ((c & (step - 1u)) != 0u || ((c >> shift) & ${(1 << mergeBits) - 1}u) != 1u) { continue; }
    let to = c - step;
    var dst = ${slot('pending', 'r')};
    if (to > 0u) { dst = partial_slot(base + to - 1u); }
    // The group's children: c, c + step, … while they are r's chunks.
    let chunks = pts_team_u(atomicLoad(&control[${A('pullChunks')} + r]));
    var status = 0u;
    for (var j = 0u; j < ${(1 << mergeBits) - 1}u; j++) {
      let child = c + j * step;
      if (child >= chunks) { break; }
      let src = partial_slot(base + child - 1u);
      if (pts_team_u(pts_heads[src]) == NONE) { continue; }
      status |= pts_union(dst, src);
    }
    if ((status & pts_CORRUPT) != 0u && pts_lane == 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }
  }${nextLevel('pullLevelDone', `atomicAdd(&control[${S('pullLevel')}], 1u);`)}`,
)}
`;
}

/** member_rules: loads, stores and offsets turn ΔP's members into worklist pairs. */
export function memberRulesWgsl(w: SolverWgsl): string {
  const { teamKernel, ruleSplit, ruleList, listLength, sweep, shareRules, A, S, forEachMemberByLane, slot } =
    w;
  return /* wgsl */ `${teamKernel(
    'member_rules',
    /* wgsl */ `
  // The loads, stores and offsets, ${ruleSplit} team(s) per rule (not per class: a large class's
  // rules spread over many teams), element k of the ΔP the rule reads going to team k mod
  // ${ruleSplit} (one team per rule left a large ΔP's members to one team's lanes, each member a
  // few dependent loads); each pushes worklist pairs for the new pointees it sees.
  let n = params.n;
  let list_limit = pts_team_u(pts_header.capacity) + 1u;${
    ruleList
      ? /* wgsl */ `
  // The rules of the rule list (pull_items built it: each reads a ΔP).
  let listed = pts_team_u(${listLength('rules')});`
      : ''
  }
  ${sweep({
    item: 'u',
    count: ruleList ? `listed * ${ruleSplit}u` : `params.hcd_start * ${ruleSplit}u`,
    test: ruleList ? 'true' : `rule_reads_delta(u / ${ruleSplit}u)`,
    body: /* wgsl */ `
    let c = ${ruleList ? `pts_team_u(atomicLoad(&control[rule_list_word(u / ${ruleSplit}u)]))` : `u / ${ruleSplit}u`};
    let part = u % ${ruleSplit}u;
    let rule = pts_team_u2(rule_table[c].xy);
    let k = pts_team_u(rule_table[c].z);
    // The sweep's test found the class whose ΔP the rule reads not empty (most rules read an
    // empty ΔP, and cost that one find).
    let is_store = rule.x == ${RULE_KIND.store}u;
    let reads = pts_team_u(rule_read_class(c));
    var r = reads;
    var other = reads;
    if (is_store) { other = pts_team_u(find(rule.y)); } else { r = pts_team_u(find(rule_table[c].w)); }
    ${
      shareRules
        ? /* wgsl */ `
    // Rules of one signature push the same pairs: one runs (in the CPU model of the rounds this
    // leaves 2–2.5× fewer pairs to sort and merge on php, 1.5–2× on linux).
    let lead = pts_team_u(atomicLoad(&control[${A('deltaLeader')} + reads]));
    if (rule_shared(c, vec4u(rule.x, select(r, other, is_store), lead, k))) {
      if (part == 0u && pts_lane == 0u) { atomicAdd(&control[${S('rulesShared')}], 1u); }
      continue;
    }`
        : ''
    }
    // The field class this lane pushed last for this rule (with the pair table): pointees in one
    // class give it in a row, and a repeat of it is the same pair (the rule fixes the rest),
    // skipped without a probe of the table.
    var last_field = NONE;
    let skip_repeats = params.pair_table_mask != 0u;
    if (rule.x == ${RULE_KIND.load}u) {
      // x = *(y + k): each new pointee o of y gives the copy⁻¹ source o + k of x.
      ${forEachMemberByLane(
        slot('delta', 'other'),
        /* wgsl */ `
        if (k < object_size(m)) {
          let field = find(m + k);
          if (field != r && !(skip_repeats && field == last_field)) {
            push_pair(2u * r + ${PAIR_POOL.edges}u, field);
            last_field = field;
          }
        }`,
        { part: 'part', parts: ruleSplit },
      )}
    } else if (rule.x == ${RULE_KIND.store}u) {
      // *(x + k) = y: each new pointee o of x gives the copy edge y → o + k (to o + k's owner).
      ${forEachMemberByLane(
        slot('delta', 'r'),
        /* wgsl */ `
        if (k < object_size(m)) {
          let field = find(m + k);
          if (field != other && !(skip_repeats && field == last_field)) {
            push_pair(2u * field + ${PAIR_POOL.edges}u, other);
            last_field = field;
          }
        }`,
        { part: 'part', parts: ruleSplit },
      )}
    } else {
      // x = y + k: each new pointee o of y gives o + k when k is inside o's object.
      ${forEachMemberByLane(
        slot('delta', 'other'),
        /* wgsl */ `
        if (k < object_size(m)) { push_pair(2u * r + ${PAIR_POOL.points}u, m + k); }`,
        { part: 'part', parts: ruleSplit },
      )}
    }`,
  })}`,
  )}
`;
}
