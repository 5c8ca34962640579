import { ConstraintKind } from '../../model/program';
import { NONE, RecordTag, RequestState } from './hvn-layout';

/** The labelling kernels; each runs one invocation per slot (incoming constraint) or per root of the level. */
export type HvnKernelName =
  | 'loadRequests'
  | 'claim'
  | 'write'
  | 'compare'
  | 'gather'
  | 'sortNodes'
  | 'consRequests'
  | 'consCollect'
  | 'consLength'
  | 'setRequests'
  | 'labels';

/** Kernels that run per root of the level (the others per slot). */
export const HVN_NODE_KERNELS: ReadonlySet<HvnKernelName> = new Set(['sortNodes', 'consLength', 'labels']);

const K = ConstraintKind;
const S = RequestState;

const helpers = /* wgsl */ `
fn hvn_mix(h: u32) -> u32 {
  var x = h;
  x ^= x >> 16u; x *= 0x7feb352du; x ^= x >> 15u; x *= 0x846ca68bu; x ^= x >> 16u;
  return x;
}
// Where a record's probe sequence starts (hash_mask cuts the hash to force collisions in tests).
fn hvn_start(tag: u32, a: u32, b: u32) -> u32 {
  return (hvn_mix(hvn_mix(hvn_mix(tag) ^ a) ^ b) & hvn.hash_mask) & hvn.mask;
}
fn hvn_request(tag: u32, a: u32, b: u32) -> HvnRequest {
  return HvnRequest(tag, a, b, hvn_start(tag, a, b), ${S.Pending}u, 0u);
}
fn hvn_no_request() -> HvnRequest { return HvnRequest(0u, 0u, 0u, 0u, ${S.None}u, 0u); }
// Heap sort of list[base … base + len) (one invocation per root: any in-degree, O(d log d), no extra memory).
fn hvn_sift(base: u32, root_in: u32, len: u32) {
  var root = root_in;
  loop {
    var child = 2u * root + 1u;
    if (child >= len) { break; }
    if (child + 1u < len && list[base + child + 1u] > list[base + child]) { child += 1u; }
    if (list[base + root] >= list[base + child]) { break; }
    let t = list[base + root];
    list[base + root] = list[base + child];
    list[base + child] = t;
    root = child;
  }
}`;

const bodies: Record<HvnKernelName, string> = {
  // A load or offset key for each load/offset from a pointer (a source label other than 0).
  loadRequests: /* wgsl */ `
  let s = slots[i];
  var r = hvn_no_request();
  if (s.kind == ${K.Load}u || s.kind == ${K.Offset}u) {
    let l = labels[s.src];
    if (l != 0u) { r = hvn_request(select(${RecordTag.Offset}u, ${RecordTag.Load}u, s.kind == ${K.Load}u), l, s.offset); }
  }
  requests[i] = r;`,
  // Intern, step 1: a pending request whose probe slot is empty (owner 0) tries to claim it, as i + 1.
  claim: /* wgsl */ `
  if (requests[i].state != ${S.Pending}u) { return; }
  let p = requests[i].probe;
  if (atomicLoad(&table[p].owner) == 0u) {
    _ = atomicCompareExchangeWeak(&table[p].owner, 0u, i + 1u);
  }`,
  // Step 2: the claimant writes its record (a slot once written is never written again).
  write: /* wgsl */ `
  if (requests[i].state != ${S.Pending}u) { return; }
  let p = requests[i].probe;
  if (atomicLoad(&table[p].owner) == i + 1u && table[p].tag == 0u) {
    table[p].tag = requests[i].tag;
    table[p].a = requests[i].a;
    table[p].b = requests[i].b;
    requests[i].result = hvn.intern_base + p;
    requests[i].state = ${S.Done}u;
  }`,
  // Step 3: the others compare word by word: equal takes the slot's label, unequal probes on.
  compare: /* wgsl */ `
  if (requests[i].state != ${S.Pending}u) { return; }
  let r = requests[i];
  let p = r.probe;
  if (atomicLoad(&table[p].owner) != 0u) {
    if (table[p].tag == r.tag && table[p].a == r.a && table[p].b == r.b) {
      requests[i].result = hvn.intern_base + p;
      requests[i].state = ${S.Done}u;
      return;
    }
    requests[i].probe = (p + 1u) & hvn.mask;
  }
  atomicAdd(&pending[0], 1u);`,
  // Each slot's element: the address, the copied label, or the interned key (NONE: nothing flows).
  gather: /* wgsl */ `
  let s = slots[i];
  var e = ${NONE}u;
  if (s.kind == ${K.AddressOf}u) {
    e = hvn.addr_base + s.src;
  } else if (s.kind == ${K.Copy}u) {
    let l = labels[s.src];
    if (l != 0u) { e = l; }
  } else if (requests[i].state == ${S.Done}u) {
    e = requests[i].result;
  }
  list[i] = e;`,
  // Sort each root's elements, keep the distinct ones (NONE sorts last and is dropped).
  sortNodes: /* wgsl */ `
  let nd = nodes[q];
  let len = nd.end - nd.seg;
  if (len > 1u) {
    for (var k = len / 2u; k > 0u; k--) { hvn_sift(nd.seg, k - 1u, len); }
    for (var end = len - 1u; end > 0u; end--) {
      let t = list[nd.seg];
      list[nd.seg] = list[nd.seg + end];
      list[nd.seg + end] = t;
      hvn_sift(nd.seg, 0u, end);
    }
  }
  var distinct = 0u;
  for (var k = 0u; k < len; k++) {
    let e = list[nd.seg + k];
    if (e == ${NONE}u) { break; }
    if (distinct == 0u || list[nd.seg + distinct - 1u] != e) {
      list[nd.seg + distinct] = e;
      distinct += 1u;
    }
  }
  nodes[q].len = distinct;
  nodes[q].count = distinct;`,
  // A set of two or more elements folds pairwise into a tree of cons records, one level per round.
  consRequests: /* wgsl */ `
  let nd = nodes[slots[i].node];
  let j = i - nd.seg;
  var r = hvn_no_request();
  if (nd.len > 1u && j % 2u == 0u && j + 1u < nd.len) {
    r = hvn_request(${RecordTag.Cons}u + hvn.round, list[i], list[i + 1u]);
  }
  requests[i] = r;`,
  consCollect: /* wgsl */ `
  let nd = nodes[slots[i].node];
  let j = i - nd.seg;
  if (nd.len > 1u) {
    if (j % 2u == 0u && j + 1u < nd.len) {
      list[nd.seg + j / 2u] = requests[i].result;
    } else if (j + 1u == nd.len && j % 2u == 0u) {
      list[nd.seg + j / 2u] = list[i];
    }
  }`,
  consLength: /* wgsl */ `
  let len = nodes[q].len;
  if (len > 1u) { nodes[q].len = (len + 1u) / 2u; }`,
  // The set record: its size and the root of its tree.
  setRequests: /* wgsl */ `
  let nd = nodes[slots[i].node];
  var r = hvn_no_request();
  if (i == nd.seg && nd.count > 1u) { r = hvn_request(${RecordTag.Set}u, nd.count, list[i]); }
  requests[i] = r;`,
  labels: /* wgsl */ `
  let nd = nodes[q];
  var l = 0u;
  if (nd.count == 1u) { l = list[nd.seg]; }
  if (nd.count > 1u) { l = requests[nd.seg].result; }
  labels[nd.id] = l;`,
};

/**
 * WGSL of one labelling kernel over `typesWgsl` and `layoutWgsl`: per slot (`i`, global index of
 * the level's slot) or per root of the level (`q`).
 *
 * @example
 * ```ts
 * hvnKernelWgsl('gather', hvnTypesWgsl, hvnLayout.wgsl(), 256); // … fn main …
 * ```
 */
export function hvnKernelWgsl(
  name: HvnKernelName,
  typesWgsl: string,
  layoutWgsl: string,
  workgroupSize: number,
): string {
  const perNode = HVN_NODE_KERNELS.has(name);
  const index = perNode ? 'q' : 'i';
  const [begin, end] = perNode ? ['hvn.node_begin', 'hvn.node_end'] : ['hvn.slot_begin', 'hvn.slot_end'];
  return /* wgsl */ `
${typesWgsl}
${layoutWgsl}
${helpers}
@compute @workgroup_size(${workgroupSize})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let ${index} = ${begin} + gm_workgroup_index(wid, nwg) * ${workgroupSize}u + lid;
  if (${index} >= ${end}) { return; }
${bodies[name]}
}`;
}
