import type { GpuContext } from '../context/context';
import { GpuInternalError, GpuValidationError } from '../errors';
import type { BindingLayout, BindingResources, BindingSpecs } from './layout';

/** What a compute kernel is made of. */
export interface KernelDescriptor<S extends BindingSpecs = BindingSpecs> {
  /** Names the shader module, pipeline and bind groups in every error message. */
  readonly label: string;
  /** Complete WGSL source (see `linkWgsl` to include library modules). */
  readonly code: string;
  readonly entryPoint?: string;
  /** Values of WGSL `override` declarations. */
  readonly constants?: Readonly<Record<string, number>>;
  /** Bind group 0's layout (further groups are rarely needed and not supported yet). */
  readonly layout: BindingLayout<S>;
}

/**
 * A compiled compute pipeline with the layout it was built for.
 *
 * @example
 * ```ts
 * const kernel = await ctx.kernels.get({ label: 'fill', code, layout });
 * const encoder = ctx.device.createCommandEncoder();
 * const pass = encoder.beginComputePass();
 * pass.setPipeline(kernel.pipeline);
 * pass.setBindGroup(0, kernel.bindGroup({ out: buffer }));
 * ```
 */
export class Kernel<S extends BindingSpecs = BindingSpecs> {
  readonly #ctx: GpuContext;
  readonly label: string;
  readonly pipeline: GPUComputePipeline;
  readonly layout: BindingLayout<S>;
  readonly bindGroupLayout: GPUBindGroupLayout;

  constructor(
    ctx: GpuContext,
    label: string,
    pipeline: GPUComputePipeline,
    layout: BindingLayout<S>,
    bindGroupLayout: GPUBindGroupLayout,
  ) {
    this.#ctx = ctx;
    this.label = label;
    this.pipeline = pipeline;
    this.layout = layout;
    this.bindGroupLayout = bindGroupLayout;
  }

  /** Names of the bindings this kernel's bind group holds, in binding-number order. */
  get bindings(): readonly string[] {
    return this.layout.names;
  }

  /**
   * A bind group for this kernel (of the bindings it holds: `resources` may name more). Creation
   * is synchronous so it can sit in a hot loop; wrap the step that uses it in `ctx.guard` to get a
   * typed error if a resource does not fit.
   */
  bindGroup(resources: BindingResources<S>, label = this.label): GPUBindGroup {
    return this.#ctx.device.createBindGroup({
      label,
      layout: this.bindGroupLayout,
      entries: this.layout.bindGroupEntries(resources),
    });
  }
}

/**
 * Builds compute pipelines lazily and caches them by source, entry point, constants and layout,
 * so a host class can ask for its kernel on every call at the cost of a map lookup.
 * `acquireGpu({ onShader })` sees every new shader's source (the CLI's `GPUMORPH_DUMP_WGSL=1`).
 */
export class KernelCache {
  readonly #ctx: GpuContext;
  /**
   * Pipelines by source, then by layout, entry point and constants. The source is a key of its
   * own, not part of one string with the rest: a string made by concatenation is flattened and
   * hashed on every look-up, which for the Andersen solver's 176 KB module cost 12–16 ms per
   * 37 entry points on every solve, where the same source string hashes once (V8 keeps a
   * string's hash) and is found by identity after that.
   */
  readonly #pipelines = new Map<string, Map<string, Promise<unknown>>>();
  readonly #layouts = new Map<string, GPUBindGroupLayout>();

  readonly #onShader: ((label: string, code: string) => void) | undefined;

  constructor(ctx: GpuContext, onShader?: ((label: string, code: string) => void) | undefined) {
    this.#ctx = ctx;
    this.#onShader = onShader;
  }

  /** Number of distinct pipelines built so far. */
  get size(): number {
    let size = 0;
    for (const bySource of this.#pipelines.values()) size += bySource.size;
    return size;
  }

  /** The kernel for `descriptor`, compiling it on first use. Throws `GpuValidationError` with the compiler's messages. */
  get<S extends BindingSpecs>(descriptor: KernelDescriptor<S>): Promise<Kernel<S>> {
    const entryPoint = descriptor.entryPoint ?? 'main';
    const constants = Object.entries(descriptor.constants ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
    const key = `${descriptor.layout.key}|${entryPoint}|${JSON.stringify(constants)}`;
    const code = descriptor.code;
    const bySource = this.#pipelines.get(code) ?? new Map<string, Promise<unknown>>();
    const cached = bySource.get(key);
    if (cached) return cached as Promise<Kernel<S>>;
    this.#pipelines.set(code, bySource);
    const kernel = this.#build(descriptor, entryPoint);
    bySource.set(key, kernel);
    // A failed build is not cached, so fixing a transient condition (e.g. memory) can retry.
    kernel.catch(() => {
      bySource.delete(key);
      if (bySource.size === 0 && this.#pipelines.get(code) === bySource) this.#pipelines.delete(code);
    });
    return kernel;
  }

  async #build<S extends BindingSpecs>(
    descriptor: KernelDescriptor<S>,
    entryPoint: string,
  ): Promise<Kernel<S>> {
    const ctx = this.#ctx;
    const { label, code } = descriptor;
    this.#onShader?.(label, code);
    const device = ctx.device;
    let created: GPUShaderModule | undefined;
    const module = await ctx
      .guard(label, () => {
        created = device.createShaderModule({ label, code });
        return created;
      })
      .catch(async (error: unknown) => {
        // Attach the compiler's structured messages (line, column) to the scope's error.
        if (error instanceof GpuValidationError && created) {
          const info = await created.getCompilationInfo().catch(() => undefined);
          const messages = (info?.messages ?? []).map((m) => ({
            type: m.type,
            line: m.lineNum,
            column: m.linePos,
            message: m.message,
          }));
          throw new GpuValidationError(`WGSL of ${error.message}`, label, messages, { cause: error.cause });
        }
        throw error;
      });
    const layout = descriptor.layout;
    const bindGroupLayout = await this.#bindGroupLayout(layout);
    const pipelineLayout = device.createPipelineLayout({ label, bindGroupLayouts: [bindGroupLayout] });
    const compute: GPUProgrammableStage = { module, entryPoint };
    if (descriptor.constants) compute.constants = { ...descriptor.constants };
    let pipeline: GPUComputePipeline;
    try {
      pipeline = await device.createComputePipelineAsync({ label, layout: pipelineLayout, compute });
    } catch (cause) {
      ctx.assertAlive();
      const message = cause instanceof Error ? cause.message : String(cause);
      const reason = (cause as { reason?: string }).reason;
      if (reason === 'internal') {
        throw new GpuInternalError(`pipeline ${label}: ${message}`, label, { cause });
      }
      throw new GpuValidationError(`pipeline ${label}: ${message}`, label, [], { cause });
    }
    return new Kernel(ctx, label, pipeline, layout, bindGroupLayout);
  }

  async #bindGroupLayout<S extends BindingSpecs>(layout: BindingLayout<S>): Promise<GPUBindGroupLayout> {
    let result = this.#layouts.get(layout.key);
    if (!result) {
      result = await this.#ctx.guard(`layout ${layout.label}`, () =>
        this.#ctx.device.createBindGroupLayout({ label: layout.label, entries: layout.entries() }),
      );
      this.#layouts.set(layout.key, result);
    }
    return result;
  }

  /** Forgets every cached pipeline and layout. */
  clear(): void {
    this.#pipelines.clear();
    this.#layouts.clear();
  }
}
