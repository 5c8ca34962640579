import { gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { laneBuiltins, workgroupScanWgsl } from '../../common/workgroup.wgsl';
import { scatterLayout, sortParamsWgsl } from '../layout';

/** Shape of the scatter kernel. */
export interface ScatterKernelParams {
  readonly workgroupSize: number;
  readonly itemsPerThread: number;
  readonly radixBits: number;
  /** Destination windows bound per dispatch (1…4). */
  readonly windows: number;
  readonly withValues: boolean;
  /**
   * Rank with subgroup ballots (subgroups are the linear ranges of `local_invocation_index`); else
   * with virtual groups of `groupSize` invocations in workgroup memory.
   */
  readonly subgroups: boolean;
  /** Largest number of ranking groups per workgroup (workgroup size / smallest group size). */
  readonly maxGroups: number;
  /** Size of a virtual group (workgroup-memory path only). */
  readonly groupSize: number;
}

/** u32 words of the scatter kernel's shared scratch (group histograms, then the tile's sorted keys). */
export function scatterScratchWords(p: {
  workgroupSize: number;
  itemsPerThread: number;
  radixBits: number;
  maxGroups: number;
}): number {
  return Math.max(p.maxGroups * (1 << (p.radixBits - 1)), p.workgroupSize * p.itemsPerThread);
}

/** Workgroup memory in bytes the scatter kernel declares (besides the digit scan's). */
export function scatterWorkgroupBytes(p: {
  workgroupSize: number;
  itemsPerThread: number;
  radixBits: number;
  maxGroups: number;
  subgroups: boolean;
}): number {
  const radix = 1 << p.radixBits;
  const words =
    scatterScratchWords(p) +
    radix / 2 +
    2 * radix +
    (p.subgroups ? 0 : p.workgroupSize) +
    // the digit scan's buffer (workgroup path) or partials (subgroup path)
    p.workgroupSize;
  return words * 4;
}

/** Ranking of one round: with subgroup ballots (match of equal digits) or in workgroup memory. */
function rankRoundWgsl(p: ScatterKernelParams): string {
  if (p.subgroups) {
    return /* wgsl */ `
    // Lanes of this subgroup holding the same digit (the sentinel RADIX marks lanes without a key).
    var same = subgroupBallot(true);
    for (var b = 0u; b <= RADIX_BITS; b++) {
      let bit = ((d >> b) & 1u) == 1u;
      let votes = subgroupBallot(bit);
      same &= select(~votes, votes, bit);
    }
    let below = sort_popcount(same & sort_lanes_below(glane));
    let total = sort_popcount(same);
    var old = 0u;
    if (valid && below + 1u == total) {
      // The highest lane of each digit adds the round's count to the group's counter; the
      // others learn the previous value from it.
      let word = group * HALF + (d >> 1u);
      let sh = (d & 1u) * 16u;
      old = (atomicAdd(&sort_scratch[word], total << sh) >> sh) & 0xffffu;
    }
    let base = subgroupShuffle(old, sort_highest_lane(same));
    ranks[r] = base + below;`;
  }
  return /* wgsl */ `
    sort_digits[lid] = d;
    workgroupBarrier();
    let first = group * GROUP;
    var below = 0u;
    var total = 0u;
    for (var j = 0u; j < GROUP; j++) {
      let equal = select(0u, 1u, sort_digits[first + j] == d);
      total += equal;
      below += select(0u, equal, j < glane);
    }
    let word = group * HALF + (min(d, RADIX - 1u) >> 1u);
    let sh = (d & 1u) * 16u;
    let base = (atomicLoad(&sort_scratch[word]) >> sh) & 0xffffu;
    workgroupBarrier();
    if (valid && below + 1u == total) { atomicAdd(&sort_scratch[word], total << sh); }
    ranks[r] = base + below;`;
}

const subgroupHelpersWgsl = /* wgsl */ `
fn sort_popcount(m: vec4u) -> u32 {
  let c = countOneBits(m);
  return c.x + c.y + c.z + c.w;
}
// Ballot mask of the lanes below \`lane\`.
fn sort_lanes_below(lane: u32) -> vec4u {
  var m = vec4u(0u);
  for (var c = 0u; c < 4u; c++) {
    let lo = c * 32u;
    if (lane >= lo + 32u) { m[c] = 0xffffffffu; } else if (lane > lo) { m[c] = (1u << (lane - lo)) - 1u; }
  }
  return m;
}
fn sort_highest_lane(m: vec4u) -> u32 {
  for (var c = 3i; c >= 0i; c--) {
    if (m[c] != 0u) { return u32(c) * 32u + firstLeadingBit(m[c]); }
  }
  return 0u;
}`;

/** `switch` writing `value` to element `global` of the bound destination windows of `prefix`. */
function windowWriteWgsl(prefix: string, windows: number): string {
  const cases = Array.from(
    { length: windows },
    (_, w) => `    case ${w}u: { ${prefix}_${w}[offset] = value; }`,
  ).join('\n');
  return /* wgsl */ `
fn sort_write_${prefix}(global: u32, value: u32) {
  // Windows before the first bound one wrap around to large indices and are skipped.
  let window = global / params.window_keys - params.first_dst_window;
  let offset = global % params.window_keys;
  switch (window) {
${cases}
    default: {}
  }
}`;
}

/**
 * WGSL of the scatter of one radix pass: one workgroup per tile of the bound source window.
 *
 * 1. Ranking: the tile is split into groups (subgroups, or virtual groups in workgroup memory),
 *    group g owning the contiguous keys [g·size·ITEMS, (g+1)·size·ITEMS). In round r each lane
 *    takes key g·size·ITEMS + r·size + lane (coalesced), finds the lanes of its group with the
 *    same digit (ballots, or a scan of the group's digits in workgroup memory), and its rank
 *    = count of that digit in the group's earlier rounds + equal lanes below it. Counts are
 *    16-bit halves of u32 words (two digits a word) to halve the workgroup memory.
 * 2. Per digit, an exclusive scan over the groups (serial, group count is small) gives each group's
 *    offset within the tile's run of that digit; a workgroup scan over digits gives the runs' starts.
 *    So the tile-local position of each key is stable: (digit, group, round, lane) order is the
 *    keys' original order within each digit.
 * 3. The keys are written to workgroup memory in tile-local order, then each invocation writes
 *    consecutive slots to `table[digit·num_tiles + tile] + (slot − run start)`: consecutive slots
 *    of a digit go to consecutive addresses (coalesced). Values follow the same permutation.
 */
export function scatterKernelWgsl(p: ScatterKernelParams): string {
  const radix = 1 << p.radixBits;
  const layout = scatterLayout(p.windows, p.withValues);
  const lanes = laneBuiltins(p.subgroups);
  const scratch = scatterScratchWords(p);
  const v = p.withValues;
  return linkWgsl(
    /* wgsl */ `
${sortParamsWgsl}
${layout.wgsl()}
const WG = ${p.workgroupSize}u;
const ITEMS = ${p.itemsPerThread}u;
const TILE = ${p.workgroupSize * p.itemsPerThread}u;
const RADIX_BITS = ${p.radixBits}u;
const RADIX = ${radix}u;
const HALF = ${radix / 2}u;
const GROUP = ${p.groupSize}u;
var<workgroup> sort_scratch: array<atomic<u32>, ${scratch}>;
var<workgroup> sort_counts: array<u32, HALF>;
var<workgroup> sort_digit_start: array<u32, RADIX>;
var<workgroup> sort_tile_base: array<u32, RADIX>;
${p.subgroups ? subgroupHelpersWgsl : 'var<workgroup> sort_digits: array<u32, WG>;'}
${windowWriteWgsl('dst_keys', p.windows)}
${v ? windowWriteWgsl('dst_values', p.windows) : ''}

fn sort_digit(key: u32) -> u32 { return (key >> params.shift) & params.digit_mask; }

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32${lanes.params ? `, ${lanes.params}` : ''}) {
  ${lanes.prelude}
  let local_tile = gm_workgroup_index(wid, nwg);
  if (local_tile >= params.window_tiles) { return; }
  let tile = params.first_tile + local_tile;
  let tile_count = select(0u, min(TILE, params.count - tile * TILE), tile * TILE < params.count);
  let src_start = local_tile * TILE;
  let group_size = ${p.subgroups ? 'sg_size' : 'GROUP'};
  let group = lid / group_size;
  let glane = lid % group_size;
  let groups = WG / group_size;

  for (var i = lid; i < ${scratch}u; i += WG) { atomicStore(&sort_scratch[i], 0u); }
  workgroupBarrier();

  // 1. Rank each key within its group.
  var keys: array<u32, ITEMS>;
  ${v ? 'var values: array<u32, ITEMS>;' : ''}
  var digits: array<u32, ITEMS>;
  var ranks: array<u32, ITEMS>;
  let chunk = group * group_size * ITEMS;
  for (var r = 0u; r < ITEMS; r++) {
    let i = chunk + r * group_size + glane;
    let valid = i < tile_count;
    var d = RADIX;
    if (valid) {
      keys[r] = src_keys[src_start + i];
      ${v ? 'values[r] = src_values[src_start + i];' : ''}
      d = sort_digit(keys[r]);
    }
    digits[r] = d;
    ${rankRoundWgsl(p)}
  }
  workgroupBarrier();

  // 2. Offsets of each group within each digit's run, and the runs' starts.
  for (var h = lid; h < HALF; h += WG) {
    var run = 0u;
    for (var g = 0u; g < groups; g++) {
      let w = g * HALF + h;
      let c = atomicLoad(&sort_scratch[w]);
      atomicStore(&sort_scratch[w], run);
      run += c;
    }
    sort_counts[h] = run;
  }
  workgroupBarrier();
  var count = 0u;
  if (lid < RADIX) { count = (sort_counts[lid >> 1u] >> ((lid & 1u) * 16u)) & 0xffffu; }
  let scanned = sort_digit_scan(count, lid, sg_lane, sg_size);
  if (lid < RADIX) {
    let start = scanned.x - count;
    sort_digit_start[lid] = start;
    if (count > 0u) { sort_tile_base[lid] = table[lid * params.num_tiles + tile] - start; }
  }
  workgroupBarrier();
  var slots: array<u32, ITEMS>;
  for (var r = 0u; r < ITEMS; r++) {
    let d = digits[r];
    if (d < RADIX) {
      let before = (atomicLoad(&sort_scratch[group * HALF + (d >> 1u)]) >> ((d & 1u) * 16u)) & 0xffffu;
      slots[r] = sort_digit_start[d] + before + ranks[r];
    }
  }
  workgroupBarrier();

  // 3. Keys in tile order through workgroup memory, then out in runs of equal digits.
  for (var r = 0u; r < ITEMS; r++) {
    if (digits[r] < RADIX) { atomicStore(&sort_scratch[slots[r]], keys[r]); }
  }
  workgroupBarrier();
  ${v ? 'var targets: array<u32, ITEMS>;' : ''}
  for (var r = 0u; r < ITEMS; r++) {
    let j = r * WG + lid;
    if (j < tile_count) {
      let key = atomicLoad(&sort_scratch[j]);
      let dest = sort_tile_base[sort_digit(key)] + j;
      ${v ? 'targets[r] = dest;' : ''}
      sort_write_dst_keys(dest, key);
    }
  }
  ${
    v
      ? /* wgsl */ `workgroupBarrier();
  for (var r = 0u; r < ITEMS; r++) {
    if (digits[r] < RADIX) { atomicStore(&sort_scratch[slots[r]], values[r]); }
  }
  workgroupBarrier();
  for (var r = 0u; r < ITEMS; r++) {
    let j = r * WG + lid;
    if (j < tile_count) { sort_write_dst_values(targets[r], atomicLoad(&sort_scratch[j])); }
  }`
      : ''
  }
}`,
    [
      gridWgsl,
      workgroupScanWgsl({
        name: 'sort_digit_scan',
        op: 'add',
        workgroupSize: p.workgroupSize,
        subgroups: p.subgroups,
      }),
    ],
  );
}
