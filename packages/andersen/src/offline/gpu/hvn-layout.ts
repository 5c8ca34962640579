import { defineBindings } from '@gpumorph/gpu-allocator';

/** Invocations per workgroup of the labelling kernels. */
export const HVN_WORKGROUP_SIZE = 256;

/** No element (sorts after every label). */
export const NONE = 0xffff_ffff;

/** Record tags of the intern table: a load key, an offset key, a set, and `CONS + r` for a pair joined in round r of a set's tree. */
export const RecordTag = { Load: 1, Offset: 2, Set: 3, Cons: 4 } as const;

/** Request states. */
export const RequestState = { None: 0, Pending: 1, Done: 2 } as const;

/**
 * WGSL of the labelling's shared types. A level's roots are `nodes[node_begin … node_end)`, their
 * incoming constraints `slots[slot_begin … slot_end)` (a root's own: `slots[seg … end)`). Labels:
 * 0 = points nowhere, `1 + v` the fresh label of root v, `addr_base + o` the address of o, and
 * `intern_base + p` the record in table slot p.
 */
export const hvnTypesWgsl = /* wgsl */ `
struct HvnParams {
  node_begin: u32, node_end: u32, slot_begin: u32, slot_end: u32,
  round: u32, mask: u32, addr_base: u32, intern_base: u32,
  hash_mask: u32, pad0: u32, pad1: u32, pad2: u32,
}
struct HvnSlot { kind: u32, src: u32, offset: u32, node: u32 }
struct HvnNode { id: u32, seg: u32, end: u32, len: u32, count: u32 }
struct HvnRequest { tag: u32, a: u32, b: u32, probe: u32, state: u32, result: u32 }
// owner: 0 while the slot is empty, else 1 + the slot index of the request that claimed it.
struct HvnTableSlot { owner: atomic<u32>, tag: u32, a: u32, b: u32 }`;

const rw = (type: string) => ({ kind: 'storage', type }) as const;

/** One layout for every labelling kernel (one bind group serves them all). */
export const hvnLayout = defineBindings('andersen hvn labels', {
  hvn: { kind: 'uniform', type: 'HvnParams' },
  slots: { kind: 'storage', type: 'array<HvnSlot>', access: 'read' },
  nodes: rw('array<HvnNode>'),
  labels: rw('array<u32>'),
  list: rw('array<u32>'),
  requests: rw('array<HvnRequest>'),
  table: rw('array<HvnTableSlot>'),
  pending: rw('array<atomic<u32>>'),
});
