import { defineBindings } from '@gpumorph/gpu-allocator';

/** Invocations per workgroup of every component kernel. */
export const SCC_WORKGROUP_SIZE = 256;

/** Marks a node whose component is not known yet. */
export const SCC_NONE = 0xffff_ffff;

/** Uniform of every component kernel: node and edge counts. */
export const sccParamsWgsl = /* wgsl */ `
struct GmSccParams { nodes: u32, edges: u32, pad0: u32, pad1: u32 }`;

const rw = (type: string) => ({ kind: 'storage', type }) as const;
const ro = (type: string) => ({ kind: 'storage', type, access: 'read' }) as const;

/**
 * One layout for all component kernels (one bind group serves them all): the edge list
 * `sources`/`targets`, per node `alive` (1 until the node's component is known), `color` (the
 * smallest node that reaches it), `mark` (reaches its color backwards), `degree` (bit 0: an
 * active edge leaves, bit 1: one enters), `component`, and `changed`, a flag the host reads.
 */
export const sccLayout = defineBindings('gm scc', {
  scc_params: { kind: 'uniform', type: 'GmSccParams' },
  sources: ro('array<u32>'),
  targets: ro('array<u32>'),
  alive: rw('array<u32>'),
  color: rw('array<atomic<u32>>'),
  mark: rw('array<atomic<u32>>'),
  degree: rw('array<atomic<u32>>'),
  component: rw('array<u32>'),
  changed: rw('array<atomic<u32>>'),
});
