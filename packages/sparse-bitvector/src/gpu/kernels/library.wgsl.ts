import { poolHeaderWgsl, type WgslModule } from '@gpumorph/gpu-allocator';
import { hashFunctionsWgsl } from '@gpumorph/gpu-primitives';
import { MAX_BASE, STATUS_CHANGED, STATUS_CORRUPT, STATUS_INCOMPLETE } from '../layout';

/**
 * How a team of lanes works on one element at a time: `subgroup` (one subgroup per team, lane i
 * owns words i, i + size, …) or `workgroup` (a 32-invocation workgroup emulating a 32-lane team
 * through workgroup memory, for devices without subgroups or with a non-linear subgroup layout).
 *
 * @example
 * ```ts
 * const team: TeamKind = ctx.features.subgroups ? 'subgroup' : 'workgroup';
 * ```
 */
export type TeamKind = 'subgroup' | 'workgroup';

/**
 * Inputs of {@link sparseBitVectorLibraryWgsl}.
 *
 * @example
 * ```ts
 * const options: LibraryWgslOptions = { name: 'pts', team: 'workgroup', laneWords: 1,
 *   alloc: pool.allocWgsl('workgroup'), access: pool.accessWgsl() };
 * ```
 */
export interface LibraryWgslOptions {
  /** Prefix of the pool's WGSL names (the pool's `name`); the heads binding is `<name>_heads`. */
  readonly name: string;
  readonly team: TeamKind;
  /** Words a lane owns at most (`ceil(31 / lanes)` for the smallest team size). */
  readonly laneWords: number;
  /** The pool's `<name>_alloc` for this team kind and its `<name>_load` / `<name>_store`. */
  readonly alloc: WgslModule;
  readonly access: WgslModule;
  /** Also emit `<name>_decode`, which writes into a `<name>_members: array<u32>` binding. */
  readonly decode?: boolean;
  /**
   * `<name>_union` copies what is left of `src` once it has passed the end of `dst` a team's width
   * of elements at a time, with one allocation each (default true): the walk along `src` is then
   * the only chain of dependent loads. False: element by element, an allocation each (for measurements).
   */
  readonly batchTail?: boolean;
  /**
   * Issue the loads of an element that do not depend on its header (its words, its successor)
   * before the team waits for the header, so that a step of a list walk costs one memory round trip
   * instead of two or three (default true): the merges load the words of the destination element
   * they pass, in case its base matches, and the difference those of the source too; the union's
   * tail copy gathers a run of consecutive elements per round trip instead of one element. False
   * for measurements: each load where its value is first needed, one element per step.
   */
  readonly loadAhead?: boolean;
}

/** The team built-ins: lane, lane count, broadcast of lane 0's value, or / add / exclusive add. */
function teamWgsl(p: string, team: TeamKind): WgslModule {
  if (team === 'subgroup') {
    return {
      name: `gm_sbv_team_${p}_subgroup`,
      enables: ['subgroups'],
      // Teams call these in control flow that is uniform per subgroup by construction (every value
      // steering it went through a broadcast), which the analysis cannot see.
      diagnostics: ['off, subgroup_uniformity'],
      code: /* wgsl */ `
var<private> ${p}_lane: u32;
var<private> ${p}_lanes: u32;
fn ${p}_team_begin(lane: u32, lanes: u32) { ${p}_lane = lane; ${p}_lanes = lanes; }
fn ${p}_team_u(x: u32) -> u32 { return subgroupBroadcastFirst(x); }
fn ${p}_team_u2(x: vec2u) -> vec2u { return subgroupBroadcastFirst(x); }
fn ${p}_team_or(x: u32) -> u32 { return subgroupOr(x); }
fn ${p}_team_add(x: u32) -> u32 { return subgroupAdd(x); }
fn ${p}_team_exclusive_add(x: u32) -> u32 { return subgroupExclusiveAdd(x); }`,
    };
  }
  return {
    name: `gm_sbv_team_${p}_workgroup`,
    code: /* wgsl */ `
// A 32-lane team emulated by a 32-invocation workgroup. Every function has barriers: call them in
// workgroup-uniform control flow. Their results are uniform (workgroupUniformLoad).
var<private> ${p}_lane: u32;
const ${p}_lanes: u32 = 32u;
var<workgroup> ${p}_team_scratch: array<u32, 32>;
var<workgroup> ${p}_team_word: vec2u;
fn ${p}_team_begin(lane: u32, lanes: u32) { ${p}_lane = lane; }
fn ${p}_team_u2(x: vec2u) -> vec2u {
  workgroupBarrier();
  if (${p}_lane == 0u) { ${p}_team_word = x; }
  return workgroupUniformLoad(&${p}_team_word);
}
fn ${p}_team_u(x: u32) -> u32 { return ${p}_team_u2(vec2u(x, 0u)).x; }
fn ${p}_team_reduce(x: u32, is_or: bool) -> u32 {
  workgroupBarrier();
  ${p}_team_scratch[${p}_lane] = x;
  workgroupBarrier();
  if (${p}_lane == 0u) {
    var r = 0u;
    for (var i = 0u; i < 32u; i++) {
      let y = ${p}_team_scratch[i];
      r = select(r + y, r | y, is_or);
    }
    ${p}_team_word = vec2u(r, 0u);
  }
  return workgroupUniformLoad(&${p}_team_word).x;
}
fn ${p}_team_or(x: u32) -> u32 { return ${p}_team_reduce(x, true); }
fn ${p}_team_add(x: u32) -> u32 { return ${p}_team_reduce(x, false); }
fn ${p}_team_exclusive_add(x: u32) -> u32 {
  workgroupBarrier();
  ${p}_team_scratch[${p}_lane] = x;
  workgroupBarrier();
  var r = 0u;
  for (var i = 0u; i < ${p}_lane; i++) { r += ${p}_team_scratch[i]; }
  return r;
}`,
  };
}

/**
 * The WGSL library of one GPU sparse-bit-vector pool: functions one team runs together on one
 * 32-word element per step (lane i owns word i; with fewer lanes, lanes stride over the words).
 * Vectors are indices into the `<name>_heads` binding (one head element per vector).
 *
 * Every function must be called by all lanes of a team together, with team-uniform arguments
 * (values every lane has, e.g. after `<name>_team_u`), after `<name>_team_begin(lane, lanes)`:
 * - `<name>_union(dst, src) -> u32`, `<name>_difference(dst, src)`, `<name>_intersection(dst, src)`,
 *   `<name>_shifted_union(dst, src, offset, last)` (adds `m + offset` for each member `m` of `src`
 *   with `m + offset ≤ last`; `dst ≠ src`): status bits `CHANGED` 1, `INCOMPLETE` 2 (pool
 *   exhausted: nothing half-linked, re-run after growing), `CORRUPT` 4 (a list longer than the pool).
 * - `<name>_equals(a, b) -> bool`, `<name>_hash(v, seed) -> u32` (= `SparseBitVector.hash(seed)`),
 *   `<name>_count(v) -> u32`, and with `decode`, `<name>_decode(v, at) -> u32` (members in increasing
 *   order into `<name>_members[at …]`, returns the count).
 * Only the team owning `dst` may run a mutating function on it, and no other team may mutate a
 * vector while it is read.
 *
 * @example
 * ```ts
 * const module = sparseBitVectorLibraryWgsl({ name: 'pts', team: 'subgroup', laneWords: 8,
 *   alloc: pool.allocWgsl('subgroup'), access: pool.accessWgsl() });
 * const code = linkWgsl(myKernel, [module]);
 * ```
 */
export function sparseBitVectorLibraryWgsl(options: LibraryWgslOptions): WgslModule {
  const { name: p, team, laneWords: lw } = options;
  const NONE = '0xffffffffu';
  // Per-lane loop over the words `w` this lane owns below `limit`, `k` indexing its private copies.
  const laneLoop = (limit: number, body: string) => /* wgsl */ `
    for (var k = 0u; k < ${lw}u; k++) {
      let w = ${p}_lane + k * ${p}_lanes;
      if (w < ${limit}u) { ${body} }
    }`;
  const header = (e: string) => `${p}_team_u2(vec2u(${p}_load(${e}, 30u), ${p}_load(${e}, 31u)))`;
  const ahead = options.loadAhead !== false;
  // This lane's data words of element `e` into `into` (an array<u32, lw>).
  const loadWords = (into: string, e: string) => laneLoop(30, `${into}[k] = ${p}_load(${e}, w);`);
  const linkTo = (target: string) => /* wgsl */ `
        if (prev == ${NONE}) { ${p}_heads[v] = ${target}; } else { ${p}_store(prev, 31u, ${target}); }`;
  // Merges `mine` (this lane's words of an element with base `tb`) into list v at the cursor
  // (prev, d); afterwards d is the element of base tb (when mine was not empty).
  const merge = /* wgsl */ `
    var bits = 0u;
    for (var k = 0u; k < ${lw}u; k++) { bits |= mine[k]; }
    if (${p}_team_or(bits) != 0u) {
      var dh = vec2u(${NONE}, ${NONE});${
        ahead
          ? `
      var passed: array<u32, ${lw}>;`
          : ''
      }
      loop {
        if (d == ${NONE}) { break; }${ahead ? loadWords('passed', 'd') : ''}
        dh = ${header('d')};
        if (dh.x >= tb) { break; }
        prev = d;
        d = dh.y;
        steps++;
        if (steps > limit) { status |= ${p}_CORRUPT; break; }
      }
      if ((status & ${p}_CORRUPT) == 0u) {
        if (d != ${NONE} && dh.x == tb) {${laneLoop(
          30,
          `let a = ${ahead ? 'passed[k]' : `${p}_load(d, w)`};
        let n = a | mine[k];
        if (n != a) { ${p}_store(d, w, n); lane_changed = 1u; }`,
        )}
        } else {
          let e = ${p}_team_u(${p}_alloc(${p}_lane == 0u, ${p}_lane));
          if (e == GM_INVALID_ELEMENT) {
            status |= ${p}_INCOMPLETE;
          } else {
            at_end = d == ${NONE};${laneLoop(30, `${p}_store(e, w, mine[k]);`)}
            // Link only once the element is complete: an exhausted re-run never sees half an element.
            if (${p}_lane == 0u) {
              ${p}_store(e, 30u, tb);
              ${p}_store(e, 31u, d);${linkTo('e')}
            }
            d = e;
            status |= ${p}_CHANGED;
          }
        }
      }
    }`;
  const prologue = (dst: string) => /* wgsl */ `
  let limit = ${p}_team_u(${p}_header.capacity) * 4u + 64u;
  var status = 0u;
  var lane_changed = 0u;
  var steps = 0u;
  var prev = ${NONE};
  var d = ${p}_team_u(${p}_heads[${dst}]);
  let v = ${dst};
  var at_end = false;`;
  const epilogue = /* wgsl */ `
  if (${p}_team_or(lane_changed) != 0u) { status |= ${p}_CHANGED; }
  return status;`;
  const stop = `(status & (${p}_INCOMPLETE | ${p}_CORRUPT)) != 0u`;
  const batchTail = options.batchTail !== false;
  // The batch's elements, a run of consecutive ones per memory round trip: lane j from `filled` on
  // loads the successor of element t + j − filled, and a run lasts while each one's successor is
  // the next element (as copies and appends leave them; a scattered list fills one lane per trip,
  // as a plain walk does). Only members' successors decide: lane j's element is a member because
  // the lane before pointed to it, and src is not written during the union.
  const gatherRuns = /* wgsl */ `
        var filled = 0u;
        let gather_capacity = ${p}_team_u(${p}_header.capacity);
        loop {
          if (t == ${NONE} || filled >= ${p}_lanes) { break; }
          let candidate = t + (${p}_lane - filled);
          var successor = ${NONE};
          let looks = ${p}_lane >= filled && candidate < gather_capacity;
          if (looks) { successor = ${p}_load(candidate, 31u); }
          let broken = select(0u, 1u, ${p}_lane >= filled && (!looks || successor != candidate + 1u));
          let broken_before = ${p}_team_exclusive_add(broken);
          let member = ${p}_lane >= filled && broken_before == 0u;
          let run = ${p}_team_add(select(0u, 1u, member));
          if (member) { mine_element = candidate; }
          let last = filled + run - 1u;
          t = ${p}_team_or(select(0u, successor, ${p}_lane == last));
          filled += run;
          steps += run;
        }`;
  // Once dst has nothing at or past the cursor, the rest of src goes after prev as it is: lane j
  // copies the j-th element of the next batch (an empty one is dropped), the batch's elements are
  // claimed with one atomic and linked in order once complete, so an exhausted pool leaves dst
  // as it was before the batch.
  const tailCopy = /* wgsl */ `
    if (d == ${NONE}) {
      loop {
        if (s == ${NONE} || ${stop}) { break; }
        var mine_element = ${NONE};
        var t = s;${
          ahead
            ? gatherRuns
            : `
        for (var j = 0u; j < ${p}_lanes; j++) {
          if (t == ${NONE}) { break; }
          if (${p}_lane == j) { mine_element = t; }
          t = ${p}_team_u(${p}_load(t, 31u));
          steps++;
        }`
        }
        if (steps > limit) { status |= ${p}_CORRUPT; break; }
        var words: array<u32, 31>;
        var any = 0u;
        if (mine_element != ${NONE}) {
          for (var w = 0u; w < 31u; w++) { words[w] = ${p}_load(mine_element, w); }
          for (var w = 0u; w < 30u; w++) { any |= words[w]; }
        }
        let keep = select(0u, 1u, any != 0u);
        let rank = ${p}_team_exclusive_add(keep);
        let kept = ${p}_team_add(keep);
        if (kept > 0u) {
          var claimed = 0u;
          if (${p}_lane == 0u) { claimed = ${p}_claim(kept); }
          let first = ${p}_team_u(claimed);
          let capacity = ${p}_team_u(${p}_header.capacity);
          if (first >= capacity || kept > capacity - first) {
            status |= ${p}_INCOMPLETE;
            break;
          }
          if (keep != 0u) {
            let e = first + rank;
            for (var w = 0u; w < 31u; w++) { ${p}_store(e, w, words[w]); }
            ${p}_store(e, 31u, select(e + 1u, ${NONE}, rank + 1u == kept));
          }
          if (${p}_lane == 0u) {${linkTo('first')}
          }
          prev = first + kept - 1u;
          status |= ${p}_CHANGED;
        }
        s = t;
      }
      break;
    }`;

  const combine = (fn: string, intersect: boolean) => /* wgsl */ `
fn ${p}_${fn}(dst: u32, src: u32) -> u32 {
  if (dst == src) {${
    intersect
      ? ' return 0u;'
      : `
    let h = ${p}_team_u(${p}_heads[dst]);
    if (h == ${NONE}) { return 0u; }
    if (${p}_lane == 0u) { ${p}_heads[dst] = ${NONE}; }
    return ${p}_CHANGED;`
  }
  }${prologue('dst')}
  var s = ${p}_team_u(${p}_heads[src]);
  loop {
    if (d == ${NONE} || ${stop}) { break; }
    if (s == ${NONE}) {${
      intersect
        ? `
      // Nothing left to match: drop the rest of the list.${linkTo(NONE)}
      status |= ${p}_CHANGED;`
        : ''
    }
      break;
    }
${
  ahead
    ? `
    // Both elements' words load before the headers are waited for: used when the bases match.
    var dw: array<u32, ${lw}>;
    var sw: array<u32, ${lw}>;${loadWords('dw', 'd')}`
    : ''
}
    let dh = ${header('d')};
    var sh = vec2u(${NONE}, ${NONE});
    loop {
      if (s == ${NONE}) { break; }${ahead ? loadWords('sw', 's') : ''}
      sh = ${header('s')};
      if (sh.x >= dh.x) { break; }
      s = sh.y;
      steps++;
      if (steps > limit) { status |= ${p}_CORRUPT; break; }
    }
    if (${stop}) { break; }
    var keep = ${intersect ? 'false' : 'true'};
    if (s != ${NONE} && sh.x == dh.x) {
      var any = 0u;${laneLoop(
        30,
        `let a = ${ahead ? 'dw[k]' : `${p}_load(d, w)`};
        let n = a & ${intersect ? '' : '~'}${ahead ? 'sw[k]' : `${p}_load(s, w)`};
        if (n != a) { ${p}_store(d, w, n); lane_changed = 1u; }
        any |= n;`,
      )}
      keep = ${p}_team_or(any) != 0u;
    }
    if (keep) {
      prev = d;
    } else {
      // The element is empty now (or has no counterpart): unlink it; the bump pool never reuses it.
      if (${p}_lane == 0u) {${linkTo('dh.y')}
      }
      status |= ${p}_CHANGED;
    }
    d = dh.y;
    steps++;
    if (steps > limit) { status |= ${p}_CORRUPT; }
  }${epilogue}
}`;

  const decode = options.decode
    ? /* wgsl */ `
fn ${p}_decode(v: u32, at: u32) -> u32 {
  let limit = ${p}_team_u(${p}_header.capacity) + 1u;
  var steps = 0u;
  var out = at;
  var e = ${p}_team_u(${p}_heads[v]);
  loop {
    if (e == ${NONE} || steps > limit) { break; }${
      ahead
        ? `
    var words: array<u32, ${lw}>;${loadWords('words', 'e')}`
        : ''
    }
    let eh = ${header('e')};
    let origin = eh.x * ${960}u;
    for (var k = 0u; k * ${p}_lanes < 30u; k++) {
      let w = ${p}_lane + k * ${p}_lanes;
      var word = 0u;
      if (w < 30u) { word = ${ahead ? 'words[k]' : `${p}_load(e, w)`}; }
      let c = countOneBits(word);
      var pos = out + ${p}_team_exclusive_add(c);
      while (word != 0u) {
        ${p}_members[pos] = origin + w * 32u + firstTrailingBit(word);
        pos++;
        word &= word - 1u;
      }
      out += ${p}_team_add(c);
    }
    e = eh.y;
    steps++;
  }
  return out - at;
}`
    : '';

  return {
    name: `gm_sbv_library_${p}_${team}_${lw}${options.decode ? '_decode' : ''}`,
    requires: [poolHeaderWgsl, hashFunctionsWgsl, teamWgsl(p, team), options.alloc, options.access],
    code: /* wgsl */ `
const ${p}_CHANGED: u32 = ${STATUS_CHANGED}u;
const ${p}_INCOMPLETE: u32 = ${STATUS_INCOMPLETE}u;
const ${p}_CORRUPT: u32 = ${STATUS_CORRUPT}u;
const ${p}_MAX_BASE: u32 = ${MAX_BASE}u;

fn ${p}_union(dst: u32, src: u32) -> u32 {
  if (dst == src) { return 0u; }${prologue('dst')}
  var s = ${p}_team_u(${p}_heads[src]);
  var mine: array<u32, ${lw}>;
  loop {
    if (s == ${NONE} || ${stop}) { break; }${batchTail ? tailCopy : ''}
${
  ahead
    ? `${loadWords('mine', 's')}
    let sh = ${header('s')};
    let tb = sh.x;`
    : `
    let sh = ${header('s')};
    let tb = sh.x;${loadWords('mine', 's')}`
}
    ${merge}${
      batchTail
        ? `
    // Appended past the end: src's bases only grow, so the cursor moves past the new element.
    if (at_end) { prev = d; d = ${NONE}; at_end = false; }`
        : ''
    }
    s = sh.y;
    steps++;
    if (steps > limit) { status |= ${p}_CORRUPT; }
  }${epilogue}
}

// Bit i of the result is bit (start + i) of element s's 960 bits (zero outside them).
fn ${p}_bits_at(s: u32, start: i32) -> u32 {
  let lo = start >> 5u;
  let sh = u32(start & 31);
  var a = 0u;
  var b = 0u;
  if (lo >= 0 && lo < 30) { a = ${p}_load(s, u32(lo)); }
  if (lo + 1 >= 0 && lo + 1 < 30) { b = ${p}_load(s, u32(lo + 1)); }
  if (sh == 0u) { return a; }
  return (a >> sh) | (b << (32u - sh));
}

fn ${p}_shifted_union(dst: u32, src: u32, offset: u32, last: u32) -> u32 {${prologue('dst')}
  var s = ${p}_team_u(${p}_heads[src]);
  var mine: array<u32, ${lw}>;
  let q = offset / 960u;
  let r = i32(offset % 960u);
  let last_base = last / 960u;
  loop {
    if (s == ${NONE} || ${stop}) { break; }
    let sh = ${header('s')};
    // Bases only grow along the list: once past the bound, nothing further fits.
    if (sh.x + q > last_base) { break; }
    // Element sh.x shifted by offset lands in the elements of base sh.x + q and sh.x + q + 1.
    for (var delta = 0u; delta < 2u; delta++) {
      let tb = sh.x + q + delta;
      if (tb > last_base || ${stop}) { break; }
      let rel = last - tb * 960u;${laneLoop(
        30,
        `var word = ${p}_bits_at(s, i32(w * 32u + delta * 960u) - r);
        let first = w * 32u;
        if (rel < first) { word = 0u; } else if (rel - first < 31u) { word &= (2u << (rel - first)) - 1u; }
        mine[k] = word;`,
      )}
      ${merge}
    }
    s = sh.y;
    steps++;
    if (steps > limit) { status |= ${p}_CORRUPT; }
  }${epilogue}
}
${combine('difference', false)}
${combine('intersection', true)}

fn ${p}_equals(a: u32, b: u32) -> bool {
  let limit = ${p}_team_u(${p}_header.capacity) + 1u;
  var steps = 0u;
  var x = ${p}_team_u(${p}_heads[a]);
  var y = ${p}_team_u(${p}_heads[b]);
  loop {
    if (x == ${NONE} || y == ${NONE} || x == y || steps > limit) { break; }
${
  ahead
    ? `
    // The successors load with the words: the team waits once per step.
    let x_next = ${p}_load(x, 31u);
    let y_next = ${p}_load(y, 31u);`
    : ''
}
    var diff = 0u;${laneLoop(31, `diff |= ${p}_load(x, w) ^ ${p}_load(y, w);`)}
    if (${p}_team_or(diff) != 0u) { return false; }
    x = ${p}_team_u(${ahead ? 'x_next' : `${p}_load(x, 31u)`});
    y = ${p}_team_u(${ahead ? 'y_next' : `${p}_load(y, 31u)`});
    steps++;
  }
  return x == y;
}

fn ${p}_count(v: u32) -> u32 {
  let limit = ${p}_team_u(${p}_header.capacity) + 1u;
  var steps = 0u;
  var n = 0u;
  var e = ${p}_team_u(${p}_heads[v]);
  loop {
    if (e == ${NONE} || steps > limit) { break; }${
      ahead
        ? `
    let next = ${p}_load(e, 31u);`
        : ''
    }${laneLoop(30, `n += countOneBits(${p}_load(e, w));`)}
    e = ${p}_team_u(${ahead ? 'next' : `${p}_load(e, 31u)`});
    steps++;
  }
  return ${p}_team_add(n);
}

// MurmurHash3 over each element's base, then its 30 words (SparseBitVector.hash). The mixing is a
// chain, so lane 0 runs it and the team gets the result.
fn ${p}_hash(v: u32, seed: u32) -> u32 {
  var h = seed;
  if (${p}_lane == 0u) {
    let limit = ${p}_header.capacity + 1u;
    var length = 0u;
    var steps = 0u;
    for (var e = ${p}_heads[v]; e != ${NONE} && steps <= limit; e = ${p}_load(e, 31u)) {
      h = gm_hash_mix(h, ${p}_load(e, 30u));
      for (var w = 0u; w < 30u; w++) { h = gm_hash_mix(h, ${p}_load(e, w)); }
      length += 124u;
      steps++;
    }
    h = gm_hash_finish(h, length);
  }
  return ${p}_team_u(h);
}
${decode}`,
  };
}
