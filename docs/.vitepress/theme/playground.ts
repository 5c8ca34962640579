/**
 * What the playground page runs, in the browser: Andersen points-to analysis of constraints in the
 * `gpumorph-constraints 1` text format, and 0CFA of Scheme (EigenCFA), on WebGPU through
 * `navigator.gpu` when the browser has an adapter and on the CPU engine otherwise. It imports only
 * the packages' main entry points, which are browser-safe (no `node:` module is loaded on this
 * path), and loads them on first use so the page renders at once.
 */
import type { GpuContext } from '@gpumorph/gpu-allocator';

/** Which engine the user asks for; `auto` = WebGPU when the browser offers an adapter. */
export type PlaygroundEngine = 'auto' | 'webgpu' | 'cpu';

/** What one run shows. */
export interface PlaygroundRun {
  /** The engine that ran. */
  readonly engine: 'cpu' | 'webgpu';
  /** Why that engine: the adapter that ran, or why WebGPU was not used. */
  readonly why: string;
  /** The result, one line per pointer (Andersen) or per variable and call site (0CFA). */
  readonly lines: readonly string[];
  /** The input's size in words, e.g. `32 nodes, 27 constraints`. */
  readonly size: string;
  readonly milliseconds: number;
}

/** The GPU to run on, or why there is none. */
async function pickGpu(requested: PlaygroundEngine): Promise<{ gpu: GpuContext | null; why: string }> {
  if (requested === 'cpu') return { gpu: null, why: 'the CPU engine was asked for' };
  if (!(globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu)
    return { gpu: null, why: 'this browser has no WebGPU (navigator.gpu is missing)' };
  const { acquireGpu } = await import('@gpumorph/gpu-allocator');
  // A software adapter (SwiftShader, lavapipe) is still WebGPU: the page shows it at work.
  const gpu = await acquireGpu({ allowSoftware: true });
  if (!gpu) return { gpu: null, why: 'navigator.gpu offered no adapter' };
  const { vendor, architecture, description, software } = gpu.adapter;
  const name = [vendor, architecture, description].filter(Boolean).join(' ') || 'unnamed adapter';
  return { gpu, why: `WebGPU adapter: ${name}${software ? ' (software)' : ''}` };
}

/**
 * Runs `solve` on the GPU when there is one, else on the CPU. Under `auto`, a WebGPU engine that
 * fails on this adapter (e.g. it needs more storage buffers per stage than the browser grants)
 * falls back to the CPU engine and says why; under `webgpu` the failure is the answer.
 */
async function withEngine<T>(
  requested: PlaygroundEngine,
  solve: (gpu: GpuContext | null) => Promise<T>,
): Promise<{ value: T; why: string }> {
  const { gpu, why } = await pickGpu(requested);
  if (!gpu) {
    if (requested === 'webgpu') throw new Error(`WebGPU was asked for, but ${why}`);
    return { value: await solve(null), why };
  }
  try {
    return { value: await solve(gpu), why };
  } catch (cause) {
    if (requested === 'webgpu') throw cause;
    const message = (cause instanceof Error ? (cause.message.split(' - ')[0] ?? '') : String(cause)).trim();
    return { value: await solve(null), why: `the WebGPU engine failed on this adapter (${message})` };
  } finally {
    gpu.destroy();
  }
}

/**
 * Parses and solves Andersen constraints; parse errors propagate with their line and column.
 *
 * @example
 * ```ts
 * const run = await runAndersen('gpumorph-constraints 1\nnodes 2\nnode 0 p\nnode 1 x fields 1\np = &x\n', 'cpu');
 * run.lines; // ['p -> {x}']
 * ```
 */
export async function runAndersen(text: string, requested: PlaygroundEngine): Promise<PlaygroundRun> {
  const { parseConstraintText, solveAndersen } = await import('@gpumorph/andersen');
  const started = performance.now();
  const program = parseConstraintText(text, { file: 'input' });
  const { value: result, why } = await withEngine(requested, (gpu) =>
    solveAndersen(program, gpu ? { engine: 'webgpu', gpu } : { engine: 'cpu' }),
  );
  const name = (id: number) => program.names?.[id] ?? `n${id}`;
  const lines: string[] = [];
  for (let node = 0; node < program.nodeCount; node++) {
    const pointees = result.pointsTo(node);
    if (pointees.length > 0) lines.push(`${name(node)} -> {${Array.from(pointees, name).join(', ')}}`);
  }
  return {
    engine: result.engine,
    why,
    lines,
    size: `${program.nodeCount} nodes, ${program.constraints.length} constraints`,
    milliseconds: performance.now() - started,
  };
}

/**
 * 0CFA of a Scheme program: the flow set of every source variable and the callees of every call
 * site, by source position.
 *
 * @example
 * ```ts
 * const run = await runScheme('(define (id x) x) (id 1)', 'cpu');
 * ```
 */
export async function runScheme(text: string, requested: PlaygroundEngine): Promise<PlaygroundRun> {
  const { analyzeScheme, flowValueText } = await import('@gpumorph/eigencfa');
  const started = performance.now();
  const { value: analysis, why } = await withEngine(requested, (gpu) =>
    analyzeScheme(text, { file: 'input.scm', engine: gpu ? 'webgpu' : 'cpu', gpu }),
  );
  const set = (values: readonly Parameters<typeof flowValueText>[0][]) =>
    `{${values.map(flowValueText).join(', ')}}`;
  // Positions read `input.scm:3:18`; the file name says nothing on this page.
  const lines = [
    ...analysis.source.variables.map((v) => `${v.name}@${v.pos} <- ${set(v.flow)}`),
    ...analysis.source.callSites.map((s) => `(${s.operator} …)@${s.pos} -> ${set(s.callees)}`),
  ].map((line) => line.replaceAll('input.scm:', ''));
  const { terms, calls } = analysis.statistics;
  return {
    engine: analysis.statistics.engine,
    why,
    lines,
    size: `${terms} terms, ${calls} call sites`,
    milliseconds: performance.now() - started,
  };
}
