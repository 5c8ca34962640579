/**
 * Worker threads for {@link readHardekopf}: each reads one file, gunzips it and scans its lines
 * ({@link scanNumberLines}), so that the files of a program are decompressed and parsed at once,
 * off the calling thread. Nothing starts a thread unless {@link createReaderThreads} is called and
 * its result passed; the library's default reads on the calling thread.
 * @module
 */
import { type NumberLines, numberLinesSource } from './number-lines';

/** What a reader thread is asked: a file, and how to scan it (`fields` 0: only its bytes). */
interface ReadJob {
  readonly path: string;
  readonly headerFields: readonly number[];
  readonly fields: number;
}

/** A thread's answer: the scanned lines, the plain bytes, or `failed` (the caller reads it itself). */
export type ReadAnswer =
  | { readonly kind: 'lines'; readonly lines: NumberLines }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'failed' };

interface WireAnswer {
  readonly id: number;
  readonly failed?: true;
  readonly header?: number[];
  readonly values?: ArrayBuffer;
  readonly length?: number;
  readonly rows?: number;
  readonly bytes?: ArrayBuffer;
}

/**
 * The worker's code (a CommonJS string with the scanner's compiled source, so that it runs from the
 * source tree and from the bundle alike). Any failure (no such file, a corrupt gzip stream, a line
 * of another shape) answers `failed`: the calling thread then reads the file itself, and throws
 * the positioned error.
 */
function workerSource(): string {
  return `
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { gunzipSync } = require('node:zlib');
${numberLinesSource()}
function owned(view) {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength ? view.buffer : new Uint8Array(view).buffer;
}
parentPort.on('message', ({ id, path, headerFields, fields }) => {
  let answer = { id, failed: true };
  const transfer = [];
  try {
    let bytes = readFileSync(path);
    if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
    if (fields === 0) {
      const buffer = owned(bytes);
      answer = { id, bytes: buffer };
      transfer.push(buffer);
    } else {
      const lines = scanNumberLines(bytes, headerFields, fields);
      if (lines) {
        answer = { id, header: lines.header, values: lines.values.buffer, length: lines.values.length, rows: lines.rows };
        transfer.push(lines.values.buffer);
      }
    }
  } catch {}
  parentPort.postMessage(answer, transfer);
});
`;
}

interface WorkerLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (answer: WireAnswer) => void): void;
  on(event: 'error' | 'exit', listener: () => void): void;
  terminate(): unknown;
  ref(): void;
  unref(): void;
}
interface WorkerThreadsModule {
  Worker: new (source: string, options: { eval: true }) => WorkerLike;
}

/**
 * Reader threads to pass to `readHardekopf(source, { threads })`.
 *
 * @example
 * ```ts
 * const threads = createReaderThreads({ threads: 4 });
 * const input = await readHardekopf({ prefix: 'data/gcc' }, { threads });
 * threads?.destroy();
 * ```
 */
export interface ReaderThreads {
  /** Worker threads of the pool. */
  readonly threads: number;
  /** @internal Reads, gunzips and scans one file on a free thread. */
  read(path: string, headerFields: readonly number[], fields: number): Promise<ReadAnswer>;
  /** Ends the threads; a later read answers `failed` (the caller then reads on its own thread). */
  destroy(): void;
}

/** Options of {@link createReaderThreads}. */
export interface ReaderThreadsOptions {
  /** Worker threads (default 4: a program's nodes, constraints, HCD and solution files at once). */
  readonly threads?: number;
}

function decode(answer: WireAnswer): ReadAnswer {
  if (answer.bytes !== undefined) return { kind: 'bytes', bytes: new Uint8Array(answer.bytes) };
  if (answer.values !== undefined && answer.header !== undefined) {
    const values = new Uint32Array(answer.values, 0, answer.length ?? 0);
    return { kind: 'lines', lines: { header: answer.header, values, rows: answer.rows ?? 0 } };
  }
  return { kind: 'failed' };
}

/**
 * Starts `threads` worker threads (Node's `worker_threads`) that read, gunzip and scan Hardekopf
 * files for {@link readHardekopf}; `undefined` where there are no worker threads (browsers). The
 * threads do not keep a process alive; `destroy()` ends them. Starting them costs a few
 * milliseconds each, so a caller that reads several programs starts them once.
 *
 * @example
 * ```ts
 * const threads = createReaderThreads();
 * for (const name of ['gcc', 'perl']) await readHardekopf({ prefix: `data/${name}` }, { threads });
 * threads?.destroy();
 * ```
 */
export function createReaderThreads(options: ReaderThreadsOptions = {}): ReaderThreads | undefined {
  const count = Math.max(1, Math.floor(options.threads ?? 4));
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const wt = proc?.getBuiltinModule?.('node:worker_threads') as WorkerThreadsModule | undefined;
  if (!wt) return undefined;
  const source = workerSource();
  const idle: WorkerLike[] = [];
  const waiting: { job: ReadJob; resolve: (answer: ReadAnswer) => void }[] = [];
  const pending = new Map<number, (answer: ReadAnswer) => void>();
  const busy = new Map<WorkerLike, number>();
  let nextId = 0;
  let destroyed = false;
  let alive = count;
  const retired = new Set<WorkerLike>();
  const dispatch = (worker: WorkerLike) => {
    const next = waiting.shift();
    if (next === undefined) {
      idle.push(worker);
      return;
    }
    const id = nextId++;
    pending.set(id, next.resolve);
    busy.set(worker, id);
    // A thread at work keeps the process alive until it answers; an idle one does not.
    worker.ref();
    worker.postMessage({ id, ...next.job });
  };
  const workers = Array.from({ length: count }, () => {
    const worker = new wt.Worker(source, { eval: true });
    worker.unref();
    worker.on('message', (answer) => {
      worker.unref();
      busy.delete(worker);
      pending.get(answer.id)?.(decode(answer));
      pending.delete(answer.id);
      dispatch(worker);
    });
    // A thread that died (an error, or an exit before destroy()) answers its job `failed`; the
    // pool goes on with the others, and when none is left, the jobs still waiting fail too.
    const retire = () => {
      if (retired.has(worker)) return;
      retired.add(worker);
      const id = busy.get(worker);
      busy.delete(worker);
      if (id !== undefined) {
        pending.get(id)?.({ kind: 'failed' });
        pending.delete(id);
      }
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      alive--;
      if (alive === 0) for (const { resolve } of waiting.splice(0)) resolve({ kind: 'failed' });
    };
    worker.on('error', retire);
    worker.on('exit', retire);
    return worker;
  });
  idle.push(...workers);
  return {
    threads: count,
    read(path, headerFields, fields) {
      if (destroyed || alive === 0) return Promise.resolve({ kind: 'failed' });
      return new Promise((resolve) => {
        waiting.push({ job: { path, headerFields, fields }, resolve });
        const worker = idle.pop();
        if (worker !== undefined) dispatch(worker);
      });
    },
    destroy() {
      destroyed = true;
      for (const worker of workers) void worker.terminate();
      for (const resolve of pending.values()) resolve({ kind: 'failed' });
      pending.clear();
      for (const { resolve } of waiting.splice(0)) resolve({ kind: 'failed' });
    },
  };
}
