/**
 * Memory for large readbacks whose pages are already in place. A copy into fresh memory pays a page
 * fault for every 4 KiB it first touches: on the H100 machine a 64 MiB copy out of a mapped
 * staging buffer took 45–55 ms into fresh memory and 11 ms into memory touched before. Worker
 * threads touch the pages of a `SharedArrayBuffer` side by side while the main thread waits on
 * the GPU, so the copy meets mapped pages. Node only: elsewhere {@link createPageToucher}
 * returns `undefined` and callers allocate as usual.
 */

/** Touches one byte per page of the range it is sent, then answers with the request's id. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, buffer, from, to }) => {
  const bytes = new Uint8Array(buffer);
  for (let i = from; i < to; i += 4096) bytes[i] = 0;
  parentPort.postMessage(id);
});
`;

interface TouchWorker {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (id: number) => void): void;
  on(event: 'error', listener: (error: unknown) => void): void;
  ref(): void;
  unref(): void;
  terminate(): Promise<number>;
}

/**
 * Worker threads that hand out zeroed memory with its pages faulted in; see the module notes.
 *
 * @example
 * ```ts
 * const toucher = await createPageToucher();
 * const into = toucher ? await toucher.allocate(bytes) : new Uint8Array(bytes);
 * await ctx.staging.readInto(buffer, 0, bytes, into);
 * toucher?.destroy();
 * ```
 */
export class PageToucher {
  readonly #workers: TouchWorker[];
  readonly #waiting = new Map<number, () => void>();
  #nextId = 0;
  #failure: unknown;

  /** Use {@link createPageToucher}. */
  constructor(workers: TouchWorker[]) {
    this.#workers = workers;
    for (const worker of workers) {
      worker.on('message', (id) => {
        this.#waiting.get(id)?.();
        this.#waiting.delete(id);
      });
      worker.on('error', (error) => {
        this.#failure = error;
        for (const done of this.#waiting.values()) done();
        this.#waiting.clear();
      });
      // Idle workers never keep the process alive; one with a request does (see allocate).
      worker.unref();
    }
  }

  /** Threads touching pages. */
  get threads(): number {
    return this.#workers.length;
  }

  /**
   * `bytes` of zeroed memory (a `SharedArrayBuffer`) with every page touched by the workers, each
   * taking an equal run of pages. Should a worker fail, the memory is still valid, only untouched.
   */
  async allocate(bytes: number): Promise<Uint8Array> {
    const memory = new Uint8Array(new SharedArrayBuffer(bytes));
    const share = Math.ceil(bytes / 4096 / this.#workers.length) * 4096;
    await Promise.all(
      this.#workers.map((worker, k) => {
        const from = k * share;
        const to = Math.min(bytes, from + share);
        if (from >= to || this.#failure !== undefined) return undefined;
        const id = this.#nextId++;
        return new Promise<void>((resolve) => {
          // Referenced while it works: a caller awaiting only this must not see Node exit.
          worker.ref();
          this.#waiting.set(id, () => {
            worker.unref();
            resolve();
          });
          worker.postMessage({ id, buffer: memory.buffer, from, to });
        });
      }),
    );
    return memory;
  }

  /** Ends the worker threads. */
  destroy(): void {
    for (const worker of this.#workers) void worker.terminate();
    for (const done of this.#waiting.values()) done();
    this.#waiting.clear();
  }
}

/**
 * Starts `threads` page-touching workers (default 4), or returns `undefined` where there are no
 * Node worker threads (browsers) or they cannot start.
 *
 * @example
 * ```ts
 * const toucher = await createPageToucher(2);
 * ```
 */
export async function createPageToucher(threads = 4): Promise<PageToucher | undefined> {
  const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  if (!isNode || typeof SharedArrayBuffer === 'undefined') return undefined;
  try {
    const { Worker } = await import('node:worker_threads');
    const workers = Array.from(
      { length: Math.max(1, Math.floor(threads)) },
      () => new Worker(WORKER_SOURCE, { eval: true }) as unknown as TouchWorker,
    );
    return new PageToucher(workers);
  } catch {
    return undefined;
  }
}
