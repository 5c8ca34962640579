// Run (after `npm run build`; on the H100 machine through .device/enter.sh, see DESIGN.md):
//   GPUMORPH_DATA=../shared/data B=perl RUNS=8 node scripts/andersen-host-profile.mjs
//
// Where the host's time goes in WebGPU solves, and nothing else: per benchmark, two untimed
// solves, then RUNS solves under V8's sampling profiler (started and stopped around the solves
// through node:inspector, so reading the files, HVN and the checks are not in it). Prints the
// solves' median wall ms and the host parts of their reports, then two tables over the profiled
// solves, in ms per solve: self time by function (native calls, a dispatch or a submit, count to
// the JavaScript function that made them) and total time (self plus callees, each sample counted
// once per function however deep it recurses), the TOP (default 30) of each. `(idle)` is the
// main thread asleep; `processImmediate` is mostly the `webgpu` binding polling the device for the
// promises it holds. A third table charges the native leaves (WebGPU calls) to the nearest
// JavaScript caller. VARIANTS (JSON, as in andersen-ab.mjs) gives createGpuSolver options.
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { acquireGpu } from '@gpumorph/gpu-allocator';
import { settleGarbage } from '@gpumorph/gpu-allocator/bench';
import * as A from '../packages/andersen/dist/index.js';

const dir = resolve(process.env.GPUMORPH_DATA ?? '../shared/data', 'andersen/hardekopf');
const ctx = await acquireGpu({ require: true });
const variants = JSON.parse(process.env.VARIANTS ?? '{"default":{}}');
const runs = Number(process.env.RUNS ?? 8);
const top = Number(process.env.TOP ?? 30);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const frameName = ({ functionName, url, lineNumber }) =>
  `${functionName || '(anonymous)'} ${url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : ''}`.trim();

/** Self and total ms by function of one V8 profile. */
function tally(profile, self, total, native) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const leafFrame = nodes.get(id).callFrame;
    const leaf = frameName(leafFrame);
    self.set(leaf, (self.get(leaf) ?? 0) + ms);
    if (!leafFrame.url && !['(idle)', '(program)', '(garbage collector)', '(root)'].includes(leaf)) {
      // A native leaf: charge it to the nearest JavaScript caller, with the native name.
      let at = parent.get(id);
      while (at !== undefined && !nodes.get(at).callFrame.url) at = parent.get(at);
      const caller = at === undefined ? '?' : frameName(nodes.get(at).callFrame);
      const key = `${leaf} <- ${caller}`;
      native.set(key, (native.get(key) ?? 0) + ms);
    }
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(nodes.get(at).callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  });
}

const print = (title, map) => {
  console.log(title);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(ms / runs).toFixed(2).padStart(9)}  ${name}`);
  }
};

for (const name of (process.env.B ?? 'perl').split(',')) {
  const input = await A.readHardekopf({ prefix: resolve(dir, name) }, { nonObjectAddress: 'make-object' });
  const hcd = A.appendOfflineMerges(input.hcd, A.computeHvn(input.program).merges);
  for (const [key, options] of Object.entries(variants)) {
    const solve = async () => {
      const solver = await A.createGpuSolver(input.program, { gpu: ctx, hcd, ...options });
      try {
        await solver.solve();
        return solver.report;
      } finally {
        solver.destroy();
      }
    };
    await solve();
    await solve();
    const self = new Map();
    const total = new Map();
    const native = new Map();
    const times = [];
    const reports = [];
    for (let run = 0; run < runs; run++) {
      await settleGarbage();
      await session.post('Profiler.start');
      const started = performance.now();
      reports.push(await solve());
      times.push(performance.now() - started);
      const { profile } = await session.post('Profiler.stop');
      tally(profile, self, total, native);
    }
    const host = Object.keys(reports[0].host)
      .map((part) => `${part} ${median(reports.map((r) => r.host[part])).toFixed(1)}`)
      .join(', ');
    console.log(
      `## ${name} ${key}: median ${median(times).toFixed(1)} ms [${times.map((t) => t.toFixed(0)).join(' ')}],` +
        ` iterate ${median(reports.map((r) => r.iterateMs)).toFixed(1)}; host medians: ${host}`,
    );
    print(`self ms per solve (top ${top})`, self);
    print(`total ms per solve (top ${top})`, total);
    print(`native self ms per solve by JavaScript caller (top ${top})`, native);
  }
}
session.disconnect();
ctx.destroy();
process.exit(0);
