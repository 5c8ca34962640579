/**
 * The delta engine on the host: builds the reader index, uploads it, and dispatches batch after
 * batch until a batch ends with no items left, growing the member pool or the item buffer when a
 * batch reports that it ran out. In `workgroup` mode a batch is one dispatch of the persistent
 * kernel of {@link ./kernels/delta.wgsl} (up to `maxRounds` rounds in one workgroup); in `grid`
 * mode it is that kernel with no rounds (first items, recovery) followed by many rounds of six
 * grid dispatches each, recorded into one compute pass.
 * @module
 */
import { type BindingSpec, defineBindings, type GpuContext } from '@gpumorph/gpu-allocator';
import { CfaEngineError } from '../errors';
import type { CfaMatrices } from '../matrix/program';
import type { CfaStore } from '../store';
import type { CfaBufferPool } from './buffer-pool';
import { allocateDelta, DeltaBuffers, type DeltaKernels, PagePoolFull, runDeltaBatches } from './delta-run';
import {
  DEFAULT_FOLLOW_BUDGET,
  DELTA_STATE,
  type DeltaEntryPoint,
  type DeltaGeometry,
  deltaWgsl,
  graphSections,
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
function buildGraph(m: CfaMatrices): { graph: Uint32Array; funRows: number; readerEntries: number } {
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
  const arity = m.arity;
  const graph = new Uint32Array(sec.arity(entries) + (arity ? m.calls + m.lams : 0));
  if (arity) {
    graph.set(arity.calls, sec.arity(entries));
    graph.set(arity.lambdas, sec.arity(entries) + m.calls);
  }
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
  return { graph, funRows, readerEntries: entries };
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
  const arityWords = m.arity ? m.calls + m.lams : 0;
  tooBig('the reader index', (3 * m.calls + 2 * V + 1 + 2 * readerEntries + arityWords) * 4, deviceBinding);
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
  const { graph, funRows, readerEntries } = buildGraph(m);
  const indexMs = performance.now() - setupStart;
  const threads =
    options.threads ??
    Math.min(1024, ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX);
  // Duplicates (from recovered dirty words) can push a list past |Lam|; 4·|Lam| leaves room.
  const g: DeltaGeometry = {
    ...sg,
    readerEntries,
    summaryWords: Math.ceil(sg.words / 32),
    funRows: Math.max(1, funRows),
    segments: memberSegments(4 * m.lams),
    threads,
    followBudget: Math.max(1, Math.min(0xffffffff, options.followBudget ?? DEFAULT_FOLLOW_BUDGET)),
  };
  const mode = solveMode(ctx, m, options);
  const { kernels, storeNames } = await deltaKernels(ctx, g, mode, options, m.arity !== undefined);
  const gridWorkgroups = kernels.gridClose ? (kernels.gridPhases[1]?.workgroups ?? 0) : 0;
  const allocStart = performance.now();
  const buffers = new DeltaBuffers(ctx, options.bufferPool);
  let solved = false;
  try {
    const device = await allocateDelta(
      ctx,
      buffers,
      g,
      graph,
      storeNames,
      storeChunkBytes(g),
      options,
      m.calls,
    );
    const allocMs = performance.now() - allocStart;
    const setupMs = performance.now() - setupStart;
    const solveStart = performance.now();
    const { state: s, batches, grows } = await runDeltaBatches(ctx, buffers, device, kernels, options);
    const solveMs = performance.now() - solveStart;
    const readStart = performance.now();
    const store = await readStoreRows(ctx, g, device.stores, buffers.create, maxBinding);
    const readbackMs = performance.now() - readStart;
    solved = true;
    return {
      store,
      statistics: {
        rounds: s[DELTA_STATE.rounds] as number,
        batches,
        gridWorkgroups,
        peakItems: s[DELTA_STATE.itemPeak] as number,
        poolMembers: s[DELTA_STATE.poolNext] as number,
        grows,
        storeLayout: g.paging ? 'paged' : 'dense',
        storeChunks: device.stores.length,
        storeBytes: device.stores.reduce((sum, b) => sum + b.size, 0),
        pages: g.paging ? Math.min(s[DELTA_STATE.pageNext] as number, g.paging.pageCapacity) : 0,
        deviceBytes: buffers.deviceBytes,
        solveMs,
        setupMs,
        readbackMs,
        indexMs,
        allocMs,
        reusedStoreBytes: buffers.reusedStoreBytes,
      },
    };
  } finally {
    buffers.finish(solved);
  }
}

/** The bindings and pipelines of a solve of geometry `g` in `mode`. */
async function deltaKernels(
  ctx: GpuContext,
  g: DeltaGeometry,
  mode: 'grid' | 'workgroup',
  options: WebGpuSolveOptions,
  arity: boolean,
): Promise<{ kernels: DeltaKernels; storeNames: string[] }> {
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
  // Following function rows cuts the rounds from 2n to about n/13 on the Van Horn–Mairson
  // programs; with the follow budget it is faster in both modes (see DEFAULT_FOLLOW_BUDGET).
  const code = deltaWgsl(layout.wgsl(), {
    chunks: g.chunks,
    paging: g.paging,
    threads: g.threads,
    followFunctionRows: options.followFunctionRows ?? true,
    arity,
  });
  const entry = (entryPoint: DeltaEntryPoint) =>
    ctx.kernels.get({ label: `eigencfa delta ${entryPoint}`, code, layout, entryPoint });
  const main = await entry('main');
  if (mode !== 'grid') return { kernels: { main, gridPhases: [], gridClose: undefined }, storeNames };
  const workgroups = Math.max(1, options.gridWorkgroups ?? (ctx.adapter.software ? 8 : 512));
  const gridPhases = await Promise.all(
    GRID_PHASES.map(async (phase) => ({
      kernel: await entry(phase),
      // grid_prep and grid_check are one invocation's bookkeeping.
      workgroups: phase === 'grid_prep' || phase === 'grid_check' ? 1 : workgroups,
    })),
  );
  return { kernels: { main, gridPhases, gridClose: await entry('grid_close') }, storeNames };
}
