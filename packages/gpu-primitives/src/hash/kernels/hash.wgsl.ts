import type { WgslModule } from '@gpumorph/gpu-allocator';

/** WGSL of `gm_hash_mix` and `gm_hash_finish`: the same arithmetic as `hashMix` / `hashFinish`. */
export const hashFunctionsWgsl: WgslModule = {
  name: 'gm_hash_functions',
  code: /* wgsl */ `
fn gm_hash_mix(h: u32, word: u32) -> u32 {
  var k = word * 0xcc9e2d51u;
  k = (k << 15u) | (k >> 17u);
  k = k * 0x1b873593u;
  var h1 = h ^ k;
  h1 = (h1 << 13u) | (h1 >> 19u);
  return h1 * 5u + 0xe6546b64u;
}
fn gm_hash_finish(h: u32, length: u32) -> u32 {
  var h1 = h ^ length;
  h1 ^= h1 >> 16u;
  h1 = h1 * 0x85ebca6bu;
  h1 ^= h1 >> 13u;
  h1 = h1 * 0xc2b2ae35u;
  h1 ^= h1 >> 16u;
  return h1;
}`,
};

/** Kernel hashing one record per invocation. */
export function hashRecordsKernelWgsl(params: { layoutWgsl: string; workgroupSize: number }): string {
  const { layoutWgsl, workgroupSize } = params;
  return /* wgsl */ `
${layoutWgsl}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (i >= hash_params.count) { return; }
  let start = offsets[i];
  let end = offsets[i + 1u];
  var h = hash_params.seed;
  for (var w = start; w < end; w++) { h = gm_hash_mix(h, words[w]); }
  hashes[i] = gm_hash_finish(h, (end - start) * 4u) & hash_params.mask;
}`;
}
