import { OP_CODES, QUERY_CODES } from '../layout';
import type { TeamKind } from './library.wgsl';

/**
 * What every batch kernel builder needs.
 *
 * @example
 * ```ts
 * const params: BatchKernelParams = { name: 'sbv', team: 'subgroup', workgroupSize: 32, layoutWgsl: layout.wgsl() };
 * ```
 */
export interface BatchKernelParams {
  /** Pool prefix of the WGSL names. */
  readonly name: string;
  readonly team: TeamKind;
  /** Invocations per workgroup (32 for `workgroup` teams). */
  readonly workgroupSize: number;
  /** The bind-group declarations (`layout.wgsl()`). */
  readonly layoutWgsl: string;
  /** Apply kernel only: leave union operations (and their status) to the union kernel. */
  readonly skipUnion?: boolean;
}

/** Entry-point parameters and the prelude giving `team`, `stride` and the team built-ins. */
function entry(params: BatchKernelParams): { params: string; prelude: string } {
  const { name: p, team, workgroupSize: wg } = params;
  const common = `@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32`;
  if (team === 'subgroup') {
    return {
      params: `${common}, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32`,
      prelude: /* wgsl */ `
  // One team per subgroup (subgroups are contiguous ranges of local_invocation_index).
  let teams_per_workgroup = ${wg}u / sg_size;
  let team = gm_workgroup_index(wid, nwg) * teams_per_workgroup + lid / sg_size;
  let stride = nwg.x * nwg.y * teams_per_workgroup;
  ${p}_team_begin(sg_lane, sg_size);`,
    };
  }
  return {
    params: common,
    prelude: /* wgsl */ `
  // One 32-lane team per workgroup.
  let team = gm_workgroup_index(wid, nwg);
  let stride = nwg.x * nwg.y;
  ${p}_team_begin(lid, 32u);`,
  };
}

/**
 * Declarations the batch layouts refer to (`<name>_op_record`, `<name>_batch_params`).
 *
 * @example
 * ```ts
 * batchStructsWgsl('sbv'); // 'struct sbv_op_record { … }'
 * ```
 */
export function batchStructsWgsl(p: string): string {
  return /* wgsl */ `
struct ${p}_op_record { kind: u32, dst: u32, src: u32, offset: u32, last: u32 }
struct ${p}_batch_params { count: u32, pad0: u32, pad1: u32, pad2: u32 }`;
}

/**
 * Applies `<name>_ops[t]` for every `t < count`, one team per operation (a grid-stride loop over
 * operations), and ORs the changed bit into `<name>_status[t]` (other bits: the last run's).
 *
 * @example
 * ```ts
 * const code = linkWgsl(applyKernelWgsl(params), [gridWgsl, sets.wgsl()]);
 * ```
 */
export function applyKernelWgsl(params: BatchKernelParams): string {
  const p = params.name;
  const { params: args, prelude } = entry(params);
  return /* wgsl */ `
${batchStructsWgsl(p)}
${params.layoutWgsl}
@compute @workgroup_size(${params.workgroupSize})
fn main(${args}) {${prelude}
  for (var t = team; t < ${p}_params.count; t += stride) {
    let kind = ${p}_team_u(${p}_ops[t].kind);${
      params.skipUnion
        ? `
    if (kind == ${OP_CODES.union}u) { continue; }`
        : ''
    }
    let dst = ${p}_team_u(${p}_ops[t].dst);
    let src = ${p}_team_u(${p}_ops[t].src);
    var status = 0u;
    switch kind {
      case ${OP_CODES.union}u: { status = ${p}_union(dst, src); }
      case ${OP_CODES.difference}u: { status = ${p}_difference(dst, src); }
      case ${OP_CODES.intersection}u: { status = ${p}_intersection(dst, src); }
      case ${OP_CODES.shiftedUnion}u: {
        let offset = ${p}_team_u(${p}_ops[t].offset);
        let last = ${p}_team_u(${p}_ops[t].last);
        status = ${p}_shifted_union(dst, src, offset, last);
      }
      default: {}
    }
    if (${p}_lane == 0u) { ${p}_status[t] = (${p}_status[t] & ${p}_CHANGED) | status; }
  }
}`;
}

/**
 * Answers `<name>_queries[t] = (kind, a, b, seed)` into `<name>_results[t]`: equality, hash or count.
 *
 * @example
 * ```ts
 * const code = linkWgsl(queryKernelWgsl(params), [gridWgsl, sets.wgsl()]);
 * ```
 */
export function queryKernelWgsl(params: BatchKernelParams): string {
  const p = params.name;
  const { params: args, prelude } = entry(params);
  return /* wgsl */ `
${batchStructsWgsl(p)}
${params.layoutWgsl}
@compute @workgroup_size(${params.workgroupSize})
fn main(${args}) {${prelude}
  for (var t = team; t < ${p}_params.count; t += stride) {
    let query = ${p}_team_u2(${p}_queries[t].xy);
    let b = ${p}_team_u(${p}_queries[t].z);
    var result = 0u;
    switch query.x {
      case ${QUERY_CODES.equals}u: { result = select(0u, 1u, ${p}_equals(query.y, b)); }
      case ${QUERY_CODES.hash}u: { result = ${p}_hash(query.y, ${p}_team_u(${p}_queries[t].w)); }
      case ${QUERY_CODES.count}u: { result = ${p}_count(query.y); }
      default: {}
    }
    if (${p}_lane == 0u) { ${p}_results[t] = result; }
  }
}`;
}

/**
 * Decodes vector `<name>_items[t].x` into `<name>_members` from offset `<name>_items[t].y`.
 *
 * @example
 * ```ts
 * const code = linkWgsl(decodeKernelWgsl(params), [gridWgsl, sets.wgsl({ decode: true })]);
 * ```
 */
export function decodeKernelWgsl(params: BatchKernelParams): string {
  const p = params.name;
  const { params: args, prelude } = entry(params);
  return /* wgsl */ `
${batchStructsWgsl(p)}
${params.layoutWgsl}
@compute @workgroup_size(${params.workgroupSize})
fn main(${args}) {${prelude}
  for (var t = team; t < ${p}_params.count; t += stride) {
    let item = ${p}_team_u2(${p}_items[t]);
    _ = ${p}_decode(item.x, item.y);
  }
}`;
}
