/** Marker of a resolved position in the leader-candidate array. */
export const RESOLVED = 0;

/**
 * `values[p] = p` and `candidates[p] = 0xffffffff - p` (every position starts unresolved; the
 * candidate encodes "min position" under a max-scan).
 */
export function initKernelWgsl(layoutWgsl: string, workgroupSize: number): string {
  return /* wgsl */ `
${layoutWgsl}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let p = gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (p >= eq_params.count) { return; }
  values[p] = p;
  candidates[p] = 0xffffffffu - p;
}`;
}

/** `heads[p] = 1` where a run of equal sorted hashes starts (the paper's diff step). */
export function headsKernelWgsl(layoutWgsl: string, workgroupSize: number): string {
  return /* wgsl */ `
${layoutWgsl}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let p = gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (p >= eq_params.count) { return; }
  var head = 1u;
  if (p > 0u && keys[p - 1u] == keys[p]) { head = 0u; }
  heads[p] = head;
}`;
}

/**
 * One round of exact resolution: each unresolved position p compares its record with the record
 * of its leader — the first unresolved position of its hash run, decoded from the segmented
 * max-scan of the candidates. Equal: the leader's index is p's representative and p is resolved.
 * Unequal (a hash collision): p stays for the next round and bumps the `remaining` counter.
 */
export function compareKernelWgsl(layoutWgsl: string, workgroupSize: number): string {
  return /* wgsl */ `
${layoutWgsl}
fn gm_records_equal(a: u32, b: u32) -> bool {
  let a_start = offsets[a];
  let b_start = offsets[b];
  let length = offsets[a + 1u] - a_start;
  if (offsets[b + 1u] - b_start != length) { return false; }
  for (var w = 0u; w < length; w++) {
    if (words[a_start + w] != words[b_start + w]) { return false; }
  }
  return true;
}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let p = gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (p >= eq_params.count || candidates[p] == ${RESOLVED}u) { return; }
  let leader = 0xffffffffu - scanned[p];
  let record = values[p];
  let leader_record = values[leader];
  if (leader == p || gm_records_equal(record, leader_record)) {
    representatives[record] = leader_record;
    candidates[p] = ${RESOLVED}u;
  } else {
    atomicAdd(&remaining[0], 1u);
  }
}`;
}
