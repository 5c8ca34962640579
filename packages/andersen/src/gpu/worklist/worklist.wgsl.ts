import { BASE_WORD, BITS_WORDS, MEMBERS_PER_ELEMENT, NEXT_WORD } from '@gpumorph/sparse-bitvector';
import { LIST_WORD, PAIR_POOL, THREAD_WORKGROUP } from '../layout';
import type { SolverWgsl } from '../module/context';
import { SMALL_SORT_THREADS, smallSortCapacity } from './sizes';

/**
 * Pool `p`'s insertion of the sources `pair_values[start, end)`, sorted by element base, into a
 * vector in one walk of its list (one invocation; the same for both pools).
 */
function insertSortedOfPoolWgsl(p: 'pts' | 'edg'): string {
  return /* wgsl */ `// Adds the sources pair_values[start, end), sorted by element base, to vector v in one walk of its
// list (adjacent duplicates are skipped): 1 when something was added, 2 when the pool ran out.
fn ${p}_insert_sorted(v: u32, start: u32, end: u32) -> u32 {
  var status = 0u;
  var prev = NONE;
  var e = ${p}_heads[v];
  var last = NONE;
  for (var i = start; i < end; i++) {
    let m = pair_values[i];
    if (m == last) { continue; }
    last = m;
    let base = m / ${MEMBERS_PER_ELEMENT}u;
    let word = (m % ${MEMBERS_PER_ELEMENT}u) / 32u;
    let mask = 1u << (m % 32u);
    loop {
      if (e == NONE) { break; }
      if (${p}_load(e, ${BASE_WORD}u) >= base) { break; }
      prev = e;
      e = ${p}_load(e, ${NEXT_WORD}u);
    }
    if (e != NONE && ${p}_load(e, ${BASE_WORD}u) == base) {
      let old = ${p}_load(e, word);
      if ((old & mask) == 0u) { ${p}_store(e, word, old | mask); status |= 1u; }
      continue;
    }
    let fresh = ${p}_alloc_single(true);
    if (fresh == GM_INVALID_ELEMENT) { return status | 2u; }
    for (var w = 0u; w < ${BITS_WORDS}u; w++) { ${p}_store(fresh, w, select(0u, mask, w == word)); }
    ${p}_store(fresh, ${BASE_WORD}u, base);
    ${p}_store(fresh, ${NEXT_WORD}u, e);
    if (prev == NONE) { ${p}_heads[v] = fresh; } else { ${p}_store(prev, ${NEXT_WORD}u, fresh); }
    e = fresh;
    status |= 1u;
  }
  return status;
}

`;
}

/** Each pool's insertion of a sorted run of sources in one walk of a list. */
export function insertSortedWgsl(_w: SolverWgsl): string {
  return `${insertSortedOfPoolWgsl('pts')}${insertSortedOfPoolWgsl('edg')}`;
}

/** The search past a source's copies and each pool's team merge of a sorted run (subgroup teams). */
export function mergeSortedRunsWgsl(w: SolverWgsl): string {
  const { subgroups, lw } = w;
  return /* wgsl */ `${
    subgroups
      ? `
// Where the next window of a sorted run starts: past every copy of the source just before \`next\`
// (the worklist repeats sources many times, 34× on perl), found by a search that narrows the span
// by the team's width each step, instead of one window per 32 copies (subgroup teams only).
fn skip_copies(next: u32, end: u32) -> u32 {
  if (next >= end) { return next; }
  let last = pair_values[next - 1u];
  if (pair_values[next] != last) { return next; }
  // Invariant: pair_values[lo] == last, and hi == end or pair_values[hi] != last.
  var lo = next;
  var hi = end;
  loop {
    if (hi - lo <= 1u) { break; }
    let step = (hi - lo + pts_lanes - 1u) / pts_lanes;
    let probe = min(lo + step * (pts_lane + 1u), hi);
    let differs = probe >= end || pair_values[probe] != last;
    let first = subgroupMin(select(NONE, pts_lane, differs));
    let new_hi = min(lo + step * (first + 1u), hi);
    if (first > 0u) { lo = min(lo + step * first, hi); }
    hi = new_hi;
  }
  return hi;
}

${mergeSortedWgsl('pts', lw)}
${mergeSortedWgsl('edg', lw)}
`
      : ''
  }

`;
}

/** Sets' element counts, a worklist pair's push, and the update's skip flag. */
export function pairsWgsl(w: SolverWgsl): string {
  const { S } = w;
  return /* wgsl */ `fn pts_elements(v: u32) -> u32 {
  var count = 0u;
  for (var e = pts_heads[v]; e != NONE && count <= pts_header.capacity; e = pts_load(e, ${NEXT_WORD}u)) { count++; }
  return count;
}

// Whether set v has at most \`limit\` elements, walking no more than limit + 1 of them.
fn pts_elements_at_most(v: u32, limit: u32) -> bool {
  var count = 0u;
  for (var e = pts_heads[v]; e != NONE; e = pts_load(e, ${NEXT_WORD}u)) {
    count++;
    if (count > limit) { return false; }
  }
  return true;
}

fn edg_elements(v: u32) -> u32 {
  var count = 0u;
  for (var e = edg_heads[v]; e != NONE && count <= edg_header.capacity; e = edg_load(e, ${NEXT_WORD}u)) { count++; }
  return count;
}

// One entry of the worklist: \`source\` goes into the pending set named by \`key\` (2·node + pool).
// The host sorts the worklist by key and source >> 5 (the source's element base and word);
// apply_pairs then merges each run in one walk.
fn push_pair(key: u32, source: u32) {
  if (params.pair_table_mask != 0u) {
    // A pair already in the table is not pushed again. Loads and stores whose pointees fall into
    // one class push one pair many times (on php's large rounds a key gets over a million pairs
    // from under two thousand sources), each a slot of the sort and a step of the key's merge. The
    // table only ever skips an exact repeat: a slot's key word is claimed once per attempt, its
    // source word (cleared with it by delta_clear) holds NONE or the claimer's source, so a match of
    // both words is the same pair; a claimed slot whose source is not written yet, a spurious
    // compare-exchange failure or a full probe sequence only push a duplicate, which the merge skips.
    var at = gm_hash_mix(gm_hash_mix(0x9e3779b9u, key), source) & params.pair_table_mask;
    for (var probe = 0u; probe < 8u; probe++) {
      let word = pair_table_word(at);
      let slot = atomicCompareExchangeWeak(&control[word], NONE, key);
      if (slot.exchanged) {
        atomicStore(&control[word + 1u], source);
        break;
      }
      if (slot.old_value == key && atomicLoad(&control[word + 1u]) == source) { return; }
      at = (at + 1u) & params.pair_table_mask;
    }
  }
  let at = atomicAdd(&control[${S('pairCount')}], 1u);
  if (at >= params.pair_capacity) { return; }
  // With base_bits > 0 the sort key is (key, source's word group) in one word (source >> 5 is the
  // element base · 30 + the word its bit is in); otherwise the host sorts by that group, then
  // stably by key. Either way a key's run is ordered by group, each group's sources adjacent.
  if (params.base_bits == 0u) { pair_keys[at] = key; } else { pair_keys[at] = (key << params.base_bits) | (source >> 5u); }
  pair_values[at] = source;
}

fn skip_update() -> bool { return atomicLoad(&control[${S('skipUpdate')}]) != 0u; }

`;
}

/** The active lists: appends by workgroup and their closing. */
export function activeListsWgsl(_w: SolverWgsl): string {
  return /* wgsl */ `// The active lists (see ACTIVE_LIST): a workgroup's items are appended with one global atomic.
var<workgroup> list_group_total: atomic<u32>;
var<workgroup> list_group_base: u32;
var<workgroup> list_group_count: u32;
// Appends \`value\` to the list whose counter is control word \`counter\` (its array starting at word
// \`array\`) when \`keep\` holds. Every invocation of the workgroup calls it, in uniform control flow.
fn list_append(counter: u32, array: u32, keep: bool, value: u32, lid: u32) {
  if (lid == 0u) { atomicStore(&list_group_total, 0u); }
  workgroupBarrier();
  var at = 0u;
  if (keep) { at = atomicAdd(&list_group_total, 1u); }
  workgroupBarrier();
  if (lid == 0u) {
    let total = atomicLoad(&list_group_total);
    var base = 0u;
    if (total > 0u) { base = atomicAdd(&control[counter], total); }
    list_group_base = base;
  }
  let base = workgroupUniformLoad(&list_group_base);
  if (keep) { atomicStore(&control[array + base + at], value); }
}
// Closes the list whose words start at \`list\` (LIST_WORD), once its readers have run: the items
// they had work for (read back by the host, which launches about twice as many next round), and
// its counter back at 0 for the next build (the host uploads the counters as 0).
fn close_list(list: u32, extra_items: u32) {
  let length = atomicLoad(&control[list + ${LIST_WORD.counter}u]);
  // A list closed already (sort_gate run again before a missed guess's update) or left empty
  // keeps its items: the next launch is larger than it needs, never short.
  if (length == 0u) { return; }
  atomicStore(&control[list + ${LIST_WORD.counter}u], 0u);
  atomicStore(&control[list + ${LIST_WORD.items}u], length + extra_items);
}

`;
}

/** sort_small: a short worklist sorted in one workgroup. */
export function sortSmallWgsl(w: SolverWgsl): string {
  const { sortItems, gateUpdate, groupRulesGate, S } = w;
  return /* wgsl */ `var<workgroup> small_keys: array<u32, ${smallSortCapacity(sortItems)}>;
var<workgroup> small_values: array<u32, ${smallSortCapacity(sortItems)}>;
var<workgroup> small_zeros: array<u32, ${SMALL_SORT_THREADS}>;

// A worklist of at most ${smallSortCapacity(sortItems)} pairs sorted by (key, source's word group) in one workgroup,
// in place of the radix sort's dozen dispatches: a stable split by one bit per pass, least
// significant first (params.sort_value_bits bits of the sources from bit 5, their word group, then
// the keys' params.sort_key_bits bits).
// Invocation t holds pairs [${sortItems}t, ${sortItems}t + ${sortItems}); the slots past the pairs hold the largest
// key and source, so they stay after every pair and are not written back.
@compute @workgroup_size(${SMALL_SORT_THREADS})
fn sort_small(@builtin(local_invocation_index) lid: u32) {${gateUpdate ? groupRulesGate : ''}
  let count = atomicLoad(&control[${S('sortedCount')}]);
  var keys: array<u32, ${sortItems}>;
  var values: array<u32, ${sortItems}>;
  for (var i = 0u; i < ${sortItems}u; i++) {
    let at = lid * ${sortItems}u + i;
    keys[i] = 0xffffffffu;
    values[i] = 0xffffffffu;
    if (at < count) {
      keys[i] = pair_keys[at];
      values[i] = pair_values[at];
    }
  }
  let passes = params.sort_value_bits + params.sort_key_bits;
  for (var round = 0u; round < passes; round++) {
    let on_value = round < params.sort_value_bits;
    let bit = select(round - params.sort_value_bits, round + 5u, on_value);
    var zeros = 0u;
    for (var i = 0u; i < ${sortItems}u; i++) {
      zeros += 1u - ((select(keys[i], values[i], on_value) >> bit) & 1u);
    }
    // Inclusive scan of the invocations' zero counts.
    small_zeros[lid] = zeros;
    workgroupBarrier();
    for (var offset = 1u; offset < ${SMALL_SORT_THREADS}u; offset <<= 1u) {
      var add = 0u;
      if (lid >= offset) { add = small_zeros[lid - offset]; }
      workgroupBarrier();
      small_zeros[lid] += add;
      workgroupBarrier();
    }
    let total_zeros = small_zeros[${SMALL_SORT_THREADS - 1}u];
    var zero_at = small_zeros[lid] - zeros;
    var one_at = total_zeros + lid * ${sortItems}u - zero_at;
    for (var i = 0u; i < ${sortItems}u; i++) {
      var to = one_at;
      if (((select(keys[i], values[i], on_value) >> bit) & 1u) == 0u) {
        to = zero_at;
        zero_at++;
      } else {
        one_at++;
      }
      small_keys[to] = keys[i];
      small_values[to] = values[i];
    }
    workgroupBarrier();
    for (var i = 0u; i < ${sortItems}u; i++) {
      keys[i] = small_keys[lid * ${sortItems}u + i];
      values[i] = small_values[lid * ${sortItems}u + i];
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < ${sortItems}u; i++) {
    let at = lid * ${sortItems}u + i;
    if (at < count) {
      pair_keys[at] = keys[i];
      pair_values[at] = values[i];
    }
  }
}
`;
}

/** The worklist's runs merged into the pending sets, and the pending list. */
export function applyPairsWgsl(w: SolverWgsl): string {
  const {
    threadKernel,
    activeLists,
    S,
    A,
    L,
    pendingListBody,
    subgroups,
    teamKernel,
    sweep,
    listLength,
    slot,
  } = w;
  return /* wgsl */ `${threadKernel(
    'mark_segments',
    activeLists
      ? /* wgsl */ `
  // Each key's run of the sorted worklist, and the list of the keys that have one (apply_pairs
  // runs over it).
  if (lid == 0u) { list_group_count = atomicLoad(&control[${S('sortedCount')}]); }
  let count = workgroupUniformLoad(&list_group_count);
  for (var start = gm_workgroup_index(wid, nwg) * ${THREAD_WORKGROUP}u; start < count; start += item_stride) {
    let i = start + lid;
    var begins = false;
    var key = 0u;
    if (i < count) {
      key = pair_keys[i] >> params.base_bits;
      begins = i == 0u || (pair_keys[i - 1u] >> params.base_bits) != key;
      if (begins) { atomicStore(&control[${A('segmentStart')} + key], i); }
      if (i + 1u == count || (pair_keys[i + 1u] >> params.base_bits) != key) { atomicStore(&control[${A('segmentEnd')} + key], i + 1u); }
    }
    list_append(${L('segments')}, ${A('segmentList')}, begins, key, lid);
  }`
      : /* wgsl */ `
  let count = atomicLoad(&control[${S('sortedCount')}]);
  for (var i = first_item; i < count; i += item_stride) {
    let key = pair_keys[i] >> params.base_bits;
    if (i == 0u || (pair_keys[i - 1u] >> params.base_bits) != key) { atomicStore(&control[${A('segmentStart')} + key], i); }
    if (i + 1u == count || (pair_keys[i + 1u] >> params.base_bits) != key) { atomicStore(&control[${A('segmentEnd')} + key], i + 1u); }
  }`,
  )}
${threadKernel(
  'pending_list',
  /* wgsl */ `
  if (lid == 0u) { list_group_count = select(0u, 1u, skip_update()); }
  if (workgroupUniformLoad(&list_group_count) != 0u) { return; }${pendingListBody}`,
)}
${threadKernel(
  'guard_pending',
  /* wgsl */ `
  // guard_update and pending_list in one dispatch: the list is built whether or not the guard lets
  // the update commit (a skipped update's kernels ignore it, and guard_merge closes it, so that the
  // host's redo builds it afresh).
  if (gm_workgroup_index(wid, nwg) == 0u && lid == 0u) { guard_update_part(); }${pendingListBody}`,
)}
${
  subgroups
    ? teamKernel(
        'apply_pairs',
        /* wgsl */ `
  ${sweep({
    item: activeLists ? 'i' : 'key',
    count: activeLists ? `pts_team_u(${listLength('segments')})` : '2u * params.n',
    test: activeLists ? 'true' : `atomicLoad(&control[${A('segmentStart')} + key]) != NONE`,
    body: /* wgsl */ `${
      activeLists
        ? `
    let key = pts_team_u(atomicLoad(&control[${A('segmentList')} + i]));`
        : ''
    }
    let start = pts_team_u(atomicLoad(&control[${A('segmentStart')} + key]));
    let end = pts_team_u(atomicLoad(&control[${A('segmentEnd')} + key]));
    if (pts_lane == 0u) { atomicStore(&control[${A('segmentStart')} + key], NONE); }
    let v = ${slot('pending', 'key >> 1u')};
    var status = 0u;
    if ((key & 1u) == ${PAIR_POOL.points}u) { status = pts_merge_sorted(v, start, end); } else { status = edg_merge_sorted(v, start, end); }
    if ((status & pts_CORRUPT) != 0u && pts_lane == 0u) { atomicOr(&control[${S('fatal')}], FATAL_CORRUPT); }`,
  })}`,
      )
    : threadKernel(
        'apply_pairs',
        /* wgsl */ `
  for (var item = first_item; item < ${activeLists ? listLength('segments') : '2u * params.n'}; item += item_stride) {
    let key = ${activeLists ? `atomicLoad(&control[${A('segmentList')} + item])` : 'item'};
    let start = atomicLoad(&control[${A('segmentStart')} + key]);
    if (start == NONE) { continue; }
    atomicStore(&control[${A('segmentStart')} + key], NONE);
    let end = atomicLoad(&control[${A('segmentEnd')} + key]);
    let v = ${slot('pending', 'key >> 1u')};
    if ((key & 1u) == ${PAIR_POOL.points}u) { _ = pts_insert_sorted(v, start, end); } else { _ = edg_insert_sorted(v, start, end); }
  }`,
      )
}
`;
}

/**
 * WGSL of `<p>_merge_sorted(v, start, end) -> u32` for pool `p` (subgroup teams only): the team
 * merges the sources `pair_values[start, end)`, ordered by word group (source >> 5), into vector
 * `v`. Each step takes one source per lane, and for each element base among them (smallest
 * first) ORs the members into the list at a cursor that only moves forward. Once the cursor is
 * past the list's last element every base left in the window is new and comes in order, so the
 * team appends them all with one allocation (contiguous elements, linked in order) instead of one
 * allocation and 30 subgroup reductions per base.
 */
export function mergeSortedWgsl(p: 'pts' | 'edg', laneWords: number): string {
  const append = /* wgsl */ `
      } else if (d == NONE) {
        // Every base left in the window is new: lane ranks give the bases consecutive elements
        // (a subgroup team's alloc hands out one block, ranked by subgroupExclusiveAdd).
        let base_before = subgroupShuffleUp(my_base, 1u);
        let rest = my_base != NONE;
        let base_lead = rest && (${p}_lane == 0u || base_before != my_base);
        let fresh = ${p}_alloc(base_lead, ${p}_lane);
        if (subgroupOr(select(0u, 1u, base_lead && fresh == GM_INVALID_ELEMENT)) != 0u) { return status | ${p}_INCOMPLETE; }
        let first = subgroupMin(select(NONE, fresh, base_lead));
        let total = subgroupAdd(select(0u, 1u, base_lead));
        let element = first + subgroupInclusiveAdd(select(0u, 1u, base_lead)) - 1u;
        // The words each base's leads write (a segmented OR by base, like the bits above): the
        // first lane of a base zeroes the others, so that every word is written once.
        var written = select(0u, 1u << my_word, leads && rest);
        for (var off = 1u; off < ${p}_lanes; off *= 2u) {
          let other_written = subgroupShuffleDown(written, off);
          let other_base = subgroupShuffleDown(my_base, off);
          if (${p}_lane + off < ${p}_lanes && other_base == my_base) { written |= other_written; }
        }
        if (leads && rest) { ${p}_store(element, my_word, my_bits); }
        if (base_lead) {
          for (var w = 0u; w < ${BITS_WORDS}u; w++) {
            if ((written & (1u << w)) == 0u) { ${p}_store(element, w, 0u); }
          }
          ${p}_store(element, ${BASE_WORD}u, my_base);
          ${p}_store(element, ${NEXT_WORD}u, select(element + 1u, NONE, element == first + total - 1u));
        }
        if (${p}_lane == 0u) {
          if (prev == NONE) { ${p}_heads[v] = first; } else { ${p}_store(prev, ${NEXT_WORD}u, first); }
        }
        let last = first + total - 1u;
        if (total > 1u) { prev = last - 1u; }
        d = last;
        status |= ${p}_CHANGED;
        my_base = NONE;
        continue;`;
  return /* wgsl */ `
// The team merges the sources pair_values[start, end), ordered by word group (source >> 5), into
// vector v: each step takes one source per lane, and for each element base among them (smallest
// first) ORs the members into the list at a cursor that only moves forward, appending the bases past its end together (subgroup teams only).
fn ${p}_merge_sorted(v: u32, start: u32, end: u32) -> u32 {
  var status = 0u;
  var prev = NONE;
  var d = ${p}_team_u(${p}_heads[v]);
  let limit = ${p}_team_u(${p}_header.capacity) * 4u + 64u;
  var steps = 0u;
  var c = start;
  loop {
    if (c >= end) { break; }
    let i = c + ${p}_lane;
    var m = NONE;
    if (i < end) { m = pair_values[i]; }
    var my_base = NONE;
    if (m != NONE) { my_base = m / ${MEMBERS_PER_ELEMENT}u; }
    let my_word = (m % ${MEMBERS_PER_ELEMENT}u) / 32u;
    // The window is ordered by word group, so the lanes of one (base, word) are adjacent (repeats
    // included, which OR nothing new): a segmented OR leaves each such run's bits in its first
    // lane, which alone writes that word below — one shuffle per doubling instead of 30 subgroup
    // ORs per base.
    let my_key = select(NONE, my_base * ${BITS_WORDS}u + my_word, m != NONE);
    var my_bits = select(0u, 1u << (m % 32u), m != NONE);
    for (var off = 1u; off < ${p}_lanes; off *= 2u) {
      let other_bits = subgroupShuffleDown(my_bits, off);
      let other_key = subgroupShuffleDown(my_key, off);
      if (${p}_lane + off < ${p}_lanes && other_key == my_key) { my_bits |= other_bits; }
    }
    let key_before = subgroupShuffleUp(my_key, 1u);
    let leads = my_key != NONE && (${p}_lane == 0u || key_before != my_key);
    loop {
      let b = subgroupMin(my_base);
      if (b == NONE) { break; }
      var dh = vec2u(NONE, NONE);
      var passed_word = 0u;
      loop {
        if (d == NONE) { break; }
        // The lane's word of the element passed, in case its base is b: loaded with the header.
        passed_word = ${p}_load(d, my_word);
        dh = ${p}_team_u2(vec2u(${p}_load(d, ${BASE_WORD}u), ${p}_load(d, ${NEXT_WORD}u)));
        if (dh.x >= b) { break; }
        prev = d;
        d = dh.y;
        steps++;
        if (steps > limit) { return status | ${p}_CORRUPT; }
      }
      if (d != NONE && dh.x == b) {
        if (leads && my_base == b) {
          let a = passed_word;
          let n = a | my_bits;
          if (n != a) { ${p}_store(d, my_word, n); }
        }${append}
      } else {
        // A new element (the set's first member of this base): every one of its words from the window.
        var mine: array<u32, ${laneWords}>;
        for (var w = 0u; w < ${BITS_WORDS}u; w++) {
          let x = subgroupOr(select(0u, my_bits, leads && my_base == b && my_word == w));
          if (w % ${p}_lanes == ${p}_lane) { mine[w / ${p}_lanes] = x; }
        }
        let fresh = ${p}_team_u(${p}_alloc(${p}_lane == 0u, ${p}_lane));
        if (fresh == GM_INVALID_ELEMENT) { return status | ${p}_INCOMPLETE; }
        for (var k = 0u; k < ${laneWords}u; k++) {
          let w = ${p}_lane + k * ${p}_lanes;
          if (w < ${BITS_WORDS}u) { ${p}_store(fresh, w, mine[k]); }
        }
        // Linked only once complete, as the library does.
        if (${p}_lane == 0u) {
          ${p}_store(fresh, ${BASE_WORD}u, b);
          ${p}_store(fresh, ${NEXT_WORD}u, d);
          if (prev == NONE) { ${p}_heads[v] = fresh; } else { ${p}_store(prev, ${NEXT_WORD}u, fresh); }
        }
        d = fresh;
        dh = vec2u(b, d);
        status |= ${p}_CHANGED;
      }
      if (my_base == b) { my_base = NONE; }
    }
    // Teams of both pools have the same width.
    c = skip_copies(c + pts_lanes, end);
  }
  return status;
}`;
}
