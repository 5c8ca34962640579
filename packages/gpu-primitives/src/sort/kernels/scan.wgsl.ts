import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { laneBuiltins, workgroupReduceWgsl, workgroupScanWgsl } from '../../common/workgroup.wgsl';
import { scanBlockLayout, scanParamsWgsl, scanReduceLayout } from '../layout';

/** Shape of the table-scan kernels: a block is `workgroupSize × itemsPerThread` elements. */
export interface TableScanKernelParams {
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  readonly subgroups: boolean;
}

function header(p: TableScanKernelParams): string {
  return `const WG = ${p.workgroupSize}u;
const ITEMS = ${p.itemsPerThread}u;
const BLOCK = ${p.workgroupSize * p.itemsPerThread}u;`;
}

/** WGSL writing the sum of each block of `scan_data` to `scan_sums[block]`. */
export function tableReduceKernelWgsl(p: TableScanKernelParams): string {
  const lanes = laneBuiltins(p.subgroups);
  return linkWgsl(
    /* wgsl */ `
${scanParamsWgsl}
${scanReduceLayout.wgsl()}
${header(p)}
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32${lanes.params ? `, ${lanes.params}` : ''}) {
  ${lanes.prelude}
  let block = gm_workgroup_index(wid, nwg);
  if (block >= scan_params.blocks) { return; }
  var sum = 0u;
  for (var r = 0u; r < ITEMS; r++) {
    let i = block * BLOCK + r * WG + lid;
    if (i < scan_params.length) { sum += scan_data[i]; }
  }
  let total = sort_block_reduce(sum, lid, sg_lane, sg_size);
  if (lid == 0u) { scan_sums[block] = total; }
}`,
    [
      gridWgsl,
      workgroupReduceWgsl({
        name: 'sort_block_reduce',
        op: 'add',
        workgroupSize: p.workgroupSize,
        subgroups: p.subgroups,
      }),
    ],
  );
}

/**
 * WGSL replacing each block of `scan_data` by its exclusive scan plus `scan_carry[block]` (the
 * scanned block sums of the level above; 0 on the top level).
 */
export function tableScanKernelWgsl(p: TableScanKernelParams): string {
  const lanes = laneBuiltins(p.subgroups);
  return linkWgsl(
    /* wgsl */ `
${scanParamsWgsl}
${scanBlockLayout.wgsl()}
${header(p)}
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32${lanes.params ? `, ${lanes.params}` : ''}) {
  ${lanes.prelude}
  let block = gm_workgroup_index(wid, nwg);
  if (block >= scan_params.blocks) { return; }
  var carry = 0u;
  if (scan_params.has_carry != 0u) { carry = scan_carry[block]; }
  for (var r = 0u; r < ITEMS; r++) {
    let i = block * BLOCK + r * WG + lid;
    var value = 0u;
    if (i < scan_params.length) { value = scan_data[i]; }
    let scanned = sort_block_scan(value, lid, sg_lane, sg_size);
    if (i < scan_params.length) { scan_data[i] = carry + scanned.x - value; }
    carry += scanned.y;
  }
}`,
    [
      gridWgsl,
      workgroupScanWgsl({
        name: 'sort_block_scan',
        op: 'add',
        workgroupSize: p.workgroupSize,
        subgroups: p.subgroups,
      }),
    ],
  );
}
