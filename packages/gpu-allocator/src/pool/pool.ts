import { EventEmitter } from 'events';
// A namespace import: typed-emitter is CommonJS with `export default`, which a default import
// mistypes for users on `moduleResolution: node16/nodenext` (the interface sits under `.default`).
import type * as TypedEmitter from 'typed-emitter';
import type { GpuContext } from '../context/context';
import { PoolCapacityError } from '../errors';
import type { WgslModule } from '../kernels/wgsl';
import { BufferUsage } from '../webgpu-constants';
import { type CompactListsOptions, type CompactListsResult, compactLists } from './compact';
import { poolAccessWgsl, poolAllocWgsl, type TeamMode } from './kernels/alloc.wgsl';
import {
  assertWgslIdentifier,
  DEFAULT_ELEMENT_WORDS,
  POOL_HEADER_WORDS,
  type PoolGeometry,
  poolBindingSpecs,
} from './layout';

/** Options of {@link createElementPool}. */
export interface ElementPoolOptions {
  /** WGSL prefix of the pool's bindings and functions, e.g. `pts` gives `pts_alloc`, `pts_load`. */
  readonly name: string;
  /** Words per element (default 32 = 128 bytes). */
  readonly elementWords?: number;
  /** Elements to start with. */
  readonly capacity: number;
  /** Elements `[0, reserved)` are taken from the start (e.g. one fixed head element per vertex). */
  readonly reserved?: number;
  /** Largest capacity growth may reach (default: what the windows and `maxBufferSize` allow). */
  readonly maxCapacity?: number;
  /** Elements per binding window (default: as many as one binding holds). Lower it to test windowing. */
  readonly windowElements?: number;
  /** Most windows a kernel binds (default 8, bounded by the storage-buffer bindings per stage minus 4). */
  readonly maxWindows?: number;
  /** Capacity multiplier when growing (default 2). */
  readonly growthFactor?: number;
  /**
   * Binding windows this pool shares with others bound by the same kernels: it may grow into
   * every window of the budget that the others do not use at the time (its `maxWindows` still
   * bounds it). Without one, its windows are its own `maxWindows`.
   */
  readonly windowBudget?: WindowBudget | undefined;
  /**
   * Take the element buffer from the context's kept buffers and give it back on `grow` and
   * `destroy` (`GpuContext.reuseBuffer`), so that a second pool of a size met before costs no
   * allocation. Elements past the reserved ones then start with whatever the last user left:
   * only for kernels that write every word of an element they allocate. A kept buffer may be up
   * to twice as large as asked; the capacity stays as asked. Default false: a new pool's elements
   * are zero.
   */
  readonly reuseBuffers?: boolean;
}

/**
 * Binding windows shared by pools that one kernel binds together (a shader stage has a fixed
 * number of storage bindings): each pool may grow into the windows the others do not use now,
 * so that a solve whose points-to sets outgrow their share borrows the windows an edge pool
 * leaves free instead of stopping at a fixed split.
 *
 * @example
 * ```ts
 * const budget = new WindowBudget(7);
 * const pts = await createElementPool(ctx, { name: 'pts', capacity: 1024, maxWindows: 6, windowBudget: budget });
 * const edg = await createElementPool(ctx, { name: 'edg', capacity: 1024, maxWindows: 6, windowBudget: budget });
 * budget.available(pts); // 6: edg uses one window
 * ```
 */
export class WindowBudget {
  /** Windows the pools may use together. */
  readonly total: number;
  readonly #used = new Map<object, number>();

  constructor(total: number) {
    this.total = Math.max(1, Math.floor(total));
  }

  /** Windows `pool` may use: the total less what the other pools use now. */
  available(pool: object): number {
    let others = 0;
    for (const [holder, windows] of this.#used) if (holder !== pool) others += windows;
    return this.total - others;
  }

  /** Records the windows `pool` uses now (0 removes it). */
  use(pool: object, windows: number): void {
    if (windows > 0) this.#used.set(pool, windows);
    else this.#used.delete(pool);
  }
}

/** The header as read back from the GPU. */
export interface PoolHeaderState {
  /** Next free element; past `capacity` after an exhausted step (then it holds the step's demand). */
  readonly next: number;
  readonly capacity: number;
  /** Set by the device when an allocation did not fit. */
  readonly exhausted: boolean;
  readonly reserved: number;
}

/** Events of an {@link ElementPool}. */
export type ElementPoolEvents = {
  /** The pool moved to a larger buffer; `demand` is the element count the failed step asked for. */
  grow: (event: { pool: string; from: number; to: number; demand: number }) => void;
  /** {@link ElementPool.compact} dropped the unreachable elements: `from` and `to` elements in use. */
  compact: (event: { pool: string; from: number; to: number }) => void;
};

/** Result of {@link ElementPool.runGrowing}. */
export interface RunGrowingResult {
  /** Times the step ran (1 when it fitted at once). */
  readonly attempts: number;
  /** Capacity after the last run. */
  readonly capacity: number;
  /** Elements in use after the last run. */
  readonly allocated: number;
}

/**
 * A pool of fixed-size elements in GPU memory with an atomic bump pointer: the allocator of the
 * PPoPP'12 Andersen solver. Kernels allocate with `<name>_alloc` (one atomic per subgroup),
 * read and write with `<name>_load` / `<name>_store`; when a step asks for more than the pool holds,
 * the device flags it, the step's writes past the end are skipped, and {@link ElementPool.runGrowing}
 * moves the pool to a larger buffer (contents kept) and re-runs the idempotent step.
 *
 * @example
 * ```ts
 * const pool = await createElementPool(ctx, { name: 'pts', capacity: 1024 });
 * const wgsl = linkWgsl(kernelSource, [pool.allocWgsl(), pool.accessWgsl()]);
 * await pool.runGrowing(async () => {
 *   const layout = defineBindings('my-step', { ...pool.bindingSpecs(), out: { kind: 'storage', type: 'array<u32>' } });
 *   // build the kernel for this layout, bind pool.resources(), dispatch, submit
 * });
 * pool.on('grow', ({ from, to }) => console.log(`pool grew ${from} → ${to}`));
 * ```
 */
export class ElementPool extends (EventEmitter as new () => TypedEmitter.default<ElementPoolEvents>) {
  readonly #ctx: GpuContext;
  readonly name: string;
  readonly elementWords: number;
  readonly reserved: number;
  readonly windowElements: number;
  readonly growthFactor: number;
  readonly header: GPUBuffer;
  /** The most windows this pool may bind (bounded by the budget's free windows when it has one). */
  readonly maxWindows: number;
  readonly #maxCapacity: number;
  readonly #budget: WindowBudget | undefined;
  /** Whether the element buffers come from, and go back to, the context's kept buffers. */
  readonly reuseBuffers: boolean;
  #buffer: GPUBuffer;
  #capacity: number;
  #generation = 0;

  /** Use {@link createElementPool}. */
  constructor(
    ctx: GpuContext,
    init: {
      name: string;
      elementWords: number;
      reserved: number;
      windowElements: number;
      maxCapacity: number;
      maxWindows: number;
      windowBudget?: WindowBudget | undefined;
      growthFactor: number;
      capacity: number;
      buffer: GPUBuffer;
      header: GPUBuffer;
      reuseBuffers?: boolean;
    },
  ) {
    super();
    this.#ctx = ctx;
    this.name = init.name;
    this.elementWords = init.elementWords;
    this.reserved = init.reserved;
    this.windowElements = init.windowElements;
    this.#maxCapacity = init.maxCapacity;
    this.maxWindows = init.maxWindows;
    this.#budget = init.windowBudget;
    this.growthFactor = init.growthFactor;
    this.#capacity = init.capacity;
    this.#buffer = init.buffer;
    this.header = init.header;
    this.reuseBuffers = init.reuseBuffers ?? false;
    this.#budget?.use(this, this.geometry.windows);
  }

  /**
   * Largest capacity growth may reach now: the pool's own bound, and with a {@link WindowBudget}
   * the windows the other pools leave free.
   */
  get maxCapacity(): number {
    if (this.#budget === undefined) return this.#maxCapacity;
    const windows = Math.min(this.maxWindows, this.#budget.available(this));
    return Math.min(this.#maxCapacity, Math.max(this.#capacity, windows * this.windowElements));
  }

  /** Elements the pool holds now. */
  get capacity(): number {
    return this.#capacity;
  }

  /** The buffer holding the elements (replaced by `grow`: re-read it after growing). */
  get buffer(): GPUBuffer {
    return this.#buffer;
  }

  /** Bytes per element. */
  get elementBytes(): number {
    return this.elementWords * 4;
  }

  /** Increments every time the storage moves; bind groups made before are stale. */
  get generation(): number {
    return this.#generation;
  }

  /** Geometry kernels are generated for (the window count follows the capacity). */
  get geometry(): PoolGeometry {
    return {
      name: this.name,
      elementWords: this.elementWords,
      windowElements: this.windowElements,
      windows: Math.max(1, Math.ceil(this.#capacity / this.windowElements)),
    };
  }

  /** Binding specs to spread into a kernel's layout (header, then windows unless `elements` is false). */
  bindingSpecs(options: { elements?: boolean } = {}) {
    return poolBindingSpecs(this.geometry, options.elements ?? true);
  }

  /** The buffers for {@link ElementPool.bindingSpecs}, keyed the same way. */
  resources(options: { elements?: boolean } = {}): Record<string, GPUBufferBinding> {
    const out: Record<string, GPUBufferBinding> = { [`${this.name}_header`]: { buffer: this.header } };
    if (options.elements ?? true) {
      const { windows } = this.geometry;
      for (let w = 0; w < windows; w++) {
        const first = w * this.windowElements;
        const count = Math.min(this.windowElements, this.#capacity - first);
        out[`${this.name}_w${w}`] = {
          buffer: this.#buffer,
          offset: first * this.elementBytes,
          size: count * this.elementBytes,
        };
      }
    }
    return out;
  }

  /**
   * WGSL of `<name>_alloc` for a team mode (default: a subgroup when the context has subgroups,
   * else the workgroup) and of `<name>_alloc_single`.
   */
  allocWgsl(team: TeamMode = this.#ctx.features.subgroups ? 'subgroup' : 'workgroup'): WgslModule {
    return poolAllocWgsl(this.geometry, team, this.#ctx.features.subgroups);
  }

  /** WGSL of `<name>_load` / `<name>_store` for the current capacity. */
  accessWgsl(): WgslModule {
    return poolAccessWgsl(this.geometry);
  }

  /** Reads the header back (one 16-byte readback). */
  async readHeader(): Promise<PoolHeaderState> {
    const words = new Uint32Array(await this.#ctx.readBuffer(this.header, 0, POOL_HEADER_WORDS * 4));
    return {
      next: words[0] ?? 0,
      capacity: words[1] ?? 0,
      exhausted: (words[2] ?? 0) !== 0,
      reserved: words[3] ?? 0,
    };
  }

  /** Elements handed out so far (never more than the capacity). */
  async allocated(): Promise<number> {
    const header = await this.readHeader();
    return Math.min(header.next, header.capacity);
  }

  /**
   * Moves the pool to a buffer of at least `minCapacity` elements (and at least `growthFactor`
   * times the current one), keeping every element's contents. After an exhausted step, the bump
   * pointer is set back to the old capacity (every old index was handed out) and the flag cleared,
   * so the caller can re-run its idempotent step. The new capacity is rounded up to a
   * {@link growthLadder} size, so that runs whose demands differ a little grow through the same
   * sizes (and, with `reuseBuffers`, find the buffers the run before kept).
   */
  async grow(minCapacity = this.#capacity + 1): Promise<number> {
    const ctx = this.#ctx;
    const state = await this.readHeader();
    const from = this.#capacity;
    const wanted = growthLadder(Math.max(minCapacity, Math.ceil(from * this.growthFactor)));
    const most = this.maxCapacity;
    const to = Math.min(most, wanted);
    if (to < minCapacity || to <= from) {
      const windows = Math.ceil(most / this.windowElements);
      throw new PoolCapacityError(
        `pool '${this.name}' needs ${minCapacity} elements but may grow to ${most} at most ` +
          `(${windows} binding window(s) of ${this.windowElements} elements of ${this.elementBytes} bytes: ` +
          `the device's maxStorageBufferBindingSize per window, its storage bindings per shader stage ` +
          `shared with ${this.#budget ? 'the other pools and ' : ''}the kernel's other buffers, and maxBufferSize)`,
        this.name,
        minCapacity,
        most,
      );
    }
    const next = await elementBuffer(
      ctx,
      this.name,
      to,
      this.maxCapacity,
      this.elementBytes,
      this.reuseBuffers,
    );
    await ctx.guard(`grow pool ${this.name}`, () => {
      const encoder = ctx.device.createCommandEncoder({ label: `grow pool ${this.name}` });
      encoder.copyBufferToBuffer(this.#buffer, 0, next, 0, from * this.elementBytes);
      ctx.queue.writeBuffer(
        this.header,
        0,
        new Uint32Array([Math.min(state.next, from), to, 0, this.reserved]),
      );
      ctx.queue.submit([encoder.finish()]);
    });
    // Letting go after submission is safe: the copy runs before anything submitted later.
    this.#letGo(this.#buffer);
    this.#buffer = next;
    this.#capacity = to;
    this.#budget?.use(this, this.geometry.windows);
    this.#generation++;
    this.emit('grow', { pool: this.name, from, to, demand: state.next });
    return to;
  }

  /**
   * Runs `step` (which must encode and submit work using the pool, re-reading `resources()` and
   * the WGSL each time, and must be idempotent), then checks the exhaustion flag; on exhaustion
   * grows the pool to the demand the device recorded and runs the step again.
   */
  async runGrowing(
    step: (pool: ElementPool) => unknown,
    options: { maxAttempts?: number } = {},
  ): Promise<RunGrowingResult> {
    const maxAttempts = options.maxAttempts ?? 32;
    for (let attempt = 1; ; attempt++) {
      await step(this);
      const header = await this.readHeader();
      if (!header.exhausted) {
        return {
          attempts: attempt,
          capacity: this.#capacity,
          allocated: Math.min(header.next, header.capacity),
        };
      }
      if (attempt >= maxAttempts) {
        throw new PoolCapacityError(
          `pool '${this.name}' still exhausted after ${attempt} attempts (demand ${header.next})`,
          this.name,
          header.next,
          this.maxCapacity,
        );
      }
      await this.grow(header.next);
    }
  }

  /** Reads `count` elements from `first` (as `count * elementWords` words). */
  async readElements(first = 0, count = this.#capacity - first): Promise<Uint32Array> {
    this.#checkRange(first, count);
    return new Uint32Array(
      await this.#ctx.readBuffer(this.#buffer, first * this.elementBytes, count * this.elementBytes),
    );
  }

  /** Writes whole elements from `first`; `words.length` must be a multiple of `elementWords`. */
  async writeElements(first: number, words: Uint32Array): Promise<void> {
    if (words.length % this.elementWords !== 0) {
      throw new RangeError(`pool '${this.name}': ${words.length} words is not a whole number of elements`);
    }
    this.#checkRange(first, words.length / this.elementWords);
    await this.#ctx.writeBuffer(this.#buffer, first * this.elementBytes, words);
  }

  /** Frees every element but the reserved ones (contents are left as they are unless `clear`). */
  async reset(options: { clear?: boolean } = {}): Promise<void> {
    const ctx = this.#ctx;
    await ctx.guard(`reset pool ${this.name}`, () => {
      ctx.queue.writeBuffer(
        this.header,
        0,
        new Uint32Array([this.reserved, this.#capacity, 0, this.reserved]),
      );
      if (options.clear) {
        const encoder = ctx.device.createCommandEncoder({ label: `clear pool ${this.name}` });
        encoder.clearBuffer(this.#buffer);
        ctx.queue.submit([encoder.finish()]);
      }
    });
  }

  /**
   * Copies every list reachable from `options.heads` to the start of the pool, in list order, and
   * drops every other element: the garbage a bump pool collects as its users replace lists. The
   * heads are rewritten; no element index held anywhere else stays valid. A list reached from two
   * heads is copied twice, so when sharing would make the copy larger than what is in use, nothing
   * changes. Needs a pool without reserved elements, and GPU memory and storage bindings for a
   * temporary copy of the reachable elements ({@link PoolCapacityError} when the bindings are
   * short); a list longer than the pool throws {@link CorruptListError}. Run it between steps: no
   * other work may use the pool meanwhile.
   *
   * @example
   * ```ts
   * // Each of 1,000 sets keeps a head in `heads`; word 31 links an element to the next.
   * const { before, after } = await pool.compact({ nextWord: 31, heads: [{ buffer: heads, count: 1000 }] });
   * ```
   */
  async compact(options: CompactListsOptions): Promise<CompactListsResult> {
    const ctx = this.#ctx;
    const result = await compactLists(ctx, this, options, (capacity) =>
      createElementPool(ctx, {
        name: `${this.name}_compact`,
        elementWords: this.elementWords,
        capacity,
        windowElements: this.windowElements,
        maxWindows: ctx.limits.maxStorageBuffersPerShaderStage,
      }),
    );
    if (result.after < result.before)
      this.emit('compact', { pool: this.name, from: result.before, to: result.after });
    return result;
  }

  /** Releases both buffers (the element buffer back to the context's kept ones, with `reuseBuffers`). */
  destroy(): void {
    this.#budget?.use(this, 0);
    this.#letGo(this.#buffer);
    this.header.destroy();
    this.removeAllListeners();
  }

  #letGo(buffer: GPUBuffer): void {
    if (this.reuseBuffers) this.#ctx.releaseBuffer(buffer);
    else buffer.destroy();
  }

  override toString(): string {
    const g = this.geometry;
    return `ElementPool(${this.name}: ${this.#capacity} × ${this.elementWords} words, ${g.windows} window(s) of ${g.windowElements})`;
  }

  #checkRange(first: number, count: number): void {
    if (first < 0 || count < 0 || first + count > this.#capacity) {
      throw new RangeError(
        `pool '${this.name}': elements ${first}..${first + count} past capacity ${this.#capacity}`,
      );
    }
  }
}

/**
 * The smallest of four sizes per doubling (4, 5, 6 or 7 times a power of two) that holds
 * `elements`; sizes up to 8 are their own. A pool that grows to a demand grows to one of these, so
 * that two runs whose demands differ by a few elements ask for the same buffer: the second finds
 * the one the first gave back (`reuseBuffers`) instead of creating one, which on the H100 machine
 * cost about 27 ms per GiB and about as much again on first use. At most a quarter more than asked.
 *
 * @example
 * ```ts
 * growthLadder(8); // 8
 * growthLadder(9); // 10 (5 · 2)
 * growthLadder(4_505_842); // 5_242_880 (5 · 2^20)
 * ```
 */
export function growthLadder(elements: number): number {
  if (elements <= 8) return Math.max(0, Math.ceil(elements));
  const step = 2 ** (Math.floor(Math.log2(elements)) - 2);
  return Math.ceil(elements / step) * step;
}

/**
 * Creates an {@link ElementPool}. Throws `PoolCapacityError` when the initial capacity is beyond
 * what the device can bind, `GpuOutOfMemoryError` when the buffer cannot be allocated.
 *
 * @example
 * ```ts
 * const pool = await createElementPool(ctx, { name: 'edges', capacity: 1 << 16, reserved: vertexCount });
 * ```
 */
export async function createElementPool(ctx: GpuContext, options: ElementPoolOptions): Promise<ElementPool> {
  assertWgslIdentifier(options.name);
  const elementWords = options.elementWords ?? DEFAULT_ELEMENT_WORDS;
  if (!Number.isInteger(elementWords) || elementWords < 1)
    throw new RangeError(`bad elementWords ${elementWords}`);
  const elementBytes = elementWords * 4;
  const reserved = options.reserved ?? 0;
  // Windows start at multiples of the storage offset alignment.
  const alignment = ctx.limits.minStorageBufferOffsetAlignment;
  const unit = alignment / gcd(alignment, elementBytes);
  const largestWindow =
    Math.floor(Math.floor(ctx.limits.maxStorageBufferBindingSize / elementBytes) / unit) * unit;
  const windowElements = options.windowElements ?? largestWindow;
  if (windowElements % unit !== 0 || windowElements < unit || windowElements > largestWindow) {
    throw new RangeError(
      `pool '${options.name}': windowElements ${windowElements} must be a multiple of ${unit} and at most ${largestWindow}`,
    );
  }
  const bindingRoom = ctx.limits.maxStorageBuffersPerShaderStage - 4;
  const maxWindows = Math.max(1, Math.min(options.maxWindows ?? 8, bindingRoom));
  const deviceMax = Math.min(
    maxWindows * windowElements,
    Math.floor(ctx.limits.maxBufferSize / elementBytes),
    2 ** 32 - 1,
  );
  const ownMax = Math.min(options.maxCapacity ?? deviceMax, deviceMax);
  const budget = options.windowBudget;
  // With a budget, at most the windows the pools created before left free (a new pool holds none).
  const maxCapacity =
    budget === undefined
      ? ownMax
      : Math.min(ownMax, Math.min(maxWindows, budget.available({})) * windowElements);
  const capacity = Math.max(options.capacity, reserved, 1);
  if (capacity > maxCapacity) {
    throw new PoolCapacityError(
      `pool '${options.name}': capacity ${capacity} exceeds the largest this device allows (${maxCapacity})`,
      options.name,
      capacity,
      maxCapacity,
    );
  }
  const reuseBuffers = options.reuseBuffers ?? false;
  const buffer = await elementBuffer(ctx, options.name, capacity, maxCapacity, elementBytes, reuseBuffers);
  const header = await ctx.createBuffer({
    label: `pool ${options.name} header`,
    size: POOL_HEADER_WORDS * 4,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  });
  await ctx.writeBuffer(header, 0, new Uint32Array([reserved, capacity, 0, reserved]));
  return new ElementPool(ctx, {
    name: options.name,
    elementWords,
    reserved,
    windowElements,
    maxCapacity: ownMax,
    maxWindows,
    windowBudget: budget,
    growthFactor: options.growthFactor ?? 2,
    capacity,
    buffer,
    header,
    reuseBuffers,
  });
}

/**
 * An element buffer of at least `capacity` elements, a kept one when `reuse` allows (see
 * `reuseBuffers`). The pool's capacity stays `capacity` even in a larger kept buffer: then a solve
 * grows through the same sizes as the one before, and finds each of them kept.
 */
async function elementBuffer(
  ctx: GpuContext,
  name: string,
  capacity: number,
  maxCapacity: number,
  elementBytes: number,
  reuse: boolean,
): Promise<GPUBuffer> {
  const descriptor = {
    label: `pool ${name} elements`,
    size: capacity * elementBytes,
    usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
  };
  if (!reuse) return ctx.createBuffer(descriptor);
  const { buffer } = await ctx.reuseBuffer({
    ...descriptor,
    maxSize: Math.min(2 * capacity, maxCapacity) * elementBytes,
  });
  return buffer;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
