import type { GpuContext } from '@gpumorph/gpu-allocator';
import { median } from '@gpumorph/gpu-allocator';
import { type ClosureThreads, halfSize, type OctagonGpu, rowStart } from '@gpumorph/octagon';
import type { BenchRow } from './types';

/** Milliseconds as the report prints them. */
export function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toPrecision(3);
}

/** Deterministic xorshift32 stream. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/**
 * A dense random coherent half matrix over `n` variables: every cell a random integer in
 * [1, 1000) (so the octagon is non-empty and every cell finite — the worst case of the closure),
 * the diagonal 0. Integral values keep the f64 engine on its exact path and f32 on its exact grid.
 *
 * @example
 * ```ts
 * const m = randomHalf(512, 1); // 2·512·513 cells
 * ```
 */
export function randomHalf(n: number, seed: number): Float64Array {
  const next = rng(seed);
  const m = new Float64Array(halfSize(n));
  const N = 2 * n;
  for (let i = 0; i < N; i++) {
    const base = rowStart(i);
    for (let j = 0; j <= (i | 1); j++) m[base + j] = i === j ? 0 : 1 + (next() % 999);
  }
  return m;
}

/**
 * A random octagon of independent blocks of `size` related variables (the sparse generator the
 * decomposed closure is for): every cell between two variables of one block an integer in
 * [1, 1000), every other cell +∞ (and the diagonal 0).
 *
 * @example
 * ```ts
 * const m = randomBlockHalf(512, 8, 1); // 64 blocks of 8 variables
 * ```
 */
export function randomBlockHalf(n: number, size: number, seed: number): Float64Array {
  const next = rng(seed);
  const m = new Float64Array(halfSize(n)).fill(Number.POSITIVE_INFINITY);
  const N = 2 * n;
  for (let i = 0; i < N; i++) {
    const base = rowStart(i);
    const first = 2 * size * Math.floor((i >> 1) / size);
    for (let j = first; j <= (i | 1); j++) m[base + j] = i === j ? 0 : 1 + (next() % 999);
  }
  return m;
}

/** Median milliseconds of `trials` runs of `work` (after one unmeasured run with `warm`). */
export function timeCpu(work: () => void, trials: number, warm: boolean): { ms: number; runs: number } {
  if (warm) work();
  const times: number[] = [];
  for (let t = 0; t < trials; t++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return { ms: median(times), runs: trials };
}

/** What every part of the suite shares: its settings, the engines, and the rows and notes it adds to. */
export interface OctagonContext {
  readonly quick: boolean;
  readonly log: (line: string) => void;
  readonly rows: BenchRow[];
  readonly notes: string[];
  readonly trials: number;
  /** Ms of the same GPU work before timing. */
  readonly warmMs: number;
  /** Largest variable count the CPU engine runs. */
  readonly cpuMax: number;
  readonly cpu: boolean;
  readonly gpu: { readonly engine: OctagonGpu; readonly ctx: GpuContext } | null;
  /** The closure's worker threads (one per core the host reports, up to 16), when there are several. */
  readonly threads: ClosureThreads | undefined;
  /** Per variable count, the figures the ELINA anchor lines report (what → ms). */
  readonly anchors: Map<number, Map<string, number>>;
}

/** Records `ms` as the anchor figure `what` at `n` variables. */
export function anchor(c: OctagonContext, n: number, what: string, ms: number): void {
  if (!c.anchors.has(n)) c.anchors.set(n, new Map());
  c.anchors.get(n)?.set(what, ms);
}
