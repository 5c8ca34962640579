import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { opCombineWgsl, opIdentityWgsl } from '../../common/ops';
import { tileEntryParams, tileEntryPrelude, tileScanWgsl } from '../../common/tile.wgsl';
import { accessWgsl, foldWgsl, localScanWgsl, type ScanKernelParams, storeWgsl } from './scan.wgsl';

/** WGSL of the uniform of one single-pass (decoupled fallback) dispatch; offsets in u32 words of `state`. */
export const decoupledParamsWgsl = /* wgsl */ `
struct DfParams {
  n: u32,          // elements of this window
  tiles: u32,      // tiles of this window
  state_off: u32,  // word offset of this window's tile states (4 words per tile)
  counter: u32,    // word index of this window's tile counter (dynamic tile ids)
  carry_in: u32,   // word index of the running value entering this window
  carry_out: u32,  // word index of the running value leaving it (written by the last tile)
  first: u32,      // 1 in the first window: the carry in is the identity
  split: u32,      // window-relative first element of the tail views (src_tail, dst_tail)
}`;

/** Bytes of one {@link decoupledParamsWgsl} uniform. */
export const DECOUPLED_PARAMS_BYTES = 32;

/** Words of tile state per tile: aggregate (low half, high half), inclusive (low, high). */
export const DECOUPLED_STATE_WORDS = 4;

/** Options of {@link scanDecoupledWgsl}. */
export interface ScanDecoupledParams extends ScanKernelParams {
  readonly output: 'exclusive' | 'inclusive';
  /**
   * Times a workgroup reads a predecessor that is not ready again before it reduces that
   * predecessor's tile itself (0: fall back at once).
   */
  readonly pollLimit: number;
  /** Testing: ignore every published state, so each tile's prefix comes from fallback reductions. */
  readonly fallbackAlways?: boolean;
}

/**
 * WGSL of the single-pass scan of one window with decoupled fallback look-back (Smith, Levien &
 * Owens 2025). Each workgroup takes the next tile id from an atomic counter, loads and scans its
 * tile, publishes the tile's aggregate (or its inclusive value when it needs no predecessor: tile
 * 0, or a tile holding a segment head), then looks back over its predecessors' states, combining
 * aggregates until it meets an inclusive value. A predecessor that is still not ready after
 * `pollLimit` re-reads is reduced from the input by the whole workgroup (the fallback), which
 * gives bit for bit the aggregate that tile publishes itself (add mod 2^32 and max are associative
 * and exact), so no workgroup ever waits on another. Then it publishes its inclusive value and
 * writes its outputs; the last tile writes the running value for the next window.
 *
 * Tile state: per tile two write-once values, `aggregate` and `inclusive`, each as two atomic
 * words holding 16 bits of the value and a ready bit (bit 16). Every word goes once from 0 (as
 * cleared) to ready, and every writer of a word writes the same bits (a fallback republishes the
 * value it computed), so a reader that sees both halves ready has the one value. Relaxed atomics
 * suffice: each half's ready bit lives in its own word. Segmented, look-back stops at a tile with
 * a head, as that tile publishes its inclusive value at once.
 *
 * The look-back runs in a team without barriers: with subgroups, subgroup 0 reads `sg_size`
 * predecessors' states at once; without, invocation 0 reads one at a time. Only a fallback is
 * broadcast (`workgroupUniformLoad`), so the whole workgroup reduces the tile in uniform control
 * flow with the workgroup reduction, and the team then goes on before it.
 */
export function scanDecoupledWgsl(p: ScanDecoupledParams): string {
  if (p.source !== 'values') throw new RangeError('the single-pass scan reads values only');
  if (!Number.isInteger(p.pollLimit) || p.pollLimit < 0) {
    throw new RangeError(`scan poll limit ${p.pollLimit}: not a non-negative integer`);
  }
  const lib = tileScanWgsl(p);
  const needHeads = p.segmented && p.output === 'exclusive';
  const id = opIdentityWgsl(p.op);
  const op = (a: string, b: string) => opCombineWgsl(p.op, a, b);
  const val = (x: string) => (p.segmented ? `${x}.y` : x);
  const head = (x: string) => (p.segmented ? `(${x}.x != 0u)` : 'false');
  const lift = (x: string) => (p.segmented ? `vec2u(0u, ${x})` : x);
  const sgFold = p.op === 'add' ? 'subgroupAdd' : 'subgroupMax';
  const read = p.fallbackAlways ? 'vec2u(0u, 0u)' : 'df_read(t - lid)';
  // One look-back step of the team (subgroup 0, or invocation 0 without subgroups) at predecessor
  // t: the states of t, t-1, … are read at once (one per lane) and summarised: stop = lanes
  // consumed before the first that is not an aggregate (look: none), at_stop = its status (2
  // inclusive, 0 not ready; 1 when none stopped), sum = combination of the values consumed (the
  // stop's included when inclusive).
  const lookStep = p.subgroups
    ? /* wgsl */ `
          var s = vec2u(2u, ${id}); // past tile 0: never consumed (tile 0 is always inclusive)
          if (lid <= t) { s = ${read}; }
          let stop = subgroupMin(select(sg_size, lid, s.x != 1u));
          let take = lid < stop || (lid == stop && s.x == 2u);
          let sum = ${sgFold}(select(${id}, s.y, take));
          let at_stop = select(1u, subgroupShuffle(s.x, min(stop, sg_size - 1u)), stop < sg_size);
          let look = sg_size;`
    : /* wgsl */ `
          let s = ${read};
          let stop = select(1u, 0u, s.x != 1u);
          let at_stop = s.x;
          let sum = select(${id}, s.y, s.x != 0u);
          let look = 1u;`;
  return linkWgsl(
    /* wgsl */ `
${accessWgsl(p, { paramsWgsl: decoupledParamsWgsl, scratch: false })}
const DF_READY = 0x10000u;
const DF_POLLS = ${p.pollLimit}u;
var<workgroup> df_tile: u32;
var<workgroup> df_msg: vec4u;

// Publishes value v in the write-once pair of words at state[w], state[w + 1].
fn df_put(w: u32, v: u32) {
  atomicStore(&state[w], (v & 0xffffu) | DF_READY);
  atomicStore(&state[w + 1u], (v >> 16u) | DF_READY);
}
// (status, value) of tile t of this window: 2 inclusive ready, 1 aggregate ready, 0 neither.
fn df_read(t: u32) -> vec2u {
  let b = params.state_off + 4u * t;
  // All four words at once (one round trip); the inclusive value wins when both halves are ready.
  let al = atomicLoad(&state[b]);
  let ah = atomicLoad(&state[b + 1u]);
  let il = atomicLoad(&state[b + 2u]);
  let ih = atomicLoad(&state[b + 3u]);
  if ((il & ih & DF_READY) != 0u) { return vec2u(2u, (il & 0xffffu) | ((ih & 0xffffu) << 16u)); }
  if ((al & ah & DF_READY) != 0u) { return vec2u(1u, (al & 0xffffu) | ((ah & 0xffffu) << 16u)); }
  return vec2u(0u, 0u);
}
// The aggregate of tile t computed from the input by the whole workgroup (has barriers: call in
// uniform control flow). Equals the aggregate tile t publishes: same operator, exact.
fn df_reduce(t: u32, lid: u32, sg_lane: u32, sg_size: u32) -> ts_T {
  let n = params.n;
  let k0 = t * SC_QPT + (lid / sg_size) * sg_size * SC_V + sg_lane;
  var c = ts_ID;
  for (var j = 0u; j < SC_V; j++) {
    let q = sc_load(k0 + j * sg_size, n);
    ${foldWgsl(p.segmented)}
  }
  ${p.segmented ? '' : 'c = ts_sg_fold(c);'}
  return ts_wg_scan(c, lid, sg_lane, sg_size).total;
}

@compute @workgroup_size(${p.workgroupSize})
fn main(${tileEntryParams(p.subgroups)}) {
  ${tileEntryPrelude(p.subgroups)}
  if (gm_workgroup_index(wid, nwg) >= params.tiles) { return; }
  // Dynamic tile ids: a tile's predecessors were all taken (started) before it.
  if (lid == 0u) { df_tile = atomicAdd(&state[params.counter], 1u); }
  let tile = workgroupUniformLoad(&df_tile);
  let n = params.n;
  let own = params.state_off + 4u * tile;
  // Subgroup s owns vec4s [s·S·V, (s+1)·S·V) of the tile; lane l reads s·S·V + j·S + l in step j.
  let k0 = tile * SC_QPT + (lid / sg_size) * sg_size * SC_V + sg_lane;
${localScanWgsl(needHeads)}
  let r = ts_wg_scan(c, lid, sg_lane, sg_size);
  let total = ${val('r.total')};
  let has_head = ${head('r.total')};
  var carry = ${id};
  if (params.first == 0u) { carry = atomicLoad(&state[params.carry_in]); }
  if (lid == 0u) {
    if (tile == 0u) { df_put(own + 2u, select(${op('carry', 'total')}, total, has_head)); }
    else if (has_head) { df_put(own + 2u, total); }
    else { df_put(own, total); }
  }
  // The combination of everything before this tile (within segments: up to the last head).
  var acc = carry;
  if (tile > 0u) {
    acc = ${id};
    var j = tile - 1u; // the predecessor looked at
    loop {
      // The team looks back without barriers until it meets an inclusive value (state 1) or a
      // predecessor still not ready after DF_POLLS re-reads (state 2: fall back on it).
      if (${p.subgroups ? 'lid < sg_size' : 'lid == 0u'}) {
        ${p.subgroups ? '// Subgroup built-ins in this branch: it is uniform within subgroup 0 (linear layout).' : ''}
        var t = j;
        var polls = 0u;
        var verdict = 0u;
        loop {
${lookStep}
          acc = ${op('acc', 'sum')};
          if (at_stop == 2u) { verdict = 1u; break; }
          if (at_stop == 1u) { t -= look; polls = 0u; continue; }
          t -= stop;
          if (stop > 0u) { polls = 0u; }
          if (polls < DF_POLLS) { polls += 1u; continue; }
          verdict = 2u;
          break;
        }
        if (lid == 0u) { df_msg = vec4u(verdict, t, acc, 0u); }
      }
      let m = workgroupUniformLoad(&df_msg);
      acc = m.z;
      if (m.x == 1u) { break; }
      j = m.y;
      // Fallback: reduce tile j from the input, publish it for others, go on before it.
      let f = df_reduce(j, lid, sg_lane, sg_size);
      if (lid == 0u) {
        let fb = params.state_off + 4u * j;
        var v = ${val('f')};
        var done = 0u;
        if (${head('f')}) { done = 1u; } else if (j == 0u) { v = ${op('carry', 'v')}; done = 1u; }
        df_put(select(fb, fb + 2u, done == 1u), v);
        df_msg = vec4u(done, v, 0u, 0u);
      }
      let g = workgroupUniformLoad(&df_msg);
      acc = ${op('acc', 'g.y')};
      if (g.x == 1u) { break; }
      j -= 1u;
    }
  }
  let inclusive = select(${op('acc', 'total')}, total, has_head);
  if (lid == 0u) {
    if (tile > 0u && !has_head) { df_put(own + 2u, inclusive); }
    if (tile == params.tiles - 1u) { atomicStore(&state[params.carry_out], inclusive); }
  }
  let pre_sg = ts_comb(${lift('acc')}, r.pre);
  for (var j = 0u; j < SC_V; j++) {
    let pre = ts_comb(pre_sg, lp[j]);
    let q = qs[j];
    let k = k0 + j * sg_size;
    ${storeWgsl({ ...p, inPlace: false })}
  }
}`,
    [lib, gridWgsl],
  );
}
