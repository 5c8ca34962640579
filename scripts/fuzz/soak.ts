/**
 * Many analyses on one GPU context, failing and succeeding in turn: each failure (a parse error, a
 * model error, an unbound variable, a solve cancelled between two GPU rounds, a buffer past the
 * device's limit) must be a typed error, each success exactly the CPU engine's answer, and memory
 * must stay flat: the heap and RSS are sampled after a fifth of the run (past warm-up) and at the end.
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConstraintText, solveAndersen } from '@gpumorph/andersen';
import { analyzeScheme } from '@gpumorph/eigencfa';
import { acquireGpu, BufferUsage, type GpuContext, GpumorphError } from '@gpumorph/gpu-allocator';
import { analyzeProgram } from '@gpumorph/octagon';
import { repoRoot } from './targets';

/** What {@link runSoak} saw. */
export interface SoakResult {
  readonly succeeded: number;
  readonly failed: number;
  readonly problems: string[];
  /** Heap in use after a forced collection (when `--expose-gc` is on), after a fifth of the run and at the end. */
  readonly heapBytes: { readonly first: number; readonly last: number };
  readonly rssBytes: { readonly first: number; readonly last: number };
}

const COUNT = 'i = 0;\nwhile (i < 100) { i = i + 1; }\nassert(i == 100);\n';
/** A copy chain: the solver needs several rounds, so a cancellation lands between two of them. */
const CHAIN = `gpumorph-constraints 1\nnodes 40\nnode 0 fields 1\n1 = &0\n${Array.from({ length: 38 }, (_, i) => `${i + 2} = ${i + 1}`).join('\n')}\n`;

/** The failing analyses, in turn. */
const FAILURES: readonly ((gpu: GpuContext) => Promise<unknown>)[] = [
  (gpu) => analyzeProgram('x = 1;\nassert(x <= );\n', { engine: 'webgpu', ctx: gpu }),
  (gpu) =>
    solveAndersen(parseConstraintText('gpumorph-constraints 1\nnodes 3\n1 = &7\n'), {
      engine: 'webgpu',
      gpu,
    }),
  (gpu) => analyzeScheme('(define (f x) (g x))\n(f 1)\n', { engine: 'webgpu', gpu }),
  (gpu) => {
    const cancel = new AbortController();
    return solveAndersen(parseConstraintText(CHAIN), {
      engine: 'webgpu',
      gpu,
      signal: cancel.signal,
      onIteration: () => cancel.abort(new Error('cancelled by the soak')),
    });
  },
  (gpu) =>
    gpu.createBuffer({ label: 'too large', size: gpu.limits.maxBufferSize + 4, usage: BufferUsage.STORAGE }),
];

/**
 * How much the collected heap and RSS may grow from a fifth of the run to its end: flat, with room
 * for allocator noise (200 analyses grew them by 0.2 MiB and 1 MiB on lavapipe).
 */
export const SOAK_GROWTH_LIMITS = { heapBytes: 8 * 2 ** 20, rssBytes: 64 * 2 ** 20 } as const;

/** What is wrong with a soak's memory, if anything. */
export function soakMemoryProblems(result: SoakResult): string[] {
  const problems: string[] = [];
  const heap = result.heapBytes.last - result.heapBytes.first;
  const rss = result.rssBytes.last - result.rssBytes.first;
  if (heap >= SOAK_GROWTH_LIMITS.heapBytes) problems.push(`the heap grew by ${heap} bytes`);
  if (rss >= SOAK_GROWTH_LIMITS.rssBytes) problems.push(`RSS grew by ${rss} bytes`);
  return problems;
}

function sample(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  return { heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
}

/**
 * Runs `analyses` analyses (half failing, half succeeding) on one context.
 *
 * @example
 * ```ts
 * const result = await runSoak(200);
 * result.problems; // []
 * ```
 */
export async function runSoak(analyses: number): Promise<SoakResult> {
  const gpu = await acquireGpu({ require: true });
  if (!gpu) throw new Error('no GPU');
  const problems: string[] = [];
  const example = parseConstraintText(
    readFileSync(join(repoRoot, 'examples/andersen/callbacks.constraints.txt')),
  );
  const expected = await solveAndersen(example, { engine: 'cpu' });
  const expectedSets = Array.from({ length: example.nodeCount }, (_, v) => [...expected.pointsTo(v)].join());
  let succeeded = 0;
  let failed = 0;
  let first = sample();
  try {
    for (let i = 0; i < analyses; i++) {
      if (i === Math.floor(analyses / 5)) first = sample();
      const turn = Math.floor(i / 2);
      if (i % 2 === 0) {
        const fail = FAILURES[turn % FAILURES.length] as (typeof FAILURES)[number];
        const outcome = await Promise.resolve()
          .then(() => fail(gpu))
          .then(
            () => 'it succeeded',
            (error: unknown) =>
              error instanceof GpumorphError ? undefined : `an untyped error: ${String(error)}`,
          );
        if (outcome) problems.push(`failing analysis ${turn % FAILURES.length} at ${i}: ${outcome}`);
        else failed++;
      } else if (turn % 2 === 0) {
        const result = await analyzeProgram(COUNT, { engine: 'webgpu', ctx: gpu });
        if (result.assertions.every((a) => a.proved)) succeeded++;
        else problems.push(`octagon at ${i}: the assertion was not proved`);
      } else {
        const result = await solveAndersen(example, { engine: 'webgpu', gpu });
        const same = expectedSets.every((set, v) => [...result.pointsTo(v)].join() === set);
        if (same) succeeded++;
        else problems.push(`andersen at ${i}: the sets differ from the CPU engine's`);
      }
      if (gpu.isLost) {
        problems.push(`the context was lost at ${i}`);
        break;
      }
    }
    if (gpu.uncapturedErrors.length > 0)
      problems.push(`uncaptured WebGPU errors: ${gpu.uncapturedErrors[0]?.message}`);
  } finally {
    gpu.destroy();
  }
  const last = sample();
  return {
    succeeded,
    failed,
    problems,
    heapBytes: { first: first.heap, last: last.heap },
    rssBytes: { first: first.rss, last: last.rss },
  };
}
