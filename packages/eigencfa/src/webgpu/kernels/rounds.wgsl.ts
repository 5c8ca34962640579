/**
 * WGSL of the WebGPU engine, built from the store geometry. One round is three dispatches:
 * `select` (calls whose rows changed in the previous round), `expand` ((call, λ) pairs from the
 * function rows of the selected calls) and `propagate` (σ(Arg1) into a_λ and σ(Arg2) into b_λ,
 * word-parallel, with atomicOr). The round number comes from a uniform at a dynamic offset (one
 * entry per round of the batch); counters alternate by the round's parity, and `select` clears the
 * other parity's for the next round, so no one-thread kernels or indirect dispatches are needed.
 * Races are benign (§5.3.4): rows only grow, and a row that gains a bit is labelled with the next
 * round, so every reader that may have read it stale is selected again.
 * @module
 */
import { STATE, type StoreGeometry, WORKGROUP } from '../layout';

const S = (name: keyof typeof STATE) => `${STATE[name]}u`;

/** The per-round uniform: `rnd.x` is the round number (1 for the first). */
export const ROUND_UNIFORM_WGSL = '@group(1) @binding(0) var<uniform> rnd: vec4<u32>;';

/** `loadWord(v, w)` and `orWord(v, w, bits)` over the chunked store. */
export function storeAccessWgsl(g: StoreGeometry): string {
  const branches = (body: (k: number, local: string) => string) => {
    const parts: string[] = [];
    for (let k = 0; k < g.chunks; k++) {
      const start = k * g.rowsPerChunk;
      const local = `(v - ${start}u) * ${g.words}u + w`;
      const cond = k === g.chunks - 1 ? '' : `if (v < ${start + g.rowsPerChunk}u) `;
      parts.push(`  ${cond}{ ${body(k, local)} }`);
    }
    return parts.join('\n');
  };
  return /* wgsl */ `
const LAMS: u32 = ${g.lams}u;
const CALLS: u32 = ${g.calls}u;
const WORDS: u32 = ${g.words}u;

// Word w of variable row v (row lams + v of the store).
fn loadWord(v: u32, w: u32) -> u32 {
${branches((k, local) => `return atomicLoad(&store${k}[${local}]);`)}
}

// ORs bits into word w of variable row v; returns the word's previous value.
fn orWord(v: u32, w: u32, bits: u32) -> u32 {
${branches((k, local) => `return atomicOr(&store${k}[${local}], bits);`)}
}

fn linearIndex(wg: vec3u, nwg: vec3u, lid: u32) -> u32 {
  return (wg.x + wg.y * nwg.x) * ${WORKGROUP}u + lid;
}
`;
}

/** Selects the calls of this round: all in round 1, then those with a row changed in the last round or flagged for retry. */
export function selectWgsl(bindings: string, g: StoreGeometry): string {
  return /* wgsl */ `${bindings}
${ROUND_UNIFORM_WGSL}
${storeAccessWgsl(g)}
fn changedSince(r: u32, round: u32) -> bool {
  if (r < LAMS) { return false; }
  return atomicLoad(&changedAt[r - LAMS]) >= round;
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let c = linearIndex(wg, nwg, lid);
  let round = rnd.x;
  let p = round & 1u;
  if (c == 0u) {
    // The other parity's counters were last used by the previous round, which is over: clear them for the next.
    atomicStore(&state[${S('activeCount0')} + (1u - p)], 0u);
    atomicStore(&state[${S('pairCount0')} + (1u - p)], 0u);
  }
  if (c >= CALLS) { return; }
  // After a round without change (and without overflow) nothing can be selected: leave at once.
  if (round > 1u && atomicLoad(&state[${S('changedRound')}]) < round && atomicLoad(&state[${S('overflow')}]) == 0u) { return; }
  // activeCalls[CALLS + c] is set by expand when call c's pairs did not fit in the pair buffer.
  let retry = activeCalls[CALLS + c] != 0u;
  if (retry) { activeCalls[CALLS + c] = 0u; }
  let selected = retry || round == 1u || changedSince(fun[c], round) || changedSince(arg1[c], round) || changedSince(arg2[c], round);
  if (selected) {
    let i = atomicAdd(&state[${S('activeCount0')} + p], 1u);
    activeCalls[i] = c;
  }
}
`;
}

/** Appends a (call, λ) pair for every λ in σ(Fun[c]) of every selected call c (grid-stride over calls × words). */
export function expandWgsl(bindings: string, g: StoreGeometry): string {
  return /* wgsl */ `${bindings}
${ROUND_UNIFORM_WGSL}
${storeAccessWgsl(g)}
fn append(c: u32, l: u32, at: u32, cap: u32) {
  if (at < cap) {
    pairs[2u * at] = c;
    pairs[2u * at + 1u] = l;
  } else {
    // No room: flag it and select this call again next round (the host grows the buffer).
    atomicStore(&state[${S('overflow')}], 1u);
    activeCalls[CALLS + c] = 1u;
  }
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let p = rnd.x & 1u;
  let items = atomicLoad(&state[${S('activeCount0')} + p]) * WORDS;
  let stride = nwg.x * nwg.y * ${WORKGROUP}u;
  let cap = atomicLoad(&state[${S('pairCapacity')}]);
  for (var i = linearIndex(wg, nwg, lid); i < items; i += stride) {
    let k = i / WORDS;
    let w = i % WORDS;
    let c = activeCalls[k];
    let f = fun[c];
    if (f < LAMS) {
      if (w == 0u) {
        let at = atomicAdd(&state[${S('pairCount0')} + p], 1u);
        append(c, f, at, cap);
      }
      continue;
    }
    var bits = loadWord(f - LAMS, w);
    if (bits == 0u) { continue; }
    var at = atomicAdd(&state[${S('pairCount0')} + p], countOneBits(bits));
    loop {
      if (bits == 0u) { break; }
      let b = firstTrailingBit(bits);
      bits = bits & (bits - 1u);
      append(c, w * 32u + b, at, cap);
      at = at + 1u;
    }
  }
}
`;
}

/** For pair (c, λ) and word w: a_λ |= σ(Arg1[c]), b_λ |= σ(Arg2[c]); new bits label the row with the next round. */
export function propagateWgsl(bindings: string, g: StoreGeometry): string {
  return /* wgsl */ `${bindings}
${ROUND_UNIFORM_WGSL}
${storeAccessWgsl(g)}
fn sourceWord(r: u32, w: u32) -> u32 {
  if (r < LAMS) {
    if (w == (r >> 5u)) { return 1u << (r & 31u); }
    return 0u;
  }
  return loadWord(r - LAMS, w);
}

fn join(row: u32, w: u32, bits: u32, label: u32) {
  if (bits == 0u) { return; }
  let old = orWord(row, w, bits);
  if ((bits & ~old) != 0u) {
    atomicMax(&changedAt[row], label);
    atomicMax(&state[${S('changedRound')}], label);
  }
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let p = rnd.x & 1u;
  let label = rnd.x + 1u;
  let count = atomicLoad(&state[${S('pairCount0')} + p]);
  let first = linearIndex(wg, nwg, lid);
  if (first == 0u) { atomicMax(&state[${S('pairPeak')}], count); }
  let items = min(count, atomicLoad(&state[${S('pairCapacity')}])) * WORDS;
  let stride = nwg.x * nwg.y * ${WORKGROUP}u;
  for (var i = first; i < items; i += stride) {
    let q = i / WORDS;
    let w = i % WORDS;
    let c = pairs[2u * q];
    let l = pairs[2u * q + 1u];
    join(l, w, sourceWord(arg1[c], w), label);
    join(LAMS + l, w, sourceWord(arg2[c], w), label);
  }
}
`;
}
