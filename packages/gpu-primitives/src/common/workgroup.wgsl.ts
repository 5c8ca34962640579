import type { WgslModule } from '@gpumorph/gpu-allocator';
import { opCombineWgsl, opIdentityWgsl, type ScanOp } from './ops';

/**
 * Entry-point parameters and prelude giving every kernel `sg_lane` and `sg_size`, with or without
 * the `subgroups` feature (without it they are 0 and 1 and no subgroup built-in is used).
 */
export function laneBuiltins(subgroups: boolean): { params: string; prelude: string } {
  return subgroups
    ? {
        params: '@builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32',
        prelude: '',
      }
    : { params: '', prelude: 'let sg_lane = 0u;\n  let sg_size = 1u;' };
}

/** Smallest subgroup size any WebGPU implementation uses; bounds the per-subgroup scratch. */
const MIN_SUBGROUP_SIZE = 4;

/** Options of the workgroup-wide building blocks. */
export interface WorkgroupBlockOptions {
  /** Function name (and prefix of its workgroup variables). */
  readonly name: string;
  readonly op: ScanOp;
  /** Invocations per workgroup: a power of two, a multiple of the subgroup size. */
  readonly workgroupSize: number;
  /** Use subgroup built-ins (the context has them and `subgroupLayoutIsLinear` said yes). */
  readonly subgroups: boolean;
}

function assertPowerOfTwo(size: number): void {
  if (size < 1 || (size & (size - 1)) !== 0)
    throw new RangeError(`workgroup size ${size} is not a power of two`);
}

/**
 * WGSL of `<name>(value, lid, sg_lane, sg_size) -> vec2u`: the workgroup-wide inclusive scan of
 * `value` under `op` (x) and the workgroup's total (y), in `local_invocation_index` order.
 * Every invocation of the workgroup must call it (it has barriers). With subgroups, each subgroup
 * scans in registers (built-in add scan, or shuffles for the others) and the per-subgroup totals
 * are scanned in workgroup memory; without, a Hillis–Steele scan in workgroup memory.
 * The subgroup path assumes subgroup i holds invocations [i·size, (i+1)·size): check it once with
 * `subgroupLayoutIsLinear`.
 */
export function workgroupScanWgsl(options: WorkgroupBlockOptions): WgslModule {
  const { name, op, workgroupSize: wg, subgroups } = options;
  assertPowerOfTwo(wg);
  const id = opIdentityWgsl(op);
  const combine = (a: string, b: string) => opCombineWgsl(op, a, b);
  if (!subgroups) {
    return {
      name: `gm_wg_scan_${name}_${op}_${wg}`,
      code: /* wgsl */ `
var<workgroup> ${name}_buffer: array<u32, ${wg}>;
fn ${name}(value: u32, lid: u32, sg_lane: u32, sg_size: u32) -> vec2u {
  ${name}_buffer[lid] = value;
  workgroupBarrier();
  for (var d = 1u; d < ${wg}u; d <<= 1u) {
    var left = ${id};
    if (lid >= d) { left = ${name}_buffer[lid - d]; }
    workgroupBarrier();
    if (lid >= d) { ${name}_buffer[lid] = ${combine('left', `${name}_buffer[lid]`)}; }
    workgroupBarrier();
  }
  let result = vec2u(${name}_buffer[lid], ${name}_buffer[${wg - 1}u]);
  workgroupBarrier();
  return result;
}`,
    };
  }
  const maxSubgroups = Math.max(1, wg / MIN_SUBGROUP_SIZE);
  const inSubgroup =
    op === 'add'
      ? 'let x = subgroupInclusiveAdd(value);'
      : `var x = value;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let y = subgroupShuffleUp(x, d);
    if (sg_lane >= d) { x = ${combine('y', 'x')}; }
  }`;
  return {
    name: `gm_wg_scan_${name}_${op}_${wg}_subgroups`,
    enables: ['subgroups'],
    code: /* wgsl */ `
var<workgroup> ${name}_partials: array<u32, ${maxSubgroups}>;
fn ${name}(value: u32, lid: u32, sg_lane: u32, sg_size: u32) -> vec2u {
  ${inSubgroup}
  let sg_id = lid / sg_size;
  let n_sg = ${wg}u / sg_size;
  if (sg_lane == sg_size - 1u) { ${name}_partials[sg_id] = x; }
  workgroupBarrier();
  for (var d = 1u; d < ${maxSubgroups}u; d <<= 1u) {
    var left = ${id};
    let in_range = lid < n_sg && lid >= d;
    if (in_range) { left = ${name}_partials[lid - d]; }
    workgroupBarrier();
    if (in_range) { ${name}_partials[lid] = ${combine('left', `${name}_partials[lid]`)}; }
    workgroupBarrier();
  }
  var before = ${id};
  if (sg_id > 0u) { before = ${name}_partials[sg_id - 1u]; }
  let result = vec2u(${combine('before', 'x')}, ${name}_partials[n_sg - 1u]);
  workgroupBarrier();
  return result;
}`,
  };
}

/**
 * WGSL of `<name>(value, lid, sg_lane, sg_size) -> u32`: the workgroup-wide reduction of `value`
 * under `op`, returned to every invocation. Same calling rules as {@link workgroupScanWgsl}.
 */
export function workgroupReduceWgsl(options: WorkgroupBlockOptions): WgslModule {
  const { name, op, workgroupSize: wg, subgroups } = options;
  assertPowerOfTwo(wg);
  const id = opIdentityWgsl(op);
  const combine = (a: string, b: string) => opCombineWgsl(op, a, b);
  if (!subgroups) {
    return {
      name: `gm_wg_reduce_${name}_${op}_${wg}`,
      code: /* wgsl */ `
var<workgroup> ${name}_buffer: array<u32, ${wg}>;
fn ${name}(value: u32, lid: u32, sg_lane: u32, sg_size: u32) -> u32 {
  ${name}_buffer[lid] = value;
  workgroupBarrier();
  for (var half = ${wg / 2}u; half > 0u; half >>= 1u) {
    if (lid < half) { ${name}_buffer[lid] = ${combine(`${name}_buffer[lid]`, `${name}_buffer[lid + half]`)}; }
    workgroupBarrier();
  }
  let result = ${name}_buffer[0];
  workgroupBarrier();
  return result;
}`,
    };
  }
  const builtin = { add: 'subgroupAdd', max: 'subgroupMax', min: 'subgroupMin', or: 'subgroupOr' }[op];
  const maxSubgroups = Math.max(1, wg / MIN_SUBGROUP_SIZE);
  return {
    name: `gm_wg_reduce_${name}_${op}_${wg}_subgroups`,
    enables: ['subgroups'],
    code: /* wgsl */ `
var<workgroup> ${name}_partials: array<u32, ${maxSubgroups}>;
fn ${name}(value: u32, lid: u32, sg_lane: u32, sg_size: u32) -> u32 {
  let x = ${builtin}(value);
  let n_sg = ${wg}u / sg_size;
  if (sg_lane == 0u) { ${name}_partials[lid / sg_size] = x; }
  workgroupBarrier();
  var total = ${id};
  for (var i = 0u; i < n_sg; i++) { total = ${combine('total', `${name}_partials[i]`)}; }
  workgroupBarrier();
  return total;
}`,
  };
}
