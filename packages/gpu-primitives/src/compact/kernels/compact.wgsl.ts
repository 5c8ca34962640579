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
  /** Output windows the scatter binds (`dst_0` …); 1 for the count kernel. */
  readonly outputWindows?: number;
}

function prelude(p: CompactKernelParams, scatter: boolean): string {
  // `flags` is bound over the same window as the input (window-relative index); `i` is global.
  const keep = p.predicate === undefined ? 'flags[i - params.start] != 0u' : `(${p.predicate})`;
  return /* wgsl */ `
${compactParamsWgsl}
${p.bindings}
const CP_V = ${p.vectors}u;
const CP_QPT = ${p.workgroupSize * p.vectors}u;
fn cp_keep(x: u32, i: u32) -> bool { return ${keep}; }
// Elements of vec4 k of the window (0 past n) and which of them are kept (bit i).
struct CpQuad { v: vec4u, keep: u32 }
fn cp_load(k: u32, n: u32) -> CpQuad {
  var q = CpQuad(vec4u(0u), 0u);
  let e = 4u * k;
  if (e + 4u <= params.split) {
    q.v = src4[k];
  } else {
    for (var i = 0u; i < 4u; i++) { if (e + i < n) { q.v[i] = src_tail[e + i - params.split]; } }
  }
  for (var i = 0u; i < 4u; i++) {
    if (e + i < n && cp_keep(q.v[i], params.start + e + i)) { q.keep |= 1u << i; }
  }
  return q;
}
@compute @workgroup_size(${p.workgroupSize})
fn main(${tileEntryParams(p.subgroups)}) {
  ${tileEntryPrelude(p.subgroups)}
  let n = params.n;
  let tile = gm_workgroup_index(wid, nwg);
  if (tile >= params.tiles) { return; }
  // Global tile index, and its entry in the bound view of the counts.
  let slot = params.first_tile + tile - params.counts_base;
  ${
    scatter
      ? `// Kept elements of all tiles before this one (counts holds their inclusive scan).
  var base = 0u;
  if (params.first_tile + tile > 0u) { base = counts[slot - 1u]; }
  // Only the dispatch of this tile's output group writes it (see cp_store); \`base\` comes from a
  // read-only binding at a workgroup-uniform index, so the return keeps the barriers uniform.
  if (params.stride != 0u && (base / params.win) / params.stride != params.group) { return; }`
      : ''
  }
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
 * WGSL of the first compaction pass over one input window: each workgroup counts the kept
 * elements of its tile into `counts[first_tile + tile - counts_base]`.
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
  if (lid == 0u) { counts[slot] = r.total; }
}`,
    [lib, gridWgsl],
  );
}

/**
 * WGSL of `cp_store(at, v)`: writes output element `at` (global index) into the bound output
 * window that holds it, `dst_j` holding output window `first_dst + j` (a switch on the window, as
 * the pool's `<name>_load` does). An `at` outside the bound windows is dropped rather than left to
 * the bounds clamping of an out-of-range index (the group check of the scatter keeps every write
 * of a dispatch inside its windows, so this costs nothing in correct use).
 */
function storeWgsl(windows: number): string {
  if (windows === 1) return 'fn cp_store(at: u32, v: u32) { dst_0[at - params.first_dst * params.win] = v; }';
  const cases = Array.from(
    { length: windows },
    (_, j) => `    case ${j}u: { dst_${j}[at - (params.first_dst + ${j}u) * params.win] = v; }`,
  ).join('\n');
  return `fn cp_store(at: u32, v: u32) {
  switch (at / params.win - params.first_dst) {
${cases}
    default: {}
  }
}`;
}

/**
 * WGSL of the scatter pass over one input window and one group of output windows: each
 * workgroup whose kept elements land in the bound group ranks them (stable) and writes them at
 * the end of the kept elements of the tiles before it (`counts` holds the inclusive scan, over
 * the whole input, so earlier windows are counted too).
 *
 * @example
 * ```ts
 * const code = compactScatterWgsl({ subgroups: false, workgroupSize: 256, vectors: 4,
 *   predicate: undefined, outputWindows: 2, bindings: compactLayout('scatter', true, 2).wgsl() });
 * ```
 */
export function compactScatterWgsl(p: CompactKernelParams): string {
  const lib = tileScanWgsl({ ...p, op: 'add', segmented: false });
  return linkWgsl(
    `${storeWgsl(p.outputWindows ?? 1)}
${prelude(p, true)}
  let r = ts_wg_scan(c, lid, sg_lane, sg_size);
  base += r.pre;
  for (var j = 0u; j < CP_V; j++) {
    let q = qs[j];
    var at = base + lp[j];
    for (var i = 0u; i < 4u; i++) {
      if ((q.keep & (1u << i)) != 0u) { cp_store(at, q.v[i]); at += 1u; }
    }
  }
}`,
    [lib, gridWgsl],
  );
}

/**
 * WGSL of the last step: one invocation writes the number kept (the last entry of the scanned
 * counts, global tile `tiles - 1`; 0 when there are no tiles) to `kept[0]`.
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
  if (params.tiles > 0u) { total = counts[params.tiles - 1u - params.counts_base]; }
  kept[0] = total;
}`;
}
