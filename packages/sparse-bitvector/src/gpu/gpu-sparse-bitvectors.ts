import {
  type BindingSpecs,
  BufferUsage,
  createElementPool,
  type DispatchGrid,
  defineBindings,
  dispatchItems,
  type ElementPool,
  encodeDispatch,
  type GpuContext,
  gridWgsl,
  linkWgsl,
  measureGpu,
  type WgslModule,
} from '@gpumorph/gpu-allocator';
import { subgroupLayoutIsLinear } from '@gpumorph/gpu-primitives';
import { ELEMENT_WORDS, MAX_MEMBER, NO_ELEMENT } from '../cpu/layout';
import type { SparseBitVector, SparseBitVectorPool } from '../cpu/sparse-bitvector';
import {
  applyKernelWgsl,
  type BatchKernelParams,
  decodeKernelWgsl,
  queryKernelWgsl,
} from './kernels/batch.wgsl';
import { sparseBitVectorLibraryWgsl, type TeamKind } from './kernels/library.wgsl';
import {
  quadAccessWgsl,
  quadWindowSpecs,
  type UnionAllocation,
  unionCountKernelWgsl,
  unionDirectivesWgsl,
  unionKernelWgsl,
} from './kernels/union.wgsl';
import {
  laneWords,
  MIN_TEAM_LANES,
  OP_CODES,
  OP_RECORD_WORDS,
  QUERY_CODES,
  STATUS_CHANGED,
  STATUS_CORRUPT,
} from './layout';
import { packVectors, SparseBitVectorLayoutError, unpackVectors } from './transfer';

/**
 * Options of {@link createGpuSparseBitVectors}.
 *
 * @example
 * ```ts
 * const options: GpuSparseBitVectorsOptions = { vectors: 1000, capacity: 4096, team: 'auto' };
 * ```
 */
export interface GpuSparseBitVectorsOptions {
  /** Number of vectors (one head each), indexed `0 … vectors − 1`. */
  readonly vectors: number;
  /** Elements the pool starts with (default `max(64, vectors)`); it grows when a step needs more. */
  readonly capacity?: number;
  /** WGSL prefix of the pool, its heads and its library functions (default `sbv`). */
  readonly name?: string;
  /**
   * `subgroup`: a team is a subgroup; `workgroup`: a 32-invocation workgroup emulates a 32-lane
   * team in workgroup memory. Default `auto`: subgroups when the device has them and
   * `subgroupLayoutIsLinear` holds.
   */
  readonly team?: 'auto' | TeamKind;
  /**
   * Lanes per team of the batched union kernel (1, 2, 4 or 8, each lane moving 16-byte quarters of
   * an element; default 4, capped at the smallest subgroup size): a 32-lane subgroup runs
   * `32 / unionTeamLanes` unions at once. `0` runs
   * unions through the library's one-operation-per-subgroup `<name>_union` instead. Only with
   * `subgroup` teams; `workgroup` teams always use the library.
   */
  readonly unionTeamLanes?: number;
  /** Invocations per workgroup of the batched union kernel (default 256). */
  readonly unionWorkgroupSize?: number;
  /** How the batched union kernel gets new elements (default `counted`; see `UnionAllocation`). */
  readonly unionAllocation?: UnionAllocation;
  /** Passed to the element pool. */
  readonly growthFactor?: number;
  readonly maxCapacity?: number;
  readonly windowElements?: number;
}

/**
 * One operation of {@link GpuSparseBitVectors.apply}: `dst op= src` on vector indices.
 *
 * @example
 * ```ts
 * const ops: GpuSetOperation[] = [
 *   { op: 'union', dst: 0, src: 1 },
 *   { op: 'shiftedUnion', dst: 2, src: 1, offset: 4, limit: 100 },
 * ];
 * ```
 */
export type GpuSetOperation =
  | { readonly op: 'union' | 'difference' | 'intersection'; readonly dst: number; readonly src: number }
  | {
      readonly op: 'shiftedUnion';
      readonly dst: number;
      readonly src: number;
      /** Added to each member of `src`. */
      readonly offset: number;
      /** Only shifted members below this bound are added (default 2^32: all that stay u32). */
      readonly limit?: number;
    };

/**
 * What {@link GpuSparseBitVectors.apply} reports.
 *
 * @example
 * ```ts
 * const { changed, anyChanged, attempts }: ApplyResult = await sets.apply(ops);
 * ```
 */
export interface ApplyResult {
  /** Per operation: whether its `dst` changed. */
  readonly changed: boolean[];
  /** Whether any `dst` changed. */
  readonly anyChanged: boolean;
  /** Dispatches it took (more than 1 when the pool grew mid-batch). */
  readonly attempts: number;
  /**
   * With `{ timing: true }`: GPU time of the batch's dispatches (timestamp queries, or the wall
   * clock of each dispatch without them), excluding uploads, pool checks and readbacks.
   */
  readonly gpuMs?: number;
}

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/**
 * Many sparse bit vectors on the GPU in the CPU layout ({@link SparseBitVectorPool}): 128-byte
 * elements in a growable {@link ElementPool} and a heads buffer (one head element index per
 * vector, `NO_ELEMENT` when empty). Batch set operations run one team (subgroup, or an emulated
 * 32-lane workgroup) per operation, one element per step, allocating from the pool with one atomic
 * per team; a batch that exhausts the pool is re-run after growing (every operation is idempotent).
 * The WGSL library ({@link GpuSparseBitVectors.wgsl}) lets other kernels call the same functions.
 *
 * @example
 * ```ts
 * const cpu = new SparseBitVectorPool();
 * const sets = await createGpuSparseBitVectors(ctx, { vectors: 2 });
 * await sets.upload([cpu.fromArray([1, 2]), cpu.fromArray([2, 961])]);
 * await sets.apply([{ op: 'union', dst: 0, src: 1 }]); // { changed: [true], … }
 * const [a] = await sets.download(cpu, { count: 1 });   // {1, 2, 961}
 * sets.destroy();
 * ```
 */
export class GpuSparseBitVectors {
  readonly ctx: GpuContext;
  /** WGSL prefix (also the pool's name). */
  readonly name: string;
  /** Number of vectors. */
  readonly vectors: number;
  readonly pool: ElementPool;
  /** `vectors` u32 head element indices. */
  readonly heads: GPUBuffer;
  readonly team: TeamKind;
  /** Invocations per workgroup of the batch kernels. */
  readonly workgroupSize: number;
  /** Most words one lane owns (lanes stride over an element's words when a team has fewer than 32). */
  readonly laneWords: number;
  /**
   * Lanes per team of the batched union kernel, and its workgroup size; `teamLanes` 0 when unions
   * run through the library's `<name>_union` (workgroup teams, or asked for).
   */
  readonly unionKernel: {
    readonly teamLanes: number;
    readonly workgroupSize: number;
    readonly allocation: UnionAllocation;
  };
  readonly #teamsPerWorkgroup: number;

  /** Use {@link createGpuSparseBitVectors}. */
  constructor(
    ctx: GpuContext,
    init: {
      name: string;
      vectors: number;
      pool: ElementPool;
      heads: GPUBuffer;
      team: TeamKind;
      unionTeamLanes?: number;
      unionWorkgroupSize?: number;
      unionAllocation?: UnionAllocation;
    },
  ) {
    this.ctx = ctx;
    this.name = init.name;
    this.vectors = init.vectors;
    this.pool = init.pool;
    this.heads = init.heads;
    this.team = init.team;
    if (init.team === 'subgroup') {
      const largest = ctx.adapter.subgroupMaxSize || 128;
      const smallest = Math.max(MIN_TEAM_LANES, ctx.adapter.subgroupMinSize || MIN_TEAM_LANES);
      this.workgroupSize = 2 ** Math.ceil(Math.log2(Math.max(32, largest)));
      this.laneWords = laneWords(smallest);
      this.#teamsPerWorkgroup = Math.max(1, this.workgroupSize / largest);
      const wanted = init.unionTeamLanes ?? 4;
      const teamLanes = wanted === 0 ? 0 : Math.min(wanted, smallest);
      if (wanted !== 0 && ![1, 2, 4, 8].includes(wanted)) {
        throw new RangeError(`${init.name}: unionTeamLanes ${wanted} is not 0, 1, 2, 4 or 8`);
      }
      const allocation = init.unionAllocation ?? 'counted';
      if (allocation !== 'counted' && allocation !== 'atomic') {
        throw new RangeError(
          `${init.name}: unionAllocation '${String(allocation)}' is not 'counted' or 'atomic'`,
        );
      }
      const size = Math.max(init.unionWorkgroupSize ?? 256, this.workgroupSize);
      if (size % this.workgroupSize !== 0 || size > ctx.limits.maxComputeInvocationsPerWorkgroup) {
        throw new RangeError(
          `${init.name}: unionWorkgroupSize ${size} is not a multiple of ${this.workgroupSize}`,
        );
      }
      this.unionKernel = { teamLanes, workgroupSize: size, allocation };
    } else {
      this.workgroupSize = 32;
      this.laneWords = laneWords(32);
      this.#teamsPerWorkgroup = 1;
      this.unionKernel = { teamLanes: 0, workgroupSize: 0, allocation: 'counted' };
    }
  }

  /** Binding specs of the pool and the heads (`<name>_header`, `<name>_w*`, `<name>_heads`). */
  bindingSpecs(): BindingSpecs {
    return { ...this.pool.bindingSpecs(), [`${this.name}_heads`]: { kind: 'storage', type: 'array<u32>' } };
  }

  /** The buffers for {@link GpuSparseBitVectors.bindingSpecs} (re-read after the pool grows). */
  resources(): Record<string, GPUBufferBinding> {
    return { ...this.pool.resources(), [`${this.name}_heads`]: { buffer: this.heads } };
  }

  /**
   * The WGSL library for the pool's current geometry (see `sparseBitVectorLibraryWgsl`); with
   * `decode`, the kernel must also bind `<name>_members: array<u32>`.
   */
  wgsl(options: { decode?: boolean } = {}): WgslModule {
    return sparseBitVectorLibraryWgsl({
      name: this.name,
      team: this.team,
      laneWords: this.laneWords,
      alloc: this.pool.allocWgsl(this.team),
      access: this.pool.accessWgsl(),
      decode: options.decode ?? false,
    });
  }

  /**
   * Copies CPU vectors (from any pools) into vectors `first, first + 1, …`, appending their
   * elements word for word after the pool's allocated ones (growing it when needed). The elements
   * the overwritten vectors held are not reused (the pool is a bump allocator; see `clear`).
   */
  async upload(vectors: readonly SparseBitVector[], options: { first?: number } = {}): Promise<void> {
    const first = options.first ?? 0;
    this.#checkRange(first, vectors.length);
    if (vectors.length === 0) return;
    const header = await this.pool.readHeader();
    const start = Math.min(header.next, header.capacity);
    const packed = packVectors(vectors, start);
    const elements = packed.words.length / ELEMENT_WORDS;
    if (start + elements > this.pool.capacity) await this.pool.grow(start + elements);
    if (elements > 0) await this.pool.writeElements(start, packed.words);
    await this.ctx.writeBuffer(this.pool.header, 0, Uint32Array.of(start + elements));
    await this.ctx.writeBuffer(this.heads, first * 4, packed.heads);
  }

  /**
   * Rebuilds vectors `first … first + count − 1` as CPU vectors in `target`, checking that every
   * list is canonical (throws {@link SparseBitVectorLayoutError} if not).
   */
  async download(
    target: SparseBitVectorPool,
    options: { first?: number; count?: number } = {},
  ): Promise<SparseBitVector[]> {
    const first = options.first ?? 0;
    const count = options.count ?? this.vectors - first;
    this.#checkRange(first, count);
    if (count === 0) return [];
    const heads = new Uint32Array(await this.ctx.readBuffer(this.heads, first * 4, count * 4));
    const allocated = await this.pool.allocated();
    const words = allocated > 0 ? await this.pool.readElements(0, allocated) : new Uint32Array(0);
    return unpackVectors(target, words, heads, first);
  }

  /** The head element index of every vector (`NO_ELEMENT` for empty ones). */
  async readHeads(): Promise<Uint32Array> {
    return new Uint32Array(await this.ctx.readBuffer(this.heads, 0, this.vectors * 4));
  }

  /** Empties every vector and frees every element of the pool. */
  async clear(): Promise<void> {
    await this.ctx.writeBuffer(this.heads, 0, new Uint32Array(this.vectors).fill(NO_ELEMENT));
    await this.pool.reset();
  }

  /**
   * Applies many operations in one dispatch, one team each. Each `dst` may appear once, and no
   * `src` may be the `dst` of another operation of the batch (a `TypeError` otherwise): then the
   * result is the same as applying them one by one on the CPU, in any order. When the pool runs
   * out, it grows and the batch is re-run (completing what was missing).
   */
  async apply(
    operations: readonly GpuSetOperation[],
    options: { timing?: boolean } = {},
  ): Promise<ApplyResult> {
    const n = operations.length;
    const records = this.#encodeOperations(operations);
    if (n === 0) return { changed: [], anyChanged: false, attempts: 0 };
    const p = this.name;
    const ctx = this.ctx;
    const opsBuffer = await ctx.createBuffer({
      label: `${p} batch operations`,
      size: records.byteLength,
      usage: STORAGE,
    });
    const status = await ctx.createBuffer({ label: `${p} batch status`, size: n * 4, usage: STORAGE });
    const params = await this.#params(n);
    const timing = options.timing ? { gpuMs: 0 } : undefined;
    const cleanup: (() => void)[] = [];
    try {
      await ctx.writeBuffer(opsBuffer, 0, records);
      const { teamLanes, workgroupSize, allocation } = this.unionKernel;
      const unions = operations.some((o) => o.op === 'union');
      const fast = teamLanes > 0 && unions;
      const others = !fast || operations.some((o) => o.op !== 'union');
      const counted = fast && allocation === 'counted';
      const plan = counted
        ? await ctx.createBuffer({ label: `${p} union plans`, size: n * 32, usage: STORAGE })
        : undefined;
      cleanup.push(() => plan?.destroy());
      const run = await this.pool.runGrowing(async () => {
        const specs: BindingSpecs = {
          ...this.bindingSpecs(),
          [`${p}_ops`]: { kind: 'storage', type: `array<${p}_op_record>`, access: 'read' },
          [`${p}_status`]: { kind: 'storage', type: 'array<u32>' },
          [`${p}_params`]: { kind: 'uniform', type: `${p}_batch_params` },
        };
        const layout = defineBindings(`${p} apply`, specs);
        const resources: Record<string, GPUBufferBinding> = {
          ...this.resources(),
          [`${p}_ops`]: { buffer: opsBuffer },
          [`${p}_status`]: { buffer: status },
          [`${p}_params`]: { buffer: params },
        };
        if (fast) {
          // Unions: the batched union kernel, several teams per subgroup (after the counting
          // kernel that reserves their new elements, with `counted` allocation), on the pool's
          // windows bound as vec4s.
          const unionLayout = defineBindings(`${p} union ${allocation}`, {
            ...quadWindowSpecs(specs, p),
            ...(counted ? { [`${p}_plan`]: { kind: 'storage', type: 'array<vec4u>' } } : {}),
          } satisfies BindingSpecs);
          if (plan) resources[`${p}_plan`] = { buffer: plan };
          const kernelParams = {
            name: p,
            teamLanes,
            workgroupSize,
            allocation,
            layoutWgsl: unionLayout.wgsl(),
          };
          const modules = [
            unionDirectivesWgsl,
            gridWgsl,
            this.pool.allocWgsl('subgroup'),
            quadAccessWgsl(this.pool.geometry),
          ];
          const steps = [];
          if (counted) {
            steps.push({
              label: `${p} union count`,
              code: linkWgsl(unionCountKernelWgsl(kernelParams), modules),
              layout: unionLayout,
              items: n,
              perWorkgroup: workgroupSize,
            });
          }
          steps.push({
            label: `${p} union`,
            code: linkWgsl(unionKernelWgsl(kernelParams), modules),
            layout: unionLayout,
            items: n,
            perWorkgroup: workgroupSize / teamLanes,
          });
          await this.#dispatchSteps(`${p} union`, steps, resources, timing);
        }
        if (others) {
          const code = applyKernelWgsl({
            ...this.#kernelParams(),
            layoutWgsl: layout.wgsl(),
            skipUnion: fast,
          });
          await this.#dispatch(`${p} apply`, layout, code, this.wgsl(), n, resources, timing);
        }
      });
      const words = new Uint32Array(await ctx.readBuffer(status, 0, n * 4));
      const corrupt = words.findIndex((w) => (w & STATUS_CORRUPT) !== 0);
      if (corrupt >= 0) {
        const op = operations[corrupt];
        throw new SparseBitVectorLayoutError(
          `${p}: operation ${corrupt} (${op?.op} ${op?.dst} ← ${op?.src}) met a list longer than the pool`,
          op?.dst ?? -1,
        );
      }
      const changed = Array.from(words, (w) => (w & STATUS_CHANGED) !== 0);
      const result = { changed, anyChanged: changed.includes(true), attempts: run.attempts };
      return timing ? { ...result, gpuMs: timing.gpuMs } : result;
    } finally {
      opsBuffer.destroy();
      status.destroy();
      params.destroy();
      for (const release of cleanup) release();
    }
  }

  /** Per pair, whether the two vectors have the same members. */
  async equals(pairs: readonly (readonly [number, number])[]): Promise<boolean[]> {
    const out = await this.#query(pairs.map(([a, b]) => [QUERY_CODES.equals, a, b, 0]));
    return Array.from(out, (x) => x === 1);
  }

  /** `SparseBitVector.hash(seed)` of each vector, computed on the GPU. */
  async hash(vectors: readonly number[], seed = 0): Promise<Uint32Array> {
    return this.#query(vectors.map((v) => [QUERY_CODES.hash, v, 0, seed >>> 0]));
  }

  /** Member count of each vector. */
  async count(vectors: readonly number[]): Promise<Uint32Array> {
    return this.#query(vectors.map((v) => [QUERY_CODES.count, v, 0, 0]));
  }

  /** The members of each vector in increasing order, decoded on the GPU (counted first). */
  async decode(vectors: readonly number[]): Promise<Uint32Array[]> {
    const counts = await this.count(vectors);
    const n = vectors.length;
    if (n === 0) return [];
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = (offsets[i] as number) + (counts[i] as number);
    const total = offsets[n] as number;
    const p = this.name;
    const ctx = this.ctx;
    const items = new Uint32Array(n * 2);
    vectors.forEach((v, i) => {
      items[2 * i] = v;
      items[2 * i + 1] = offsets[i] as number;
    });
    const itemsBuffer = await ctx.createBuffer({
      label: `${p} decode items`,
      size: items.byteLength,
      usage: STORAGE,
    });
    const members = await ctx.createBuffer({
      label: `${p} decoded members`,
      size: total * 4,
      usage: STORAGE,
    });
    const params = await this.#params(n);
    try {
      await ctx.writeBuffer(itemsBuffer, 0, items);
      const layout = defineBindings(`${p} decode`, {
        ...this.bindingSpecs(),
        [`${p}_items`]: { kind: 'storage', type: 'array<vec2u>', access: 'read' },
        [`${p}_members`]: { kind: 'storage', type: 'array<u32>' },
        [`${p}_params`]: { kind: 'uniform', type: `${p}_batch_params` },
      } satisfies BindingSpecs);
      const code = decodeKernelWgsl({ ...this.#kernelParams(), layoutWgsl: layout.wgsl() });
      await this.#dispatch(`${p} decode`, layout, code, this.wgsl({ decode: true }), n, {
        ...this.resources(),
        [`${p}_items`]: { buffer: itemsBuffer },
        [`${p}_members`]: { buffer: members },
        [`${p}_params`]: { buffer: params },
      });
      const all =
        total > 0 ? new Uint32Array(await ctx.readBuffer(members, 0, total * 4)) : new Uint32Array(0);
      return vectors.map((_, i) => all.slice(offsets[i], offsets[i + 1]));
    } finally {
      itemsBuffer.destroy();
      members.destroy();
      params.destroy();
    }
  }

  /** Releases the pool and the heads. */
  destroy(): void {
    this.pool.destroy();
    this.heads.destroy();
  }

  toString(): string {
    return `GpuSparseBitVectors(${this.name}: ${this.vectors} vectors, ${this.team} teams, ${this.pool})`;
  }

  #kernelParams(): Omit<BatchKernelParams, 'layoutWgsl'> {
    return { name: this.name, team: this.team, workgroupSize: this.workgroupSize };
  }

  async #params(count: number): Promise<GPUBuffer> {
    const buffer = await this.ctx.createBuffer({
      label: `${this.name} batch params`,
      size: 16,
      usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
    });
    await this.ctx.writeBuffer(buffer, 0, Uint32Array.of(count, 0, 0, 0));
    return buffer;
  }

  #dispatch(
    label: string,
    layout: ReturnType<typeof defineBindings>,
    code: string,
    library: WgslModule,
    items: number,
    resources: Record<string, GPUBufferBinding>,
    timing?: { gpuMs: number },
  ): Promise<void> {
    const linked = linkWgsl(code, [gridWgsl, library]);
    const step = { label, code: linked, layout, items, perWorkgroup: this.#teamsPerWorkgroup };
    return this.#dispatchSteps(label, [step], resources, timing);
  }

  /** Runs `steps` in order in one compute pass (timed as one pass with `timing`). */
  async #dispatchSteps(
    label: string,
    steps: readonly {
      readonly label: string;
      readonly code: string;
      readonly layout: ReturnType<typeof defineBindings>;
      readonly items: number;
      readonly perWorkgroup: number;
    }[],
    resources: Record<string, GPUBufferBinding>,
    timing?: { gpuMs: number },
  ): Promise<void> {
    const ctx = this.ctx;
    const compiled: { kernel: Awaited<ReturnType<GpuContext['kernels']['get']>>; grid: DispatchGrid }[] = [];
    for (const step of steps) {
      const kernel = await ctx.kernels.get({ label: step.label, code: step.code, layout: step.layout });
      const grid = dispatchItems(step.items, step.perWorkgroup, ctx.limits.maxComputeWorkgroupsPerDimension);
      compiled.push({ kernel, grid });
    }
    const record = (pass: GPUComputePassEncoder) => {
      for (const { kernel, grid } of compiled) {
        pass.setPipeline(kernel.pipeline);
        pass.setBindGroup(0, kernel.bindGroup(resources));
        encodeDispatch(pass, grid);
      }
      pass.end();
    };
    if (timing) {
      // Timed: one timestamped pass (or the wall clock without timestamps), waited for here.
      const measured = await measureGpu(
        ctx,
        (encoder, timer) => record(timer.beginComputePass(encoder, label)),
        {
          label,
        },
      );
      timing.gpuMs += measured.totalMs;
      return;
    }
    await ctx.guard(label, () => {
      const encoder = ctx.device.createCommandEncoder({ label });
      record(encoder.beginComputePass({ label }));
      ctx.queue.submit([encoder.finish()]);
    });
  }

  async #query(queries: readonly (readonly [number, number, number, number])[]): Promise<Uint32Array> {
    const n = queries.length;
    if (n === 0) return new Uint32Array(0);
    const words = new Uint32Array(n * 4);
    queries.forEach(([kind, a, b, seed], i) => {
      this.#checkVector(a, `query ${i}`);
      if (kind === QUERY_CODES.equals) this.#checkVector(b, `query ${i}`);
      words.set([kind, a, b, seed], i * 4);
    });
    const p = this.name;
    const ctx = this.ctx;
    const queryBuffer = await ctx.createBuffer({
      label: `${p} queries`,
      size: words.byteLength,
      usage: STORAGE,
    });
    const results = await ctx.createBuffer({ label: `${p} query results`, size: n * 4, usage: STORAGE });
    const params = await this.#params(n);
    try {
      await ctx.writeBuffer(queryBuffer, 0, words);
      const layout = defineBindings(`${p} query`, {
        ...this.bindingSpecs(),
        [`${p}_queries`]: { kind: 'storage', type: 'array<vec4u>', access: 'read' },
        [`${p}_results`]: { kind: 'storage', type: 'array<u32>' },
        [`${p}_params`]: { kind: 'uniform', type: `${p}_batch_params` },
      } satisfies BindingSpecs);
      const code = queryKernelWgsl({ ...this.#kernelParams(), layoutWgsl: layout.wgsl() });
      await this.#dispatch(`${p} query`, layout, code, this.wgsl(), n, {
        ...this.resources(),
        [`${p}_queries`]: { buffer: queryBuffer },
        [`${p}_results`]: { buffer: results },
        [`${p}_params`]: { buffer: params },
      });
      return new Uint32Array(await ctx.readBuffer(results, 0, n * 4));
    } finally {
      queryBuffer.destroy();
      results.destroy();
      params.destroy();
    }
  }

  #encodeOperations(operations: readonly GpuSetOperation[]): Uint32Array {
    const records = new Uint32Array(Math.max(1, operations.length) * OP_RECORD_WORDS);
    const owner = new Map<number, number>();
    operations.forEach((operation, i) => {
      const { op, dst, src } = operation;
      this.#checkVector(dst, `operation ${i}`);
      this.#checkVector(src, `operation ${i}`);
      const earlier = owner.get(dst);
      if (earlier !== undefined) {
        throw new TypeError(
          `${this.name}: operations ${earlier} and ${i} both write vector ${dst} in one batch`,
        );
      }
      owner.set(dst, i);
      let code: number = OP_CODES[op];
      let offset = 0;
      let last = 0;
      if (operation.op === 'shiftedUnion') {
        if (dst === src) throw new TypeError(`${this.name}: operation ${i} shifts vector ${dst} into itself`);
        offset = operation.offset;
        if (!Number.isInteger(offset) || offset < 0 || offset > MAX_MEMBER) {
          throw new RangeError(`${this.name}: operation ${i}: shift offset ${offset} is not a u32`);
        }
        const limit = operation.limit ?? MAX_MEMBER + 1;
        if (Number.isNaN(limit)) throw new RangeError(`${this.name}: operation ${i}: limit is NaN`);
        const end = Math.min(Math.ceil(limit), MAX_MEMBER + 1);
        if (end <= 0) code = OP_CODES.none;
        else last = end - 1;
      } else if (!(op in OP_CODES)) {
        throw new TypeError(`${this.name}: operation ${i}: unknown op '${String(op)}'`);
      }
      records.set([code, dst, src, offset, last], i * OP_RECORD_WORDS);
    });
    operations.forEach((operation, i) => {
      const writer = owner.get(operation.src);
      if (writer !== undefined && writer !== i) {
        throw new TypeError(
          `${this.name}: operation ${i} reads vector ${operation.src}, which operation ${writer} writes in the same batch`,
        );
      }
    });
    return records;
  }

  #checkVector(v: number, where: string): void {
    if (!Number.isInteger(v) || v < 0 || v >= this.vectors) {
      throw new RangeError(`${this.name}: ${where}: vector ${v} is not in 0..${this.vectors - 1}`);
    }
  }

  #checkRange(first: number, count: number): void {
    if (
      !Number.isInteger(first) ||
      !Number.isInteger(count) ||
      first < 0 ||
      count < 0 ||
      first + count > this.vectors
    ) {
      throw new RangeError(
        `${this.name}: vectors ${first}..${first + count} past the ${this.vectors} there are`,
      );
    }
  }
}

/**
 * Creates {@link GpuSparseBitVectors}: `vectors` empty vectors and a pool of `capacity` elements.
 *
 * @example
 * ```ts
 * const sets = await createGpuSparseBitVectors(ctx, { vectors: 1000, capacity: 4096 });
 * ```
 */
export async function createGpuSparseBitVectors(
  ctx: GpuContext,
  options: GpuSparseBitVectorsOptions,
): Promise<GpuSparseBitVectors> {
  const { vectors } = options;
  if (!Number.isInteger(vectors) || vectors < 0) throw new RangeError(`bad vector count ${vectors}`);
  const name = options.name ?? 'sbv';
  let team: TeamKind;
  const wanted = options.team ?? 'auto';
  if (wanted === 'auto') {
    team = (await subgroupLayoutIsLinear(ctx)) ? 'subgroup' : 'workgroup';
  } else {
    if (wanted === 'subgroup' && !ctx.features.subgroups) {
      throw new TypeError(`${name}: subgroup teams need the 'subgroups' feature, which ${ctx} lacks`);
    }
    team = wanted;
  }
  const pool = await createElementPool(ctx, {
    name,
    elementWords: ELEMENT_WORDS,
    capacity: options.capacity ?? Math.max(64, vectors),
    ...(options.growthFactor !== undefined ? { growthFactor: options.growthFactor } : {}),
    ...(options.maxCapacity !== undefined ? { maxCapacity: options.maxCapacity } : {}),
    ...(options.windowElements !== undefined ? { windowElements: options.windowElements } : {}),
  });
  try {
    const heads = await ctx.createBuffer({ label: `${name} heads`, size: vectors * 4, usage: STORAGE });
    await ctx.writeBuffer(heads, 0, new Uint32Array(Math.max(1, vectors)).fill(NO_ELEMENT));
    return new GpuSparseBitVectors(ctx, {
      name,
      vectors,
      pool,
      heads,
      team,
      ...(options.unionTeamLanes !== undefined ? { unionTeamLanes: options.unionTeamLanes } : {}),
      ...(options.unionWorkgroupSize !== undefined ? { unionWorkgroupSize: options.unionWorkgroupSize } : {}),
      ...(options.unionAllocation !== undefined ? { unionAllocation: options.unionAllocation } : {}),
    });
  } catch (error) {
    pool.destroy();
    throw error;
  }
}
