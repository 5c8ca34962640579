import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { opCombineWgsl, opIdentityWgsl } from '../../common/ops';
import { tileEntryParams, tileEntryPrelude, tileScanWgsl } from '../../common/tile.wgsl';
import { accessWgsl, localScanWgsl, type ScanKernelParams, storeWgsl, unrollWgsl } from './scan.wgsl';

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
  /**
   * How a workgroup gets its tile: `workgroup` (default) its workgroup index; `counter` the next
   * value of an atomic counter (tiles then start in order even where workgroups do not).
   */
  readonly tileIds?: 'counter' | 'workgroup';
}

/**
 * WGSL of the single-pass scan of one window with decoupled fallback look-back (Smith, Levien &
 * Owens 2025). Each workgroup takes its workgroup index as its tile (or, with `tileIds: 'counter'`,
 * the next value of an atomic counter), loads and scans its tile, publishes the tile's aggregate (or its inclusive value when it needs no predecessor: tile
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
 * The look-back runs in a team without barriers: with subgroups, subgroup 0 scans the subgroup
 * totals, publishes the aggregate, reads `sg_size` predecessors' states at once and publishes the
 * inclusive value, all between the same two barriers; without, invocation 0 does the same after
 * the workgroup-memory scan, reading one state at a time. Only the verdict is broadcast
 * (`workgroupUniformLoad`); on a fallback the whole workgroup reduces the tile in uniform control
 * flow, with its own workgroup memory, and the team then goes on before it.
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
${p.subgroups ? `var<workgroup> df_red: array<ts_T, ${Math.max(1, p.workgroupSize / 4)}>;` : ''}

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
// One vec4 at a time (a loop, not unrolled): the caller still holds its own tile in registers.
fn df_reduce(t: u32, lid: u32, sg_lane: u32, sg_size: u32) -> ts_T {
  let n = params.n;
  let k0 = t * SC_QPT + (lid / sg_size) * sg_size * SC_V + sg_lane;
  var c = ts_ID;
  for (var j = 0u; j < SC_V; j++) {
    let q = sc_load(k0 + j * sg_size, n);
    ${
      p.segmented
        ? `let u = ts_comb(ts_comb(q[0], q[1]), ts_comb(q[2], q[3]));
    c = ts_comb(c, ts_sg_last(ts_sg_incl(u, sg_lane, sg_size), sg_size));`
        : 'c = ts_comb(c, ts_comb(ts_comb(q[0], q[1]), ts_comb(q[2], q[3])));'
    }
  }
  ${p.segmented ? '' : 'c = ts_sg_fold(c);'}
${
  p.subgroups
    ? `  // Its own workgroup memory: ts_part still holds the caller's subgroup prefixes.
  if (sg_lane == 0u) { df_red[lid / sg_size] = c; }
  workgroupBarrier();
  var total = ts_ID;
  for (var i = 0u; i < ${p.workgroupSize}u / sg_size; i++) { total = ts_comb(total, df_red[i]); }
  workgroupBarrier();
  return total;`
    : '  return ts_wg_scan(c, lid, sg_lane, sg_size).total;'
}
}
// The team's look-back from predecessor j with acc0 already combined: vec3u(verdict, t, acc):
// verdict 1 when it met an inclusive value (acc then covers everything before the tile), 2 when
// predecessor t was still not ready after DF_POLLS re-reads (acc covers tiles after t).
fn df_look(j: u32, acc0: u32, lid: u32, sg_size: u32) -> vec3u {
  var acc = acc0;
  var t = j;
  var polls = 0u;
  loop {
${lookStep}
    acc = ${op('acc', 'sum')};
    if (at_stop == 2u) { return vec3u(1u, t, acc); }
    if (at_stop == 1u) { t -= look; polls = 0u; continue; }
    t -= stop;
    if (stop > 0u) { polls = 0u; }
    if (polls < DF_POLLS) { polls += 1u; continue; }
    return vec3u(2u, t, acc);
  }
}

@compute @workgroup_size(${p.workgroupSize})
fn main(${tileEntryParams(p.subgroups)}) {
  ${tileEntryPrelude(p.subgroups)}
  if (gm_workgroup_index(wid, nwg) >= params.tiles) { return; }
  ${
    p.tileIds === 'counter'
      ? `// Dynamic tile ids: a tile's predecessors were all taken (started) before it.
  if (lid == 0u) { df_tile = atomicAdd(&state[params.counter], 1u); }
  let tile = workgroupUniformLoad(&df_tile);`
      : `// Static tile ids (the workgroup index): nothing waits on a predecessor that has not started,
  // as the look-back reduces such a tile itself after DF_POLLS reads.
  let tile = gm_workgroup_index(wid, nwg);`
  }
  let n = params.n;
  let own = params.state_off + 4u * tile;
  // Subgroup s owns vec4s [s·S·V, (s+1)·S·V) of the tile; lane l reads s·S·V + j·S + l in step j.
  let k0 = tile * SC_QPT + (lid / sg_size) * sg_size * SC_V + sg_lane;
${localScanWgsl(p, needHeads)}
  var carry = ${id};
  if (params.first == 0u) { carry = atomicLoad(&state[params.carry_in]); }
  // The team (subgroup 0, or invocation 0 without subgroups) publishes the tile's aggregate, looks
  // back and publishes its inclusive value, with no barrier between (they delay every successor).
  var total = ${id};
  var has_head = false;
  var acc = carry; // everything before this tile (within segments: up to the last head)
${
  p.subgroups
    ? `  let s_id = lid / sg_size;
  let n_sg = ${p.workgroupSize}u / sg_size;
  if (sg_lane == sg_size - 1u) { ts_part[s_id] = c; }
  workgroupBarrier();
  if (lid < sg_size) {
    // Subgroup built-ins in this branch: it is uniform within subgroup 0 (linear layout).
    // Inclusive scan of the subgroup totals in place (subgroup s later reads ts_part[s - 1]).
    var run = ts_ID;
    for (var base = 0u; base < n_sg; base += sg_size) {
      let idx = base + sg_lane;
      var x = ts_ID;
      if (idx < n_sg) { x = ts_part[idx]; }
      x = ts_comb(run, ts_sg_incl(x, sg_lane, sg_size));
      if (idx < n_sg) { ts_part[idx] = x; }
      run = ts_sg_last(x, sg_size);
    }`
    : `  let r = ts_wg_scan(c, lid, sg_lane, sg_size);
  if (lid == 0u) {
    let run = r.total;`
}
    total = ${val('run')};
    has_head = ${head('run')};
    if (lid == 0u) {
      if (tile == 0u) { df_put(own + 2u, select(${op('carry', 'total')}, total, has_head)); }
      else if (has_head) { df_put(own + 2u, total); }
      else { df_put(own, total); }
    }
    var v = vec3u(1u, 0u, carry);
    if (tile > 0u) { v = df_look(tile - 1u, ${id}, lid, sg_size); }
    if (lid == 0u) {
      if (v.x == 1u) {
        let inclusive = select(${op('v.z', 'total')}, total, has_head);
        if (tile > 0u && !has_head) { df_put(own + 2u, inclusive); }
        if (tile == params.tiles - 1u) { atomicStore(&state[params.carry_out], inclusive); }
      }
      df_msg = vec4u(v, 0u);
    }
  }
  let m = workgroupUniformLoad(&df_msg);
  ${
    p.subgroups
      ? `var pre_part = ts_ID;
  if (s_id > 0u) { pre_part = ts_part[s_id - 1u]; }`
      : 'let pre_part = r.pre;'
  }
  acc = m.z;
  if (m.x == 2u) {
    // Fallback (rare): predecessor j is still not ready. The whole workgroup reduces its tile from
    // the input, publishes it for others, and the team looks back on from before it.
    var j = m.y;
    loop {
      let f = df_reduce(j, lid, sg_lane, sg_size);
      if (lid == 0u) {
        let fb = params.state_off + 4u * j;
        var fv = ${val('f')};
        var done = 0u;
        if (${head('f')}) { done = 1u; } else if (j == 0u) { fv = ${op('carry', 'fv')}; done = 1u; }
        df_put(select(fb, fb + 2u, done == 1u), fv);
        df_msg = vec4u(done, 0u, ${op('acc', 'fv')}, 0u);
      }
      let g = workgroupUniformLoad(&df_msg);
      acc = g.z;
      if (g.x == 1u) { break; }
      j -= 1u;
      if (${p.subgroups ? 'lid < sg_size' : 'lid == 0u'}) {
        let v = df_look(j, acc, lid, sg_size);
        if (lid == 0u) { df_msg = vec4u(v, 0u); }
      }
      let h = workgroupUniformLoad(&df_msg);
      acc = h.z;
      if (h.x == 1u) { break; }
      j = h.y;
    }
    if (lid == 0u) {
      let inclusive = select(${op('acc', 'total')}, total, has_head);
      if (!has_head) { df_put(own + 2u, inclusive); }
      if (tile == params.tiles - 1u) { atomicStore(&state[params.carry_out], inclusive); }
    }
  }
  let pre_sg = ts_comb(${lift('acc')}, pre_part);
${unrollWgsl(
  p.vectors,
  `let pre = ts_comb(pre_sg, lp[j]);
    let q = qs[j];
    let k = k0 + j * sg_size;
    ${storeWgsl({ ...p, inPlace: false })}`,
)}
}`,
    [lib, gridWgsl],
  );
}
