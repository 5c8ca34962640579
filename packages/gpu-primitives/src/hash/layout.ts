import { defineBindings } from '@gpumorph/gpu-allocator';

/** Uniforms of the hash kernel. */
export const hashParamsWgsl = /* wgsl */ `
struct GmHashParams { count: u32, seed: u32, mask: u32, pad: u32 }`;

/** Bindings of the record-hash kernel. */
export const hashLayout = defineBindings('gm hash records', {
  hash_params: { kind: 'uniform', type: 'GmHashParams' },
  offsets: { kind: 'storage', type: 'array<u32>', access: 'read' },
  words: { kind: 'storage', type: 'array<u32>', access: 'read' },
  hashes: { kind: 'storage', type: 'array<u32>' },
});
