import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { tileEntryParams, tileEntryPrelude, tileScanWgsl } from '../../common/tile.wgsl';
import { compactParamsWgsl } from '../layout';

/** Parameters of the compaction kernels. */
export interface CompactKernelParams {
  readonly subgroups: boolean;
  readonly workgroupSize: number;
  readonly vectors: number;
  /** WGSL bool expression over `x: u32` and `i: u32`, or undefined to keep where `flags[i] != 0u`. */
  readonly predicate: string | undefined;
  readonly bindings: string;
}

function prelude(p: CompactKernelParams, scatter: boolean): string {
  const keep = p.predicate === undefined ? 'flags[i] != 0u' : `(${p.predicate})`;
  return /* wgsl */ `
${compactParamsWgsl}
${p.bindings}
const CP_V = ${p.vectors}u;
const CP_QPT = ${p.workgroupSize * p.vectors}u;
fn cp_keep(x: u32, i: u32) -> bool { return ${keep}; }
// Elements of vec4 k (0 past n) and which of them are kept (bit i).
struct CpQuad { v: vec4u, keep: u32 }
fn cp_load(k: u32, n: u32) -> CpQuad {
  var q = CpQuad(vec4u(0u), 0u);
  let e = 4u * k;
  if (e + 4u <= params.split) {
    q.v = src4[k];
  } else {
    for (var i = 0u; i < 4u; i++) { if (e + i < n) { q.v[i] = src_tail[e + i - params.split]; } }
  }
  for (var i = 0u; i < 4u; i++) { if (e + i < n && cp_keep(q.v[i], e + i)) { q.keep |= 1u << i; } }
  return q;
}
@compute @workgroup_size(${p.workgroupSize})
fn main(${tileEntryParams(p.subgroups)}) {
  ${tileEntryPrelude(p.subgroups)}
  let n = params.n;
  let tile = gm_workgroup_index(wid, nwg);
  if (tile >= params.tiles) { return; }
  let k0 = tile * CP_QPT + (lid / sg_size) * sg_size * CP_V + sg_lane;
  var c = 0u;
  ${scatter ? 'var qs: array<CpQuad, CP_V>;\n  var lp: array<u32, CP_V>;' : ''}
  for (var j = 0u; j < CP_V; j++) {
    let q = cp_load(k0 + j * sg_size, n);
    let cnt = countOneBits(q.keep);
    ${
      scatter
        ? `let row = ts_sg_incl(cnt, sg_lane, sg_size);
    lp[j] = c + row - cnt;
    c += ts_sg_last(row, sg_size);
    qs[j] = q;`
        : 'c += cnt;'
    }
  }`;
}

/**
 * WGSL of the first compaction pass: each workgroup counts the kept elements of its tile into
 * `counts[tile]`.
 *
 * @example
 * ```ts
 * const code = compactCountWgsl({ subgroups: false, workgroupSize: 256, vectors: 4,
 *   predicate: 'x != 0u', bindings: compactLayout('count', false).wgsl() });
 * ```
 */
export function compactCountWgsl(p: CompactKernelParams): string {
  const lib = tileScanWgsl({ ...p, op: 'add', segmented: false });
  return linkWgsl(
    `${prelude(p, false)}
  let r = ts_wg_scan(ts_sg_fold(c), lid, sg_lane, sg_size);
  if (lid == 0u) { counts[tile] = r.total; }
}`,
    [lib, gridWgsl],
  );
}

/**
 * WGSL of the scatter pass: each workgroup ranks its kept elements (stable) and writes them at
 * the end of the kept elements of the tiles before it (`counts` holds the inclusive scan).
 *
 * @example
 * ```ts
 * const code = compactScatterWgsl({ subgroups: false, workgroupSize: 256, vectors: 4,
 *   predicate: undefined, bindings: compactLayout('scatter', true).wgsl() });
 * ```
 */
export function compactScatterWgsl(p: CompactKernelParams): string {
  const lib = tileScanWgsl({ ...p, op: 'add', segmented: false });
  return linkWgsl(
    `${prelude(p, true)}
  let r = ts_wg_scan(c, lid, sg_lane, sg_size);
  var base = r.pre;
  if (tile > 0u) { base += counts[tile - 1u]; }
  for (var j = 0u; j < CP_V; j++) {
    let q = qs[j];
    var at = base + lp[j];
    for (var i = 0u; i < 4u; i++) {
      if ((q.keep & (1u << i)) != 0u) { dst[at] = q.v[i]; at += 1u; }
    }
  }
}`,
    [lib, gridWgsl],
  );
}

/**
 * WGSL of the last step: one invocation writes the number kept (`counts[tiles - 1]`, 0 when
 * there are no tiles) to `kept[0]`.
 *
 * @example
 * ```ts
 * const code = compactFinishWgsl(compactLayout('finish', false).wgsl());
 * ```
 */
export function compactFinishWgsl(bindings: string): string {
  return /* wgsl */ `
${compactParamsWgsl}
${bindings}
@compute @workgroup_size(1)
fn main() {
  var total = 0u;
  if (params.tiles > 0u) { total = counts[params.tiles - 1u]; }
  kept[0] = total;
}`;
}
