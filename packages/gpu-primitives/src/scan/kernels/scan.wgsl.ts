import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { opIdentityWgsl, type ScanOp } from '../../common/ops';
import { tileEntryParams, tileEntryPrelude, tileScanWgsl } from '../../common/tile.wgsl';
import { scanParamsWgsl } from '../layout';

/** Parameters shared by the scan kernel builders. */
export interface ScanKernelParams {
  readonly op: ScanOp;
  readonly segmented: boolean;
  readonly subgroups: boolean;
  readonly workgroupSize: number;
  readonly vectors: number;
  /** `values`: level 0, read from `src4`/`src_tail` (and `heads`); `partials`: tile aggregates in `scratch`. */
  readonly source: 'values' | 'partials';
  /** WGSL bind declarations (`layout.wgsl()`). */
  readonly bindings: string;
}

/** Words per element of a level above 0 (a (flag, value) pair when segmented). */
export function partialWords(segmented: boolean): number {
  return segmented ? 2 : 1;
}

/**
 * Loads, scratch access and constants common to the scan kernels. `paramsWgsl` declares the
 * uniform struct (it needs `split`, and `in_off` when reading partials); `scratch: false` leaves
 * out `sc_get`/`sc_put` (kernels without a `scratch` binding).
 */
export function accessWgsl(p: ScanKernelParams, o: { paramsWgsl?: string; scratch?: boolean } = {}): string {
  const qpt = p.workgroupSize * p.vectors;
  const scratch =
    o.scratch === false
      ? ''
      : p.segmented
        ? `fn sc_get(off: u32) -> ts_T { return vec2u(scratch[off], scratch[off + 1u]); }
fn sc_put(off: u32, v: ts_T) { scratch[off] = v.x; scratch[off + 1u] = v.y; }`
        : `fn sc_get(off: u32) -> ts_T { return scratch[off]; }
fn sc_put(off: u32, v: ts_T) { scratch[off] = v; }`;
  let elem: string;
  let full: string;
  if (p.source === 'values') {
    if (p.segmented) {
      elem = 'return vec2u(select(0u, 1u, heads[e] != 0u), sc_value(e));';
      full = `let v = src4[k];
    q = array<ts_T, 4>(vec2u(select(0u, 1u, heads[e] != 0u), v.x), vec2u(select(0u, 1u, heads[e + 1u] != 0u), v.y),
                       vec2u(select(0u, 1u, heads[e + 2u] != 0u), v.z), vec2u(select(0u, 1u, heads[e + 3u] != 0u), v.w));`;
    } else {
      elem = 'return sc_value(e);';
      full = `let v = src4[k];
    q = array<ts_T, 4>(v.x, v.y, v.z, v.w);`;
    }
  } else {
    elem = `return sc_get(params.in_off + e * ${partialWords(p.segmented)}u);`;
    full = 'for (var i = 0u; i < 4u; i++) { q[i] = sc_elem(e + i); }';
  }
  const bound = p.source === 'values' ? 'params.split' : 'n';
  const value =
    p.source === 'values'
      ? `// Element e of the window: in the vec4 view below params.split, else in the tail view.
fn sc_value(e: u32) -> u32 {
  if (e < params.split) { return src4[e / 4u][e % 4u]; }
  return src_tail[e - params.split];
}`
      : '';
  return /* wgsl */ `
${o.paramsWgsl ?? scanParamsWgsl}
${p.bindings}
const SC_V = ${p.vectors}u;
const SC_QPT = ${qpt}u;       // vec4s per tile
const SC_TILE = ${qpt * 4}u;  // elements per tile
const SC_W = ${partialWords(p.segmented)}u;
${scratch}
${value}
fn sc_elem(e: u32) -> ts_T { ${elem} }
// The 4 elements of vec4 k, which must lie below the bound sc_load checks (no checks).
fn sc_full(k: u32) -> array<ts_T, 4> {
  var q: array<ts_T, 4>;
  let e = 4u * k;
  ${full}
  return q;
}
// The 4 elements of vec4 k of this level; the identity past n.
fn sc_load(k: u32, n: u32) -> array<ts_T, 4> {
  var q = array<ts_T, 4>(ts_ID, ts_ID, ts_ID, ts_ID);
  let e = 4u * k;
  if (e + 4u <= ${bound}) {
    q = sc_full(k);
  } else {
    for (var i = 0u; i < 4u; i++) { if (e + i < n) { q[i] = sc_elem(e + i); } }
  }
  return q;
}
// Whether every vec4 of tile t lies below that bound (its loads need no checks).
fn sc_tile_full(t: u32, n: u32) -> bool { return (t + 1u) * SC_TILE <= ${bound}; }`;
}

function header(p: ScanKernelParams, top: boolean): string {
  return /* wgsl */ `
@compute @workgroup_size(${p.workgroupSize})
fn main(${tileEntryParams(p.subgroups)}) {
  ${tileEntryPrelude(p.subgroups)}
  let n = params.n;
  ${top ? 'let tile = 0u;' : 'let tile = gm_workgroup_index(wid, nwg);\n  if (tile >= (n + SC_TILE - 1u) / SC_TILE) { return; }'}
  // Subgroup s owns vec4s [s·S·V, (s+1)·S·V) of the tile; lane l reads s·S·V + j·S + l in step j.
  let k0 = tile * SC_QPT + (lid / sg_size) * sg_size * SC_V + sg_lane;`;
}

/** `body` once per step j of a tile (unrolled: each copy declares `let j = <step>u;`). */
export function unrollWgsl(vectors: number, body: string): string {
  return Array.from({ length: vectors }, (_, j) => `  {\n    let j = ${j}u;\n    ${body}\n  }`).join('\n');
}

/**
 * WGSL loading the invocation's `SC_V` vec4s of tile `tile` (from `k0`, `n` in scope) into
 * `qs[j]`: all loads first (unrolled, and unchecked when the whole tile is in bounds), so they
 * are in flight together before the first is used.
 */
export function loadTileWgsl(p: Pick<ScanKernelParams, 'vectors'>, tile = 'tile'): string {
  return `  var qs: array<array<ts_T, 4>, SC_V>;
  if (sc_tile_full(${tile}, n)) {
${unrollWgsl(p.vectors, 'qs[j] = sc_full(k0 + j * sg_size);')}
  } else {
${unrollWgsl(p.vectors, 'qs[j] = sc_load(k0 + j * sg_size, n);')}
  }`;
}

/**
 * WGSL loading tile `tile` (see {@link loadTileWgsl}) and folding it into the invocation's `c`, so
 * that `ts_wg_scan(c, …).total` (after `ts_sg_fold(c)` when unsegmented) is the tile's aggregate.
 * Segmented, the subgroup's vec4s of a step are combined in lane order.
 */
export function foldTileWgsl(p: Pick<ScanKernelParams, 'vectors' | 'segmented'>, tile = 'tile'): string {
  const fold = p.segmented
    ? `let q = qs[j];
    let t = ts_comb(ts_comb(q[0], q[1]), ts_comb(q[2], q[3]));
    c = ts_comb(c, ts_sg_last(ts_sg_incl(t, sg_lane, sg_size), sg_size));`
    : `let q = qs[j];
    c = ts_comb(c, ts_comb(ts_comb(q[0], q[1]), ts_comb(q[2], q[3])));`;
  return `${loadTileWgsl(p, tile)}
  var c = ts_ID;
${unrollWgsl(p.vectors, fold)}
  ${p.segmented ? '' : 'c = ts_sg_fold(c);'}`;
}

/**
 * WGSL loading a tile (from `tile`, `k0`, `n` in scope) into registers: `qs[j]` the inclusive
 * scans within each vec4, `lp[j]` the exclusive prefix of that vec4 within the invocation's part
 * of the subgroup's rows, `c` the invocation's subgroup total (as `ts_wg_scan` wants it), `hb[j]`
 * the head bits when `needHeads`. Loads first, then the row scans (independent of each other),
 * all unrolled.
 */
export function localScanWgsl(p: Pick<ScanKernelParams, 'vectors'>, needHeads: boolean): string {
  return `${loadTileWgsl(p)}
  var lp: array<ts_T, SC_V>;
  ${needHeads ? 'var hb: array<u32, SC_V>;' : ''}
  var c = ts_ID;
${unrollWgsl(
  p.vectors,
  `var q = qs[j];
    ${needHeads ? 'hb[j] = q[0].x | (q[1].x << 1u) | (q[2].x << 2u) | (q[3].x << 3u);' : ''}
    q[1] = ts_comb(q[0], q[1]);
    q[2] = ts_comb(q[1], q[2]);
    q[3] = ts_comb(q[2], q[3]);
    let row = ts_sg_incl(q[3], sg_lane, sg_size);
    lp[j] = ts_comb(c, ts_sg_prev(row, sg_lane));
    c = ts_comb(c, ts_sg_last(row, sg_size));
    qs[j] = q;`,
)}`;
}

/** Options of {@link scanUpsweepWgsl}. */
export interface ScanUpsweepParams extends ScanKernelParams {
  /**
   * WGSL run by invocation 0 with the tile's aggregate in `total` (a `ts_T`); default: store it
   * as element `tile` of the next level (`scratch[params.out_off + tile · W]`).
   */
  readonly finish?: string;
  /** One workgroup only (the top of a reduction): no tile bound check. */
  readonly top?: boolean;
}

/**
 * WGSL of the upsweep: each workgroup reduces one tile of this level to its aggregate.
 *
 * @example
 * ```ts
 * const layout = scanLayout('up-values', false);
 * const code = scanUpsweepWgsl({ op: 'add', segmented: false, subgroups: false, workgroupSize: 256,
 *   vectors: 4, source: 'values', bindings: layout.wgsl() });
 * ```
 */
export function scanUpsweepWgsl(p: ScanUpsweepParams): string {
  const lib = tileScanWgsl(p);
  return linkWgsl(
    /* wgsl */ `
${accessWgsl(p)}
${header(p, p.top ?? false)}
${foldTileWgsl(p)}
  let r = ts_wg_scan(c, lid, sg_lane, sg_size);
  if (lid == 0u) {
    let total = r.total;
    ${p.finish ?? 'sc_put(params.out_off + tile * SC_W, total);'}
  }
}`,
    [lib, gridWgsl],
  );
}

/**
 * WGSL storing the results of vec4 `k` of a tile (in scope: `k`, `q` (the 4 inclusive scans within
 * the vec4), `pre` (the prefix before it), `hb[j]` (head bits, segmented exclusive), `n`).
 */
export function storeWgsl(p: Pick<ScanDownsweepParams, 'segmented' | 'op' | 'output' | 'inPlace'>): string {
  const val = (x: string) => (p.segmented ? `${x}.y` : x);
  const idValue = opIdentityWgsl(p.op);
  let store: string;
  if (p.output === 'partials') {
    store = `let e = 4u * k;
    let ex = array<ts_T, 4>(pre, ts_comb(pre, q[0]), ts_comb(pre, q[1]), ts_comb(pre, q[2]));
    for (var i = 0u; i < 4u; i++) { if (e + i < n) { sc_put(params.in_off + (e + i) * SC_W, ex[i]); } }`;
  } else {
    const d4 = p.inPlace ? 'src4' : 'dst4';
    const d = p.inPlace ? 'src_tail' : 'dst_tail';
    let r: string;
    if (p.output === 'inclusive') {
      r = `vec4u(${[0, 1, 2, 3].map((i) => val(`ts_comb(pre, q[${i}])`)).join(', ')})`;
    } else {
      const ex = ['pre', 'ts_comb(pre, q[0])', 'ts_comb(pre, q[1])', 'ts_comb(pre, q[2])'].map(val);
      r = p.segmented
        ? `vec4u(${ex.map((x, i) => `select(${x}, ${idValue}, (hb[j] & ${1 << i}u) != 0u)`).join(', ')})`
        : `vec4u(${ex.join(', ')})`;
    }
    store = `let e = 4u * k;
    let r = ${r};
    if (e + 4u <= params.split) { ${d4}[k] = r; } else {
      // Past the vec4 view (params.split is a multiple of 4, so e >= params.split here).
      for (var i = 0u; i < 4u; i++) { if (e + i < n) { ${d}[e + i - params.split] = r[i]; } }
    }`;
  }
  return store;
}

/** Options of {@link scanDownsweepWgsl}. */
export interface ScanDownsweepParams extends ScanKernelParams {
  /**
   * What is written: `exclusive`/`inclusive` u32 values to `dst4`/`dst_tail` (level 0), or `partials`:
   * the exclusive prefixes of this level's elements, in place in `scratch`.
   */
  readonly output: 'exclusive' | 'inclusive' | 'partials';
  /** Level 0 written in place: the output views are `src4`/`src_tail`. */
  readonly inPlace: boolean;
  /**
   * The top level of a window (one workgroup): the carry comes from the running prefix
   * (`scratch[params.carry]`, the identity when `params.first` is 1) and is advanced by the total.
   */
  readonly top: boolean;
}

/**
 * WGSL of the downsweep: each workgroup rescans its tile starting from the tile's carry (the
 * exclusive prefix of the tiles before it, written by the level above) and writes the results.
 *
 * @example
 * ```ts
 * const layout = scanLayout('down-values', false);
 * const code = scanDownsweepWgsl({ op: 'add', segmented: false, subgroups: false, workgroupSize: 256,
 *   vectors: 4, source: 'values', bindings: layout.wgsl(), output: 'exclusive', inPlace: false, top: true });
 * ```
 */
export function scanDownsweepWgsl(p: ScanDownsweepParams): string {
  const lib = tileScanWgsl(p);
  const store = storeWgsl(p);
  const needHeads = p.segmented && p.output === 'exclusive';
  const carry = p.top
    ? `var carry = ts_ID;
  if (params.first == 0u) { carry = sc_get(params.carry); }
  storageBarrier(); // the carry is read by all before invocation 0 advances it`
    : 'let carry = sc_get(params.out_off + tile * SC_W);';
  return linkWgsl(
    /* wgsl */ `
${accessWgsl(p)}
${header(p, p.top)}
${localScanWgsl(p, needHeads)}
  ${carry}
  let r = ts_wg_scan(c, lid, sg_lane, sg_size);
  let pre_sg = ts_comb(carry, r.pre);
${unrollWgsl(
  p.vectors,
  `let pre = ts_comb(pre_sg, lp[j]);
    let q = qs[j];
    let k = k0 + j * sg_size;
    ${store}`,
)}
  ${p.top ? 'if (lid == 0u) { sc_put(params.carry, ts_comb(carry, r.total)); }' : ''}
}`,
    [lib, gridWgsl],
  );
}
