import { dispatchGrid, type GpuContext, type Kernel } from '@gpumorph/gpu-allocator';
import { ConstraintKind, type ConstraintProgram } from '../../model/program';
import type { HcdPairs } from '../../offline/hcd-pairs';
import type { HostArrays } from '../host-arrays';
import {
  PREPARE_ENTRY_POINTS,
  PREPARE_HEADER,
  PREPARE_HEADER_WORDS,
  PREPARE_WORKGROUP,
  prepareLayout,
  prepareWgsl,
} from './prepare.wgsl';

/**
 * What the solver takes of a prepared program: the host's whole preparation
 * (`PreparedProgram`), or, when the GPU prepares it, the counts alone ({@link countForGpu}: no
 * rules, union–find or pairs; the initial pairs' count is then an upper bound, the sorts taking the
 * exact one from the GPU).
 */
export interface PreparedCounts {
  readonly nodeCount: number;
  readonly objectSize: Uint32Array;
  /** Loads, stores and offsets: the rules (`prep_emit` writes them when the GPU prepares). */
  readonly ruleCount: number;
  /** HCD online pairs, the rules after them. */
  readonly hcdCount: number;
  /** Classes the offline merges joined (the GPU counts them into `STATUS.offlineMerges`). */
  readonly offlineMerges?: number;
  /** The rules, then the HCD online pairs, as the host laid them out. */
  readonly rules?: Uint32Array;
  readonly initialPairs: {
    /** The initial pairs; for the GPU, every address-of and copy constraint (copies within one class give none). */
    readonly count: number;
    /** Of them, the address-of constraints' pairs. */
    readonly points: number;
    readonly keys?: Uint32Array;
    readonly sources?: Uint32Array;
  };
}

/**
 * What the host knows of a program the GPU prepares (see {@link prepareWgsl}): counts from one
 * pass over the constraint kinds, none of which needs the offline merges.
 *
 * @example
 * ```ts
 * countForGpu(program, hcd).ruleCount; // loads + stores + offsets
 * ```
 */
export function countForGpu(program: ConstraintProgram, hcd: HcdPairs | undefined): PreparedCounts {
  const n = program.nodeCount;
  const { addressOf, copies } = countPairKinds(program.constraints.kind, program.constraints.length);
  return {
    nodeCount: n,
    objectSize: program.objectSize.subarray(0, n),
    ruleCount: program.constraints.length - addressOf - copies,
    hcdCount: Math.floor((hcd?.online.length ?? 0) / 2),
    initialPairs: { count: addressOf + copies, points: addressOf },
  };
}

/** The address-of and copy constraints among the first `length` kinds (a loop of its own, see host-loops.ts). */
function countPairKinds(kinds: Uint8Array, length: number): { addressOf: number; copies: number } {
  let addressOf = 0;
  let copies = 0;
  for (let i = 0; i < length; i++) {
    const kind = kinds[i] as number;
    if (kind === ConstraintKind.AddressOf) addressOf++;
    else if (kind === ConstraintKind.Copy) copies++;
  }
  return { addressOf, copies };
}

/** Words of the program buffer for `program` and `hcd` (see {@link uploadProgram}). */
export function programWords(program: ConstraintProgram, hcd: HcdPairs | undefined): number {
  const c = program.constraints.length;
  const merges = Math.floor((hcd?.offlineMerges?.length ?? 0) / 2);
  return PREPARE_HEADER_WORDS + Math.ceil(c / 4) + 3 * c + 2 * merges;
}

/**
 * Uploads the program as the GPU's preparation reads it into `buffer` (at least
 * {@link programWords} words): the header, the constraint kinds packed four to a word, the
 * destinations, sources and offsets, and the offline merges' pairs. Only the header and the kinds
 * pass through host memory (`arrays`); the other arrays are uploaded from the program's own.
 * Returns the sizes {@link encodePrepare} dispatches for.
 *
 * @example
 * ```ts
 * const sizes = await uploadProgram(ctx, buffer, program, hcd, takeHostArrays(ctx), 0);
 * ```
 */
export async function uploadProgram(
  ctx: GpuContext,
  buffer: GPUBuffer,
  program: ConstraintProgram,
  hcd: HcdPairs | undefined,
  arrays: HostArrays,
  compositeBits: number,
): Promise<PrepareSizes> {
  const constraints = program.constraints;
  const c = constraints.length;
  const mergeWords = 2 * Math.floor((hcd?.offlineMerges?.length ?? 0) / 2);
  const kindWords = Math.ceil(c / 4);
  const kindsAt = PREPARE_HEADER_WORDS;
  const dstAt = kindsAt + kindWords;
  const srcAt = dstAt + c;
  const offsetAt = srcAt + c;
  const mergesAt = offsetAt + c;
  const head = arrays.uint32('prepareHead', PREPARE_HEADER_WORDS + kindWords, 0);
  head[PREPARE_HEADER.nodes] = program.nodeCount;
  head[PREPARE_HEADER.merges] = mergeWords / 2;
  head[PREPARE_HEADER.constraints] = c;
  head[PREPARE_HEADER.compositeBits] = compositeBits;
  head[PREPARE_HEADER.kindsAt] = kindsAt;
  head[PREPARE_HEADER.dstAt] = dstAt;
  head[PREPARE_HEADER.srcAt] = srcAt;
  head[PREPARE_HEADER.offsetAt] = offsetAt;
  head[PREPARE_HEADER.mergesAt] = mergesAt;
  new Uint8Array(head.buffer, head.byteOffset + 4 * kindsAt, c).set(constraints.kind.subarray(0, c));
  await ctx.writeBuffer(buffer, 0, head);
  if (c > 0) {
    await ctx.writeBuffer(buffer, 4 * dstAt, constraints.dst.subarray(0, c));
    await ctx.writeBuffer(buffer, 4 * srcAt, constraints.src.subarray(0, c));
    await ctx.writeBuffer(buffer, 4 * offsetAt, constraints.offset.subarray(0, c));
  }
  if (mergeWords > 0 && hcd?.offlineMerges) {
    await ctx.writeBuffer(buffer, 4 * mergesAt, hcd.offlineMerges.subarray(0, mergeWords));
  }
  return { nodes: program.nodeCount, merges: mergeWords / 2, constraints: c };
}

/** The items of the preparation's kernels, as {@link uploadProgram} wrote them into the header. */
export interface PrepareSizes {
  readonly nodes: number;
  readonly merges: number;
  readonly constraints: number;
}

/** The preparation's pipelines on one context (see {@link prepareWgsl}). */
export type PrepareKernels = Readonly<
  Record<(typeof PREPARE_ENTRY_POINTS)[number], Kernel<typeof prepareLayout.specs>>
>;

/**
 * The preparation's pipelines (built once a context: the kernel cache keeps them).
 *
 * @example
 * ```ts
 * const kernels = await prepareKernels(ctx);
 * ```
 */
export async function prepareKernels(ctx: GpuContext): Promise<PrepareKernels> {
  const code = prepareWgsl();
  const built = await Promise.all(
    PREPARE_ENTRY_POINTS.map((entryPoint) =>
      ctx.kernels.get({ label: `andersen ${entryPoint}`, code, layout: prepareLayout, entryPoint }),
    ),
  );
  return Object.fromEntries(
    PREPARE_ENTRY_POINTS.map((entry, i) => [entry, built[i]]),
  ) as unknown as PrepareKernels;
}

/** At most this many workgroups a preparation kernel (they stride over the rest). */
const MAX_PREPARE_WORKGROUPS = 4096;

/**
 * Records the preparation into `encoder` (one compute pass, a dispatch per kernel): the union–find
 * into `control`, the initial pairs into `pairKeys` and `pairValues`, and the rules into `rules`.
 * The control buffer's status words `pairCount`, `sortedCount`, `preparedRules` and
 * `offlineMerges` must be 0 before it.
 *
 * @example
 * ```ts
 * encodePrepare(encoder, kernels, { control, program, pairKeys, pairValues, rules }, sizes);
 * ```
 */
export function encodePrepare(
  encoder: GPUCommandEncoder,
  kernels: PrepareKernels,
  buffers: {
    readonly control: GPUBuffer;
    readonly program: GPUBuffer;
    readonly pairKeys: GPUBuffer;
    readonly pairValues: GPUBuffer;
    readonly rules: GPUBuffer;
  },
  sizes: PrepareSizes,
): void {
  const group = kernels.prep_init.bindGroup(
    {
      control: buffers.control,
      program: buffers.program,
      pair_keys: buffers.pairKeys,
      pair_values: buffers.pairValues,
      rule_table: buffers.rules,
    },
    'andersen prepare',
  );
  const items = {
    prep_init: sizes.nodes,
    prep_merge: sizes.merges,
    prep_flatten: sizes.nodes,
    prep_emit: sizes.constraints,
  };
  const pass = encoder.beginComputePass({ label: 'andersen prepare' });
  pass.setBindGroup(0, group);
  for (const entry of PREPARE_ENTRY_POINTS) {
    const workgroups = Math.min(MAX_PREPARE_WORKGROUPS, Math.ceil(items[entry] / PREPARE_WORKGROUP));
    if (workgroups === 0) continue;
    const grid = dispatchGrid(workgroups);
    pass.setPipeline(kernels[entry].pipeline);
    pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
  }
  pass.end();
}
