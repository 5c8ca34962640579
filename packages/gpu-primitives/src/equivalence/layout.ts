import { defineBindings } from '@gpumorph/gpu-allocator';

/** Uniforms shared by the equivalence kernels. */
export const equivalenceParamsWgsl = /* wgsl */ `
struct GmEquivalenceParams { count: u32, pad0: u32, pad1: u32, pad2: u32 }`;

const params = { kind: 'uniform', type: 'GmEquivalenceParams' } as const;
const rw = (type: string) => ({ kind: 'storage', type }) as const;
const ro = (type: string) => ({ kind: 'storage', type, access: 'read' }) as const;

export const initLayout = defineBindings('gm equivalence init', {
  eq_params: params,
  values: rw('array<u32>'),
  candidates: rw('array<u32>'),
});

export const headsLayout = defineBindings('gm equivalence heads', {
  eq_params: params,
  keys: ro('array<u32>'),
  heads: rw('array<u32>'),
});

export const compareLayout = defineBindings('gm equivalence compare', {
  eq_params: params,
  offsets: ro('array<u32>'),
  words: ro('array<u32>'),
  values: ro('array<u32>'),
  scanned: ro('array<u32>'),
  candidates: rw('array<u32>'),
  representatives: rw('array<u32>'),
  remaining: rw('array<atomic<u32>>'),
});
