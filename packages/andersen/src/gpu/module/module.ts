import { type ElementPool, type GpuContext, gridWgsl, linkWgsl } from '@gpumorph/gpu-allocator';
import { sparseBitVectorLibraryWgsl } from '@gpumorph/sparse-bitvector';
import { solverLayout } from '../layout';
import { type SolverKernelParams, solverKernelsWgsl } from './solver.wgsl';

/**
 * The WebGPU engine's WGSL module for the pools `points` and `edges`, as the solver compiles it:
 * {@link solverKernelsWgsl}'s kernels for `kernels` (the bind-group declarations come from the
 * pools) linked with the grid helpers and each pool's sparse-bit-vector library, and the layout of
 * its bindings. For checking the module on a device without running a solve (creating its
 * pipelines takes minutes on a software adapter).
 *
 * @example
 * ```ts
 * const { code } = solverModuleWgsl(points, edges, { team: 'workgroup', teamWorkgroupSize: 32, laneWords: 1 });
 * const info = await ctx.device.createShaderModule({ code }).getCompilationInfo();
 * ```
 */
export function solverModuleWgsl(
  points: ElementPool,
  edges: ElementPool,
  kernels: Omit<SolverKernelParams, 'layoutWgsl'>,
  cache?: Map<string, SolverModule>,
): SolverModule {
  const team = kernels.team;
  // The pools' WGSL is small; what it and the options make is the module, built once per key.
  const wgslOf = (pool: ElementPool) => ({ alloc: pool.allocWgsl(team), access: pool.accessWgsl() });
  const pointsWgsl = wgslOf(points);
  const edgesWgsl = wgslOf(edges);
  const key = JSON.stringify([
    kernels,
    points.geometry,
    edges.geometry,
    [pointsWgsl, edgesWgsl].map(({ alloc, access }) => [alloc.code, access.code]),
  ]);
  const known = cache?.get(key);
  if (known) {
    // Most recently used last, so that the oldest goes first.
    cache?.delete(key);
    cache?.set(key, known);
    return known;
  }
  const layout = solverLayout(points, edges);
  const libraryWgsl = (name: 'pts' | 'edg', { alloc, access }: ReturnType<typeof wgslOf>) =>
    sparseBitVectorLibraryWgsl({
      name,
      team,
      laneWords: kernels.laneWords,
      alloc,
      access,
      batchTail: true,
      loadAhead: true,
    });
  const code = linkWgsl(solverKernelsWgsl({ ...kernels, layoutWgsl: layout.wgsl() }), [
    gridWgsl,
    libraryWgsl('pts', pointsWgsl),
    libraryWgsl('edg', edgesWgsl),
  ]);
  const built = { code, layout };
  if (cache) {
    cache.set(key, built);
    if (cache.size > MAX_SOLVER_MODULES) cache.delete(cache.keys().next().value as string);
  }
  return built;
}

/** A solver module's WGSL and the layout of its bindings. */
export interface SolverModule {
  readonly code: string;
  readonly layout: ReturnType<typeof solverLayout>;
}

/**
 * Solver modules built on a context before, by their options and pools' geometry (they go with
 * the context): building one took 0.5–3 ms of the host's main thread a solve (a gcc solve is
 * about 30 ms on the H100), and a new string of its 150 KB costs the context's kernel cache a hash
 * on every look-up, where the same string is hashed once.
 */
const solverModules = new WeakMap<GpuContext, Map<string, SolverModule>>();
const MAX_SOLVER_MODULES = 16;

/** The modules built on `ctx` (see {@link solverModules}). */
export function modulesOf(ctx: GpuContext): Map<string, SolverModule> {
  let modules = solverModules.get(ctx);
  if (!modules) {
    modules = new Map();
    solverModules.set(ctx, modules);
  }
  return modules;
}
