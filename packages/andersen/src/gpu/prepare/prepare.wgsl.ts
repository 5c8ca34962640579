import { defineBindings, gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { ConstraintKind } from '../../model/program';
import { CONTROL_ARRAYS, CONTROL_HEAD_WORDS, PAIR_POOL, STATUS } from '../layout';

/** Invocations per workgroup of the preparation's kernels. */
export const PREPARE_WORKGROUP = 256;

/**
 * The words at the start of the program buffer that `prep_*` read their sizes from, then the
 * program: the constraint kinds (four bytes a word), destinations, sources and offsets, then the
 * offline merges' pairs, each section from the word the header names.
 */
export const PREPARE_HEADER = {
  nodes: 0,
  merges: 1,
  constraints: 2,
  /** Bits of the source's word group below the key in a composite sort key (0: the key alone). */
  compositeBits: 3,
  kindsAt: 4,
  dstAt: 5,
  srcAt: 6,
  offsetAt: 7,
  mergesAt: 8,
} as const;

/** Words of {@link PREPARE_HEADER} (a multiple of 4, so that the sections after it stay aligned). */
export const PREPARE_HEADER_WORDS = 12;

/**
 * The preparation's bindings: the solver's control buffer (the union–find and the status words),
 * the program as uploaded, and the worklist and rule table it fills.
 */
export const prepareLayout = defineBindings('andersen prepare', {
  control: { kind: 'storage', type: 'array<atomic<u32>>' },
  program: { kind: 'storage', type: 'array<u32>', access: 'read' },
  pair_keys: { kind: 'storage', type: 'array<u32>' },
  pair_values: { kind: 'storage', type: 'array<u32>' },
  rule_table: { kind: 'storage', type: 'array<u32>' },
});

/** The preparation's entry points, in the order one submission runs them. */
export const PREPARE_ENTRY_POINTS = ['prep_init', 'prep_merge', 'prep_flatten', 'prep_emit'] as const;

/**
 * WGSL of the GPU's preparation of a program, which does on the device what `prepareProgram`
 * (its CPU reference) does on the host: `prep_init` makes every node its own class, `prep_merge`
 * unites the offline merges' pairs (lock-free: the larger root is hooked under the smaller with a
 * compare-exchange, so each class's root is its smallest id, as on the host), `prep_flatten`
 * points every node at its root, and `prep_emit` turns each constraint into an initial pair (`x =
 * &o`: o into x's pending points-to set; `x = y` between two classes: y's class into x's pending
 * copy⁻¹ set) or a rule `(kind, other, offset, owner)`. Pairs and rules are appended through
 * counters (the status words `pairCount` and `sortedCount`, and `preparedRules`), one atomic a
 * workgroup; their order differs from the host's, which the solve does not depend on (the
 * worklist is sorted, and rules are sets).
 *
 * @example
 * ```ts
 * const kernel = await ctx.kernels.get({ label: 'prep', code: prepareWgsl(), layout: prepareLayout, entryPoint: 'prep_emit' });
 * ```
 */
export function prepareWgsl(): string {
  const parent = CONTROL_HEAD_WORDS + CONTROL_ARRAYS.parent;
  const H = PREPARE_HEADER;
  const W = PREPARE_WORKGROUP;
  // Each kernel strides over its items from its workgroup's first.
  const kernel = (name: string, count: string, body: string) => /* wgsl */ `
@compute @workgroup_size(${W})
fn ${name}(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32) {
  let count = ${count};
  let stride = nwg.x * nwg.y * ${W}u;
  let first = gm_workgroup_index(wid, nwg) * ${W}u;
${body}
}`;
  return linkWgsl(
    /* wgsl */ `
${prepareLayout.wgsl()}

// The union–find is the control buffer's first per-node array (its words from ${parent} on).
fn find(v0: u32) -> u32 {
  var v = v0;
  loop {
    let p = atomicLoad(&control[${parent}u + v]);
    if (p == v) { return v; }
    v = p;
  }
}

// Unites the classes of a and b; true when they were two. The larger root goes under the smaller
// when it is still a root; when another invocation hooked it first, both are looked up again.
fn unite(a0: u32, b0: u32) -> bool {
  var a = find(a0);
  var b = find(b0);
  loop {
    if (a == b) { return false; }
    let high = max(a, b);
    let low = min(a, b);
    if (atomicCompareExchangeWeak(&control[${parent}u + high], high, low).exchanged) { return true; }
    a = find(high);
    b = find(low);
  }
}

var<workgroup> group_pairs: atomic<u32>;
var<workgroup> group_rules: atomic<u32>;
var<workgroup> pair_base: u32;
var<workgroup> rule_base: u32;
var<workgroup> joined: atomic<u32>;
${kernel(
  'prep_init',
  `program[${H.nodes}]`,
  `  for (var v = first + lid; v < count; v += stride) { atomicStore(&control[${parent}u + v], v); }`,
)}
${kernel(
  'prep_merge',
  `program[${H.merges}]`,
  `  let at = program[${H.mergesAt}];
  var mine = 0u;
  for (var i = first + lid; i < count; i += stride) {
    if (unite(program[at + 2u * i], program[at + 2u * i + 1u])) { mine++; }
  }
  if (mine != 0u) { atomicAdd(&joined, mine); }
  workgroupBarrier();
  if (lid == 0u) {
    let group = atomicLoad(&joined);
    if (group != 0u) { atomicAdd(&control[${STATUS.offlineMerges}], group); }
  }`,
)}
${kernel(
  'prep_flatten',
  `program[${H.nodes}]`,
  `  for (var v = first + lid; v < count; v += stride) { atomicStore(&control[${parent}u + v], find(v)); }`,
)}
${kernel(
  'prep_emit',
  `program[${H.constraints}]`,
  `  let bits = program[${H.compositeBits}];
  let kinds_at = program[${H.kindsAt}];
  let dst_at = program[${H.dstAt}];
  let src_at = program[${H.srcAt}];
  let offset_at = program[${H.offsetAt}];
  // The loop's bound and steps are the same for the whole workgroup (its barriers need that).
  for (var start = first; start < count; start += stride) {
    let i = start + lid;
    var pair = false;
    var rule = false;
    var key = 0u;
    var source = 0u;
    var kind = 0u;
    var dst = 0u;
    if (i < count) {
      kind = (program[kinds_at + (i >> 2u)] >> ((i & 3u) * 8u)) & 0xffu;
      dst = program[dst_at + i];
      source = program[src_at + i];
      if (kind == ${ConstraintKind.AddressOf}u) {
        pair = true;
        key = 2u * find(dst) + ${PAIR_POOL.points}u;
      } else if (kind == ${ConstraintKind.Copy}u) {
        let to = find(dst);
        source = find(source);
        pair = to != source;
        key = 2u * to + ${PAIR_POOL.edges}u;
      } else {
        rule = true;
      }
    }
    var pair_slot = 0u;
    var rule_slot = 0u;
    if (pair) { pair_slot = atomicAdd(&group_pairs, 1u); }
    if (rule) { rule_slot = atomicAdd(&group_rules, 1u); }
    workgroupBarrier();
    if (lid == 0u) {
      let pairs = atomicExchange(&group_pairs, 0u);
      let rules = atomicExchange(&group_rules, 0u);
      if (pairs != 0u) {
        pair_base = atomicAdd(&control[${STATUS.pairCount}], pairs);
        atomicAdd(&control[${STATUS.sortedCount}], pairs);
      }
      if (rules != 0u) { rule_base = atomicAdd(&control[${STATUS.preparedRules}], rules); }
    }
    workgroupBarrier();
    if (pair) {
      let at = pair_base + pair_slot;
      // The worklist's layout (see push_pair): the sort key is (key, source's word group) in one
      // word when both fit.
      pair_keys[at] = select((key << bits) | (source >> 5u), key, bits == 0u);
      pair_values[at] = source;
    }
    if (rule) {
      let at = 4u * (rule_base + rule_slot);
      // Load, store and offset are the constraint kinds 2, 3 and 4, the rule kinds 0, 1 and 2.
      rule_table[at] = kind - ${ConstraintKind.Load}u;
      rule_table[at + 1u] = source;
      rule_table[at + 2u] = program[offset_at + i];
      rule_table[at + 3u] = dst;
    }
    // pair_base and rule_base are read before the next step's first barrier lets lane 0 write them.
  }`,
)}
`,
    [gridWgsl],
  );
}
