/**
 * HVN's labelling (step 3) on the GPU: equal predecessor-label sets get equal labels through an
 * exact intern table on the device.
 * @module
 */
import {
  BufferUsage,
  dispatchItems,
  type GpuContext,
  GpuLimitError,
  gridWgsl,
  type Kernel,
  linkWgsl,
} from '@gpumorph/gpu-allocator';
import { ConstraintKind } from '../../model/program';
import type { HvnLabellingProblem, HvnLabels } from '../hvn';
import { HVN_NODE_KERNELS, type HvnKernelName, hvnKernelWgsl } from './hvn.wgsl';
import { HVN_WORKGROUP_SIZE, hvnLayout, hvnTypesWgsl, NONE, RecordTag } from './hvn-layout';

type HvnKernel = Kernel<typeof hvnLayout.specs>;

const KERNELS: readonly HvnKernelName[] = [
  'loadRequests',
  'claim',
  'write',
  'compare',
  'gather',
  'sortNodes',
  'consRequests',
  'consCollect',
  'consLength',
  'setRequests',
  'labels',
];
const INTERN: readonly HvnKernelName[] = ['claim', 'write', 'compare'];
const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** Options of {@link GpuHvnLabeller.label}. */
export interface GpuHvnLabelOptions {
  /**
   * Bits of the records' hash that choose where their probe starts (default 32). Fewer bits make
   * unequal records collide; the table compares every word, so the labels stay exact (tests).
   */
  readonly hashBits?: number;
  /** Intern rounds recorded between two reads of the pending count (default 4). */
  readonly roundsPerCheck?: number;
}

/** How the last {@link GpuHvnLabeller.label} went. */
export interface GpuHvnLabelStatistics {
  /** Levels of non-fresh roots (each waits for the ones before it). */
  readonly levels: number;
  /** Command buffers submitted, each followed by a read of the pending count or not. */
  readonly submits: number;
  /** Slots of the intern table. */
  readonly tableSlots: number;
}

/** The level-ordered layout of a labelling problem, built on the host in linear time. */
interface LevelPlan {
  /** Non-fresh roots in order of level; `levelStart[l] … levelStart[l + 1]` is level l. */
  readonly roots: Uint32Array;
  readonly levelStart: number[];
  /** `segStart[q] … segStart[q + 1]`: the slots of root `roots[q]`. */
  readonly segStart: Uint32Array;
  /** Slots as `HvnSlot` (kind, source root or object, offset, root index). */
  readonly slots: Uint32Array;
  /** Longest slot segment of each level. */
  readonly levelMaxLength: number[];
  /** Whether each level has a load or offset slot (else it interns no key). */
  readonly levelHasKeys: boolean[];
  readonly freshRoots: number;
  /** Distinct objects whose address flows into a non-fresh root. */
  readonly addresses: number;
}

/**
 * Levels: a non-fresh root's level is one more than the highest level among the non-fresh roots
 * it depends on (0 if none), so every label a level reads was given by an earlier one.
 */
function planLevels(problem: HvnLabellingProblem): LevelPlan {
  const { program, cycleOf, order, inStart, inConstraint, fresh } = problem;
  const c = program.constraints;
  const n = program.nodeCount;
  const level = new Int32Array(n).fill(-1);
  let freshRoots = 0;
  let levels = 0;
  let rootCount = 0;
  for (let comp = order.count - 1; comp >= 0; comp--) {
    for (let k = order.memberStart[comp] as number; k < (order.memberStart[comp + 1] as number); k++) {
      const v = order.members[k] as number;
      if (cycleOf[v] !== v) continue;
      if (fresh[v]) {
        freshRoots++;
        continue;
      }
      let l = 0;
      for (let e = inStart[v] as number; e < (inStart[v + 1] as number); e++) {
        const i = inConstraint[e] as number;
        if (c.kind[i] === ConstraintKind.AddressOf) continue;
        const u = cycleOf[c.src[i] as number] as number;
        if (u !== v) l = Math.max(l, (level[u] as number) + 1);
      }
      level[v] = l;
      levels = Math.max(levels, l + 1);
      rootCount++;
    }
  }
  const levelStart = new Array<number>(levels + 1).fill(0);
  for (let v = 0; v < n; v++) {
    const l = level[v] as number;
    if (l >= 0) levelStart[l + 1] = (levelStart[l + 1] as number) + 1;
  }
  for (let l = 0; l < levels; l++)
    levelStart[l + 1] = (levelStart[l + 1] as number) + (levelStart[l] as number);
  const fill = levelStart.slice(0, levels);
  const roots = new Uint32Array(rootCount);
  for (let v = 0; v < n; v++) {
    const l = level[v] as number;
    if (l < 0) continue;
    roots[fill[l] as number] = v;
    fill[l] = (fill[l] as number) + 1;
  }
  const segStart = new Uint32Array(rootCount + 1);
  const slotList: number[] = [];
  const levelMaxLength = new Array<number>(levels).fill(0);
  const levelHasKeys = new Array<boolean>(levels).fill(false);
  const objects = new Set<number>();
  for (let l = 0; l < levels; l++) {
    for (let q = levelStart[l] as number; q < (levelStart[l + 1] as number); q++) {
      const v = roots[q] as number;
      segStart[q] = slotList.length / 4;
      for (let e = inStart[v] as number; e < (inStart[v + 1] as number); e++) {
        const i = inConstraint[e] as number;
        const kind = c.kind[i] as number;
        const source =
          kind === ConstraintKind.AddressOf ? (c.src[i] as number) : (cycleOf[c.src[i] as number] as number);
        if (kind === ConstraintKind.Copy && source === v) continue; // inside the copy cycle
        if (kind === ConstraintKind.AddressOf) objects.add(source);
        if (kind === ConstraintKind.Load || kind === ConstraintKind.Offset) levelHasKeys[l] = true;
        slotList.push(kind, source, c.offset[i] as number, q);
      }
      levelMaxLength[l] = Math.max(
        levelMaxLength[l] as number,
        slotList.length / 4 - (segStart[q] as number),
      );
    }
  }
  segStart[rootCount] = slotList.length / 4;
  return {
    roots,
    levelStart,
    segStart,
    slots: Uint32Array.from(slotList),
    levelMaxLength,
    levelHasKeys,
    freshRoots,
    addresses: objects.size,
  };
}

interface Buffers {
  readonly params: GPUBuffer;
  readonly all: GPUBuffer[];
  readonly labels: GPUBuffer;
  readonly table: GPUBuffer;
  readonly pending: GPUBuffer;
  readonly group: GPUBindGroup;
  readonly tableSlots: number;
}

/**
 * Gives HVN's labels on the GPU, level by level. Each record — a load key `(LOAD, label, offset)`,
 * an offset key, a pair `(CONS + round, x, y)` of a set's tree, a set `(SET, size, tree)` — is
 * interned in one open-addressing table: a request claims an empty slot with a compare-exchange,
 * or compares all three words with the record there and probes on if they differ, so two records
 * share a label only when they are equal. A root's elements are sorted and made distinct in
 * place, then folded pairwise into a tree of interned pairs, one level of the tree per round (the
 * same sorted list always gives the same tree, and the set record names its size). The label of
 * each root is then 0 (no element), its one element, or its set's record: equal exactly when the
 * CPU pass gives equal labels.
 *
 * @example
 * ```ts
 * const labeller = new GpuHvnLabeller(ctx);
 * const { label, labelCount } = await labeller.label(problem);
 * labeller.destroy();
 * ```
 */
export class GpuHvnLabeller {
  readonly #ctx: GpuContext;
  #kernels: Map<HvnKernelName, HvnKernel> | undefined;
  #submits = 0;
  /** How the last {@link label} went (undefined before the first). */
  statistics: GpuHvnLabelStatistics | undefined;

  constructor(ctx: GpuContext) {
    this.#ctx = ctx;
  }

  async #prepare(): Promise<Map<HvnKernelName, HvnKernel>> {
    if (this.#kernels) return this.#kernels;
    const kernels = new Map<HvnKernelName, HvnKernel>();
    for (const name of KERNELS) {
      const code = linkWgsl(hvnKernelWgsl(name, hvnTypesWgsl, hvnLayout.wgsl(), HVN_WORKGROUP_SIZE), [
        gridWgsl,
      ]);
      kernels.set(
        name,
        await this.#ctx.kernels.get({ label: `andersen hvn ${name}`, layout: hvnLayout, code }),
      );
    }
    this.#kernels = kernels;
    return kernels;
  }

  /** Labels of every root of `problem` (fresh ones included) and the count of distinct labels given out. */
  async label(problem: HvnLabellingProblem, options: GpuHvnLabelOptions = {}): Promise<HvnLabels> {
    const n = problem.program.nodeCount;
    const plan = planLevels(problem);
    const slotCount = plan.slots.length / 4;
    const rootCount = plan.roots.length;
    // Every slot interns at most one key and one pair, every root one set; half full at most.
    let tableSlots = 16;
    while (tableSlots < 2 * (2 * slotCount + rootCount)) tableSlots *= 2;
    this.#checkLimits(n, slotCount, rootCount, tableSlots);
    const kernels = await this.#prepare();
    const b = await this.#allocate(problem, plan, tableSlots, kernels.get('claim') as HvnKernel);
    this.#submits = 0;
    try {
      const hashBits = options.hashBits ?? 32;
      const hashMask = hashBits >= 32 ? NONE : (2 ** Math.max(0, hashBits) - 1) >>> 0;
      const roundsPerCheck = Math.max(1, Math.floor(options.roundsPerCheck ?? 4));
      for (let l = 0; l + 1 < plan.levelStart.length; l++) {
        const nodeBegin = plan.levelStart[l] as number;
        const nodeEnd = plan.levelStart[l + 1] as number;
        const range = {
          nodeBegin,
          nodeEnd,
          slotBegin: plan.segStart[nodeBegin] as number,
          slotEnd: plan.segStart[nodeEnd] as number,
        };
        const setParams = (round: number) =>
          this.#ctx.queue.writeBuffer(
            b.params,
            0,
            Uint32Array.of(
              range.nodeBegin,
              range.nodeEnd,
              range.slotBegin,
              range.slotEnd,
              round,
              tableSlots - 1,
              1 + n,
              2 * n + 1,
              hashMask,
              0,
              0,
              0,
            ),
          );
        // Interns until nothing is pending: `before` runs once ahead of the first batch, `after`
        // behind every batch (it must give the right answer once the last batch resolved all).
        const intern = async (before: readonly HvnKernelName[], after: readonly HvnKernelName[]) => {
          for (let first = before; ; first = []) {
            await this.#submit(b, kernels, range, first, roundsPerCheck, after);
            if (new Uint32Array(await this.#ctx.readBuffer(b.pending, 0, 4))[0] === 0) return;
          }
        };
        setParams(0);
        if (plan.levelHasKeys[l]) await intern(['loadRequests'], []);
        const maxLength = plan.levelMaxLength[l] as number;
        if (maxLength <= 1) {
          await this.#submit(b, kernels, range, ['gather', 'sortNodes', 'labels'], 0, []);
          continue;
        }
        let before: HvnKernelName[] = ['gather', 'sortNodes'];
        for (let round = 0, length = maxLength; length > 1; round++, length = Math.ceil(length / 2)) {
          setParams(round); // read by consRequests only
          await intern([...before, 'consRequests'], []);
          before = ['consCollect', 'consLength'];
        }
        await intern([...before, 'setRequests'], ['labels']);
      }
      const label = new Uint32Array(await this.#ctx.readBuffer(b.labels, 0, n * 4));
      const table = new Uint32Array(await this.#ctx.readBuffer(b.table, 0, tableSlots * 16));
      let interned = 0;
      for (let p = 0; p < tableSlots; p++) {
        const tag = table[4 * p + 1] as number;
        if (tag === RecordTag.Load || tag === RecordTag.Offset || tag === RecordTag.Set) interned++;
      }
      this.statistics = { levels: plan.levelStart.length - 1, submits: this.#submits, tableSlots };
      return { label, labelCount: plan.freshRoots + plan.addresses + interned };
    } finally {
      for (const buffer of b.all) buffer.destroy();
    }
  }

  /** Checks the label space and the bindings before anything is allocated. */
  #checkLimits(n: number, slotCount: number, rootCount: number, tableSlots: number): void {
    if (2 * n + 1 + tableSlots >= NONE) {
      throw new GpuLimitError(
        `HVN on the GPU: ${n} nodes and ${slotCount} constraints need ${2 * n + 1 + tableSlots} labels, over 2^32 - 1`,
        'hvnLabels',
        2 * n + 1 + tableSlots,
        NONE - 1,
      );
    }
    const limit = this.#ctx.limits.maxStorageBufferBindingSize;
    const largest = Math.max(16 * tableSlots, 24 * slotCount, 20 * rootCount, 4 * n);
    if (largest > limit) {
      throw new GpuLimitError(
        `HVN on the GPU: a binding of ${largest} bytes is over maxStorageBufferBindingSize ${limit}`,
        'maxStorageBufferBindingSize',
        largest,
        limit,
      );
    }
  }

  async #allocate(
    problem: HvnLabellingProblem,
    plan: LevelPlan,
    tableSlots: number,
    kernel: HvnKernel,
  ): Promise<Buffers> {
    const ctx = this.#ctx;
    const all: GPUBuffer[] = [];
    const make = async (label: string, bytes: number, usage = STORAGE) => {
      const buffer = await ctx.createBuffer({
        label: `andersen hvn ${label}`,
        size: Math.max(64, bytes),
        usage,
      }); // at least one element of every struct
      all.push(buffer);
      return buffer;
    };
    try {
      const n = problem.program.nodeCount;
      const slotCount = plan.slots.length / 4;
      const rootCount = plan.roots.length;
      const params = await make('params', 48, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
      const slots = await make('slots', 16 * slotCount);
      if (slotCount > 0) await ctx.writeBuffer(slots, 0, plan.slots);
      const nodeWords = new Uint32Array(5 * rootCount);
      for (let q = 0; q < rootCount; q++) {
        nodeWords[5 * q] = plan.roots[q] as number;
        nodeWords[5 * q + 1] = plan.segStart[q] as number;
        nodeWords[5 * q + 2] = plan.segStart[q + 1] as number;
      }
      const nodes = await make('nodes', 20 * rootCount);
      if (rootCount > 0) await ctx.writeBuffer(nodes, 0, nodeWords);
      const initial = new Uint32Array(n);
      for (let v = 0; v < n; v++) if (problem.cycleOf[v] === v && problem.fresh[v]) initial[v] = 1 + v;
      const labels = await make('labels', 4 * n);
      await ctx.writeBuffer(labels, 0, initial);
      const list = await make('list', 4 * slotCount);
      const requests = await make('requests', 24 * slotCount);
      const table = await make('table', 16 * tableSlots);
      // Created zero: every slot empty (owner 0, tag 0).
      const pending = await make('pending', 4);
      const group = kernel.bindGroup({
        hvn: { buffer: params },
        slots: { buffer: slots },
        nodes: { buffer: nodes },
        labels: { buffer: labels },
        list: { buffer: list },
        requests: { buffer: requests },
        table: { buffer: table },
        pending: { buffer: pending },
      });
      return { params, all, labels, table, pending, group, tableSlots };
    } catch (error) {
      for (const buffer of all) buffer.destroy();
      throw error;
    }
  }

  /**
   * Records `before`, then `rounds` intern rounds (`pending` cleared ahead of the last, so that it
   * counts the requests that round left), then `after`, over the level's slots or roots, and submits.
   */
  async #submit(
    b: Buffers,
    kernels: Map<HvnKernelName, HvnKernel>,
    range: { nodeBegin: number; nodeEnd: number; slotBegin: number; slotEnd: number },
    before: readonly HvnKernelName[],
    rounds: number,
    after: readonly HvnKernelName[],
  ): Promise<void> {
    const ctx = this.#ctx;
    this.#submits++;
    const record = (encoder: GPUCommandEncoder, names: readonly HvnKernelName[]) => {
      if (names.length === 0) return;
      const pass = encoder.beginComputePass({ label: `andersen hvn ${names.join('+')}` });
      pass.setBindGroup(0, b.group);
      for (const name of names) {
        const items = HVN_NODE_KERNELS.has(name)
          ? range.nodeEnd - range.nodeBegin
          : range.slotEnd - range.slotBegin;
        if (items === 0) continue;
        const grid = dispatchItems(items, HVN_WORKGROUP_SIZE, ctx.limits.maxComputeWorkgroupsPerDimension);
        pass.setPipeline((kernels.get(name) as HvnKernel).pipeline);
        pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      }
      pass.end();
    };
    await ctx.guard(`andersen hvn ${[...before, ...after][0] ?? 'intern'}`, () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'andersen hvn labels' });
      const early: HvnKernelName[] = [...before];
      for (let r = 0; r + 1 < rounds; r++) early.push(...INTERN);
      record(encoder, early);
      if (rounds > 0) encoder.clearBuffer(b.pending, 0, 4);
      record(encoder, rounds > 0 ? [...INTERN, ...after] : after);
      ctx.queue.submit([encoder.finish()]);
    });
  }

  /** Forgets the compiled kernels (the context's cache keeps them); buffers live only during {@link label}. */
  destroy(): void {
    this.#kernels = undefined;
  }
}
