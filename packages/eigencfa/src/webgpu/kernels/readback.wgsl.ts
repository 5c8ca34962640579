/**
 * WGSL of the readback: the store's variable rows (bitsets) become sorted member lists.
 *
 * Each invocation owns one *block* of {@link READBACK_BLOCK_WORDS} words of one row, so the grid
 * has enough invocations to keep every SM busy and neighbouring invocations read neighbouring
 * blocks. Pass 1 counts the members of every block; an exclusive scan of the counts in row-major
 * order gives every block its place in the output (rows follow each other there); pass 2 writes
 * each block's members in ascending order at that place. The store is bound read-only and
 * non-atomic here: plain loads go through the L1 cache, atomic loads would not.
 * @module
 */
import type { StoreGeometry } from '../layout';
import { WORKGROUP } from '../layout';
import { readOnlyLoadWordWgsl } from './store.wgsl';

/** Words per readback block. */
export const READBACK_BLOCK_WORDS = 32;

/** Blocks per row of a store with `words` words per row. */
export function readbackBlocks(words: number): number {
  return Math.ceil(words / READBACK_BLOCK_WORDS);
}

function readOnlyStoreWgsl(g: StoreGeometry): string {
  return /* wgsl */ `
const WORDS: u32 = ${g.words}u;
const BLOCKS: u32 = ${readbackBlocks(g.words)}u;
const BLOCK_WORDS: u32 = ${READBACK_BLOCK_WORDS}u;

${readOnlyLoadWordWgsl(g)}

fn blockIndex(wg: vec3u, nwg: vec3u, lid: u32) -> u32 {
  return (wg.x + wg.y * nwg.x) * ${WORKGROUP}u + lid;
}

// The slice of rows this dispatch reads: [slice[0], slice[0] + slice[1]); block t is block
// t % BLOCKS of row slice[0] + t / BLOCKS.
fn sliceBlocks() -> u32 { return slice[1] * BLOCKS; }
fn blockRow(t: u32) -> u32 { return slice[0] + t / BLOCKS; }

// The words [first, last) of block t.
fn blockWords(t: u32) -> vec2u {
  let first = (t % BLOCKS) * BLOCK_WORDS;
  return vec2u(first, min(first + BLOCK_WORDS, WORDS));
}
`;
}

/**
 * Readback, pass 1: `counts[i·BLOCKS + j]` = members in block j of row i of the slice.
 *
 * @example
 * ```ts
 * const code = countBlocksWgsl(readbackBindings(g).wgsl(), g); // 2·|Lam|·readbackBlocks(words) invocations
 * ```
 */
export function countBlocksWgsl(bindings: string, g: StoreGeometry): string {
  return /* wgsl */ `${bindings}
${readOnlyStoreWgsl(g)}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = blockIndex(wg, nwg, lid);
  if (t >= sliceBlocks()) { return; }
  let v = blockRow(t);
  let words = blockWords(t);
  var n = 0u;
  for (var w = words.x; w < words.y; w++) { n += countOneBits(loadWord(v, w)); }
  blocks[t] = n;
}
`;
}

/**
 * Readback, pass 2: with `blocks` holding each block's exclusive prefix, writes the members of
 * every block in ascending order at its place in `out`, and each row's first place in `rowStarts`
 * (places and rows counted from the slice's first).
 *
 * @example
 * ```ts
 * const code = writeBlocksWgsl(readbackBindings(g).wgsl(), g);
 * ```
 */
export function writeBlocksWgsl(bindings: string, g: StoreGeometry): string {
  return /* wgsl */ `${bindings}
${readOnlyStoreWgsl(g)}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) lid: u32) {
  let t = blockIndex(wg, nwg, lid);
  if (t >= sliceBlocks()) { return; }
  let v = blockRow(t);
  var at = blocks[t];
  if (t % BLOCKS == 0u) { rowStarts[t / BLOCKS] = at; }
  let words = blockWords(t);
  for (var w = words.x; w < words.y; w++) {
    var bits = loadWord(v, w);
    loop {
      if (bits == 0u) { break; }
      let b = firstTrailingBit(bits);
      bits = bits & (bits - 1u);
      out[at] = w * 32u + b;
      at = at + 1u;
    }
  }
}
`;
}
