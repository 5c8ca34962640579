import type { BlockedLayout } from './closure-blocked';
import { type CellOp, type ElementwiseKernel, sharedElementwiseModule } from './wasm/elementwise';
import { CLOSURE_KERNEL_SHARED_BASE64 } from './wasm/kernels';
import type { ClosureSweep } from './wasm/simd';

/**
 * Worker threads for the blocked f64 closure of large octagons ({@link createClosureThreads}),
 * and for the cell-by-cell operators of matrix pools created with them (`createMatrixPool(dim,
 * { threads })`). Nothing starts a thread unless this object is created and passed; `destroy()`
 * ends them.
 */
export interface ClosureThreads {
  /** Threads that share a closure, the calling one included. */
  readonly threads: number;
  /** Ends the worker threads; a later closure given this object throws (pools fall back to one thread). */
  destroy(): void;
  /** @internal One closure over a fresh shared memory of `layout.total` doubles. */
  begin(layout: BlockedLayout): ClosureRun | undefined;
  /**
   * @internal The cell-by-cell kernels over a fresh shared memory of `bytes` bytes, whose join,
   * meet, widening and narrowing of at least {@link PARALLEL_CELLS} cells split the cells among
   * the threads; undefined where the workers cannot take it.
   */
  elementwiseKernel(bytes: number): ElementwiseKernel | undefined;
}

/** Cells from which a pool's operator is split among the threads (below, waking them costs more). */
export const PARALLEL_CELLS = 1 << 17;

/**
 * The cells `[from, to)` of thread `t` of `T` for an operator over `len` cells: multiples of 8 (a
 * cache line). The worker's copy is in {@link WORKER_SOURCE}.
 */
function cellRange(t: number, T: number, len: number): [number, number] {
  const at = (s: number) => Math.floor((len * s) / T / 8) * 8;
  return [at(t), t + 1 === T ? len : at(t + 1)];
}

/** @internal */
export interface ClosureRun {
  readonly kernel: ClosureSweep;
  /** Runs one phase of a block on every thread; `own(from, to)` is the calling thread's rows. */
  phase(kind: 'paths' | 'sweep', p0: number, kp: number, own: (from: number, to: number) => void): void;
  end(): void;
}

/**
 * The rows of thread `t` of `T` for a phase: equal counts for C, equal cells for the half matrix
 * (row i holds about i cells). The worker's copy is in {@link WORKER_SOURCE}.
 */
function rowRange(kind: 'paths' | 'sweep', t: number, T: number, nodes: number): [number, number] {
  const at = (s: number) =>
    kind === 'paths' ? Math.floor((nodes * s) / T) : Math.min(nodes, Math.round(nodes * Math.sqrt(s / T)));
  return [at(t), at(t + 1)];
}

// control words of the shared Int32Array
const GEN = 0;
const CMD = 1;
const DONE = 2;
const P0 = 3;
const KP = 4;
const FAILED = 5;
// the cell-by-cell operators of pools: generation, pool, operator, offsets (in cells), length, done, ready
const EGEN = 8;
const EPOOL = 9;
const EOP = 10;
const ED = 11;
const EA = 12;
const EB = 13;
const ELEN = 14;
const EDONE = 15;
const EREADY = 16;
const CELL_OPS: readonly CellOp[] = ['max', 'min', 'widen', 'narrow'];
const PATHS = 1;
const SWEEP = 2;
const END = 3;

/**
 * The worker's code (a CommonJS string, so it runs from the source tree and from the bundle
 * alike): per closure it binds the kernels to the shared memory, then runs the phases the calling
 * thread announces through the control words until the end of the closure. Between closures it
 * waits (without blocking its event loop) for the cell-by-cell operators of the pools it was
 * given, each announced by a new generation of the control words.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { ctrl, module, emodule, index, threads } = workerData;
process.on('uncaughtException', () => {
  Atomics.store(ctrl, ${FAILED}, 1);
  Atomics.notify(ctrl, ${DONE});
  Atomics.notify(ctrl, ${EDONE});
});
const pools = new Map();
const CELL_OPS = ${JSON.stringify(CELL_OPS)};
function cellRange(t, T, len) {
  const at = (s) => Math.floor((len * s) / T / 8) * 8;
  return [at(t), t + 1 === T ? len : at(t + 1)];
}
let cellGen = Atomics.load(ctrl, ${EGEN});
function awaitCellOp() {
  const r = Atomics.waitAsync(ctrl, ${EGEN}, cellGen);
  if (r.async) r.value.then(runCellOp);
  else runCellOp();
}
function runCellOp() {
  cellGen = Atomics.load(ctrl, ${EGEN});
  try {
    const k = pools.get(Atomics.load(ctrl, ${EPOOL}));
    const [from, to] = cellRange(index, threads, Atomics.load(ctrl, ${ELEN}));
    const at = (w) => 8 * (Atomics.load(ctrl, w) + from);
    if (to > from) k[CELL_OPS[Atomics.load(ctrl, ${EOP})]](at(${ED}), at(${EA}), at(${EB}), to - from);
  } catch {
    Atomics.store(ctrl, ${FAILED}, 1);
  }
  Atomics.add(ctrl, ${EDONE}, 1);
  Atomics.notify(ctrl, ${EDONE});
  awaitCellOp();
}
awaitCellOp();
const rowStart = (i) => ((i + 1) * (i + 1)) >> 1;
const matPos = (i, j) => (j > (i | 1) ? (i ^ 1) + rowStart(j ^ 1) : j + rowStart(i));
function rowRange(kind, t, T, nodes) {
  const at = (s) => (kind === 'paths' ? Math.floor((nodes * s) / T) : Math.min(nodes, Math.round(nodes * Math.sqrt(s / T))));
  return [at(t), at(t + 1)];
}
parentPort.on('message', ({ pool, memory, L, gen0 }) => {
  if (pool !== undefined) {
    try {
      pools.set(pool, new WebAssembly.Instance(emodule, { env: { memory } }).exports);
    } catch {
      Atomics.store(ctrl, ${FAILED}, 1);
    }
    Atomics.add(ctrl, ${EREADY}, 1);
    Atomics.notify(ctrl, ${EREADY});
    return;
  }
  let kernel;
  let view;
  try {
    kernel = new WebAssembly.Instance(module, { env: { memory } }).exports;
    view = new Float64Array(memory.buffer, 0, L.total);
  } catch {
    Atomics.store(ctrl, ${FAILED}, 1);
  }
  let expected = gen0;
  for (;;) {
    while (Atomics.load(ctrl, ${GEN}) === expected) Atomics.wait(ctrl, ${GEN}, expected);
    expected++;
    const cmd = Atomics.load(ctrl, ${CMD});
    try {
      if (kernel && cmd !== ${END}) {
        const p0 = Atomics.load(ctrl, ${P0});
        const kp = Atomics.load(ctrl, ${KP});
        const [from, to] = rowRange(cmd === ${PATHS} ? 'paths' : 'sweep', index, threads, L.nodes);
        for (let i = from; i < to; i++) {
          if (cmd === ${PATHS}) {
            const row = L.cOff + i * kp;
            for (let l = 0; l < kp; l++) view[row + l] = view[matPos(i, p0 + l)];
            kernel.minplus(8 * row, kp, 8 * row, 8 * L.dOff, kp);
          } else kernel.minplus(8 * rowStart(i), (i | 1) + 1, 8 * (L.cOff + i * kp), 8 * L.panelOff, kp);
        }
      }
    } catch {
      Atomics.store(ctrl, ${FAILED}, 1);
    }
    Atomics.add(ctrl, ${DONE}, 1);
    Atomics.notify(ctrl, ${DONE});
    if (cmd === ${END}) break;
  }
});
`;

interface WorkerLike {
  postMessage(message: unknown): void;
  terminate(): unknown;
  unref(): void;
}
interface WorkerThreadsModule {
  Worker: new (source: string, options: { eval: true; workerData: unknown }) => WorkerLike;
}
interface SharedWasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum: number; shared: true }) => { buffer: ArrayBufferLike };
}

/** Options of {@link createClosureThreads}. */
export interface ClosureThreadsOptions {
  /** Threads per closure, the calling one included (default 2; at least 2). */
  readonly threads?: number;
}

/**
 * Starts `threads − 1` worker threads (Node's `worker_threads`) for the blocked f64 closure:
 * each closure splits the rows of both phases of every pivot block among them and the calling
 * thread, over a shared WebAssembly memory, and waits for them (`Atomics.wait`) — the closure
 * stays synchronous. Undefined where worker threads, shared memory or WebAssembly SIMD are
 * missing (browsers included). The workers do not keep a process alive; `destroy()` ends them.
 *
 * @example
 * ```ts
 * const threads = createClosureThreads({ threads: 4 });
 * const F = createOctagonDomain({ engine: 'f64', kind: 'int', threads });
 * // … dense closures of octagons of 256 variables and more use 4 threads …
 * threads?.destroy();
 * ```
 */
export function createClosureThreads(options: ClosureThreadsOptions = {}): ClosureThreads | undefined {
  const T = Math.max(2, Math.floor(options.threads ?? 2));
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as WorkerThreadsModule | undefined;
  const wasm = (globalThis as { WebAssembly?: SharedWasmApi }).WebAssembly;
  if (!wt || !wasm || typeof SharedArrayBuffer === 'undefined') return undefined;
  let module: object;
  let emodule: object;
  try {
    const code = Uint8Array.from(atob(CLOSURE_KERNEL_SHARED_BASE64), (c) => c.charCodeAt(0));
    if (!wasm.validate(code)) return undefined;
    module = new wasm.Module(code);
    const shared = sharedElementwiseModule();
    if (shared === undefined) return undefined;
    emodule = shared;
  } catch {
    return undefined;
  }
  const ctrl = new Int32Array(new SharedArrayBuffer(32 * 4));
  const workers: WorkerLike[] = [];
  for (let t = 1; t < T; t++) {
    const w = new wt.Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ctrl, module, emodule, index: t, threads: T },
    });
    w.unref();
    workers.push(w);
  }
  let destroyed = false;
  const announce = (cmd: number) => {
    Atomics.store(ctrl, DONE, 0);
    Atomics.store(ctrl, CMD, cmd);
    Atomics.add(ctrl, GEN, 1);
    Atomics.notify(ctrl, GEN);
  };
  /** Waits until every worker is done with the phase; false when one failed (it may never be). */
  const awaitWorkers = (): boolean => {
    for (let d = Atomics.load(ctrl, DONE); d < workers.length; d = Atomics.load(ctrl, DONE)) {
      if (Atomics.load(ctrl, FAILED) !== 0) return false;
      Atomics.wait(ctrl, DONE, d, 100);
    }
    return Atomics.load(ctrl, FAILED) === 0;
  };
  /** Waits until the control word `at` counts every worker; false when one failed or `ms` passed. */
  const awaitCount = (at: number, ms: number): boolean => {
    const deadline = Date.now() + ms;
    for (let d = Atomics.load(ctrl, at); d < workers.length; d = Atomics.load(ctrl, at)) {
      if (Atomics.load(ctrl, FAILED) !== 0 || Date.now() > deadline) return false;
      Atomics.wait(ctrl, at, d, 100);
    }
    return Atomics.load(ctrl, FAILED) === 0;
  };
  let pools = 0;
  return {
    threads: T,
    elementwiseKernel(bytes) {
      if (destroyed || Atomics.load(ctrl, FAILED) !== 0 || bytes > 2 ** 32 - 65_536) return undefined;
      const pages = Math.max(1, Math.ceil(bytes / 65_536));
      const memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
      const e = new wasm.Instance(emodule, { env: { memory } }).exports as Record<
        CellOp | 'le' | 'eq',
        (...args: number[]) => number
      >;
      const id = pools++;
      Atomics.store(ctrl, EREADY, 0);
      for (const w of workers) w.postMessage({ pool: id, memory });
      if (!awaitCount(EREADY, 10_000)) return undefined;
      const parallel = (op: CellOp) => (d: number, a: number, b: number, len: number) => {
        const single = e[op] as (d: number, a: number, b: number, len: number) => void;
        if (len < PARALLEL_CELLS || destroyed || Atomics.load(ctrl, FAILED) !== 0)
          return single(d, a, b, len);
        Atomics.store(ctrl, EPOOL, id);
        Atomics.store(ctrl, EOP, CELL_OPS.indexOf(op));
        Atomics.store(ctrl, ED, d / 8);
        Atomics.store(ctrl, EA, a / 8);
        Atomics.store(ctrl, EB, b / 8);
        Atomics.store(ctrl, ELEN, len);
        Atomics.store(ctrl, EDONE, 0);
        Atomics.add(ctrl, EGEN, 1);
        Atomics.notify(ctrl, EGEN);
        const [from, to] = cellRange(0, T, len);
        single(d + 8 * from, a + 8 * from, b + 8 * from, to - from);
        // a worker failed: every cell again on this thread (each operator is idempotent, even in place)
        if (!awaitCount(EDONE, Number.POSITIVE_INFINITY)) single(d, a, b, len);
      };
      return {
        memory: memory as ElementwiseKernel['memory'],
        ops: {
          max: parallel('max'),
          min: parallel('min'),
          widen: parallel('widen'),
          narrow: parallel('narrow'),
        },
        le: e.le as ElementwiseKernel['le'],
        eq: e.eq as ElementwiseKernel['eq'],
      };
    },
    destroy() {
      destroyed = true;
      for (const w of workers.splice(0)) w.terminate();
    },
    begin(L) {
      if (destroyed) throw new Error('octagon closure threads: used after destroy()');
      if (Atomics.load(ctrl, FAILED) !== 0) return undefined; // a failed worker: the calling thread alone
      const pages = Math.max(1, Math.ceil((8 * L.total) / 65_536));
      if (8 * L.total > 2 ** 32 - 65_536) return undefined;
      const memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
      const exports = new wasm.Instance(module, { env: { memory } }).exports as unknown as Omit<
        ClosureSweep,
        'memory'
      >;
      const kernel: ClosureSweep = {
        memory: memory as ClosureSweep['memory'],
        sweep: exports.sweep,
        minplus: exports.minplus,
      };
      const gen0 = Atomics.load(ctrl, GEN);
      for (const w of workers) w.postMessage({ memory, L, gen0 });
      return {
        kernel,
        phase(kind, p0, kp, own) {
          Atomics.store(ctrl, P0, p0);
          Atomics.store(ctrl, KP, kp);
          announce(kind === 'paths' ? PATHS : SWEEP);
          const [from, to] = rowRange(kind, 0, T, L.nodes);
          own(from, to);
          if (!awaitWorkers()) throw new Error('octagon closure: a worker thread failed');
        },
        end() {
          announce(END);
          awaitWorkers();
        },
      };
    },
  };
}
