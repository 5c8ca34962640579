/**
 * The delta engine on the host: builds the reader index, uploads it, and dispatches batch after
 * batch until a batch ends with no items left, growing the member pool or the item buffer when a
 * batch reports that it ran out. In `workgroup` mode a batch is one dispatch of the persistent
 * kernel of {@link ./kernels/delta.wgsl} (up to `maxRounds` rounds in one workgroup); in `grid`
 * mode it is that kernel with no rounds (first items, recovery) followed by many rounds of six
 * grid dispatches each, recorded into one compute pass.
 * @module
 */
import { type BindingSpec, BufferUsage, defineBindings, type GpuContext } from '@gpumorph/gpu-allocator';
import { CfaAbortedError, CfaEngineError } from '../errors';
import type { CfaMatrices } from '../matrix/program';
import type { CfaStore } from '../store';
import type { CfaBufferPool } from './buffer-pool';
import {
  DEFAULT_FOLLOW_BUDGET,
  DELTA_STATE,
  DELTA_STATE_WORDS,
  type DeltaEntryPoint,
  type DeltaGeometry,
  deltaParams,
  deltaWgsl,
  graphSections,
  ITEM_WORDS,
  memberSegments,
} from './kernels/delta.wgsl';
import { PAGE_WORDS, storeBindingNames } from './kernels/store.wgsl';
import { pageGeometry, type StoreGeometry, storeGeometry } from './layout';
import { readStoreRows } from './readback';

/** Options of {@link solveWebGpu}. */
export interface WebGpuSolveOptions {
  readonly signal?: AbortSignal | undefined;
  /** Rounds in the first dispatch; later dispatches double up to `maxRoundsPerBatch`. */
  readonly roundsPerBatch?: number;
  readonly maxRoundsPerBatch?: number;
  /** Cap on variable rows per store buffer (tests use it to exercise the chunked store). */
  readonly rowsPerChunk?: number;
  /**
   * `dense`: the store is 2·|Lam| full-width bitset rows split over bindings; `paged`: rows are
   * pages of 32 words allocated on first write, through a page table. Default: dense when it fits
   * the device's storage bindings, else paged.
   */
  readonly store?: 'dense' | 'paged';
  /** Pages the paged store starts with (it solves again with twice as many when they run out). */
  readonly pageCapacity?: number;
  /**
   * Bytes one store binding may hold, below the device's limit (tests use it to make a small
   * program need the paged store, many bindings, and a readback in slices).
   */
  readonly maxBindingBytes?: number;
  /** Initial items per half of the item buffer (grows on demand; tests start it tiny). */
  readonly itemCapacity?: number;
  /** Initial members of the member pool (grows on demand; tests start it tiny). */
  readonly poolCapacity?: number;
  /** Follow items of function rows depth first too (default on). */
  readonly followFunctionRows?: boolean;
  /**
   * Joins one invocation makes in a round before the items it would follow go to the next round
   * instead (default {@link DEFAULT_FOLLOW_BUDGET}).
   */
  readonly followBudget?: number;
  /** Threads of the persistent workgroup (default: up to 1024, as the device allows). */
  readonly threads?: number;
  /**
   * `grid`: each round runs over many workgroups, one dispatch per phase, with function rows
   * followed depth first (so rounds are few); `workgroup`: every round in one persistent workgroup.
   * Default: `grid` on a hardware adapter for programs of 100,000 calls or more, else `workgroup`.
   */
  readonly mode?: 'grid' | 'workgroup';
  /** Workgroups of each grid-mode dispatch (default 512 on hardware, 8 on a software adapter). */
  readonly gridWorkgroups?: number;
  /** Grid mode: rounds encoded into the first command buffer; later ones double up to 256. */
  readonly gridRoundsPerBatch?: number;
  /**
   * Takes the store from this pool when it holds one of the right size (cleared on the GPU first)
   * and gives the store back after the solve instead of destroying it ({@link createCfaBufferPool}).
   */
  readonly bufferPool?: CfaBufferPool | undefined;
  /** After each dispatch: rounds so far, and whether items are left. */
  readonly onBatch?: ((rounds: number, changed: boolean) => void) | undefined;
  /** When the item buffer or the member pool grows (capacities in items or members). */
  readonly onGrow?: ((what: 'items' | 'members', from: number, to: number) => void) | undefined;
}

/** Counters and times of one delta-engine run. */
export interface WebGpuStatistics {
  /** Rounds until no item was left. */
  readonly rounds: number;
  /** Command buffers submitted (each ends with a read of the state). */
  readonly batches: number;
  /** Workgroups of each grid-mode dispatch; 0 when every round ran in one workgroup (see {@link WebGpuSolveOptions.mode}). */
  readonly gridWorkgroups: number;
  /** Most items one round produced. */
  readonly peakItems: number;
  /** Members handed out from the pool (the member lists' segments). */
  readonly poolMembers: number;
  /** Times the item buffer or the pool grew. */
  readonly grows: number;
  /** `dense` or `paged` (see {@link WebGpuSolveOptions.store}). */
  readonly storeLayout: 'dense' | 'paged';
  /** Store bindings: dense chunks, or page-table and page-pool bindings. */
  readonly storeChunks: number;
  /** Bytes of the store's bindings. */
  readonly storeBytes: number;
  /** Paged store: pages handed out (0 when dense). */
  readonly pages: number;
  /** Paged store: solves started again because the page pool ran out. */
  readonly restarts: number;
  /** Bytes of all buffers of the run (store, index, marks, members, items). */
  readonly deviceBytes: number;
  /** Wall clock from the first dispatch until the host saw no items left. */
  readonly solveMs: number;
  /** Building and uploading the index, the pipelines, and allocating every buffer. */
  readonly setupMs: number;
  /** Of the setup: building the reader index on the host. */
  readonly indexMs: number;
  /** Of the setup: creating the buffers and uploading the index (a store of hundreds of MiB takes most). */
  readonly allocMs: number;
  /** Bytes of the store taken from `bufferPool` (cleared, not allocated); 0 without a pool. */
  readonly reusedStoreBytes: number;
  /** Turning the bitsets into sorted rows and reading them back. */
  readonly readbackMs: number;
}

/** The reader index and member slots of `m`, in the layout of {@link graphSections}. */
function buildGraph(m: CfaMatrices): { graph: Uint32Array; funRows: number } {
  const L = m.lams;
  const V = 2 * L;
  const C = m.calls;
  let entries = 0;
  const degree = new Uint32Array(V);
  const tally = (row: number) => {
    if (row >= L) {
      degree[row - L] = (degree[row - L] as number) + 1;
      entries++;
    }
  };
  for (let c = 0; c < C; c++) {
    tally(m.fun[c] as number);
    tally(m.arg1[c] as number);
    tally(m.arg2[c] as number);
  }
  const sec = graphSections(C, V);
  const graph = new Uint32Array(sec.readers + 2 * entries);
  graph.set(m.fun, sec.fun);
  graph.set(m.arg1, sec.arg1);
  graph.set(m.arg2, sec.arg2);
  let at = 0;
  for (let v = 0; v < V; v++) {
    graph[sec.readerStart + v] = at;
    at += degree[v] as number;
  }
  graph[sec.readerStart + V] = at;
  graph.fill(0xffff_ffff, sec.funSlot, sec.funSlot + V);
  let funRows = 0;
  for (let c = 0; c < C; c++) {
    const f = m.fun[c] as number;
    if (f >= L && graph[sec.funSlot + f - L] === 0xffff_ffff) graph[sec.funSlot + f - L] = funRows++;
  }
  const fill = new Uint32Array(V);
  const put = (row: number, c: number, kind: number) => {
    if (row < L) return;
    const v = row - L;
    const e = sec.readers + 2 * ((graph[sec.readerStart + v] as number) + (fill[v] as number));
    graph[e] = (c << 2) | kind;
    if (kind !== 0) {
      const f = m.fun[c] as number;
      graph[e + 1] = f < L ? f : L + (graph[sec.funSlot + f - L] as number);
    } else {
      // The pair's first argument comes with the entry: one dependent load fewer per new pair.
      graph[e + 1] = m.arg1[c] as number;
    }
    fill[v] = (fill[v] as number) + 1;
  };
  for (let c = 0; c < C; c++) {
    put(m.fun[c] as number, c, 0);
    put(m.arg1[c] as number, c, 1);
    put(m.arg2[c] as number, c, 2);
  }
  return { graph, funRows };
}

/** Bytes of each store binding of `g`, in the order of `storeBindingNames(g)`. */
function storeChunkBytes(g: StoreGeometry): number[] {
  const sizes = (total: number, per: number) =>
    Array.from({ length: Math.ceil(total / per) }, (_, k) => Math.min(per, total - k * per));
  const p = g.paging;
  if (!p) return sizes(2 * g.lams, g.rowsPerChunk).map((rows) => rows * g.words * 4);
  const entries = 2 * g.lams * Math.ceil(g.words / 32);
  return [
    ...sizes(entries, p.tableEntriesPerChunk).map((n) => n * 4),
    ...sizes(p.pageCapacity, p.pagesPerChunk).map((n) => n * PAGE_WORDS * 4),
  ];
}

/**
 * Programs with fewer calls run every round in one workgroup by default. On the H100 grid mode was
 * faster at n = 4096 and 8192 (127 k and 254 k calls) in every run. Between n = 1536 and 2048 the
 * faster mode changed from one process to the next: in one, grid mode ran 51–64 ms against 69–203 ms
 * for one workgroup; in a later one, 71–127 ms against 57–91 ms. At 1024 it was no faster.
 */
const GRID_MIN_CALLS = 100_000;

/** The grid-mode dispatches of one round, in order (the next round's `grid_prep`, or `grid_close`, closes it). */
const GRID_PHASES: readonly DeltaEntryPoint[] = [
  'grid_prep',
  'grid_reserve',
  'grid_check',
  'grid_undo',
  'grid_members',
  'grid_propagate',
];

const storage = (type: string, access: 'read' | 'read_write' = 'read_write') => ({
  kind: 'storage' as const,
  type,
  access,
});

/**
 * Solves on the GPU with word-level difference propagation in one persistent workgroup, and
 * returns the store as sorted rows (the same as the CPU engine's).
 *
 * @example
 * ```ts
 * const ctx = await acquireGpu();
 * if (ctx) {
 *   const { store, statistics } = await solveWebGpu(ctx, await readMatricesDir('…/vhm/1792'));
 *   console.log(statistics.rounds, statistics.solveMs, store.size);
 * }
 * ```
 */
export async function solveWebGpu(
  ctx: GpuContext,
  m: CfaMatrices,
  options: WebGpuSolveOptions = {},
): Promise<{ store: CfaStore; statistics: WebGpuStatistics }> {
  const plan = planStore(ctx, m, options);
  let sg = plan.geometry;
  for (let restarts = 0; ; restarts++) {
    try {
      const result = await solveOnStore(ctx, m, options, sg, plan.maxBinding);
      return { store: result.store, statistics: { ...result.statistics, restarts } };
    } catch (error) {
      const paging = sg.paging;
      if (!(error instanceof PagePoolFull) || !paging) throw error;
      if (paging.pageCapacity >= plan.maxPages) {
        throw new CfaEngineError(
          `the paged store needs more than ${plan.maxPages} pages, more than ${ctx.limits.maxStorageBuffersPerShaderStage} storage bindings of ${plan.maxBinding} bytes hold`,
        );
      }
      // Whole bindings: a pool that fills the bindings it already has needs no new pipeline.
      const wanted = Math.max(2 * paging.pageCapacity, error.demand);
      const pages = Math.min(plan.maxPages, Math.ceil(wanted / paging.pagesPerChunk) * paging.pagesPerChunk);
      sg = { ...sg, paging: pageGeometry(m.lams, pages, plan.maxBinding, PAGE_WORDS) };
    }
  }
}

/** The kernels a solve runs: the grid's (one persistent grid) for large programs on hardware, else the workgroup's. */
function solveMode(ctx: GpuContext, m: CfaMatrices, options: WebGpuSolveOptions): 'grid' | 'workgroup' {
  return options.mode ?? (!ctx.adapter.software && m.calls >= GRID_MIN_CALLS ? 'grid' : 'workgroup');
}

/** Thrown inside a solve when the paged store's pool is full: the solve starts again with more pages. */
class PagePoolFull extends Error {
  constructor(readonly demand: number) {
    super('the page pool is full');
  }
}

/** Storage bindings of the delta kernel besides the store's. */
const OTHER_BINDINGS = 6;

/**
 * The store's layout for `m` on this device: dense when its chunks fit the storage bindings (and
 * `options.store` allows), else paged; limits are checked here, before anything is allocated.
 */
function planStore(
  ctx: GpuContext,
  m: CfaMatrices,
  options: WebGpuSolveOptions,
): { geometry: StoreGeometry; maxBinding: number; maxPages: number } {
  if (m.calls >= 2 ** 30)
    throw new CfaEngineError(`${m.calls} calls: the reader index holds call numbers below 2^30`);
  const deviceBinding = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  const maxBinding = Math.min(deviceBinding, options.maxBindingBytes ?? deviceBinding);
  const room = ctx.limits.maxStorageBuffersPerShaderStage - OTHER_BINDINGS;
  const V = 2 * m.lams;
  const dense = storeGeometry(m.lams, m.calls, maxBinding, options.rowsPerChunk);
  const sw = Math.ceil(dense.words / 32);
  const topWords = V * Math.ceil(sw / 32);
  const blocks = V * sw;
  const tooBig = (what: string, bytes: number, limit: number) => {
    if (bytes > limit)
      throw new CfaEngineError(`${what} needs ${bytes} bytes, more than one binding holds (${limit})`);
  };
  let readerEntries = 0;
  for (const rows of [m.fun, m.arg1, m.arg2]) for (const r of rows) if (r >= m.lams) readerEntries++;
  tooBig('the reader index', (3 * m.calls + 2 * V + 1 + 2 * readerEntries) * 4, deviceBinding);
  if (blocks >= 2 ** 32) throw new CfaEngineError(`${blocks} store blocks: block numbers are 32-bit`);
  // The grid kernels over a dense store of several bindings answered a 100,967-lambda program
  // with 516,000 store entries missing on the H100 (the workgroup kernels, and the grid kernels
  // over a paged store, answered it exactly): that pairing is not used until the cause is found.
  const gridOverChunks = solveMode(ctx, m, options) === 'grid' && dense.chunks > 1;
  const denseFits = dense.chunks <= room && (2 * blocks + topWords) * 4 <= deviceBinding && !gridOverChunks;
  if (options.store === 'dense' && gridOverChunks) {
    throw new CfaEngineError(
      `the dense store needs ${dense.chunks} bindings, and the grid kernels over a dense store of several bindings are not exact: use store 'paged' or mode 'workgroup'`,
    );
  }
  if (options.store === 'dense' || (options.store !== 'paged' && denseFits)) {
    if (dense.chunks > room) {
      throw new CfaEngineError(
        `the store (${V} rows × ${dense.words} words) needs ${dense.chunks} buffers of at most ${maxBinding} bytes, ` +
          `but a kernel may bind only ${room + OTHER_BINDINGS} storage buffers (${OTHER_BINDINGS} besides the store)`,
      );
    }
    tooBig("the dense store's marks", (2 * blocks + topWords) * 4, deviceBinding);
    return { geometry: dense, maxBinding, maxPages: 0 };
  }
  tooBig('the top summary', topWords * 4, deviceBinding);
  const probe = pageGeometry(m.lams, 1, maxBinding, PAGE_WORDS);
  const maxPages = Math.min(2 ** 32 - 2, (room - probe.tableChunks) * probe.pagesPerChunk);
  if (maxPages < 1) {
    throw new CfaEngineError(
      `the store (${V} rows × ${dense.words} words) needs ${dense.chunks} buffers of at most ${maxBinding} bytes dense, ` +
        `and its page table ${probe.tableChunks}, but a kernel may bind only ${room + OTHER_BINDINGS} storage buffers (${OTHER_BINDINGS} besides the store)`,
    );
  }
  // Nearly every variable row of a program gets a member: one page each to start with.
  const pages = Math.min(maxPages, Math.max(1, options.pageCapacity ?? Math.max(4096, V)));
  const geometry = { ...dense, chunks: 0, paging: pageGeometry(m.lams, pages, maxBinding, PAGE_WORDS) };
  return { geometry, maxBinding, maxPages };
}

/** One solve on a store of layout `sg` (throws {@link PagePoolFull} when a paged store runs out of pages). */
async function solveOnStore(
  ctx: GpuContext,
  m: CfaMatrices,
  options: WebGpuSolveOptions,
  sg: StoreGeometry,
  maxBinding: number,
): Promise<{ store: CfaStore; statistics: Omit<WebGpuStatistics, 'restarts'> }> {
  const setupStart = performance.now();
  const { graph, funRows } = buildGraph(m);
  const indexMs = performance.now() - setupStart;
  const threads =
    options.threads ??
    Math.min(1024, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  const V = 2 * m.lams;
  // Duplicates (from recovered dirty words) can push a list past |Lam|; 4·|Lam| leaves room.
  const g: DeltaGeometry = {
    ...sg,
    summaryWords: Math.ceil(sg.words / 32),
    funRows: Math.max(1, funRows),
    segments: memberSegments(4 * m.lams),
    threads,
    followBudget: Math.max(1, Math.min(0xffffffff, options.followBudget ?? DEFAULT_FOLLOW_BUDGET)),
  };
  const specs: Record<string, BindingSpec> = {
    params: { kind: 'uniform', type: 'DeltaParams' },
    state: storage('array<atomic<u32>>'),
    graph: storage('array<u32>', 'read'),
    marks: storage('array<atomic<u32>>'),
    memIndex: storage('array<atomic<u32>>'),
    pool: storage('array<u32>'),
    items: storage('array<u32>'),
  };
  const storeNames = storeBindingNames(g);
  for (const name of storeNames) specs[name] = storage('array<atomic<u32>>');
  const layout = defineBindings(
    `eigencfa delta (${g.paging ? 'paged, ' : ''}${storeNames.length} store bindings)`,
    specs,
  );
  const mode = solveMode(ctx, m, options);
  // Following function rows cuts the rounds from 2n to about n/13 on the Van Horn–Mairson
  // programs; with the follow budget it is faster in both modes (see DEFAULT_FOLLOW_BUDGET).
  const follow = options.followFunctionRows ?? true;
  const code = deltaWgsl(layout.wgsl(), {
    chunks: g.chunks,
    paging: g.paging,
    threads,
    followFunctionRows: follow,
  });
  const entry = (entryPoint: DeltaEntryPoint) =>
    ctx.kernels.get({ label: `eigencfa delta ${entryPoint}`, code, layout, entryPoint });
  const kernel = await entry('main');
  const gridKernels = mode === 'grid' ? await Promise.all(GRID_PHASES.map(entry)) : [];
  const gridClose = mode === 'grid' ? await entry('grid_close') : undefined;
  const gridWorkgroups = Math.max(1, options.gridWorkgroups ?? (ctx.adapter.software ? 8 : 512));

  const allocStart = performance.now();
  const owned = new Set<GPUBuffer>();
  let deviceBytes = 0;
  const buffer = async (label: string, size: number, usage: number, data?: Uint32Array) => {
    const bytes = Math.max(16, Math.ceil(size / 4) * 4);
    const b = await ctx.createBuffer({
      label,
      size: bytes,
      usage: usage | BufferUsage.COPY_DST | BufferUsage.COPY_SRC,
    });
    owned.add(b);
    deviceBytes += bytes;
    if (data) await ctx.writeBuffer(b, 0, data);
    return b;
  };
  const bufferPool = options.bufferPool;
  if (bufferPool && bufferPool.ctx !== ctx)
    throw new CfaEngineError('bufferPool belongs to another GPU context');
  const pooled = new Set<GPUBuffer>();
  let reusedStoreBytes = 0;
  const storeBuffer = async (label: string, size: number) => {
    if (!bufferPool) return { b: await buffer(label, size, BufferUsage.STORAGE), reused: false };
    const bytes = Math.max(16, Math.ceil(size / 4) * 4);
    const usage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    const { buffer: b, reused } = await bufferPool.take(label, bytes, usage);
    pooled.add(b);
    deviceBytes += bytes;
    if (reused) reusedStoreBytes += bytes;
    return { b, reused };
  };
  let solved = false;
  const release = (b: GPUBuffer) => {
    owned.delete(b);
    deviceBytes -= b.size;
    b.destroy();
  };
  const copy = async (
    label: string,
    from: GPUBuffer,
    fromOffset: number,
    to: GPUBuffer,
    toOffset: number,
    bytes: number,
  ) => {
    if (bytes === 0) return;
    const command = await ctx.guard(label, () => {
      const encoder = ctx.device.createCommandEncoder({ label });
      encoder.copyBufferToBuffer(from, fromOffset, to, toOffset, bytes);
      return encoder.finish();
    });
    await ctx.submit(label, [command]);
  };
  try {
    const S = BufferUsage.STORAGE;
    const deviceBinding = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
    const maxItems = Math.floor(deviceBinding / (2 * ITEM_WORDS * 4));
    const maxPool = Math.floor(deviceBinding / 4);
    let itemCapacity = Math.min(maxItems, Math.max(1, options.itemCapacity ?? Math.max(4096, m.calls)));
    let poolCapacity = Math.min(maxPool, Math.max(1, options.poolCapacity ?? Math.max(4096, 4 * m.calls)));
    const params = await buffer('eigencfa delta params', 64, BufferUsage.UNIFORM, deltaParams(g));
    const state = await buffer('eigencfa delta state', DELTA_STATE_WORDS * 4, S);
    const graphBuffer = await buffer('eigencfa delta index', graph.length * 4, S, graph);
    // Summary (a bit per nonzero store word), dirty marks, and the top summary (a bit per nonzero summary word).
    // Paged, the summary and the dirty marks are in the pages.
    const topWords = V * Math.ceil(g.summaryWords / 32);
    const marksWords = (g.paging ? 0 : 2 * V * g.summaryWords) + topWords;
    const marks = await buffer('eigencfa delta marks', marksWords * 4, S);
    const memIndex = await buffer('eigencfa delta member index', g.funRows * (1 + g.segments) * 4, S);
    let pool = await buffer('eigencfa delta member pool', poolCapacity * 4, S);
    let items = await buffer('eigencfa delta items', 2 * itemCapacity * ITEM_WORDS * 4, S);
    const stores: GPUBuffer[] = [];
    for (const [k, bytes] of storeChunkBytes(g).entries())
      stores.push((await storeBuffer(`eigencfa ${storeNames[k]}`, bytes)).b);
    // Every store is cleared here, a reused one because it holds the last solve's sets, a new one so
    // that zeroing it counts as setup rather than being left to Dawn's lazy initialisation inside the
    // first dispatch. (The first solve on a new store still ran slower than later ones on the H100
    // in the bench: 197 ms against 38 ms at n = 1792.)
    const clear = await ctx.guard('eigencfa clear store', () => {
      const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa clear store' });
      for (const b of stores) encoder.clearBuffer(b);
      return encoder.finish();
    });
    await ctx.submit('eigencfa clear store', [clear]);
    const init = new Uint32Array(DELTA_STATE_WORDS);
    init[DELTA_STATE.itemCapacity] = itemCapacity;
    init[DELTA_STATE.poolCapacity] = poolCapacity;
    await ctx.writeBuffer(state, 0, init);
    const bindGroup = () =>
      kernel.bindGroup({
        params,
        state,
        graph: graphBuffer,
        marks,
        memIndex,
        pool,
        items,
        ...Object.fromEntries(stores.map((b, k) => [storeNames[k], b])),
      } as never);
    let group = await ctx.guard('eigencfa delta bind group', bindGroup);
    const allocMs = performance.now() - allocStart;
    const setupMs = performance.now() - setupStart;

    const solveStart = performance.now();
    let batch = Math.max(
      1,
      mode === 'grid' ? (options.gridRoundsPerBatch ?? 64) : (options.roundsPerBatch ?? 512),
    );
    const maxBatch = Math.max(batch, mode === 'grid' ? 256 : (options.maxRoundsPerBatch ?? 1 << 16));
    let batches = 0;
    let grows = 0;
    let s: Uint32Array;
    for (;;) {
      if (options.signal?.aborted)
        throw new CfaAbortedError('CFA cancelled', { cause: options.signal.reason });
      // Grid mode: the persistent kernel only makes the first items or recovers dirty words (no
      // rounds); `batch` rounds follow as grid dispatches.
      await ctx.writeBuffer(state, DELTA_STATE.maxRounds * 4, Uint32Array.of(mode === 'grid' ? 0 : batch));
      const command = await ctx.guard('eigencfa delta', () => {
        const encoder = ctx.device.createCommandEncoder({ label: 'eigencfa delta' });
        const pass = encoder.beginComputePass({ label: 'eigencfa delta' });
        pass.setBindGroup(0, group);
        pass.setPipeline(kernel.pipeline);
        pass.dispatchWorkgroups(1);
        if (mode === 'grid') {
          for (let r = 0; r < batch; r++) {
            for (const [k, phase] of gridKernels.entries()) {
              pass.setPipeline(phase.pipeline);
              pass.dispatchWorkgroups(
                GRID_PHASES[k] === 'grid_prep' || GRID_PHASES[k] === 'grid_check' ? 1 : gridWorkgroups,
              );
            }
          }
          pass.setPipeline((gridClose as typeof kernel).pipeline);
          pass.dispatchWorkgroups(1);
        }
        pass.end();
        return encoder.finish();
      });
      await ctx.submit('eigencfa delta', [command]);
      batches++;
      s = new Uint32Array(await ctx.readBuffer(state, 0, DELTA_STATE_WORDS * 4));
      if (s[DELTA_STATE.pageOverflow]) throw new PagePoolFull(s[DELTA_STATE.pageNext] as number);
      if (s[DELTA_STATE.segmentOverflow]) {
        throw new CfaEngineError(
          'a member list passed its last segment (more than 4·|Lam| members): the index is inconsistent',
        );
      }
      const count = s[DELTA_STATE.count] as number;
      options.onBatch?.(s[DELTA_STATE.rounds] as number, count > 0);
      if (s[DELTA_STATE.poolOverflow]) {
        // The round was undone before it started: grow the pool (members keep their indices) and run it again.
        const need = (s[DELTA_STATE.poolNext] as number) + (s[DELTA_STATE.poolDemand] as number);
        const wanted = Math.min(maxPool, Math.max(2 * poolCapacity, 2 * need));
        if (wanted < need)
          throw new CfaEngineError(`the member pool needs ${need} members, more than one binding holds`);
        const next = await buffer('eigencfa delta member pool', wanted * 4, S);
        await copy(
          'eigencfa grow members',
          pool,
          0,
          next,
          0,
          Math.min(s[DELTA_STATE.poolNext] as number, poolCapacity) * 4,
        );
        release(pool);
        pool = next;
        options.onGrow?.('members', poolCapacity, wanted);
        poolCapacity = wanted;
        grows++;
        await ctx.writeBuffer(state, DELTA_STATE.poolOverflow * 4, Uint32Array.of(0));
        await ctx.writeBuffer(state, DELTA_STATE.poolCapacity * 4, Uint32Array.of(poolCapacity));
        group = await ctx.guard('eigencfa delta bind group', bindGroup);
        continue;
      }
      if (s[DELTA_STATE.itemOverflow]) {
        // The items that did not fit are dirty marks: grow, keep the current half, and recover them.
        const wanted = Math.min(
          maxItems,
          Math.max(2 * itemCapacity, 2 * (s[DELTA_STATE.itemPeak] as number)),
        );
        if (wanted <= itemCapacity)
          throw new CfaEngineError(`a round needs more items than one binding holds (${itemCapacity})`);
        const next = await buffer('eigencfa delta items', 2 * wanted * ITEM_WORDS * 4, S);
        const parity = s[DELTA_STATE.parity] as number;
        const bytes = count * ITEM_WORDS * 4;
        await copy(
          'eigencfa grow items',
          items,
          parity * itemCapacity * ITEM_WORDS * 4,
          next,
          parity * wanted * ITEM_WORDS * 4,
          bytes,
        );
        release(items);
        items = next;
        options.onGrow?.('items', itemCapacity, wanted);
        itemCapacity = wanted;
        grows++;
        const update = new Uint32Array(DELTA_STATE_WORDS);
        update.set(s);
        update[DELTA_STATE.itemOverflow] = 0;
        update[DELTA_STATE.itemCapacity] = itemCapacity;
        update[DELTA_STATE.recover] = 1;
        await ctx.writeBuffer(state, 0, update);
        group = await ctx.guard('eigencfa delta bind group', bindGroup);
        continue;
      }
      if (count === 0) break;
      batch = Math.min(maxBatch, batch * 2);
    }
    const solveMs = performance.now() - solveStart;
    const readStart = performance.now();
    const store = await readStoreRows(ctx, g, stores, buffer, maxBinding);
    const readbackMs = performance.now() - readStart;
    solved = true;
    return {
      store,
      statistics: {
        rounds: s[DELTA_STATE.rounds] as number,
        batches,
        gridWorkgroups: mode === 'grid' ? gridWorkgroups : 0,
        peakItems: s[DELTA_STATE.itemPeak] as number,
        poolMembers: s[DELTA_STATE.poolNext] as number,
        grows,
        storeLayout: g.paging ? 'paged' : 'dense',
        storeChunks: stores.length,
        storeBytes: stores.reduce((sum, b) => sum + b.size, 0),
        pages: g.paging ? Math.min(s[DELTA_STATE.pageNext] as number, g.paging.pageCapacity) : 0,
        deviceBytes,
        solveMs,
        setupMs,
        readbackMs,
        indexMs,
        allocMs,
        reusedStoreBytes,
      },
    };
  } finally {
    for (const b of owned) b.destroy();
    // A failed solve's store goes (the device may be lost); a finished one's waits in the pool.
    for (const b of pooled) {
      if (solved && bufferPool) bufferPool.give(b);
      else b.destroy();
    }
  }
}
