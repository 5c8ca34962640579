import type { WgslModule } from '@gpumorph/gpu-allocator';
import { opCombineWgsl, opIdentityWgsl, type ScanOp } from './ops';

/**
 * Shape of one tile of the tiled primitives (scan, reduce, compaction): `workgroupSize`
 * invocations, each handling `vectors` vec4s (so `4 · vectors` elements), in subgroup-striped
 * order: subgroup s of size S owns the contiguous vec4 range [s·S·V, (s+1)·S·V) of its tile and
 * in step j lane l reads vec4 s·S·V + j·S + l, so every load of a subgroup is coalesced. Without
 * subgroups S = 1 and each invocation owns V consecutive vec4s.
 */
export interface TileShape {
  /** Invocations per workgroup: a power of two, a multiple of every subgroup size used. */
  readonly workgroupSize: number;
  /** vec4s per invocation (elements per invocation / 4). */
  readonly vectors: number;
}

/** Elements one workgroup handles. */
export function tileElements(shape: TileShape): number {
  return shape.workgroupSize * shape.vectors * 4;
}

/** Options of {@link tileScanWgsl}. */
export interface TileScanOptions extends TileShape {
  readonly op: ScanOp;
  /** Values are (flag, value) pairs under the segmented operator (`vec2u`: x = flag, y = value). */
  readonly segmented: boolean;
  /** Use subgroup built-ins (checked with `subgroupLayoutIsLinear`). */
  readonly subgroups: boolean;
}

/**
 * WGSL library for tiled scans over a type `ts_T` (`u32`, or `vec2u` (flag, value) when
 * segmented): the operator `ts_comb`, its identity `ts_ID`, subgroup helpers (`ts_sg_incl`,
 * `ts_sg_prev`, `ts_sg_last`, `ts_sg_fold` — trivial without subgroups) and the workgroup-wide scan
 * of one value per subgroup (per invocation without subgroups) `ts_wg_scan(c, lid, lane, size)`
 * returning `ts_Pair(pre, total)` (exclusive prefix of the caller's subgroup, workgroup total).
 * `ts_wg_scan` has barriers: call it in uniform control flow. All lanes of a subgroup must pass
 * the same `c`.
 *
 * @example
 * ```ts
 * const lib = tileScanWgsl({ op: 'add', segmented: false, subgroups: true, workgroupSize: 256, vectors: 4 });
 * const code = linkWgsl(kernel, [lib, gridWgsl]);
 * ```
 */
export function tileScanWgsl(o: TileScanOptions): WgslModule {
  const wg = o.workgroupSize;
  if (wg < 1 || (wg & (wg - 1)) !== 0) throw new RangeError(`workgroup size ${wg} is not a power of two`);
  const id = opIdentityWgsl(o.op);
  const type = o.segmented ? 'vec2u' : 'u32';
  const identity = o.segmented ? `vec2u(0u, ${id})` : id;
  const comb = o.segmented
    ? `return vec2u(a.x | b.x, select(${opCombineWgsl(o.op, 'a.y', 'b.y')}, b.y, b.x != 0u));`
    : `return ${opCombineWgsl(o.op, 'a', 'b')};`;
  const builtinFold = { add: 'subgroupAdd', max: 'subgroupMax', min: 'subgroupMin', or: 'subgroupOr' }[o.op];
  const sub = o.subgroups
    ? /* wgsl */ `
fn ts_sg_incl(v: ts_T, lane: u32, size: u32) -> ts_T {
  ${
    !o.segmented && o.op === 'add'
      ? 'return subgroupInclusiveAdd(v);'
      : `var x = v;
  for (var d = 1u; d < size; d <<= 1u) {
    let y = subgroupShuffleUp(x, d);
    if (lane >= d) { x = ts_comb(y, x); }
  }
  return x;`
  }
}
// Inclusive value of the previous lane (identity for lane 0).
fn ts_sg_prev(x: ts_T, lane: u32) -> ts_T {
  let y = subgroupShuffleUp(x, 1u);
  return select(y, ts_ID, lane == 0u);
}
fn ts_sg_last(x: ts_T, size: u32) -> ts_T { return subgroupShuffle(x, size - 1u); }
${o.segmented ? '' : `// Commutative fold over the subgroup (unsegmented only).\nfn ts_sg_fold(x: ts_T) -> ts_T { return ${builtinFold}(x); }`}
var<workgroup> ts_part: array<ts_T, ${Math.max(1, wg / 4)}>;
fn ts_wg_scan(c: ts_T, lid: u32, lane: u32, size: u32) -> ts_Pair {
  let s = lid / size;
  let n_sg = ${wg}u / size;
  if (lane == size - 1u) { ts_part[s] = c; }
  workgroupBarrier();
  // Subgroup 0 (invocations [0, size) under the linear layout) scans the subgroup totals.
  // Subgroup built-ins in this branch: the branch is uniform within subgroup 0.
  if (lid < size) {
    var carry = ts_ID;
    for (var base = 0u; base < n_sg; base += size) {
      let idx = base + lane;
      var x = ts_ID;
      if (idx < n_sg) { x = ts_part[idx]; }
      x = ts_comb(carry, ts_sg_incl(x, lane, size));
      if (idx < n_sg) { ts_part[idx] = x; }
      carry = ts_sg_last(x, size);
    }
  }
  workgroupBarrier();
  var pre = ts_ID;
  if (s > 0u) { pre = ts_part[s - 1u]; }
  let total = ts_part[n_sg - 1u];
  workgroupBarrier();
  return ts_Pair(pre, total);
}`
    : /* wgsl */ `
fn ts_sg_incl(v: ts_T, lane: u32, size: u32) -> ts_T { return v; }
fn ts_sg_prev(x: ts_T, lane: u32) -> ts_T { return ts_ID; }
fn ts_sg_last(x: ts_T, size: u32) -> ts_T { return x; }
fn ts_sg_fold(x: ts_T) -> ts_T { return x; }
var<workgroup> ts_part: array<ts_T, ${wg}>;
fn ts_wg_scan(c: ts_T, lid: u32, lane: u32, size: u32) -> ts_Pair {
  ts_part[lid] = c;
  workgroupBarrier();
  for (var d = 1u; d < ${wg}u; d <<= 1u) {
    var left = ts_ID;
    if (lid >= d) { left = ts_part[lid - d]; }
    workgroupBarrier();
    if (lid >= d) { ts_part[lid] = ts_comb(left, ts_part[lid]); }
    workgroupBarrier();
  }
  var pre = ts_ID;
  if (lid > 0u) { pre = ts_part[lid - 1u]; }
  let total = ts_part[${wg - 1}u];
  workgroupBarrier();
  return ts_Pair(pre, total);
}`;
  return {
    name: `gm_tile_scan_${o.op}_${o.segmented ? 'seg' : 'plain'}_${wg}_${o.subgroups ? 'sg' : 'wg'}`,
    enables: o.subgroups ? ['subgroups'] : [],
    diagnostics: o.subgroups ? ['off, subgroup_uniformity'] : [],
    code: /* wgsl */ `
alias ts_T = ${type};
const ts_ID: ts_T = ${identity};
struct ts_Pair { pre: ts_T, total: ts_T }
fn ts_comb(a: ts_T, b: ts_T) -> ts_T { ${comb} }
${sub}`,
  };
}

/** Entry-point header shared by tiled kernels: grid index, local index and lane built-ins. */
export function tileEntryParams(subgroups: boolean): string {
  const lanes = subgroups
    ? ', @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32'
    : '';
  return `@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32${lanes}`;
}

/** Prelude matching {@link tileEntryParams}: defines `sg_lane`/`sg_size` when subgroups are off. */
export function tileEntryPrelude(subgroups: boolean): string {
  return subgroups ? '' : 'let sg_lane = 0u;\n  let sg_size = 1u;';
}
