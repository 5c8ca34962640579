import type { GpuContext } from '../context/context';
import { GpumorphError, PoolCapacityError } from '../errors';
import { dispatchItems, encodeDispatch } from '../kernels/dispatch';
import { type BindingSpecs, defineBindings } from '../kernels/layout';
import { gridWgsl, linkWgsl } from '../kernels/wgsl';
import { BufferUsage } from '../webgpu-constants';
import type { ElementPool } from './pool';

/** A range of a storage buffer holding list heads: `count` u32 element indices from index `first`. */
export interface ListHeads {
  readonly buffer: GPUBuffer;
  /** Index (in u32 words) of the first head; default 0. */
  readonly first?: number;
  /** Heads in the range. */
  readonly count: number;
}

/** Storage offsets are multiples of this on every device (the largest alignment WebGPU allows). */
const ALIGNMENT = 256;

/** The binding of a head range: from the aligned offset at or before it, with the heads it skips. */
function headsBinding(range: ListHeads): { binding: GPUBufferBinding; skip: number } {
  const first = range.first ?? 0;
  const offset = Math.floor((first * 4) / ALIGNMENT) * ALIGNMENT;
  const skip = first - offset / 4;
  return { binding: { buffer: range.buffer, offset, size: (skip + range.count) * 4 }, skip };
}

/** Options of {@link ElementPool.compact}. */
export interface CompactListsOptions {
  /** Word of an element that holds the index of the next element of its list (`INVALID_ELEMENT` ends it). */
  readonly nextWord: number;
  /**
   * Every head of a list that must survive: the lists reachable from them are copied, in list
   * order, to the start of the pool, and the heads rewritten. Every other element is dropped.
   */
  readonly heads: readonly ListHeads[];
}

/** What {@link ElementPool.compact} did. */
export interface CompactListsResult {
  /** Elements handed out before (the bump pointer, at most the capacity). */
  readonly before: number;
  /** Elements handed out after: the reachable ones, each list once per head that reaches it. */
  readonly after: number;
  /** Of {@link after}, the elements of the lists of each range of `heads`, in its order. */
  readonly kept: readonly number[];
}

/**
 * Thrown when a list is longer than the pool (a cycle or an index past the capacity).
 *
 * @example
 * ```ts
 * try { await pool.compact(options); } catch (e) { if (e instanceof CorruptListError) report(e.message); }
 * ```
 */
export class CorruptListError extends GpumorphError {
  override readonly name = 'CorruptListError';
}

const WORKGROUP_SIZE = 256;

/** Words of a range's record in the totals buffer: the elements its lists hold, the heads it skips, its heads. */
const RANGE_WORDS = 3;

/** A head range as the kernels see it (the counting kernel adds to `total`). */
function rangeStruct(counting: boolean): string {
  return `struct GmCompactRange { total: ${counting ? 'atomic<u32>' : 'u32'}, skip: u32, count: u32 }`;
}

/** The start of a kernel with one invocation `i` per head of the range bound, up to its `main` body. */
function perHeadKernel(counting: boolean, layoutWgsl: string): string {
  return /* wgsl */ `${rangeStruct(counting)}
${layoutWgsl}
@compute @workgroup_size(${WORKGROUP_SIZE})
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u,
        @builtin(local_invocation_index) lid: u32) {
  let i = gm_workgroup_index(wid, nwg) * ${WORKGROUP_SIZE}u + lid;
  if (i >= range.count) { return; }`;
}

function countLayout(pool: ElementPool) {
  return defineBindings(`compact count ${pool.name}`, {
    ...pool.bindingSpecs(),
    heads: { kind: 'storage', type: 'array<u32>', access: 'read' },
    bases: { kind: 'storage', type: 'array<u32>' },
    totals: { kind: 'storage', type: 'array<atomic<u32>>' },
    range: { kind: 'storage', type: 'GmCompactRange' },
  } satisfies BindingSpecs);
}

function copyLayout(pool: ElementPool, into: ElementPool) {
  return defineBindings(`compact copy ${pool.name}`, {
    ...pool.bindingSpecs(),
    ...into.bindingSpecs(),
    heads: { kind: 'storage', type: 'array<u32>' },
    bases: { kind: 'storage', type: 'array<u32>', access: 'read' },
    range: { kind: 'storage', type: 'GmCompactRange', access: 'read' },
  } satisfies BindingSpecs);
}

/**
 * WGSL that walks the list of each head, reserves its length in one shared counter (and counts it
 * in its range's) and records where its copy will start (`INVALID_ELEMENT` for an empty list); a
 * walk longer than the pool sets `totals[1]`.
 *
 * @example
 * ```ts
 * const layout = defineBindings('count', { ...pool.bindingSpecs(), heads, bases, totals, range });
 * const code = compactCountWgsl(pool, 31, layout.wgsl());
 * ```
 */
export function compactCountWgsl(pool: ElementPool, nextWord: number, layoutWgsl: string): string {
  const p = pool.name;
  return linkWgsl(
    /* wgsl */ `
${perHeadKernel(true, layoutWgsl)}
  let capacity = ${p}_header.capacity;
  var e = heads[range.skip + i];
  var length = 0u;
  loop {
    if (e == GM_INVALID_ELEMENT) { break; }
    if (e >= capacity || length >= capacity) {
      atomicStore(&totals[1], 1u);
      break;
    }
    length += 1u;
    e = ${p}_load(e, ${nextWord}u);
  }
  var base = GM_INVALID_ELEMENT;
  if (length != 0u) {
    base = atomicAdd(&totals[0], length);
    atomicAdd(&range.total, length);
  }
  bases[i] = base;
}`,
    [gridWgsl, pool.accessWgsl()],
  );
}

/**
 * WGSL that copies the list of each head to its reserved run of `into`, element by element in
 * list order, links the copies to their successors in the run, and points the head at the run.
 *
 * @example
 * ```ts
 * const layout = defineBindings('copy', { ...pool.bindingSpecs(), ...scratch.bindingSpecs(), heads, bases, range });
 * const code = compactCopyWgsl(pool, scratch, 31, layout.wgsl());
 * ```
 */
export function compactCopyWgsl(
  pool: ElementPool,
  into: ElementPool,
  nextWord: number,
  layoutWgsl: string,
): string {
  const p = pool.name;
  const q = into.name;
  return linkWgsl(
    /* wgsl */ `
${perHeadKernel(false, layoutWgsl)}
  let base = bases[i];
  if (base == GM_INVALID_ELEMENT) { return; }
  var e = heads[range.skip + i];
  var at = base;
  loop {
    if (e == GM_INVALID_ELEMENT) { break; }
    let next = ${p}_load(e, ${nextWord}u);
    for (var w = 0u; w < ${p}_ELEMENT_WORDS; w++) {
      if (w != ${nextWord}u) { ${q}_store(at, w, ${p}_load(e, w)); }
    }
    ${q}_store(at, ${nextWord}u, select(at + 1u, GM_INVALID_ELEMENT, next == GM_INVALID_ELEMENT));
    at += 1u;
    e = next;
  }
  heads[range.skip + i] = base;
}`,
    [gridWgsl, pool.accessWgsl(), into.accessWgsl()],
  );
}

/**
 * Copies every list reachable from `options.heads` to the start of `pool` and drops every other
 * element: the garbage a bump pool collects when its users replace lists. Called by
 * {@link ElementPool.compact}, which documents it.
 */
export async function compactLists(
  ctx: GpuContext,
  pool: ElementPool,
  options: CompactListsOptions,
  createScratch: (capacity: number) => Promise<ElementPool>,
): Promise<CompactListsResult> {
  const { nextWord } = options;
  if (!Number.isInteger(nextWord) || nextWord < 0 || nextWord >= pool.elementWords) {
    throw new RangeError(
      `pool '${pool.name}': nextWord ${nextWord} is not a word of a ${pool.elementWords}-word element`,
    );
  }
  if (pool.reserved !== 0) {
    throw new RangeError(
      `pool '${pool.name}': compaction moves every element, so it needs a pool without reserved elements`,
    );
  }
  const header = await pool.readHeader();
  const before = Math.min(header.next, header.capacity);
  const heads = options.heads.filter((range) => range.count > 0);
  // Word 0: elements reached, word 1: a corrupt list; then one aligned record per range.
  const totalsBytes = ALIGNMENT * (heads.length + 1);
  const bindings = heads.map(headsBinding);
  const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
  const totals = await ctx.createBuffer({ label: `compact ${pool.name} totals`, size: totalsBytes, usage });
  const bases: GPUBuffer[] = [];
  let scratch: ElementPool | undefined;
  try {
    const records = new Uint32Array(totalsBytes / 4);
    heads.forEach((range, r) => {
      records.set([0, (bindings[r] as { skip: number }).skip, range.count], (ALIGNMENT / 4) * (r + 1));
    });
    await ctx.writeBuffer(totals, 0, records);
    const counting = countLayout(pool);
    const countKernel = await ctx.kernels.get({
      label: `compact count ${pool.name}`,
      code: compactCountWgsl(pool, nextWord, counting.wgsl()),
      layout: counting,
    });
    const maxGroups = ctx.limits.maxComputeWorkgroupsPerDimension;
    for (const range of heads) {
      bases.push(
        await ctx.createBuffer({ label: `compact ${pool.name} bases`, size: range.count * 4, usage }),
      );
    }
    await ctx.guard(`compact count ${pool.name}`, () => {
      const encoder = ctx.device.createCommandEncoder({ label: `compact count ${pool.name}` });
      const pass = encoder.beginComputePass({ label: `compact count ${pool.name}` });
      pass.setPipeline(countKernel.pipeline);
      heads.forEach((range, r) => {
        pass.setBindGroup(
          0,
          countKernel.bindGroup({
            ...pool.resources(),
            heads: bindings[r]?.binding as GPUBufferBinding,
            bases: { buffer: bases[r] as GPUBuffer, size: range.count * 4 },
            totals: { buffer: totals, size: 8 },
            range: { buffer: totals, offset: ALIGNMENT * (r + 1), size: 4 * RANGE_WORDS },
          }),
        );
        encodeDispatch(pass, dispatchItems(range.count, WORKGROUP_SIZE, maxGroups));
      });
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
    const words = new Uint32Array(await ctx.readBuffer(totals, 0, totalsBytes));
    const [total = 0, corrupt = 0] = words;
    let r = 0;
    const kept = options.heads.map((range) =>
      range.count > 0 ? (words[(ALIGNMENT / 4) * ++r] as number) : 0,
    );
    if (corrupt !== 0) {
      throw new CorruptListError(
        `pool '${pool.name}': a list is longer than the pool (a cycle or an index past its capacity)`,
      );
    }
    if (total >= before) {
      // Nothing to drop (or lists shared by several heads, which the copy would duplicate).
      return { before, after: before, kept };
    }
    // The copy binds both pools' headers and windows, the heads, their bases and their range.
    const windowsFree = ctx.limits.maxStorageBuffersPerShaderStage - pool.geometry.windows - 5;
    const windowsNeeded = Math.ceil(Math.max(1, total) / pool.windowElements);
    if (windowsNeeded > windowsFree) {
      throw new PoolCapacityError(
        `pool '${pool.name}': its ${total} reachable elements need ${windowsNeeded} binding window(s) ` +
          `to be copied, and the device's storage bindings per shader stage leave ${windowsFree}`,
        pool.name,
        total,
        windowsFree * pool.windowElements,
      );
    }
    scratch = await createScratch(Math.max(1, total));
    const copying = copyLayout(pool, scratch);
    const copyKernel = await ctx.kernels.get({
      label: `compact copy ${pool.name}`,
      code: compactCopyWgsl(pool, scratch, nextWord, copying.wgsl()),
      layout: copying,
    });
    const into = scratch;
    await ctx.guard(`compact copy ${pool.name}`, () => {
      const encoder = ctx.device.createCommandEncoder({ label: `compact copy ${pool.name}` });
      const pass = encoder.beginComputePass({ label: `compact copy ${pool.name}` });
      pass.setPipeline(copyKernel.pipeline);
      heads.forEach((range, r) => {
        pass.setBindGroup(
          0,
          copyKernel.bindGroup({
            ...pool.resources(),
            ...into.resources(),
            heads: bindings[r]?.binding as GPUBufferBinding,
            bases: { buffer: bases[r] as GPUBuffer, size: range.count * 4 },
            range: { buffer: totals, offset: ALIGNMENT * (r + 1), size: 4 * RANGE_WORDS },
          }),
        );
        encodeDispatch(pass, dispatchItems(range.count, WORKGROUP_SIZE, maxGroups));
      });
      pass.end();
      if (total > 0) encoder.copyBufferToBuffer(into.buffer, 0, pool.buffer, 0, total * pool.elementBytes);
      ctx.queue.writeBuffer(pool.header, 0, Uint32Array.of(total, pool.capacity, 0, pool.reserved));
      ctx.queue.submit([encoder.finish()]);
    });
    return { before, after: total, kept };
  } finally {
    scratch?.destroy();
    for (const buffer of bases) buffer.destroy();
    totals.destroy();
  }
}
