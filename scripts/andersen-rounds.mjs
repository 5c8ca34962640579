// Run (after `npm run build`; on the H100 machine through .device/enter.sh, see DESIGN.md):
//   GPUMORPH_DATA=../shared/data B=php,linux node scripts/andersen-rounds.mjs
//
// One profiled WebGPU solve per benchmark (after an untimed one), read round by round from the
// `iteration` events' `kernelMs`: the GPU milliseconds of the rounds grouped by how many nodes
// they propagated, the kernels that lead in each group, then one line per round. The README's
// figures on the quiet rounds (linux: 80 of 216 rounds under 1,000 active nodes; 2.3 ms of GPU
// in a round with 10) come from it. SPANS=1 adds an unprofiled solve's GPU busy ms per submission;
// ALL=1 names every kernel of each round, not the top five.
import { resolve } from 'node:path';
import { acquireGpu } from '@gpumorph/gpu-allocator';
import * as A from '../packages/andersen/dist/index.js';

const dir = resolve(process.env.GPUMORPH_DATA ?? '../shared/data', 'andersen/hardekopf');
const ctx = await acquireGpu({ require: true });
const top = (kernelMs, count) =>
  Object.entries(kernelMs)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([kernel, ms]) => `${kernel} ${ms.toFixed(2)}`)
    .join(', ');
for (const name of (process.env.B ?? 'linux').split(',')) {
  const input = await A.readHardekopf({ prefix: resolve(dir, name) }, { nonObjectAddress: 'make-object' });
  const hcd = A.appendOfflineMerges(input.hcd, A.computeHvn(input.program).merges);
  const warmUp = await A.createGpuSolver(input.program, { gpu: ctx, hcd });
  await warmUp.solve();
  warmUp.destroy();
  const solver = await A.createGpuSolver(input.program, { gpu: ctx, hcd, profile: true });
  const rounds = [];
  solver.on('iteration', (event) => rounds.push(event));
  await solver.solve();
  const report = solver.report;
  solver.destroy();
  console.log(`## ${name}: ${rounds.length} rounds, host ${JSON.stringify(report.host)}`);
  if (process.env.SPANS) {
    // Unprofiled: each submission's GPU busy ms, in order (SPANS=1).
    const timed = await A.createGpuSolver(input.program, { gpu: ctx, hcd, timeSubmissions: true });
    await timed.solve();
    const spans = timed.report.submissionSpans;
    timed.destroy();
    console.log(
      `spans: busy ${spans.busyMs.toFixed(1)} idle ${spans.idleMs.toFixed(1)} ms over ${spans.submissions}`,
    );
    console.log(`busy each: ${spans.busyEachMs.map((ms) => ms.toFixed(2)).join(' ')}`);
  }
  for (const [lo, hi] of [
    [0, 100],
    [100, 1000],
    [1000, 10000],
    [10000, Number.POSITIVE_INFINITY],
  ]) {
    const group = rounds.filter((r) => r.propagated >= lo && r.propagated < hi);
    const kernels = {};
    let total = 0;
    for (const r of group) {
      for (const [kernel, ms] of Object.entries(r.kernelMs ?? {})) {
        kernels[kernel] = (kernels[kernel] ?? 0) + ms;
        total += ms;
      }
    }
    console.log(
      `active [${lo}, ${hi}): ${group.length} rounds, GPU ${total.toFixed(1)} ms: ${top(kernels, 12)}`,
    );
  }
  for (const r of rounds) {
    const total = Object.values(r.kernelMs ?? {}).reduce((a, b) => a + b, 0);
    console.log(
      `round ${r.round}: active ${r.propagated}, edges ${r.edgesAdded}, merged ${r.merged}, GPU ${total.toFixed(2)} ms: ${top(r.kernelMs ?? {}, process.env.ALL ? 99 : 5)}`,
    );
  }
}
ctx.destroy();
process.exit(0);
