// Run (after `npm run build`; on the H100 machine through .device/enter.sh, see DESIGN.md):
//   GPUMORPH_DATA=../shared/data B=gcc,perl RUNS=4 \
//     VARIANTS='{"new":{},"old":{"smallSort":false}}' node scripts/andersen-ab.mjs
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
// The figures in packages/andersen/README.md marked "A/B" come from this script; the bench
// (`gpumorph bench andersen`) is the record.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { acquireGpu, UploadPool } from '@gpumorph/gpu-allocator';
import { settleGarbage } from '@gpumorph/gpu-allocator/bench';
import * as A from '../packages/andersen/dist/index.js';

const dir = resolve(process.env.GPUMORPH_DATA ?? '../shared/data', 'andersen/hardekopf');
const ctx = await acquireGpu({ require: true });
const variants = JSON.parse(process.env.VARIANTS ?? '{"default":{}}');
const contexts = new Map([[undefined, ctx]]);
const builds = new Map();
const uploadPools = new Map();
for (const options of Object.values(variants)) {
  if (options.dist) {
    builds.set(options, await import(pathToFileURL(resolve(options.dist, 'index.js')).href));
    delete options.dist;
  }
  const acquire = { ...options.acquire, ...(options.dawnFlags ? { dawnFlags: options.dawnFlags } : {}) };
  const key = Object.keys(acquire).length > 0 ? JSON.stringify(acquire) : undefined;
  if (!contexts.has(key)) contexts.set(key, await acquireGpu({ require: true, ...acquire }));
  options.gpu = contexts.get(key);
  if (options.uploadMinBytes !== undefined) {
    uploadPools.set(options, new UploadPool(options.gpu, { minBytes: options.uploadMinBytes }));
    delete options.uploadMinBytes;
  }
  delete options.dawnFlags;
  delete options.acquire;
}
const names = (process.env.B ?? 'ex,gcc,perl,python,php,linux').split(',');
// ORDER=fixed runs the variants in the order given in every round, as before 2026-11-27.
const ORDER = process.env.ORDER ?? 'rotate';
const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
const rounded = (value) => JSON.stringify(value, (_, v) => (typeof v === 'number' ? Math.round(v) : v));
for (const name of names) {
  const input = await A.readHardekopf({ prefix: resolve(dir, name) }, { nonObjectAddress: 'make-object' });
  const hcd = A.appendOfflineMerges(input.hcd, A.computeHvn(input.program).merges);
  const solve = async (options, extra = {}) => {
    const build = builds.get(options) ?? A;
    const gpu = options.gpu ?? ctx;
    const uploads = gpu.uploads;
    gpu.uploads = uploadPools.get(options) ?? uploads;
    const solver = await build.createGpuSolver(input.program, { gpu: ctx, hcd, ...options, ...extra });
    try {
      return { result: await solver.solve(), report: solver.report };
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
  const times = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  const reports = Object.fromEntries(Object.keys(variants).map((key) => [key, []]));
  const last = {};
  const entries = Object.entries(variants);
  // With scripts/dawn-call-times.mjs preloaded (`node --import`), count only the timed runs' calls.
  globalThis.__hookReset?.();
  for (let run = 0; run < runs; run++) {
    // Each round of runs starts with the next variant: in interleaved runs on the H100 the
    // variant run first in each round was the slower on php in three calls of three, whichever
    // it was (docs/benchmarks/h100/andersen-ab-2026-11-27.txt), so a fixed order biases the A/B.
    const order =
      ORDER === 'fixed'
        ? entries
        : [...entries.slice(run % entries.length), ...entries.slice(0, run % entries.length)];
    for (const [key, options] of order) {
      await settleGarbage();
      const started = performance.now();
      last[key] = await solve(options);
      times[key].push(performance.now() - started);
      reports[key].push(last[key].report);
    }
  }
  globalThis.__hookPrint?.(`${name}, ${runs} runs of ${entries.length} variants`);
  const first = last[Object.keys(variants)[0]].result;
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
      `${name} ${key}: median ${median(times[key]).toFixed(1)} ms [${times[key].map((t) => t.toFixed(0)).join(' ')}]` +
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
    const medianOf = (pick) => Math.round(median(reports[key].map(pick)));
    console.log(
      `${name} ${key} medians over the runs: iterate ${medianOf((r) => r.iterateMs)} prepare ${medianOf((r) => r.host.prepare)}` +
        ` encode ${medianOf((r) => r.host.encode)} submit ${medianOf((r) => r.host.submit)}` +
        ` encodeAhead ${medianOf((r) => r.host.encodeAhead)} wait ${medianOf((r) => r.host.wait)}` +
        (report.host.react !== undefined ? ` react ${medianOf((r) => r.host.react)}` : '') +
        (report.submissionSpans
          ? ` gpu busy ${medianOf((r) => r.submissionSpans.busyMs)} idle ${medianOf((r) => r.submissionSpans.idleMs)}` +
            ` over ${report.submissionSpans.submissions} submissions; idle before` +
            (report.submissionSpans.idleBeforeMs
              ? Object.keys(report.submissionSpans.idleBeforeMs)
                  .map((kind) => ` ${kind} ${medianOf((r) => r.submissionSpans.idleBeforeMs?.[kind] ?? 0)}`)
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
