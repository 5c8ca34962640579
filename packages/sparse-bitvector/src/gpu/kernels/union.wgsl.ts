import type { WgslModule } from '@gpumorph/gpu-allocator';
import { ELEMENT_WORDS } from '../../cpu/layout';
import { OP_CODES, STATUS_CHANGED, STATUS_CORRUPT, STATUS_INCOMPLETE } from '../layout';
import { batchStructsWgsl } from './batch.wgsl';

/**
 * How the batched union kernel gets new elements: `counted` (a counting kernel first finds how
 * many new elements each union needs and reserves them with one atomic per workgroup; the merge
 * then takes no atomic at all) or `atomic` (the merge takes one atomic per subgroup and step, shared
 * by the subgroup's teams that need an element then).
 *
 * @example
 * ```ts
 * const allocation: UnionAllocation = 'counted';
 * ```
 */
export type UnionAllocation = 'counted' | 'atomic';

/**
 * Inputs of {@link unionKernelWgsl} and {@link unionCountKernelWgsl}.
 *
 * @example
 * ```ts
 * const params: UnionKernelParams = { name: 'sbv', teamLanes: 8, workgroupSize: 256,
 *   allocation: 'counted', layoutWgsl: layout.wgsl() };
 * ```
 */
export interface UnionKernelParams {
  /** Pool prefix of the WGSL names. */
  readonly name: string;
  /**
   * Lanes per team (1, 2, 4 or 8, at most the smallest subgroup size): a team of `teamLanes` lanes
   * moves one 128-byte element in 16-byte quarters, lane i owning quarters i, i + teamLanes, …, so
   * a 32-lane subgroup runs `32 / teamLanes` unions at once.
   */
  readonly teamLanes: number;
  /** Invocations per workgroup (a multiple of the largest subgroup size). */
  readonly workgroupSize: number;
  readonly allocation: UnionAllocation;
  /**
   * The bind-group declarations (`layout.wgsl()`): the apply layout with the pool's windows as
   * `array<vec4u>` ({@link quadWindowSpecs}), plus, for `counted`, `<name>_plan: array<vec4u>`
   * (two per operation, written by the counting kernel).
   */
  readonly layoutWgsl: string;
}

/** Words of one element's 16-byte quarter (`vec4u`): an element is 8 of them. */
const QUADS = ELEMENT_WORDS / 4;

/**
 * The pool's windows bound as `array<vec4u>` (the union kernels' view, so a lane moves 16 bytes
 * per load): binding specs with the windows retyped.
 *
 * @example
 * ```ts
 * const specs = quadWindowSpecs(pool.bindingSpecs(), 'sbv');
 * ```
 */
export function quadWindowSpecs<S extends Record<string, unknown>>(specs: S, name: string): S {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
    out[key] = new RegExp(`^${name}_w\\d+$`).test(key) ? { ...(spec as object), type: 'array<vec4u>' } : spec;
  }
  return out as S;
}

/**
 * WGSL of `<name>_load4(element, quad) -> vec4u`, `<name>_store4(element, quad, value)` and
 * `<name>_store1(element, word, value)` over the pool's windows bound as `array<vec4u>`
 * ({@link quadWindowSpecs}).
 *
 * @example
 * ```ts
 * const access = quadAccessWgsl(pool.geometry);
 * ```
 */
export function quadAccessWgsl(geometry: {
  readonly name: string;
  readonly windows: number;
  readonly windowElements: number;
}): WgslModule {
  const { name: p, windows, windowElements } = geometry;
  const at = (w: number, quad: string) =>
    `${p}_w${w}[(element - ${w * windowElements}u) * ${QUADS}u + ${quad}]`;
  const body = (stmt: (w: number) => string) =>
    windows === 1
      ? stmt(0)
      : `switch (element / ${windowElements}u) {\n${Array.from({ length: windows }, (_, w) =>
          w === windows - 1 ? `    default: { ${stmt(w)} }` : `    case ${w}u: { ${stmt(w)} }`,
        ).join('\n')}\n  }`;
  return {
    name: `gm_sbv_quad_access_${p}_${windows}x${windowElements}`,
    code: /* wgsl */ `
fn ${p}_load4(element: u32, quad: u32) -> vec4u {
  ${body((w) => `return ${at(w, 'quad')};`)}
}
fn ${p}_store4(element: u32, quad: u32, value: vec4u) {
  ${body((w) => `${at(w, 'quad')} = value;`)}
}
fn ${p}_store1(element: u32, word: u32, value: u32) {
  ${body((w) => `${at(w, 'word / 4u')}[word % 4u] = value;`)}
}`,
  };
}

/**
 * Directives of the union kernels: link them with each. Every subgroup built-in of the merge
 * kernel is called in subgroup-uniform control flow (its loop exits on a `subgroupAny`; the
 * per-team data-dependent work sits in branches that call none), which the analysis cannot see.
 *
 * @example
 * ```ts
 * linkWgsl(unionKernelWgsl(params), [unionDirectivesWgsl, gridWgsl, alloc, access]);
 * ```
 */
export const unionDirectivesWgsl: WgslModule = {
  name: 'gm_sbv_union_directives',
  enables: ['subgroups'],
  diagnostics: ['off, subgroup_uniformity'],
  code: '',
};

/**
 * The counting kernel of `counted` allocation, one invocation per operation: walks the bases of
 * `src` and `dst` (words 30 and 31 only) and counts the source elements whose base `dst` lacks,
 * the elements the union will add. The workgroup sums its counts in workgroup memory and reserves
 * them with one atomic on the pool. `<name>_plan[2t]` gets the union's first reserved element (or
 * `GM_INVALID_ELEMENT` when they do not fit: the pool is flagged exhausted, and the merge leaves
 * that union alone and marks it incomplete), their number, the source head and the dst element
 * before the first source element's base (`prev`); `<name>_plan[2t + 1].x` the dst element after
 * it (`d`), so the merge starts there without walking the dst prefix or reading the heads.
 *
 * @example
 * ```ts
 * const code = linkWgsl(unionCountKernelWgsl(params), [unionDirectivesWgsl, gridWgsl, pool.allocWgsl('subgroup'), quadAccessWgsl(pool.geometry)]);
 * ```
 */
export function unionCountKernelWgsl(params: UnionKernelParams): string {
  const { name: p, workgroupSize: wg } = params;
  const NONE = '0xffffffffu';
  return /* wgsl */ `
${batchStructsWgsl(p)}
${params.layoutWgsl}
var<workgroup> ${p}_count_total: atomic<u32>;
var<workgroup> ${p}_count_base: u32;
@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let t = gm_workgroup_index(wid, nwg) * ${wg}u + lid;
  let limit = ${p}_header.capacity * 4u + 64u;
  var n = 0u;
  // Where the merge starts: the source head, and the cursor (prev, d) at the first source
  // element (prev the last dst element below its base), so the merge skips that dst prefix.
  var s_head = ${NONE};
  var start_prev = ${NONE};
  var start_d = ${NONE};
  if (t < ${p}_params.count && ${p}_ops[t].kind == ${OP_CODES.union}u && ${p}_ops[t].dst != ${p}_ops[t].src) {
    var s = ${p}_heads[${p}_ops[t].src];
    var d = ${p}_heads[${p}_ops[t].dst];
    s_head = s;
    start_d = d;
    var started = false;
    var sh = vec2u(0u, ${NONE});
    var dh = vec2u(0u, ${NONE});
    var need_s = true;
    var need_d = true;
    var steps = 0u;
    loop {
      if (s == ${NONE} || steps > limit) { break; }
      if (need_s) { sh = ${p}_load4(s, ${QUADS - 1}u).zw; }
      if (need_d && d != ${NONE}) { dh = ${p}_load4(d, ${QUADS - 1}u).zw; }
      if (d != ${NONE} && dh.x < sh.x) {
        if (!started) {
          start_prev = d;
          start_d = dh.y;
        }
        d = dh.y;
        need_s = false;
        need_d = true;
      } else {
        started = true;
        if (d != ${NONE} && dh.x == sh.x) {
          d = dh.y;
          need_d = true;
        } else {
          n++;
          need_d = false;
        }
        s = sh.y;
        need_s = true;
      }
      steps++;
    }
  }
  if (lid == 0u) { atomicStore(&${p}_count_total, 0u); }
  workgroupBarrier();
  let rank = atomicAdd(&${p}_count_total, n);
  workgroupBarrier();
  if (lid == 0u) {
    let total = atomicLoad(&${p}_count_total);
    var base = 0u;
    if (total != 0u) { base = ${p}_claim(total); }
    ${p}_count_base = base;
  }
  let base = workgroupUniformLoad(&${p}_count_base);
  if (t < ${p}_params.count) {
    let first = base + rank;
    let capacity = ${p}_header.capacity;
    let fits = first >= base && first <= capacity && n <= capacity - first;
    ${p}_plan[2u * t] = vec4u(select(GM_INVALID_ELEMENT, first, fits || n == 0u), n, s_head, start_prev);
    ${p}_plan[2u * t + 1u] = vec4u(start_d, 0u, 0u, 0u);
  }
}`;
}

/**
 * The batched union kernel: `<name>_ops[t]` of kind union for every `t < count`, several teams per
 * subgroup, each team one operation at a time (a grid-stride loop over operations).
 *
 * The merge of the source and destination lists is one loop that the whole subgroup runs together
 * (every subgroup operation sits in subgroup-uniform control flow); each iteration every team loads
 * the element(s) it advanced to — the whole element, bits and header, in one coalesced step of
 * 16-byte loads for src and dst alike — and consumes one element of either list (or both when the bases match). A
 * team that finishes its operation starts its next one in the following iteration, without waiting
 * for the other teams of its subgroup. New elements come from the range the counting kernel
 * reserved (`counted`) or from one atomic per subgroup and iteration (`atomic`).
 *
 * Status bits and the exhausted-pool protocol are the library's `<name>_union`: a new element is
 * linked only once it is complete; a team that gets no element stops with `INCOMPLETE`, so a re-run
 * after growing completes it. Needs `subgroups` and a linear subgroup layout; operations of other
 * kinds are left alone (their status too).
 *
 * @example
 * ```ts
 * const code = linkWgsl(unionKernelWgsl(params), [unionDirectivesWgsl, gridWgsl, pool.allocWgsl('subgroup'), quadAccessWgsl(pool.geometry)]);
 * ```
 */
export function unionKernelWgsl(params: UnionKernelParams): string {
  const { name: p, teamLanes: T, workgroupSize: wg, allocation } = params;
  if (![1, 2, 4, 8].includes(T)) throw new RangeError(`teamLanes ${T} is not 1, 2, 4 or 8`);
  if (wg % 32 !== 0) throw new RangeError(`workgroupSize ${wg} is not a multiple of 32`);
  const Q = QUADS / T;
  const NONE = '0xffffffffu';
  const teamMask = `${2 ** T - 1}u`;
  const js = Array.from({ length: Q }, (_, j) => j);
  // This lane's quarters of an element (16 bytes each), unrolled: quarter q = lane + j * T is
  // `sw${j}`. Quarter 7 holds words 28, 29 (bits), 30 (base) and 31 (next): j = Q - 1 of lane T - 1.
  const quad = (j: number) => (T === 1 ? `${j}u` : `lane + ${j * T}u`);
  const last = Q - 1;
  const each = (body: (j: number, q: string) => string) => js.map((j) => body(j, quad(j))).join('\n        ');
  const owner = T === 1 ? 'true' : `lane == ${T - 1}u`;
  const header = (v: string) =>
    T === 1
      ? `let ${v}_base = ${v}w${last}.z;\n    let ${v}_next = ${v}w${last}.w;`
      : `let ${v}_base = subgroupShuffle(${v}w${last}.z, first + ${T - 1}u);
    let ${v}_next = subgroupShuffle(${v}w${last}.w, first + ${T - 1}u);`;
  const counted = allocation === 'counted';
  const allocate = counted
    ? /* wgsl */ `
    if (want) {
      if (used >= reserved.y) {
        status |= ${STATUS_CORRUPT}u;
        phase = 2u;
      } else {
        let e = reserved.x + used;
        used++;${insert('e')}
      }
    }`
    : /* wgsl */ `
    // One atomic per subgroup for all its teams that need an element now.
    let ask = select(0u, 1u, want && lane == 0u);
    let total = subgroupAdd(ask);
    if (total != 0u) {
      let rank = subgroupShuffle(subgroupExclusiveAdd(ask), first);
      var base = 0u;
      if (subgroupElect()) { base = ${p}_claim(total); }
      let e = ${p}_checked(want, subgroupBroadcastFirst(base), rank);
      if (want) {
        if (e == GM_INVALID_ELEMENT) {
          status |= ${STATUS_INCOMPLETE}u;
          phase = 2u;
        } else {${insert('e')}
        }
      }
    }`;
  function insert(e: string): string {
    return /* wgsl */ `
          // The source element with next = d (its base is in place); linked only once complete, so
          // an exhausted re-run never sees half an element. The lane holding word 31 links it: the
          // only lane that ever writes quarter 7 of an element this team owns.
          ${each((j, q) => `${p}_store4(${e}, ${q}, ${j === last ? `select(sw${j}, vec4u(sw${j}.xyz, d), ${q} == 7u)` : `sw${j}`});`)}
          if (${owner}) {
            if (prev == ${NONE}) { ${p}_heads[dst] = ${e}; } else { ${p}_store1(prev, 31u, ${e}); }
          }
          prev = ${e};
          s = s_next;
          need_s = true;
          need_d = false;
          status |= ${STATUS_CHANGED}u;`;
  }
  return /* wgsl */ `
${batchStructsWgsl(p)}
${params.layoutWgsl}
@compute @workgroup_size(${wg})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sg_lane: u32) {
  let lane = sg_lane % ${T}u;
  let first = sg_lane - lane;
  let teams_per_workgroup = ${wg / T}u;
  var t = gm_workgroup_index(wid, nwg) * teams_per_workgroup + lid / ${T}u;
  let stride = nwg.x * nwg.y * teams_per_workgroup;
  let count = ${p}_params.count;
  let limit = ${p}_header.capacity * 4u + 64u;
  // Per-team state, held alike by every lane of the team. phase: 0 = start operation t,
  // 1 = merging, 2 = finished (write the status, move on).
  var phase = 0u;
  var write_status = false;
  var dst = 0u;
  var s = ${NONE};
  var d = ${NONE};
  var prev = ${NONE};
  var need_s = false;
  var need_d = false;
  var status = 0u;
  var steps = 0u;
  var lane_changed = false;${counted ? '\n  var reserved = vec2u(0u, 0u);\n  var used = 0u;' : ''}
  ${js.map((j) => `var sw${j} = vec4u();\n  var dw${j} = vec4u();`).join('\n  ')}
  loop {
    let live = t < count;
    if (!subgroupAny(live)) { break; }
    if (live && phase == 0u) {
      let kind = ${p}_ops[t].kind;
      dst = ${p}_ops[t].dst;
      let src = ${p}_ops[t].src;
      status = 0u;
      steps = 0u;
      lane_changed = false;
      prev = ${NONE};
      write_status = kind == ${OP_CODES.union}u;
      phase = 2u;
      if (write_status && dst != src) {
        need_s = true;
        need_d = true;
        phase = 1u;${
          counted
            ? `
        let plan = ${p}_plan[2u * t];
        reserved = plan.xy;
        s = plan.z;
        prev = plan.w;
        d = ${p}_plan[2u * t + 1u].x;
        used = 0u;
        if (reserved.x == GM_INVALID_ELEMENT) {
          status = ${STATUS_INCOMPLETE}u;
          phase = 2u;
        }`
            : `
        d = ${p}_heads[dst];
        s = ${p}_heads[src];`
        }
      }
    }
    if (live && phase == 1u) {
      // The elements this team advanced to, whole: both loads are in flight together.
      if (need_s && s != ${NONE}) {
        ${each((j, q) => `sw${j} = ${p}_load4(s, ${q});`)}
      }
      if (need_d && d != ${NONE}) {
        ${each((j, q) => `dw${j} = ${p}_load4(d, ${q});`)}
      }
    }
    ${header('s')}
    ${header('d')}
    var want = false;
    if (live && phase == 1u) {
      if (s == ${NONE}) {
        phase = 2u;
      } else if (d != ${NONE} && d_base < s_base) {
        prev = d;
        d = d_next;
        need_s = false;
        need_d = true;
      } else if (d != ${NONE} && d_base == s_base) {
        ${each((j, q) => {
          // Quarter 7: OR only the bits (words 28, 29); base and next stay.
          const src = j === last ? `select(sw${j}, vec4u(sw${j}.xy, 0u, 0u), ${q} == 7u)` : `sw${j}`;
          return `let n${j} = dw${j} | ${src};\n        if (any(n${j} != dw${j})) { ${p}_store4(d, ${q}, n${j}); lane_changed = true; }`;
        })}
        prev = d;
        d = d_next;
        s = s_next;
        need_s = true;
        need_d = true;
      } else {
        want = true;
      }
      steps++;
      if (steps > limit) {
        status |= ${STATUS_CORRUPT}u;
        phase = 2u;
        want = false;
      }
    }${allocate}
    // Done as soon as the source list is: no extra step to find that out.
    if (live && phase == 1u && s == ${NONE}) { phase = 2u; }
    let changed_bits = subgroupBallot(lane_changed)[first / 32u] >> (first % 32u);
    if (live && phase == 2u) {
      if ((changed_bits & ${teamMask}) != 0u) { status |= ${STATUS_CHANGED}u; }
      if (write_status && lane == 0u) {
        ${p}_status[t] = (${p}_status[t] & ${STATUS_CHANGED}u) | status;
      }
      t += stride;
      phase = 0u;
    }
  }
}`;
}
