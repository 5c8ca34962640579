import { BufferUsage, type GpuContext } from '@gpumorph/gpu-allocator';

/** A dispatch plan kept by a {@link PlanCache}: its uniform buffer of per-dispatch parameters and the bind groups encodes of it made. */
export interface CachedPlan {
  readonly params: GPUBuffer;
  /** Bind groups an encode of this plan created, in order, per set of buffers (keyed by their ids). */
  readonly bindGroups: Map<string, GPUBindGroup[]>;
}

/** The bind groups of one encode: cached ones handed out in order, or new ones made and then kept. */
export interface PlanGroups {
  /** The next group: the cached one, or `create()`'s. */
  group(create: () => GPUBindGroup): GPUBindGroup;
  /** Keeps the groups this encode created (call once every group was asked for). */
  keep(): void;
}

/**
 * The plans of a sort kept between encodes, least recently used first out, so that a caller
 * sorting at a few sizes (a worklist, every round) prepares without waiting on the device and
 * encodes without creating anything. An evicted plan leaves its parameter buffer for the next
 * plan of that byte size (writing a few hundred bytes instead of creating a buffer, which took
 * 0.4 ms on the H100 machine), and a plan keeps the bind groups of its last few sets of buffers.
 * Shared by the radix and merge sorts.
 *
 * @example
 * ```ts
 * const plans = new PlanCache<MyPlan>(ctx, 'my sort params', { plans: 32, bufferSets: 4 });
 * const plan = plans.get(key) ?? plans.add(key, words, (params) => ({ params, bindGroups: new Map() }));
 * const groups = plans.groups(plan, [keys, values]);
 * pass.setBindGroup(0, groups.group(() => kernel.bindGroup(resources)));
 * groups.keep();
 * ```
 */
export class PlanCache<P extends CachedPlan> {
  readonly #ctx: GpuContext;
  readonly #label: string;
  readonly #maxPlans: number;
  readonly #maxBufferSets: number;
  readonly #plans = new Map<string, P>();
  readonly #spareParams = new Map<number, GPUBuffer[]>();
  readonly #bufferIds = new WeakMap<GPUBuffer, number>();
  #lastBufferId = 0;

  constructor(ctx: GpuContext, label: string, limits: { plans: number; bufferSets: number }) {
    this.#ctx = ctx;
    this.#label = label;
    this.#maxPlans = limits.plans;
    this.#maxBufferSets = limits.bufferSets;
  }

  /** The plan kept under `key`, now the most recently used, or undefined. */
  get(key: string): P | undefined {
    const cached = this.#plans.get(key);
    if (cached) {
      this.#plans.delete(key);
      this.#plans.set(key, cached);
    }
    return cached;
  }

  /**
   * Keeps the plan `make` builds around a parameter buffer holding `words` (a spare one of that
   * size, or a new one), evicting the least recently used plans past the limit.
   */
  add(key: string, words: Uint32Array, make: (params: GPUBuffer) => P): P {
    // A caller whose count changes every call (a worklist) would otherwise keep a plan per count.
    while (this.#plans.size >= this.#maxPlans) {
      const [oldestKey, oldest] = this.#plans.entries().next().value as [string, P];
      this.#plans.delete(oldestKey);
      const spare = this.#spareParams.get(oldest.params.size) ?? [];
      spare.push(oldest.params);
      this.#spareParams.set(oldest.params.size, spare);
    }
    const params =
      this.#spareParams.get(words.byteLength)?.pop() ??
      this.#ctx.device.createBuffer({
        label: `${this.#label} (${words.byteLength} bytes)`,
        size: words.byteLength,
        usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
      });
    // Queue-ordered: work submitted before still sees the old contents.
    this.#ctx.queue.writeBuffer(params, 0, words);
    const plan = make(params);
    this.#plans.set(key, plan);
    return plan;
  }

  /**
   * The bind groups of an encode of `plan` over `buffers` (undefined entries allowed): the same
   * plan over the same buffers binds the same groups, so the ones made the first time are handed
   * out again in order.
   */
  groups(plan: P, buffers: readonly (GPUBuffer | undefined)[]): PlanGroups {
    const setKey = buffers.map((b) => (b ? this.#bufferId(b) : '-')).join(',');
    const cached = plan.bindGroups.get(setKey);
    const created: GPUBindGroup[] = [];
    let next = 0;
    return {
      group: (create) => {
        if (cached) return cached[next++] as GPUBindGroup;
        const made = create();
        created.push(made);
        return made;
      },
      keep: () => {
        if (cached) return;
        // A sort kept across its callers' lives sees new arrays now and then: keep the latest few.
        if (plan.bindGroups.size >= this.#maxBufferSets)
          plan.bindGroups.delete(plan.bindGroups.keys().next().value as string);
        plan.bindGroups.set(setKey, created);
      },
    };
  }

  /** Bytes of the parameter buffers held (kept plans' and spare ones). */
  get gpuBytes(): number {
    let bytes = 0;
    for (const plan of this.#plans.values()) bytes += plan.params.size;
    for (const list of this.#spareParams.values()) for (const b of list) bytes += b.size;
    return bytes;
  }

  /** Destroys every parameter buffer and forgets the plans. */
  destroy(): void {
    for (const plan of this.#plans.values()) plan.params.destroy();
    for (const list of this.#spareParams.values()) for (const b of list) b.destroy();
    this.#spareParams.clear();
    this.#plans.clear();
  }

  #bufferId(buffer: GPUBuffer): number {
    let id = this.#bufferIds.get(buffer);
    if (id === undefined) {
      id = ++this.#lastBufferId;
      this.#bufferIds.set(buffer, id);
    }
    return id;
  }
}
