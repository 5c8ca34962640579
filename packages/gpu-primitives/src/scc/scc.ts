import {
  BufferUsage,
  dispatchItems,
  type GpuContext,
  GpuLimitError,
  gridWgsl,
  type Kernel,
  linkWgsl,
} from '@gpumorph/gpu-allocator';
import { SCC_EDGE_KERNELS, type SccKernelName, sccKernelWgsl } from './kernels/scc.wgsl';
import { SCC_WORKGROUP_SIZE, sccLayout, sccParamsWgsl } from './layout';
import { assertEdgeList, type EdgeList } from './reference';

/** Options of {@link StronglyConnectedComponents.run}. */
export interface SccRunOptions {
  /** Propagation steps recorded between two reads of the `changed` flag (default 8). */
  readonly stepsPerCheck?: number;
}

/** What {@link StronglyConnectedComponents.run} found. */
export interface SccResult {
  /** For each node, the smallest node of its strongly connected component. */
  readonly component: Uint32Array;
  /** Coloring rounds: each removes at least the component of the smallest node left. */
  readonly rounds: number;
  /** Batches submitted, each followed by a read of the `changed` flag (the run's round trips). */
  readonly batches: number;
}

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const KERNELS: readonly SccKernelName[] = [
  'init',
  'degrees',
  'trim',
  'colorInit',
  'forward',
  'roots',
  'backward',
  'finish',
];

interface Buffers {
  readonly nodes: number;
  readonly edges: number;
  readonly params: GPUBuffer;
  readonly sources: GPUBuffer;
  readonly targets: GPUBuffer;
  readonly perNode: readonly GPUBuffer[];
  readonly changed: GPUBuffer;
  readonly group: GPUBindGroup;
  readonly component: GPUBuffer;
}

/**
 * Strongly connected components on the GPU by coloring with trimming (Orzan's coloring; Hong et
 * al., SC'13 for the trimming). Each round: nodes with no active edge in or out are their own
 * component (repeated to a fixed point); every active node takes the smallest active node that
 * reaches it as its color (min-propagation along edges); a node of its own color is the smallest
 * of its component, which is exactly the nodes of that color reaching it (propagation backwards
 * within the color). Those components leave, and the next round colors the rest. Every step is a
 * monotone fixed point, so the answer does not depend on the order the GPU runs edges in: for
 * each node, the smallest node of its component, as {@link stronglyConnectedComponentsReference}.
 *
 * @example
 * ```ts
 * const scc = createStronglyConnectedComponents(ctx);
 * const { component } = await scc.run({ nodeCount: 3, sources: Uint32Array.of(0, 1), targets: Uint32Array.of(1, 0) });
 * // Uint32Array [0, 0, 2]
 * scc.destroy();
 * ```
 */
export class StronglyConnectedComponents {
  readonly #ctx: GpuContext;
  #kernels: Map<SccKernelName, Kernel<typeof sccLayout.specs>> | undefined;
  #destroyed = false;
  #batches = 0;

  constructor(ctx: GpuContext) {
    this.#ctx = ctx;
  }

  async #prepare(): Promise<Map<SccKernelName, Kernel<typeof sccLayout.specs>>> {
    if (this.#kernels) return this.#kernels;
    const kernels = new Map<SccKernelName, Kernel<typeof sccLayout.specs>>();
    for (const name of KERNELS) {
      const code = linkWgsl(
        `${sccParamsWgsl}\n${sccKernelWgsl(name, sccLayout.wgsl(), SCC_WORKGROUP_SIZE)}`,
        [gridWgsl],
      );
      kernels.set(name, await this.#ctx.kernels.get({ label: `gm scc ${name}`, layout: sccLayout, code }));
    }
    this.#kernels = kernels;
    return kernels;
  }

  /** Checks the sizes against the device's binding limit before anything is allocated. */
  #checkLimits(graph: EdgeList): void {
    const limit = this.#ctx.limits.maxStorageBufferBindingSize;
    const largest = 4 * Math.max(graph.nodeCount, graph.sources.length);
    if (largest > limit) {
      throw new GpuLimitError(
        `strongly connected components: ${graph.nodeCount} nodes and ${graph.sources.length} edges need ` +
          `a binding of ${largest} bytes, over maxStorageBufferBindingSize ${limit}`,
        'maxStorageBufferBindingSize',
        largest,
        limit,
      );
    }
  }

  async #allocate(graph: EdgeList, kernel: Kernel<typeof sccLayout.specs>): Promise<Buffers> {
    const ctx = this.#ctx;
    const nodes = graph.nodeCount;
    const edges = graph.sources.length;
    const made: GPUBuffer[] = [];
    const make = async (label: string, words: number, usage = STORAGE) => {
      const buffer = await ctx.createBuffer({
        label: `gm scc ${label}`,
        size: Math.max(1, words) * 4,
        usage,
      });
      made.push(buffer);
      return buffer;
    };
    try {
      const params = await make('params', 4, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
      await ctx.writeBuffer(params, 0, Uint32Array.of(nodes, edges, 0, 0));
      const sources = await make('sources', edges);
      const targets = await make('targets', edges);
      if (edges > 0) {
        await ctx.writeBuffer(sources, 0, graph.sources);
        await ctx.writeBuffer(targets, 0, graph.targets);
      }
      const [active, color, mark, degree, component] = [
        await make('active', nodes),
        await make('color', nodes),
        await make('mark', nodes),
        await make('degree', nodes),
        await make('component', nodes),
      ] as [GPUBuffer, GPUBuffer, GPUBuffer, GPUBuffer, GPUBuffer];
      const changed = await make('changed', 1);
      const group = kernel.bindGroup({
        scc_params: { buffer: params },
        sources: { buffer: sources },
        targets: { buffer: targets },
        alive: { buffer: active },
        color: { buffer: color },
        mark: { buffer: mark },
        degree: { buffer: degree },
        component: { buffer: component },
        changed: { buffer: changed },
      });
      return { nodes, edges, params, sources, targets, perNode: made, changed, group, component };
    } catch (error) {
      for (const buffer of made) buffer.destroy();
      throw error;
    }
  }

  /**
   * Clears `changed`, records the kernels of `first` once (none of them sets `changed`), then
   * `steps` times the kernels of `names` in turn, submits, and reads `changed`.
   */
  async #step(
    b: Buffers,
    first: readonly SccKernelName[],
    names: readonly SccKernelName[],
    steps: number,
  ): Promise<boolean> {
    const ctx = this.#ctx;
    const kernels = this.#kernels as Map<SccKernelName, Kernel<typeof sccLayout.specs>>;
    this.#batches++;
    await ctx.guard(`gm scc ${names.join('+')}`, () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'gm scc' });
      encoder.clearBuffer(b.changed, 0, 4);
      const pass = encoder.beginComputePass({ label: `gm scc ${names.join('+')}` });
      pass.setBindGroup(0, b.group);
      const sequence = [...first];
      for (let s = 0; s < steps; s++) sequence.push(...names);
      for (const name of sequence) {
        const items = SCC_EDGE_KERNELS.has(name) ? b.edges : b.nodes;
        if (items === 0) continue;
        const grid = dispatchItems(items, SCC_WORKGROUP_SIZE, ctx.limits.maxComputeWorkgroupsPerDimension);
        pass.setPipeline((kernels.get(name) as Kernel<typeof sccLayout.specs>).pipeline);
        pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
      }
      pass.end();
      ctx.queue.submit([encoder.finish()]);
    });
    return (new Uint32Array(await ctx.readBuffer(b.changed, 0, 4))[0] as number) !== 0;
  }

  /** Runs `first` once, then repeats `names` until a batch of `steps` of them changes nothing. */
  async #fixedPoint(
    b: Buffers,
    first: readonly SccKernelName[],
    names: readonly SccKernelName[],
    steps: number,
  ): Promise<void> {
    let once = first;
    while (await this.#step(b, once, names, steps)) once = [];
  }

  /**
   * The strongly connected components of `graph`: for each node, the smallest node of its
   * component. Throws a RangeError on a malformed edge list and a `GpuLimitError` when a node or
   * edge array exceeds one storage binding, before allocating.
   */
  async run(graph: EdgeList, options: SccRunOptions = {}): Promise<SccResult> {
    if (this.#destroyed) throw new Error('strongly connected components used after destroy()');
    assertEdgeList(graph);
    if (graph.nodeCount === 0) return { component: new Uint32Array(0), rounds: 0, batches: 0 };
    this.#checkLimits(graph);
    const steps = Math.max(1, Math.floor(options.stepsPerCheck ?? 8));
    const kernels = await this.#prepare();
    const b = await this.#allocate(graph, kernels.get('init') as Kernel<typeof sccLayout.specs>);
    this.#batches = 0;
    try {
      await this.#fixedPoint(b, ['init'], ['degrees', 'trim'], steps);
      let rounds = 0;
      for (;;) {
        rounds++;
        await this.#fixedPoint(b, ['colorInit'], ['forward'], steps);
        await this.#fixedPoint(b, ['roots'], ['backward'], steps);
        if (!(await this.#step(b, [], ['finish'], 1))) break;
        await this.#fixedPoint(b, [], ['degrees', 'trim'], steps);
      }
      const component = new Uint32Array(await this.#ctx.readBuffer(b.component, 0, b.nodes * 4));
      return { component, rounds, batches: this.#batches };
    } finally {
      for (const buffer of b.perNode) buffer.destroy();
    }
  }

  /** Releases the kernels' hold; buffers live only during {@link run}. */
  destroy(): void {
    this.#destroyed = true;
    this.#kernels = undefined;
  }
}

/**
 * Creates a {@link StronglyConnectedComponents} pipeline on `ctx`.
 *
 * @example
 * ```ts
 * const scc = createStronglyConnectedComponents(ctx);
 * const { component } = await scc.run(graph);
 * scc.destroy();
 * ```
 */
export function createStronglyConnectedComponents(ctx: GpuContext): StronglyConnectedComponents {
  return new StronglyConnectedComponents(ctx);
}
