// Run (after `npm run build`; on the H100 machine through .device/enter.sh, see DESIGN.md; tsx
// loads the private bench workspace's TypeScript, the libraries come from their dist/):
//   GPUMORPH_DATA=../shared/data B=gcc,perl RUNS=4 \
//     VARIANTS='{"new":{},"old":{"smallSort":false}}' node --import tsx scripts/andersen-ab.mjs
//
// Interleaved A/B of `createGpuSolver` options on the PPoPP'12 suite: per benchmark, untimed
// solves (one, then one per variant), then RUNS rounds of one solve per variant in turn (a garbage collection, and the callbacks it schedules, before each), so
// that a machine's drift falls on every variant alike; each round starts with the next variant
// (ORDER=fixed: always the first), so that none is always first. Prints each variant's median and runs, the
// report's setup parts, iterate / transfer ms and host times, and whether its sets equal the first
// variant's and the reference solution, and the medians over the runs of iterate ms and of the
// host's parts. PROFILE=1 adds a profiled solve per variant (GPU ms per kernel, the TOP leading,
// default 12); a variant with `"timeSubmissions":true` adds the GPU's busy and idle ms between
// submissions, the idle ms split by the kind of submission the GPU waited for. A variant's
// `dawnFlags` (e.g. `["enable-dawn-features=disable_robustness"]`) or
// `acquire` (options of `acquireGpu`, e.g. `{"robustness":true,"retainBytes":0}`) gives it a device
// of its own; a variant's `dist` (a directory holding another build of packages/andersen/dist, e.g.
// one built at an earlier commit) runs that build's solver; a variant's `uploadMinBytes` gives its
// context's writes an upload pool of its own that takes writes from that size (1e15: none, every
// write through `queue.writeBuffer`); the other options go to `createGpuSolver`.
// The measured reasons in docs/decisions/ come from this script; the bench
// (`gpumorph bench andersen`) is the record. To compare this tree with an earlier commit, build
// that commit's packages/andersen in another worktree and name its dist in a variant:
//   VARIANTS='{"new":{},"old":{"dist":"../old/packages/andersen/dist"}}'
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as A from '@gpumorph/andersen';
import { settleGarbage } from '@gpumorph/bench';
import { acquireGpu, UploadPool } from '@gpumorph/gpu-allocator';

const dir = resolve(process.env.GPUMORPH_DATA ?? '../shared/data', 'andersen/hardekopf');
const ctx = await acquireGpu({ require: true });
if (!ctx) throw new Error('no WebGPU adapter');
/**
 * A variant's options as given in VARIANTS: the script's own keys, the rest for `createGpuSolver`.
 * @typedef {Record<string, any> & { dist?: string, dawnFlags?: string[], acquire?: object,
 *   uploadMinBytes?: number, gpu?: import('@gpumorph/gpu-allocator').GpuContext }} Variant
 */
/** @type {Record<string, Variant>} */
const variants = JSON.parse(process.env.VARIANTS ?? '{"default":{}}');
/** @type {Map<string | undefined, import('@gpumorph/gpu-allocator').GpuContext>} */
const contexts = new Map([[undefined, ctx]]);
/** @type {Map<Variant, typeof A>} */
const builds = new Map();
/** @type {Map<Variant, UploadPool>} */
const uploadPools = new Map();
for (const options of Object.values(variants)) {
  if (options.dist) {
    builds.set(options, await import(pathToFileURL(resolve(options.dist, 'index.js')).href));
    delete options.dist;
  }
  const acquire = { ...options.acquire, ...(options.dawnFlags ? { dawnFlags: options.dawnFlags } : {}) };
  const key = Object.keys(acquire).length > 0 ? JSON.stringify(acquire) : undefined;
  const context = contexts.get(key) ?? (await acquireGpu({ require: true, ...acquire }));
  if (!context) throw new Error('no WebGPU adapter');
  contexts.set(key, context);
  options.gpu = context;
  if (options.uploadMinBytes !== undefined) {
    uploadPools.set(options, new UploadPool(context, { minBytes: options.uploadMinBytes }));
    delete options.uploadMinBytes;
  }
  delete options.dawnFlags;
  delete options.acquire;
}
const names = (process.env.B ?? 'ex,gcc,perl,python,php,linux').split(',');
// ORDER=fixed runs the variants in the order given in every round.
const ORDER = process.env.ORDER ?? 'rotate';
/** @param {number[]} times */
const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
/** @param {unknown} value */
const rounded = (value) => JSON.stringify(value, (_, v) => (typeof v === 'number' ? Math.round(v) : v));
for (const name of names) {
  const input = await A.readHardekopf({ prefix: resolve(dir, name) }, { nonObjectAddress: 'make-object' });
  const hcd = A.appendOfflineMerges(input.hcd, A.computeHvn(input.program).merges);
  /**
   * @param {Variant} options
   * @returns {Promise<{ result: A.AndersenResult, report: A.GpuSolveReport }>}
   */
  const solve = async (options, extra = {}) => {
    const build = builds.get(options) ?? A;
    // A variant with an upload pool of its own swaps it into the context for its solves.
    const gpu = /** @type {{ uploads: UploadPool }} */ (options.gpu ?? ctx);
    const uploads = gpu.uploads;
    gpu.uploads = uploadPools.get(options) ?? uploads;
    // As the bench solves (kept buffers, touched readback), with the variant's tuning under
    // '~unstable' (an older build, which takes it flat, finds it there too).
    /** @type {Record<string, any>} */
    const { profile, ...tuning } = { ...options, ...extra };
    const solver = await build.createGpuSolver(
      input.program,
      /** @type {A.GpuSolverOptions} */ ({
        gpu: ctx,
        hcd,
        keepBuffers: true,
        touchReadback: true,
        profile,
        ...tuning,
        '~unstable': tuning,
      }),
    );
    try {
      const result = await solver.solve();
      if (!solver.report) throw new Error('the solver gave no report');
      return { result, report: solver.report };
    } finally {
      solver.destroy();
      gpu.uploads = uploads;
    }
  };
  // Untimed: one solve, then one per variant (a variant whose options change the kernels compiles
  // them in its first solve).
  await solve({});
  for (const options of Object.values(variants)) await solve(options);
  const runs = Number(process.env.RUNS ?? (name === 'php' || name === 'linux' ? 2 : 4));
  /** @type {Record<string, number[]>} */
  const times = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  /** @type {Record<string, A.GpuSolveReport[]>} */
  const reports = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  /** @type {Record<string, { result: A.AndersenResult, report: A.GpuSolveReport }>} */
  const last = {};
  /** @type {Record<string, ((label?: string) => void) | undefined>} */
  const hooks = /** @type {any} */ (globalThis);
  const entries = Object.entries(variants);
  // With a call-counting hook preloaded (`node --import`), count only the timed runs' calls.
  hooks.__hookReset?.();
  for (let run = 0; run < runs; run++) {
    // Each round of runs starts with the next variant: in interleaved runs on the H100 the
    // variant run first in each round was the slower on php in three calls of three, whichever
    // it was, so a fixed order biases the comparison.
    const order =
      ORDER === 'fixed'
        ? entries
        : [...entries.slice(run % entries.length), ...entries.slice(0, run % entries.length)];
    for (const [key, options] of order) {
      await settleGarbage();
      const started = performance.now();
      const solved = await solve(options);
      last[key] = solved;
      times[key]?.push(performance.now() - started);
      reports[key]?.push(solved.report);
    }
  }
  hooks.__hookPrint?.(`${name}, ${runs} runs of ${entries.length} variants`);
  const first = last[Object.keys(variants)[0] ?? '']?.result;
  if (!first) throw new Error('VARIANTS names no variant');
  for (const [key, { result, report }] of Object.entries(last)) {
    let same = true;
    for (let v = 0; v < result.nodeCount && same; v++) {
      const a = result.pointsTo(v);
      const b = first.pointsTo(v);
      same = a.length === b.length && a.every((m, i) => m === b[i]);
    }
    const exact = input.solution
      ? A.verifySolution(result, input.solution, { ignore: A.HARDEKOPF_REFERENCE_CONVENTIONS }).exact
      : 'n/a';
    console.log(
      `${name} ${key}: median ${median(times[key] ?? []).toFixed(1)} ms [${(times[key] ?? []).map((t) => t.toFixed(0)).join(' ')}]` +
        ` rounds ${result.statistics.rounds} same ${same} exact ${exact} setup ${report.setupMs.toFixed(0)}` +
        ` ${rounded(report.setupParts)} iterate ${report.iterateMs.toFixed(0)} transfer ${report.transferMs.toFixed(0)}` +
        ` host ${rounded(report.host)} pairs ${report.pairs} sorts ${rounded(report.sorts)}` +
        ` reruns ${report.reruns}` +
        (report.updateRedos !== undefined
          ? ` (updates alone ${report.updateRedos}, merge grows ${report.mergeGrows})`
          : '') +
        (report.guessedRounds ? ` guessed ${rounded(report.guessedRounds)}` : '') +
        (report.rulesAhead ? ` rulesAhead ${rounded(report.rulesAhead)}` : ''),
    );
    // The last run's report above varies from run to run as much as the times do: medians too.
    /** @param {(report: A.GpuSolveReport) => number} pick */
    const medianOf = (pick) => Math.round(median((reports[key] ?? []).map(pick)));
    console.log(
      `${name} ${key} medians over the runs: iterate ${medianOf((r) => r.iterateMs)} prepare ${medianOf((r) => r.host.prepare)}` +
        ` encode ${medianOf((r) => r.host.encode)} submit ${medianOf((r) => r.host.submit)}` +
        ` encodeAhead ${medianOf((r) => r.host.encodeAhead)} wait ${medianOf((r) => r.host.wait)}` +
        (report.host.react !== undefined ? ` react ${medianOf((r) => r.host.react)}` : '') +
        (report.submissionSpans
          ? ` gpu busy ${medianOf((r) => r.submissionSpans?.busyMs ?? 0)} idle ${medianOf((r) => r.submissionSpans?.idleMs ?? 0)}` +
            ` over ${report.submissionSpans.submissions} submissions; idle before` +
            (report.submissionSpans.idleBeforeMs
              ? Object.keys(report.submissionSpans.idleBeforeMs)
                  .map(
                    (kind) =>
                      ` ${kind} ${medianOf((r) => r.submissionSpans?.idleBeforeMs?.[/** @type {A.SubmissionKind} */ (kind)] ?? 0)}`,
                  )
                  .join(',')
              : ' (not split by this build)')
          : ''),
    );
  }
  if (process.env.PROFILE) {
    for (const [key, options] of Object.entries(variants)) {
      const { report } = await solve(options, { profile: true });
      const top = Object.entries(report.kernelMs ?? {})
        .sort((a, b) => b[1] - a[1])
        .slice(0, Number(process.env.TOP ?? 12))
        .map(([kernel, ms]) => `${kernel} ${ms.toFixed(1)}`)
        .join(', ');
      const total = Object.values(report.phaseMs ?? {}).reduce((a, b) => a + b, 0);
      console.log(`${name} ${key} profiled: GPU ${total.toFixed(0)} ms; ${top}`);
    }
  }
}
for (const context of contexts.values()) context.destroy();
process.exit(0);
