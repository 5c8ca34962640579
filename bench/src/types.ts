import type { GpuContext } from '@gpumorph/gpu-allocator';

/** One measured line of a benchmark table. */
export interface BenchRow {
  /** What was measured, e.g. `alloc team p=1.0`. */
  readonly case: string;
  /** Input size in words, e.g. `2^24 requests`. */
  readonly size: string;
  /** `webgpu`, `cpu`, or a named baseline. */
  readonly engine: string;
  /** Median wall or GPU time of one run, in milliseconds. */
  readonly medianMs: number;
  /** Runs the median is taken over. */
  readonly runs: number;
  /** Derived rates, e.g. `{ 'Galloc/s': 1.4 }` or `{ 'GB/s': 2700 }`. */
  readonly metrics: Readonly<Record<string, number>>;
  /** How the time was taken: `timestamp`, `wall-clock` or `cpu`. */
  readonly method: string;
}

/** Everything one suite measured. */
export interface BenchReport {
  readonly suite: string;
  /** One line naming the adapter, or `none`. */
  readonly adapter: string;
  readonly rows: readonly BenchRow[];
  /** Published or reference figures and remarks printed under the table. */
  readonly notes: readonly string[];
}

/** Options every suite receives. */
export interface BenchOptions {
  /** The GPU, or null when only CPU engines run. */
  readonly ctx: GpuContext | null;
  /** Engines to run (`webgpu`, `cpu`). */
  readonly engines: readonly string[];
  /** Smaller sizes and fewer runs (for smoke runs on software adapters). */
  readonly quick: boolean;
  /** Progress lines (to stderr in the CLI). */
  readonly log: (line: string) => void;
}

/**
 * A benchmark suite; `gpumorph bench <name>` and `npm run bench -- <name>` run it.
 *
 * @example
 * ```ts
 * const report = await allocatorBench.run({ ctx, engines: ['webgpu', 'cpu'], quick: false, log: console.error });
 * ```
 */
export interface BenchSuite {
  readonly name: string;
  readonly description: string;
  run(options: BenchOptions): Promise<BenchReport>;
}
