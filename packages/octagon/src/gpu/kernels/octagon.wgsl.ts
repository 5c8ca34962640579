import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { type GpuNumberFormat, OCT_PARAMS_WGSL } from '../layout';

/**
 * The number format's WGSL: `INF`, `relax(c, a, b)` (= min(c, a + b) rounded up), `relax_n` (the
 * same, normalised), `is_inf`, `tighten` (integers: the unary cell to an even value),
 * `strengthen_value(ti, tj)` (= (ti + tj) / 2 rounded up) and `is_negative`.
 *
 * @example
 * ```ts
 * numberWgsl('i32'); // "const INF: i32 = 0x3fffffff; …"
 * ```
 */
export function numberWgsl(format: GpuNumberFormat): string {
  if (format === 'i32') {
    return /* wgsl */ `
alias E = i32;
const INF: i32 = 0x3fffffff;
const LIM: i32 = 0x1fffffff;
// Stored values are in [-LIM, LIM] or INF, so a + b never overflows; a sum above LIM is +inf and
// one below -LIM is clamped up to -LIM: both raise a bound only (sound).
fn norm(v: i32) -> i32 { return select(max(v, -LIM), INF, v > LIM); }
fn relax(c: i32, a: i32, b: i32) -> i32 { return min(c, a + b); }
fn relax_n(c: i32, a: i32, b: i32) -> i32 { return norm(min(c, a + b)); }
fn is_inf(v: i32) -> bool { return v > LIM; }
fn is_negative(v: i32) -> bool { return v < 0; }
fn tighten(v: i32) -> i32 { return select(v & ~1i, v, v > LIM); }
fn strengthen_value(ti: i32, tj: i32) -> i32 {
  if (ti > LIM || tj > LIM) { return INF; }
  return norm((ti + tj) >> 1u); // both even after tightening: exact
}
fn add_const(v: i32, d: i32) -> i32 { return select(norm(v + d), INF, v > LIM); }
fn pair_negative(a: i32, b: i32) -> bool { return a <= LIM && b <= LIM && a + b < 0; }
`;
  }
  return /* wgsl */ `
alias E = f32;
const INF: f32 = 0x1p100f;
const INF_T: f32 = 0x1p99f;
const NEG: f32 = -0x1p100f;
// f32 addition is faithfully rounded (either neighbour of the exact sum). Sums of two values on the
// grid of multiples of 2^-8 below 2^15 are exactly representable, hence exact; any other sum is
// moved one ulp up, which bounds the exact sum from above.
fn on_grid(a: f32) -> bool { return abs(a) < 32768.0 && fract(a * 256.0) == 0.0; }
fn next_up(s: f32) -> f32 {
  if (s == 0.0) { return 0x1p-126f; }
  let b = bitcast<i32>(s);
  return bitcast<f32>(select(b - 1i, b + 1i, s > 0.0));
}
fn add_up(a: f32, b: f32) -> f32 {
  let s = a + b;
  if (on_grid(a) && on_grid(b)) { return s; }
  return next_up(s);
}
fn norm(v: f32) -> f32 { return select(max(v, NEG), INF, v >= INF_T); }
fn fast_ok(a: f32) -> bool { return on_grid(a) || a >= INF_T; }
fn relax(c: f32, a: f32, b: f32) -> f32 {
  let s = a + b;
  if (s < c) { return max(min(c, add_up(a, b)), NEG); }
  return c;
}
fn relax_n(c: f32, a: f32, b: f32) -> f32 { return relax(c, a, b); }
fn is_inf(v: f32) -> bool { return v >= INF_T; }
fn is_negative(v: f32) -> bool { return v < 0.0; }
fn tighten(v: f32) -> f32 { return v; }
fn strengthen_value(ti: f32, tj: f32) -> f32 {
  if (ti >= INF_T || tj >= INF_T) { return INF; }
  var h = add_up(ti, tj) * 0.5;
  // A positive half that a flush-to-zero could lose is raised to a normal number.
  if (h > 0.0 && h < 0x1p-100f) { h = 0x1p-100f; }
  return max(h, NEG);
}
fn add_const(v: f32, d: f32) -> f32 { return select(max(add_up(v, d), NEG), INF, v >= INF_T); }
fn pair_negative(a: f32, b: f32) -> bool { return a < INF_T && b < INF_T && add_up(a, b) < 0.0; }
`;
}

/** Parameters of the blocked Floyd–Warshall kernels. */
export interface BlockedParams {
  readonly format: GpuNumberFormat;
  /** Tile edge (32 or 64); the workgroup is 16×16 and each invocation owns (tile/16)² cells. */
  readonly tile: number;
  readonly phase: 'diagonal' | 'panel' | 'rest';
  /**
   * Pad each row of the tiles in workgroup memory by one word (row stride T + 1), so the transposed
   * stores of twin panels do not all hit one bank. Needs 8·T·(T+1) bytes of workgroup memory.
   */
  readonly pad?: boolean;
  /** WGSL bind declarations (`closureLayout(format).wgsl()`). */
  readonly bindings: string;
}

/**
 * One phase of blocked Floyd–Warshall (Venkataraman et al.; Katz & Kider on GPUs) over the padded
 * 2n×2n matrix, round `params.round`: the diagonal tile alone, then the tiles of its row and
 * column (each against the diagonal tile), then every other tile as a min-plus product of its
 * row and column panels, with both panels in workgroup memory and the cells in registers.
 * `params.n` is the padded row length, `params.a` the number of tiles per row.
 *
 * Coherence halves the work: tiles are T×T with T even, so the twin of cell (i, j), (j̄, ī), lies in
 * tile (J, I), and after every round (whose pivots, a whole tile, are closed under ̄) the exact
 * matrix is coherent again. So only the tiles of the lower block triangle (J ≤ I) are computed; a
 * panel tile of the upper triangle is read as the transposed twin of the stored one. The upper
 * tiles keep their initial values, which are never below the final ones (Floyd–Warshall only
 * lowers cells), and the strengthening step's `min(m[i][j], m[j̄][ī])` then restores them.
 *
 * @example
 * ```ts
 * const code = blockedFwWgsl({ format: 'i32', tile: 64, phase: 'rest', bindings: closureLayout('i32').wgsl() });
 * ```
 */
export function blockedFwWgsl(p: BlockedParams): string {
  const code = blockedFwSource(p);
  // Workgroup-memory indices use the row stride S (T, or T + 1 when padded); global ones use T.
  return code.replace(
    /\b(t[ab])\[([^\]]*)\]/g,
    (_, name: string, index: string) => `${name}[${index.replace(/\* T\b/g, '* S')}]`,
  );
}

function blockedFwSource(p: BlockedParams): string {
  const T = p.tile;
  const R = T / 16;
  const cells: [number, number][] = [];
  for (let r = 0; r < R; r++) for (let c = 0; c < R; c++) cells.push([r, c]);
  const each = (f: (r: number, c: number) => string) => cells.map(([r, c]) => f(r, c)).join('\n    ');
  const loads = [
    ...Array.from({ length: R }, (_, r) => `let a${r} = ta[(lid.y + ${16 * r}u) * T + k];`),
    ...Array.from({ length: R }, (_, c) => `let b${c} = tb[k * T + lid.x + ${16 * c}u];`),
  ].join('\n      ');
  const header = `${OCT_PARAMS_WGSL}
${p.bindings}
${numberWgsl(p.format)}
const T: u32 = ${T}u;
const S: u32 = ${p.pad ? T + 1 : T}u;
var<workgroup> ta: array<E, ${T * (p.pad ? T + 1 : T)}>;
var<workgroup> tb: array<E, ${T * (p.pad ? T + 1 : T)}>;
fn at(row: u32, col: u32) -> u32 { return row * params.n + col; }
`;
  if (p.phase === 'diagonal') {
    return `${header}
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3u) {
  let base = params.round * T;
  ${p.format === 'f32' ? 'for (var f = lid.y * 16u + lid.x; f < 2u * params.a; f += 256u) { atomicStore(&flags[1u + f], 1u); }' : ''}
  ${each((r, c) => `ta[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u] = m[at(base + lid.y + ${16 * r}u, base + lid.x + ${16 * c}u)];`)}
  workgroupBarrier();
  for (var k = 0u; k < T; k++) {
    ${each((r, c) => {
      const i = `(lid.y + ${16 * r}u)`;
      const j = `(lid.x + ${16 * c}u)`;
      return `ta[${i} * T + ${j}] = relax_n(ta[${i} * T + ${j}], ta[${i} * T + k], ta[k * T + ${j}]);`;
    })}
    workgroupBarrier();
  }
  ${each((r, c) => `m[at(base + lid.y + ${16 * r}u, base + lid.x + ${16 * c}u)] = ta[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u];`)}
}
`;
  }
  if (p.phase === 'panel') {
    return `${header}
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  let b = params.round;
  let w = wid.x;
  if (w == b) { return; } // the diagonal tile (workgroup-uniform)
  // Only the panel tiles of the lower block triangle: the row tile (b, w) for w < b, the column
  // tile (w, b) for w > b. The others are their twins (coherence) and are never computed.
  let is_row = w < b;
  let row0 = select(w, b, is_row) * T;
  let col0 = select(b, w, is_row) * T;
  let d0 = b * T;
  ${each(
    (
      r,
      c,
    ) => `ta[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u] = m[at(d0 + lid.y + ${16 * r}u, d0 + lid.x + ${16 * c}u)];
    tb[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u] = m[at(row0 + lid.y + ${16 * r}u, col0 + lid.x + ${16 * c}u)];`,
  )}
  workgroupBarrier();
  for (var k = 0u; k < T; k++) {
    if (is_row) {
      ${each((r, c) => {
        const i = `(lid.y + ${16 * r}u)`;
        const j = `(lid.x + ${16 * c}u)`;
        return `tb[${i} * T + ${j}] = relax_n(tb[${i} * T + ${j}], ta[${i} * T + k], tb[k * T + ${j}]);`;
      })}
    } else {
      ${each((r, c) => {
        const i = `(lid.y + ${16 * r}u)`;
        const j = `(lid.x + ${16 * c}u)`;
        return `tb[${i} * T + ${j}] = relax_n(tb[${i} * T + ${j}], tb[${i} * T + k], ta[k * T + ${j}]);`;
      })}
    }
    workgroupBarrier();
  }
  ${each((r, c) => `m[at(row0 + lid.y + ${16 * r}u, col0 + lid.x + ${16 * c}u)] = tb[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u];`)}
  ${
    p.format === 'f32'
      ? `// Panel w is usable by the fast path of the last phase only if all its values are fast_ok.
  ${each((r, c) => `if (!fast_ok(tb[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u])) { atomicStore(&flags[1u + w], 0u); }`)}`
      : ''
  }
}
`;
  }
  return `${header}
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u) {
  let b = params.round;
  // Lower block triangle only (J ≤ I), panels excluded (workgroup-uniform).
  if (wid.x > wid.y || wid.x == b || wid.y == b) { return; }
  let row0 = wid.y * T;
  let col0 = wid.x * T;
  let d0 = b * T;
  // A = tile (I, b): stored when I > b, else the twin of tile (b, I): A[r][c] = m[bT + c̄][IT + r̄].
  if (wid.y > b) {
    ${each((r, c) => `ta[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u] = m[at(row0 + lid.y + ${16 * r}u, d0 + lid.x + ${16 * c}u)];`)}
  } else {
    ${each((r, c) => `ta[((lid.x + ${16 * c}u) ^ 1u) * T + ((lid.y + ${16 * r}u) ^ 1u)] = m[at(d0 + lid.y + ${16 * r}u, row0 + lid.x + ${16 * c}u)];`)}
  }
  // B = tile (b, J): stored when J < b, else the twin of tile (J, b): B[r][c] = m[JT + c̄][bT + r̄].
  if (wid.x < b) {
    ${each((r, c) => `tb[(lid.y + ${16 * r}u) * T + lid.x + ${16 * c}u] = m[at(d0 + lid.y + ${16 * r}u, col0 + lid.x + ${16 * c}u)];`)}
  } else {
    ${each((r, c) => `tb[((lid.x + ${16 * c}u) ^ 1u) * T + ((lid.y + ${16 * r}u) ^ 1u)] = m[at(col0 + lid.y + ${16 * r}u, d0 + lid.x + ${16 * c}u)];`)}
  }
  ${each((r, c) => `var c${r}_${c} = m[at(row0 + lid.y + ${16 * r}u, col0 + lid.x + ${16 * c}u)];`)}
  ${
    p.format === 'f32'
      ? `// Fast path: when every panel value is on the exact grid or +inf, every sum a + b is exact (or
  // stays above INF_T, i.e. +inf), so plain min(c, a + b) is the outward-rounded relaxation.
  workgroupBarrier();
  // flags[1 + w]: the stored panel tile of index w is all fast_ok (set by the panel phase).
  if (atomicLoad(&flags[1u + wid.x]) == 1u && atomicLoad(&flags[1u + wid.y]) == 1u) {
    for (var k = 0u; k < T; k++) {
      ${loads}
      ${each((r, c) => `c${r}_${c} = min(c${r}_${c}, a${r} + b${c});`)}
    }
  } else {
    for (var k = 0u; k < T; k++) {
      ${loads}
      ${each((r, c) => `c${r}_${c} = relax(c${r}_${c}, a${r}, b${c});`)}
    }
  }`
      : `workgroupBarrier();
  for (var k = 0u; k < T; k++) {
    ${loads}
    ${each((r, c) => `c${r}_${c} = relax(c${r}_${c}, a${r}, b${c});`)}
  }`
  }
  ${each((r, c) => `m[at(row0 + lid.y + ${16 * r}u, col0 + lid.x + ${16 * c}u)] = norm(c${r}_${c});`)}
}
`;
}

/** Parameters of the dense strengthening kernels. */
export interface StrengthenParams {
  readonly format: GpuNumberFormat;
  /** `unary` snapshots (and tightens) the unary cells and checks emptiness; `cells` strengthens every cell. */
  readonly step: 'unary' | 'cells';
  readonly bindings: string;
}

/**
 * The strengthening step of a dense (padded) matrix after Floyd–Warshall. `unary`: one invocation
 * per node `i` tightens `m[i][ī]` (integers), stores it in `unary[i]`, and raises `flags[0]` on a
 * negative diagonal or `m[i][ī] + m[ī][i] < 0`. `cells`: one invocation per pair of twin cells
 * `(i, j)` / `(j̄, ī)` writes `min(m[i][j], m[j̄][ī], (unary[i] + unary[j̄]) / 2)` to both (the twin
 * min restores coherence exactly after rounding), and 0 on the diagonal. `params.count` is the
 * real node count 2n, `params.n` the padded row length.
 *
 * @example
 * ```ts
 * const code = strengthenWgsl({ format: 'i32', step: 'cells', bindings: closureLayout('i32').wgsl() });
 * ```
 */
export function strengthenWgsl(p: StrengthenParams): string {
  const head = `${OCT_PARAMS_WGSL}
${p.bindings}
${numberWgsl(p.format)}`;
  if (p.step === 'unary') {
    return linkWgsl(
      `${head}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i = gid.x;
  let nn = params.count;
  if (i >= nn) { return; }
  let w = params.n;
  let t = tighten(m[i * w + (i ^ 1u)]);
  let tb = tighten(m[(i ^ 1u) * w + i]);
  unary[i] = t;
  m[i * w + (i ^ 1u)] = t;
  if (is_negative(m[i * w + i]) || pair_negative(t, tb)) { atomicMax(&flags[0], 1u); }
}`,
      [],
    );
  }
  return linkWgsl(
    `${head}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let idx = gm_workgroup_index(wid, nwg) * 256u + lid.x;
  let nn = params.count;
  if (idx >= nn * nn) { return; }
  let i = idx / nn;
  let j = idx % nn;
  let ti = j ^ 1u;
  let tj = i ^ 1u;
  if (ti * nn + tj < idx) { return; } // the twin's invocation handles this pair
  let w = params.n;
  var v = min(m[i * w + j], m[ti * w + tj]);
  v = min(v, strengthen_value(unary[i], unary[ti]));
  if (i == j) { v = E(0); }
  m[i * w + j] = v;
  m[ti * w + tj] = v;
}`,
    [gridWgsl],
  );
}

/** Parameters of {@link batchClosureWgsl}. */
export interface BatchParams {
  readonly format: GpuNumberFormat;
  /** 2n: nodes of every octagon of the batch. */
  readonly nodes: number;
  /** Keep the matrix in workgroup memory (it must fit) or work on the storage buffer. */
  readonly shared: boolean;
  readonly bindings: string;
}

/**
 * Closure of a batch of small octagons, one workgroup (256 invocations) per octagon, in one
 * dispatch: Floyd–Warshall over its 2n nodes (a barrier per pivot), tightening, emptiness checks
 * (`flags[o]`), and strengthening with the twin-pair rule of {@link strengthenWgsl}. The matrix
 * lives in workgroup memory when `shared`, else in the storage buffer (with storage barriers).
 * Octagon `o` is the `N×N` block at `o·N²`; `params.count` is the batch size.
 *
 * @example
 * ```ts
 * const code = batchClosureWgsl({ format: 'i32', nodes: 64, shared: true, bindings: closureLayout('i32').wgsl() });
 * ```
 */
export function batchClosureWgsl(p: BatchParams): string {
  const N = p.nodes;
  const S = (idx: string) => (p.shared ? `s[${idx}]` : `m[base + ${idx}]`);
  const barrier = p.shared ? 'workgroupBarrier();' : 'storageBarrier(); workgroupBarrier();';
  return linkWgsl(
    `${OCT_PARAMS_WGSL}
${p.bindings}
${numberWgsl(p.format)}
const N: u32 = ${N}u;
${p.shared ? `var<workgroup> s: array<E, ${N * N}>;` : ''}
var<workgroup> t: array<E, ${N}>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gm_workgroup_index(wid, nwg);
  if (o >= params.count) { return; } // workgroup-uniform
  let base = o * N * N;
  ${p.shared ? `for (var c = lid.x; c < N * N; c += 256u) { s[c] = m[base + c]; }` : ''}
  ${barrier}
  for (var k = 0u; k < N; k++) {
    for (var c = lid.x; c < N * N; c += 256u) {
      let i = c / N;
      let j = c % N;
      ${S('c')} = relax_n(${S('c')}, ${S('i * N + k')}, ${S('k * N + j')});
    }
    ${barrier}
  }
  for (var i = lid.x; i < N; i += 256u) {
    let ti = tighten(${S('i * N + (i ^ 1u)')});
    let tb = tighten(${S('(i ^ 1u) * N + i')});
    t[i] = ti;
    if (is_negative(${S('i * N + i')}) || pair_negative(ti, tb)) { atomicMax(&flags[o], 1u); }
  }
  ${barrier}
  for (var c = lid.x; c < N * N; c += 256u) {
    let i = c / N;
    let j = c % N;
    let twin = (j ^ 1u) * N + (i ^ 1u);
    if (c <= twin) {
      var v = min(${S('c')}, ${S('twin')});
      v = min(v, strengthen_value(t[i], t[j ^ 1u]));
      if (i == j) { v = E(0); }
      ${S('c')} = v;
      ${S('twin')} = v;
    }
  }
  ${barrier}
  ${p.shared ? `for (var c = lid.x; c < N * N; c += 256u) { m[base + c] = s[c]; }` : ''}
}`,
    [gridWgsl],
  );
}

/** The elementwise operators. */
export type ElementwiseOp = 'join' | 'meet' | 'widen' | 'narrow';

/**
 * `out[k] = op(a[k], b[k])` over `params.count` cells: join = max, meet = min, widening = `a` where
 * `b ≤ a` else +∞, narrowing = `b` where `a` is +∞ else `a`. Works on dense matrices and batches
 * alike (coherent inputs give coherent outputs).
 *
 * @example
 * ```ts
 * const code = elementwiseWgsl('f32', 'widen', elementwiseLayout('f32').wgsl());
 * ```
 */
export function elementwiseWgsl(format: GpuNumberFormat, op: ElementwiseOp, bindings: string): string {
  const expr = {
    join: 'max(x, y)',
    meet: 'min(x, y)',
    widen: 'select(INF, x, y <= x)',
    narrow: 'select(x, y, is_inf(x))',
  }[op];
  return linkWgsl(
    `${OCT_PARAMS_WGSL}
${bindings}
${numberWgsl(format)}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let k = gm_workgroup_index(wid, nwg) * 256u + lid.x;
  if (k >= params.count) { return; }
  let x = a[k];
  let y = b[k];
  out[k] = ${expr};
}`,
    [gridWgsl],
  );
}

/**
 * Transfer functions on a dense (padded) matrix. `guard`: one invocation lowers the cell
 * `params.a` and its twin `params.b` to the constant (`c` or `cf`). `shift` (`x := x + c`, exact):
 * 4·2n invocations add ±c or ±2c to the rows and columns of the nodes `2x, 2x+1` (`params.round`
 * is x, `params.count` the node count).
 *
 * @example
 * ```ts
 * const code = transferWgsl('i32', 'shift', transferLayout('i32').wgsl());
 * ```
 */
export function transferWgsl(format: GpuNumberFormat, op: 'guard' | 'shift', bindings: string): string {
  const cst = format === 'i32' ? 'params.c' : 'params.cf';
  const head = `${OCT_PARAMS_WGSL}
${bindings}
${numberWgsl(format)}`;
  if (op === 'guard') {
    return `${head}
@compute @workgroup_size(1)
fn main() {
  m[params.a] = min(m[params.a], ${cst});
  m[params.b] = min(m[params.b], ${cst});
}`;
  }
  return `${head}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let nn = params.count;
  let k = gid.x;
  if (k >= 4u * nn) { return; }
  let which = k / nn;
  let idx = k % nn;
  let p = 2u * params.round;
  var i = idx;
  var j = idx;
  if (which == 0u) { i = p; } else if (which == 1u) { i = p + 1u; }
  else if (which == 2u) { j = p; if (idx == p || idx == p + 1u) { return; } }
  else { j = p + 1u; if (idx == p || idx == p + 1u) { return; } }
  // V_j - V_i: +c when j = 2x, -c when j = 2x+1, -c when i = 2x, +c when i = 2x+1.
  var coef = 0i;
  if (j == p) { coef += 1i; }
  if (j == p + 1u) { coef -= 1i; }
  if (i == p) { coef -= 1i; }
  if (i == p + 1u) { coef += 1i; }
  if (coef == 0i) { return; }
  let w = params.n;
  m[i * w + j] = add_const(m[i * w + j], E(coef) * ${cst});
}`;
}
