/**
 * The offline passes on the GPU: the same passes as `computeHvn` and `computeOfflineHcd`, with
 * their strongly connected components and HVN's labelling computed on the device.
 * @module
 */
import type { GpuContext } from '@gpumorph/gpu-allocator';
import {
  createStronglyConnectedComponents,
  type StronglyConnectedComponents,
} from '@gpumorph/gpu-primitives';
import type { ConstraintProgram } from '../../model/program';
import type { Components, CompressedGraph } from '../graph';
import { type OfflineHcd, type OfflineHcdOptions, offlineHcdPass } from '../hcd';
import { finishHvn, type HvnOptions, type HvnResult, hvnLabellingProblem } from '../hvn';
import { componentsFromLabels, type OfflinePass } from '../pass';
import { GpuHvnLabeller, type GpuHvnLabelOptions, type GpuHvnLabelStatistics } from './hvn-labels';

/** Options of {@link GpuOfflinePasses.computeHvn}: the CPU pass's, and the GPU table's. */
export interface GpuHvnOptions extends HvnOptions, GpuHvnLabelOptions {}

/**
 * HVN and offline HCD on a GPU. Each pass is the CPU pass itself (`hvnPass`, `offlineHcdPass`)
 * with its strongly connected components from the GPU's coloring (`@gpumorph/gpu-primitives`),
 * and HVN's labels from {@link GpuHvnLabeller}; the host does the linear glue between them.
 * Results equal the CPU passes': HVN's merges, non-pointers and statistics (but time) are the
 * same, its `labels` the same up to renaming; HCD's pairs are the same set, in another order.
 * Create with {@link createGpuOfflinePasses}; `destroy()` when done.
 *
 * @example
 * ```ts
 * const passes = createGpuOfflinePasses(ctx);
 * const hvn = await passes.computeHvn(program);
 * const hcd = await passes.computeOfflineHcd(program);
 * passes.destroy();
 * ```
 */
export class GpuOfflinePasses {
  readonly #scc: StronglyConnectedComponents;
  readonly #labeller: GpuHvnLabeller;
  #destroyed = false;
  #sccMs = 0;
  #sccBatches = 0;
  /** Where the last pass's time went: GPU component runs and HVN's labelling (undefined before the first pass). */
  lastRun:
    | {
        readonly componentsMs: number;
        /** Batches the component runs submitted, each followed by a read (their round trips). */
        readonly componentBatches: number;
        readonly labelling?: GpuHvnLabelStatistics & { readonly ms: number };
      }
    | undefined;

  constructor(ctx: GpuContext) {
    this.#scc = createStronglyConnectedComponents(ctx);
    this.#labeller = new GpuHvnLabeller(ctx);
  }

  /** Components of `graph` from the GPU, in the CPU's shape (sinks first, members increasing). */
  async #components(graph: CompressedGraph): Promise<Components> {
    const sources = new Uint32Array(graph.targets.length);
    for (let v = 0; v < graph.nodeCount; v++) {
      sources.fill(v, graph.start[v] as number, graph.start[v + 1] as number);
    }
    const started = performance.now();
    const { component, batches } = await this.#scc.run({
      nodeCount: graph.nodeCount,
      sources,
      targets: graph.targets,
    });
    this.#sccMs += performance.now() - started;
    this.#sccBatches += batches;
    return componentsFromLabels(graph, component);
  }

  async #drive<R>(pass: OfflinePass<R>): Promise<R> {
    if (this.#destroyed) throw new Error('GPU offline passes used after destroy()');
    this.#sccMs = 0;
    this.#sccBatches = 0;
    let step = pass.next();
    while (!step.done) step = pass.next(await this.#components(step.value));
    return step.value;
  }

  /**
   * `computeHvn` on the GPU: the same merges and non-pointers.
   *
   * @example
   * ```ts
   * const hvn = await passes.computeHvn(program);
   * await createCpuSolver(program, { hcd: { offlineMerges: hvn.merges, online: new Uint32Array() } }).solve();
   * ```
   */
  async computeHvn(program: ConstraintProgram, options: GpuHvnOptions = {}): Promise<HvnResult> {
    const problem = await this.#drive(hvnLabellingProblem(program));
    const started = performance.now();
    const labels = await this.#labeller.label(problem, options);
    const labelling = {
      ...(this.#labeller.statistics as GpuHvnLabelStatistics),
      ms: performance.now() - started,
    };
    this.lastRun = { componentsMs: this.#sccMs, componentBatches: this.#sccBatches, labelling };
    return finishHvn(problem, labels, options);
  }

  /**
   * `computeOfflineHcd` on the GPU: the same offline merges and online pairs (as sets).
   *
   * @example
   * ```ts
   * const hcd = await passes.computeOfflineHcd(program);
   * await createCpuSolver(program, { hcd }).solve();
   * ```
   */
  async computeOfflineHcd(program: ConstraintProgram, options: OfflineHcdOptions = {}): Promise<OfflineHcd> {
    const table = await this.#drive(offlineHcdPass(program, options));
    this.lastRun = { componentsMs: this.#sccMs, componentBatches: this.#sccBatches };
    return table;
  }

  /** Releases the GPU pipelines' hold (buffers live only during a pass). */
  destroy(): void {
    this.#destroyed = true;
    this.#scc.destroy();
    this.#labeller.destroy();
  }
}

/**
 * Creates {@link GpuOfflinePasses} on `ctx`.
 *
 * @example
 * ```ts
 * const passes = createGpuOfflinePasses(await acquireGpu({ require: true }));
 * ```
 */
export function createGpuOfflinePasses(ctx: GpuContext): GpuOfflinePasses {
  return new GpuOfflinePasses(ctx);
}
