import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';
import { SOLVER_ENTRY_POINTS } from '../module/solver.wgsl';
import type { GpuSolvePhase, GpuSolveReport, SubmissionKind } from '../report';
import type { SolveResources } from './resources';
import { readSubmissionSpans } from './timing';

/** Timestamps a query set for submission spans holds: 2,048 submissions at most. */
const SPAN_QUERIES = 4096;

/**
 * The solve's GPU timestamps: with `profile`, one pair around every pass (each kernel a pass),
 * summed by phase and kernel; with the tuning's `timeSubmissions`, one pair around every
 * submission. Neither is recorded when the adapter has no `timestamp-query`.
 *
 * @example
 * ```ts
 * const timer = await SubmissionTimer.create(resources, { profile: true, timeSubmissions: false });
 * const span = timer.takeSpan('rules');
 * ```
 */
export class SubmissionTimer {
  /** Milliseconds of GPU time by phase and by kernel (with `profile`). */
  readonly phaseMs: Record<GpuSolvePhase, number> = {
    rules: 0,
    equivalence: 0,
    sort: 0,
    worklist: 0,
    update: 0,
    hcd: 0,
    transfer: 0,
  };
  readonly kernelMs: Record<string, number> = {};
  /** This round's share of kernelMs, for the iteration event. */
  roundKernelMs: Record<string, number> = {};
  readonly #ctx: GpuContext;
  readonly #querySet: GPUQuerySet | undefined;
  readonly #stampBuffer: GPUBuffer | undefined;
  readonly #maxPasses: number;
  readonly #spanSet: GPUQuerySet | undefined;
  #spansTimed = 0;
  readonly #spanKinds: SubmissionKind[] = [];

  private constructor(
    ctx: GpuContext,
    querySet: GPUQuerySet | undefined,
    stampBuffer: GPUBuffer | undefined,
    maxPasses: number,
    spanSet: GPUQuerySet | undefined,
  ) {
    this.#ctx = ctx;
    this.#querySet = querySet;
    this.#stampBuffer = stampBuffer;
    this.#maxPasses = maxPasses;
    this.#spanSet = spanSet;
  }

  /** A timer with the query sets that `profile` and `timeSubmissions` ask for. */
  static async create(
    resources: SolveResources,
    { profile, timeSubmissions }: { profile: boolean; timeSubmissions: boolean },
  ): Promise<SubmissionTimer> {
    const ctx = resources.ctx;
    // Every entry point once, up to 16 levels of the children tree and 11 of the partial-pull tree,
    // and the radix sort's passes.
    const maxPasses = Object.keys(SOLVER_ENTRY_POINTS).length + 16 + 11 + 64;
    const querySet = profile
      ? await ctx.guard('andersen timestamps', () =>
          ctx.device.createQuerySet({
            label: 'andersen timestamps',
            type: 'timestamp',
            count: 2 * maxPasses,
          }),
        )
      : undefined;
    const stampBuffer = profile
      ? await resources.buffer(
          'andersen timestamps',
          new Uint32Array(0),
          BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
          16 * maxPasses,
        )
      : undefined;
    // With timeSubmissions: a timestamp before the first kernel and after the last of each
    // submission.
    const spanSet =
      !profile && timeSubmissions && ctx.features.timestampQuery
        ? await ctx.guard('andersen submission timestamps', () =>
            ctx.device.createQuerySet({
              label: 'andersen submission timestamps',
              type: 'timestamp',
              count: SPAN_QUERIES,
            }),
          )
        : undefined;
    return new SubmissionTimer(ctx, querySet, stampBuffer, maxPasses, spanSet);
  }

  /** Whether every pass is timed (`profile`). */
  get profiling(): boolean {
    return this.#querySet !== undefined;
  }

  /** A compute pass for `passLabel`, timed while the query set has room (then untimed rather than invalid). */
  timedPass(
    encoder: GPUCommandEncoder,
    phase: GpuSolvePhase,
    passLabel: string,
    passPhases: GpuSolvePhase[],
    passKernels: string[],
  ): GPUComputePassEncoder {
    const querySet = this.#querySet;
    if (!querySet || passPhases.length >= this.#maxPasses)
      return encoder.beginComputePass({ label: passLabel });
    const i = passPhases.length;
    passPhases.push(phase);
    passKernels.push(phase === 'sort' ? 'sort' : passLabel);
    return encoder.beginComputePass({
      label: passLabel,
      timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 },
    });
  }

  /** Resolves the timestamps of `passes` timed passes into the stamp buffer (when profiling). */
  resolvePasses(encoder: GPUCommandEncoder, passes: number): void {
    if (this.#querySet && this.#stampBuffer && passes > 0) {
      encoder.resolveQuerySet(this.#querySet, 0, 2 * passes, this.#stampBuffer, 0);
    }
  }

  /** Adds the timed passes' times (resolved by the submission that ran them) by phase and kernel. */
  async readPasses(passPhases: readonly GpuSolvePhase[], passKernels: readonly string[]): Promise<void> {
    if (!this.#stampBuffer) return;
    const stamps = new BigUint64Array(
      await this.#ctx.readBuffer(this.#stampBuffer, 0, 16 * passPhases.length),
    );
    passPhases.forEach((phase, i) => {
      const begin = stamps[2 * i] ?? 0n;
      const end = stamps[2 * i + 1] ?? 0n;
      if (end > begin) {
        const ms = Number(end - begin) / 1e6;
        this.phaseMs[phase] += ms;
        const kernel = passKernels[i] as string;
        this.kernelMs[kernel] = (this.kernelMs[kernel] ?? 0) + ms;
        this.roundKernelMs[kernel] = (this.roundKernelMs[kernel] ?? 0) + ms;
      }
    });
  }

  /** A submission's pair of span timestamps, while the query set has room. */
  takeSpan(kind: SubmissionKind): number | undefined {
    if (!this.#spanSet || 2 * this.#spansTimed >= SPAN_QUERIES) return undefined;
    this.#spanKinds.push(kind);
    return this.#spansTimed++;
  }

  /** An empty pass that writes the first (or, with `end`, the last) timestamp of span `span`. */
  stampSpan(encoder: GPUCommandEncoder, span: number | undefined, end: boolean): void {
    const spanSet = this.#spanSet;
    if (!spanSet || span === undefined) return;
    const at = 2 * span + (end ? 1 : 0);
    encoder
      .beginComputePass({
        timestampWrites: end
          ? { querySet: spanSet, endOfPassWriteIndex: at }
          : { querySet: spanSet, beginningOfPassWriteIndex: at },
      })
      .end();
  }

  /** The submissions' spans (with `timeSubmissions`), read once the solve is done. */
  async readSpans(): Promise<GpuSolveReport['submissionSpans']> {
    return this.#spanSet ? await readSubmissionSpans(this.#ctx, this.#spanSet, this.#spanKinds) : undefined;
  }

  /** Destroys the query sets. */
  destroy(): void {
    this.#querySet?.destroy();
    this.#spanSet?.destroy();
  }
}
