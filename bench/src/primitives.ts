import {
  BufferUsage,
  copyKernel,
  type GpuContext,
  measureGpu,
  median,
  type PassTimer,
} from '@gpumorph/gpu-allocator';
import {
  compactReference,
  createCompaction,
  createEquivalenceClasses,
  createMergeSort,
  createRadixSort,
  createReduce,
  createScan,
  equivalenceClassesReference,
  mergeSortReference,
  radixSortReference,
  reduceReference,
  scanReference,
} from '@gpumorph/gpu-primitives';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** Deterministic pseudo-random u32 words (xorshift32). */
function randomWords(count: number, seed = 0x9e3779b9): Uint32Array {
  const out = new Uint32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s >>> 0;
  }
  return out;
}

/**
 * GPU time of one execution of `encode`: `reps` executions per measurement, each pass timed by
 * timestamp queries through the timer (the sum of the passes, so host latency is excluded), or
 * the wall clock of the whole submission when the device has no timestamps; the median over
 * `trials` measurements after a warm-up, divided by `reps`. (Waiting for completion through Dawn's
 * event polling adds milliseconds to a wall-clock measurement, so timestamps are preferred.)
 *
 * The warm-up repeats the same work for at least `warmMs` of wall time: after the host work
 * between rows (uploads, CPU checks) the H100 runs the next few milliseconds of GPU work at low
 * clocks (the copy kernel of 2^28 u32 took 1.27 ms there, 0.715 ms after such a warm-up), and
 * latency-bound kernels slow down more than the copy, so every row, the copy roof included, is
 * timed at the clocks of sustained work.
 */
async function timeEncoded(
  ctx: GpuContext,
  label: string,
  encode: (encoder: GPUCommandEncoder, timer: PassTimer) => void,
  reps: number,
  trials: number,
  warmMs: number,
): Promise<{ ms: number; runs: number; method: string }> {
  const batch = (n: number) =>
    measureGpu(
      ctx,
      (encoder, timer) => {
        for (let r = 0; r < n; r++) encode(encoder, timer);
      },
      { label, maxPasses: 64 * n },
    );
  const once = () => batch(reps);
  const warmEnd = performance.now() + warmMs;
  do await batch(Math.min(4 * reps, 20));
  while (performance.now() < warmEnd);
  const times: number[] = [];
  let method = 'wall-clock';
  for (let t = 0; t < trials; t++) {
    const timing = await once();
    method = timing.method;
    times.push(timing.totalMs / reps);
  }
  return { ms: median(times), runs: trials * reps, method };
}

function cpuTime(work: () => void, trials: number): { ms: number; runs: number } {
  work(); // JIT warm-up
  const times: number[] = [];
  for (let t = 0; t < trials; t++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return { ms: median(times), runs: trials };
}

const log2 = (n: number) => `2^${Math.log2(n)}`;

/** What every part of the suite shares: the sizes, the timing settings, and the rows and notes it adds to. */
interface SuiteContext {
  readonly quick: boolean;
  readonly log: (line: string) => void;
  readonly rows: BenchRow[];
  readonly notes: string[];
  /** Elements of the scans, reductions and compactions. */
  readonly scanCount: number;
  /** Pairs or keys of the large radix sorts. */
  readonly sortCount: number;
  /** Records of the equivalence classes. */
  readonly recordCount: number;
  /** Executions per timed command buffer, timed trials, and ms of the same work before timing. */
  readonly reps: number;
  readonly trials: number;
  readonly warmMs: number;
}

/**
 * Sorts of key–value pairs at the sizes of a worklist sorted every round (the Andersen engine's):
 * the radix sort by a 32-bit key, the merge sort by (key, value). Beside the GPU time, the host's
 * time to record one sort into a command encoder (the median of 200, not submitted): at these sizes
 * the dispatches' recording, which the merge sort has fewer of, is much of what a sort costs.
 */
async function benchPairSorts(gpu: GpuContext, o: SuiteContext): Promise<void> {
  const sizes = o.quick ? [1 << 12, 1 << 14] : [1 << 14, 1 << 17, 1 << 20];
  const largest = sizes[sizes.length - 1] as number;
  const radix = createRadixSort(gpu);
  const merge = createMergeSort(gpu);
  const bytes = largest * 4;
  const made: GPUBuffer[] = [];
  const buffer = async (label: string) => {
    const b = await gpu.createBuffer({ label, size: bytes, usage: STORAGE });
    made.push(b);
    return b;
  };
  const keys = await buffer('bench pair keys');
  const values = await buffer('bench pair values');
  const keysCopy = await buffer('bench pair keys copy');
  const valuesCopy = await buffer('bench pair values copy');
  try {
    const keysHost = randomWords(largest, 11).map((k) => k >>> 12); // 20-bit keys: long runs
    const valuesHost = randomWords(largest, 13);
    await gpu.writeBuffer(keysCopy, 0, keysHost);
    await gpu.writeBuffer(valuesCopy, 0, valuesHost);
    for (const count of sizes) {
      await radix.prepare({ count, withValues: true });
      await merge.prepare({ count });
      const sorts: [string, (encoder: GPUCommandEncoder, timer?: PassTimer) => void][] = [
        ['radix sort key–value 32-bit', (e, timer) => radix.encode(e, { keys, values, count }, timer)],
        ['merge sort (key, value)', (e, timer) => merge.encode(e, { keys, values, count }, timer)],
      ];
      for (const [name, encode] of sorts) {
        o.log(`primitives: ${name}, ${log2(count)} pairs`);
        const restore = (encoder: GPUCommandEncoder) => {
          encoder.copyBufferToBuffer(keysCopy, 0, keys, 0, count * 4);
          encoder.copyBufferToBuffer(valuesCopy, 0, values, 0, count * 4);
        };
        const t = await timeEncoded(
          gpu,
          'bench pair sort',
          (encoder, timer) => {
            restore(encoder);
            encode(encoder, timer);
          },
          o.reps,
          o.trials,
          o.warmMs,
        );
        const restoreOnly = await timeEncoded(gpu, 'bench pair restore', restore, o.reps, o.trials, o.warmMs);
        const ms = t.method === 'timestamp' ? t.ms : Math.max(1e-6, t.ms - restoreOnly.ms);
        const recordTimes: number[] = [];
        for (let r = 0; r < 200; r++) {
          const encoder = gpu.device.createCommandEncoder({ label: 'bench pair sort (recorded only)' });
          const started = performance.now();
          encode(encoder);
          recordTimes.push(performance.now() - started);
          encoder.finish();
        }
        o.rows.push({
          case: name,
          size: `${log2(count)} pairs`,
          engine: 'webgpu',
          medianMs: ms,
          runs: t.runs,
          method: t.method,
          metrics: { 'Gkeys/s': count / (ms * 1e6), 'host µs to record': 1000 * median(recordTimes) },
        });
      }
    }
    // One more merge sort of the largest size, checked against the CPU reference.
    await gpu.writeBuffer(keys, 0, keysHost);
    await gpu.writeBuffer(values, 0, valuesHost);
    await merge.run({ keys, values, count: largest });
    const expected = mergeSortReference(keysHost, valuesHost);
    const same =
      sameWords(new Uint32Array(await gpu.readBuffer(keys, 0, bytes)), expected.keys) === 'equals' &&
      sameWords(new Uint32Array(await gpu.readBuffer(values, 0, bytes)), expected.values) === 'equals';
    o.notes.push(
      `merge sort of ${log2(largest)} pairs: keys and values ${same ? 'equal' : 'DIFFER FROM'} the CPU reference.`,
    );
  } finally {
    for (const b of made) b.destroy();
    radix.destroy();
    merge.destroy();
  }
}

/** Scan, reduce and compaction of `scanCount` u32, beside the copy kernel of the same run (the roof). */
async function benchBandwidth(gpu: GpuContext, c: SuiteContext): Promise<void> {
  const bytes = c.scanCount * 4;
  const a = await gpu.createBuffer({ label: 'bench a', size: bytes, usage: STORAGE });
  const b = await gpu.createBuffer({ label: 'bench b', size: bytes, usage: STORAGE });
  const inputHost = randomWords(c.scanCount).map((x) => x & 0xff);
  await gpu.writeBuffer(a, 0, inputHost);
  try {
    const copyGBs = await benchCopy(gpu, c, a, b);
    await benchScans(gpu, c, { a, b, inputHost, copyGBs });
    await benchReduce(gpu, c, a);
    await benchCompaction(gpu, c, a, b);
  } finally {
    a.destroy();
    b.destroy();
  }
}

/** The copy kernel from `a` to `b`: the bandwidth roof of the run, in GB/s. */
async function benchCopy(gpu: GpuContext, c: SuiteContext, a: GPUBuffer, b: GPUBuffer): Promise<number> {
  const bytes = c.scanCount * 4;
  c.log(`primitives: copy kernel, ${log2(c.scanCount)} u32`);
  const copy = await copyKernel(gpu);
  const copyTime = await timeEncoded(
    gpu,
    'bench copy',
    (encoder, timer) => {
      const pass = timer.beginComputePass(encoder, 'copy');
      copy.encode(pass, a, b, bytes);
      pass.end();
    },
    c.reps,
    c.trials,
    c.warmMs,
  );
  const copyGBs = (2 * bytes) / (copyTime.ms * 1e6);
  c.rows.push({
    case: 'copy kernel (roof)',
    size: `${log2(c.scanCount)} u32`,
    engine: 'webgpu',
    medianMs: copyTime.ms,
    runs: copyTime.runs,
    method: copyTime.method,
    metrics: { 'GB/s': copyGBs, '% of copy': 100 },
  });
  return copyGBs;
}

/** Each scan strategy on `a` into `b`, checked against the CPU reference. */
async function benchScans(
  gpu: GpuContext,
  c: SuiteContext,
  io: { a: GPUBuffer; b: GPUBuffer; inputHost: Uint32Array; copyGBs: number },
): Promise<void> {
  const { a, b, inputHost, copyGBs } = io;
  const { scanCount } = c;
  const bytes = scanCount * 4;
  const scan = createScan(gpu);
  // Every row names its strategy; decoupled fallback is the default (out of place).
  for (const [kind, op, strategy] of [
    ['exclusive', 'add', 'decoupled-fallback'],
    ['inclusive', 'max', 'decoupled-fallback'],
    ['exclusive', 'add', 'reduce-then-scan'],
    ['inclusive', 'max', 'reduce-then-scan'],
  ] as const) {
    const name = `scan ${kind} ${op}, ${strategy}${strategy === 'decoupled-fallback' ? ' (default)' : ''}`;
    c.log(`primitives: ${name} (${strategy}), ${log2(scanCount)} u32`);
    await scan.prepare({ count: scanCount, op, kind, segmented: false, strategy });
    await gpu.writeBuffer(b, 0, new Uint32Array(1024)); // a stale output cannot pass the check
    const t = await timeEncoded(
      gpu,
      'bench scan',
      (encoder, timer) =>
        scan.encode(encoder, { input: a, output: b, count: scanCount, kind, op, strategy }, timer),
      c.reps,
      c.trials,
      c.warmMs,
    );
    const gbs = (2 * bytes) / (t.ms * 1e6);
    const expected = scanReference(inputHost, { kind, op });
    const got = new Uint32Array(await gpu.readBuffer(b, 0, bytes));
    c.notes.push(
      `${name} of ${log2(scanCount)} (${strategy}): ${sameWords(got, expected)} the CPU reference.`,
    );
    c.rows.push({
      case: name,
      size: `${log2(scanCount)} u32`,
      engine: 'webgpu',
      medianMs: t.ms,
      runs: t.runs,
      method: t.method,
      metrics: { 'GB/s': gbs, '% of copy': (100 * gbs) / copyGBs, 'Gkeys/s': scanCount / (t.ms * 1e6) },
    });
  }
  scan.destroy();
}

async function benchReduce(gpu: GpuContext, c: SuiteContext, a: GPUBuffer): Promise<void> {
  const { scanCount } = c;
  c.log(`primitives: reduce add, ${log2(scanCount)} u32`);
  const reduce = createReduce(gpu);
  await reduce.prepare({ count: scanCount, op: 'add' });
  const result = await gpu.createBuffer({ label: 'bench reduce result', size: 16, usage: STORAGE });
  const rt = await timeEncoded(
    gpu,
    'bench reduce',
    (encoder, timer) => reduce.encode(encoder, { input: a, count: scanCount, op: 'add', result }, timer),
    c.reps,
    c.trials,
    c.warmMs,
  );
  c.rows.push({
    case: 'reduce add',
    size: `${log2(scanCount)} u32`,
    engine: 'webgpu',
    medianMs: rt.ms,
    runs: rt.runs,
    method: rt.method,
    metrics: { 'GB/s': (scanCount * 4) / (rt.ms * 1e6), 'Gkeys/s': scanCount / (rt.ms * 1e6) },
  });
  result.destroy();
  reduce.destroy();
}

async function benchCompaction(gpu: GpuContext, c: SuiteContext, a: GPUBuffer, b: GPUBuffer): Promise<void> {
  const { scanCount } = c;
  c.log(`primitives: compaction by predicate (x & 1), ${log2(scanCount)} u32`);
  const compaction = createCompaction(gpu);
  const kept = await gpu.createBuffer({ label: 'bench kept count', size: 16, usage: STORAGE });
  await compaction.prepare({ count: scanCount, predicate: '(x & 1u) != 0u' });
  const ct = await timeEncoded(
    gpu,
    'bench compact',
    (encoder, timer) =>
      compaction.encode(
        encoder,
        { input: a, count: scanCount, output: b, predicate: '(x & 1u) != 0u', countOutput: kept },
        timer,
      ),
    c.reps,
    c.trials,
    c.warmMs,
  );
  c.rows.push({
    case: 'compaction (predicate, ~50% kept)',
    size: `${log2(scanCount)} u32`,
    engine: 'webgpu',
    medianMs: ct.ms,
    runs: ct.runs,
    method: ct.method,
    metrics: { 'GB/s': (1.5 * scanCount * 4) / (ct.ms * 1e6), 'Gkeys/s': scanCount / (ct.ms * 1e6) },
  });
  kept.destroy();
  compaction.destroy();
}

/** The radix sort of `sortCount` keys or pairs by 32- and 16-bit keys; the 32-bit pairs checked. */
async function benchRadixSorts(gpu: GpuContext, c: SuiteContext): Promise<void> {
  const { sortCount } = c;
  const sort = createRadixSort(gpu);
  const keysHost = randomWords(sortCount, 7);
  const keys = await gpu.createBuffer({ label: 'bench keys', size: sortCount * 4, usage: STORAGE });
  const values = await gpu.createBuffer({ label: 'bench values', size: sortCount * 4, usage: STORAGE });
  const keysCopy = await gpu.createBuffer({ label: 'bench keys copy', size: sortCount * 4, usage: STORAGE });
  try {
    await gpu.writeBuffer(keysCopy, 0, keysHost);
    for (const withValues of [true, false]) {
      for (const bits of [32, 16]) {
        c.log(
          `primitives: radix sort ${withValues ? 'pairs' : 'keys'}, ${bits}-bit keys, ${log2(sortCount)}`,
        );
        await sort.prepare({ count: sortCount, withValues, bits: { start: 0, end: bits } });
        const t = await timeEncoded(
          gpu,
          'bench sort',
          (encoder, timer) => {
            // Restore the unsorted keys each time: outside any timed pass, and measured on its own
            // below for the wall-clock fallback.
            encoder.copyBufferToBuffer(keysCopy, 0, keys, 0, sortCount * 4);
            sort.encode(
              encoder,
              { keys, ...(withValues ? { values } : {}), count: sortCount, bits: { start: 0, end: bits } },
              timer,
            );
          },
          c.reps,
          c.trials,
          c.warmMs,
        );
        const copyOnly = await timeEncoded(
          gpu,
          'bench sort restore',
          (encoder) => encoder.copyBufferToBuffer(keysCopy, 0, keys, 0, sortCount * 4),
          c.reps,
          c.trials,
          c.warmMs,
        );
        const ms = t.method === 'timestamp' ? t.ms : Math.max(1e-6, t.ms - copyOnly.ms);
        if (withValues && bits === 32) await checkRadixSort(gpu, c, sort, { keys, values, keysHost });
        c.rows.push({
          case: `radix sort ${withValues ? 'key–value' : 'keys'} ${bits}-bit`,
          size: `${log2(sortCount)} ${withValues ? 'pairs' : 'keys'}`,
          engine: 'webgpu',
          medianMs: ms,
          runs: t.runs,
          method: t.method,
          metrics: { 'Gkeys/s': sortCount / (ms * 1e6) },
        });
      }
    }
  } finally {
    keys.destroy();
    values.destroy();
    keysCopy.destroy();
    sort.destroy();
  }
}

/** One more sort of fresh pairs, checked against the CPU reference (a note says whether equal). */
async function checkRadixSort(
  gpu: GpuContext,
  c: SuiteContext,
  sort: ReturnType<typeof createRadixSort>,
  io: { keys: GPUBuffer; values: GPUBuffer; keysHost: Uint32Array },
): Promise<void> {
  const { keys, values, keysHost } = io;
  const { sortCount } = c;
  const iota = Uint32Array.from({ length: sortCount }, (_, i) => i);
  await gpu.writeBuffer(keys, 0, keysHost);
  await gpu.writeBuffer(values, 0, iota);
  await sort.run({ keys, values, count: sortCount });
  const expected = radixSortReference(keysHost, iota);
  const gotKeys = new Uint32Array(await gpu.readBuffer(keys, 0, sortCount * 4));
  const gotValues = new Uint32Array(await gpu.readBuffer(values, 0, sortCount * 4));
  const same =
    sameWords(gotKeys, expected.keys) === 'equals' &&
    sameWords(gotValues, expected.values ?? iota) === 'equals';
  c.notes.push(
    `radix sort of ${log2(sortCount)} pairs: keys and values ${same ? 'equal' : 'DIFFER FROM'} the CPU reference.`,
  );
}

/** Equivalence classes of `recordCount` records end to end (wall clock, readbacks included), checked. */
async function benchEquivalenceClasses(gpu: GpuContext, c: SuiteContext): Promise<void> {
  const { recordCount } = c;
  c.log(`primitives: equivalence classes, ${log2(recordCount)} records`);
  const records = benchRecords(recordCount);
  const offsets = await gpu.createBuffer({
    label: 'bench offsets',
    size: records.offsets.byteLength,
    usage: STORAGE,
  });
  const words = await gpu.createBuffer({
    label: 'bench words',
    size: records.words.byteLength,
    usage: STORAGE,
  });
  const reps = await gpu.createBuffer({ label: 'bench reps', size: recordCount * 4, usage: STORAGE });
  await gpu.writeBuffer(offsets, 0, records.offsets);
  await gpu.writeBuffer(words, 0, records.words);
  const classes = createEquivalenceClasses(gpu);
  const buffers = { offsets, words, count: recordCount };
  await classes.run(buffers, reps);
  const times: number[] = [];
  for (let t = 0; t < c.trials; t++) {
    const start = performance.now();
    await classes.run(buffers, reps);
    times.push(performance.now() - start);
  }
  const got = new Uint32Array(await gpu.readBuffer(reps));
  const exact = got.every((r, i) => r === records.expected[i]);
  c.notes.push(`equivalence classes on the GPU ${exact ? 'equal' : 'DIFFER FROM'} the CPU reference.`);
  const ms = median(times);
  c.rows.push({
    case: 'equivalence classes (end to end, with readbacks)',
    size: `${log2(recordCount)} records`,
    engine: 'webgpu',
    medianMs: ms,
    runs: c.trials,
    method: 'wall-clock',
    metrics: { 'Mrecords/s': recordCount / (ms * 1e3) },
  });
  classes.destroy();
  for (const buffer of [offsets, words, reps]) buffer.destroy();
}

/** The CPU references of the same work. */
function cpuReferenceRows(c: SuiteContext): void {
  const { scanCount, sortCount, recordCount } = c;
  const runs = c.quick ? 2 : 3;
  const input = randomWords(scanCount).map((x) => x & 0xff);
  c.log(`primitives: CPU references`);
  const row = (
    name: string,
    size: string,
    t: { ms: number; runs: number },
    metrics: Record<string, number>,
  ) => c.rows.push({ case: name, size, engine: 'cpu', medianMs: t.ms, runs: t.runs, method: 'cpu', metrics });
  const st = cpuTime(() => scanReference(input, { kind: 'exclusive', op: 'add' }), runs);
  row('scan exclusive add', `${log2(scanCount)} u32`, st, {
    'GB/s': (8 * scanCount) / (st.ms * 1e6),
    'Gkeys/s': scanCount / (st.ms * 1e6),
  });
  const rt = cpuTime(() => reduceReference(input, 'add'), runs);
  row('reduce add', `${log2(scanCount)} u32`, rt, {
    'GB/s': (4 * scanCount) / (rt.ms * 1e6),
    'Gkeys/s': scanCount / (rt.ms * 1e6),
  });
  const ct = cpuTime(() => compactReference(input, (x) => (x & 1) !== 0), runs);
  row('compaction (predicate, ~50% kept)', `${log2(scanCount)} u32`, ct, {
    'GB/s': (6 * scanCount) / (ct.ms * 1e6),
    'Gkeys/s': scanCount / (ct.ms * 1e6),
  });
  const keys = randomWords(sortCount, 7);
  const values = Uint32Array.from({ length: sortCount }, (_, i) => i);
  const sortTime = cpuTime(() => radixSortReference(keys, values), runs);
  row('radix sort key–value 32-bit', `${log2(sortCount)} pairs`, sortTime, {
    'Gkeys/s': sortCount / (sortTime.ms * 1e6),
  });
  const records = benchRecords(recordCount);
  const et = cpuTime(() => equivalenceClassesReference(records), runs);
  row('equivalence classes (Map of records)', `${log2(recordCount)} records`, et, {
    'Mrecords/s': recordCount / (et.ms * 1e3),
  });
}

/**
 * `gpumorph bench primitives`: scan, reduce, compaction, radix sort and equivalence classes on
 * the GPU, with the copy kernel measured in the same run as the bandwidth roof and the CPU
 * references beside.
 *
 * @example
 * ```ts
 * const report = await primitivesBench.run({ ctx, engines: ['webgpu', 'cpu'], quick: true, log: console.error });
 * ```
 */
export const primitivesBench: BenchSuite = {
  name: 'primitives',
  description: 'scan, reduce, compaction, radix and merge sorts, and equivalence classes (GB/s, keys/s)',
  async run(options: BenchOptions): Promise<BenchReport> {
    const { ctx, quick, log } = options;
    const warmMs = quick ? 0 : 500;
    const c: SuiteContext = {
      quick,
      log,
      rows: [],
      notes: [],
      scanCount: quick ? 1 << 16 : 1 << 28,
      sortCount: quick ? 1 << 14 : 1 << 26,
      recordCount: quick ? 1 << 12 : 1 << 20,
      reps: quick ? 2 : 5,
      trials: quick ? 2 : 5,
      warmMs,
    };
    const gpu = ctx && options.engines.includes('webgpu') ? ctx : null;
    if (gpu) {
      await benchBandwidth(gpu, c);
      await benchRadixSorts(gpu, c);
      await benchPairSorts(gpu, c);
      await benchEquivalenceClasses(gpu, c);
    }
    if (options.engines.includes('cpu')) cpuReferenceRows(c);
    return {
      suite: 'primitives',
      adapter: ctx ? String(ctx) : 'none',
      rows: c.rows,
      notes: [
        ...c.notes,
        'GB/s counts bytes read + written once (scan: 8 B per element; the copy kernel likewise).',
        'Goals (H100): scan of 2^28 u32 ≥ 70% of the copy kernel of the same run; radix sort of 2^26 key–value pairs ≥ 3 G pairs/s.',
        "Anchors: CUB's scan runs at memcpy speed; Onesweep sorts 29 G keys/s (keys only) on an A100.",
        'GPU times: sum of the timestamped passes of several executions in one command buffer, divided, median of trials (wall clock only without timestamp queries).',
        `Each GPU row (the copy roof too) is timed after at least ${warmMs} ms of the same work, so the GPU runs at the clocks of sustained work, not the low clocks it starts at after host work.`,
      ],
    };
  },
};

function sameWords(got: Uint32Array, expected: Uint32Array): 'equals' | 'DIFFERS FROM' {
  if (got.length !== expected.length) return 'DIFFERS FROM';
  for (let i = 0; i < got.length; i++) if (got[i] !== expected[i]) return 'DIFFERS FROM';
  return 'equals';
}

/** Records like ΔP sets: 1–8 words, many repeated. */
function benchRecords(count: number) {
  const lengths = randomWords(count, 3).map((x) => 1 + (x % 8));
  const offsets = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) offsets[i + 1] = (offsets[i] as number) + (lengths[i] as number);
  const total = offsets[count] as number;
  const words = randomWords(total, 5).map((x) => x % 64);
  const records = { offsets, words };
  return { ...records, expected: equivalenceClassesReference(records) };
}
