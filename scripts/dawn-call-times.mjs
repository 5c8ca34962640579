// Run (preloaded into a script that solves on WebGPU, e.g. on the H100 machine through .device/enter.sh):
//   GPUMORPH_DATA=../shared/data B=gcc,perl RUNS=3 \
//     node --import ./scripts/dawn-call-times.mjs scripts/andersen-ab.mjs
//
// Times every call into Dawn made through the compute pass, command encoder, queue, device and
// buffer classes of the `webgpu` package, to say where a solve's host time goes (the host records
// and submits a few thousand dispatches a solve). A script that calls `globalThis.__hookReset()`
// before the runs it times and `globalThis.__hookPrint(title)` after them (andersen-ab.mjs does,
// around its timed runs) gets the totals per method (ms, calls, µs a call) and the calls over
// 0.2 ms, grouped by method and the label of the pass, encoder or buffer, and per pipeline label
// the dispatches recorded and their mean and largest grid in workgroups. The timing wrapper adds
// about a microsecond a call. The figures of sections 1 and 6 of
// docs/benchmarks/h100/andersen-ab-2026-11-27c.txt, and the grids the Andersen README counts on
// the development machine, come from it.
import { globals } from 'webgpu';

const SLOW_MS = 0.2;
const totals = {};
const slowCalls = {};
/** Per pipeline label: [dispatches, workgroups in all, largest grid]. */
const grids = {};
const pipelineOf = new WeakMap();
const CLASSES = ['GPUComputePassEncoder', 'GPUCommandEncoder', 'GPUQueue', 'GPUDevice', 'GPUBuffer'];

/** Adds one call of `ms` to the `[ms, calls]` entry of `key` in `table`. */
function count(table, key, ms) {
  const entry = table[key] ?? [0, 0];
  entry[0] += ms;
  entry[1]++;
  table[key] = entry;
}

for (const className of CLASSES) {
  const proto = globals[className].prototype;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (typeof descriptor.value !== 'function' || name === 'constructor') continue;
    const original = descriptor.value;
    const key = `${className}.${name}`;
    proto[name] = function (...args) {
      if (key === 'GPUComputePassEncoder.setPipeline') pipelineOf.set(this, args[0]?.label ?? '?');
      if (key === 'GPUComputePassEncoder.dispatchWorkgroups') {
        const workgroups = (args[0] ?? 1) * (args[1] ?? 1) * (args[2] ?? 1);
        const grid = grids[pipelineOf.get(this) ?? '?'] ?? [0, 0, 0];
        grid[0]++;
        grid[1] += workgroups;
        grid[2] = Math.max(grid[2], workgroups);
        grids[pipelineOf.get(this) ?? '?'] = grid;
      }
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - started;
        count(totals, key, ms);
        if (ms > SLOW_MS) {
          const label = String(args[0]?.label ?? this.label ?? '')
            .split(' ')
            .slice(0, 2)
            .join(' ');
          count(slowCalls, `${key} ${label}`, ms);
        }
      }
    };
  }
}

globalThis.__hookReset = () => {
  for (const key of Object.keys(totals)) delete totals[key];
  for (const key of Object.keys(slowCalls)) delete slowCalls[key];
  for (const key of Object.keys(grids)) delete grids[key];
};

globalThis.__hookPrint = (title) => {
  const byTime = (entries) => entries.sort((a, b) => b[1][0] - a[1][0]);
  console.log(`--- dawn calls: ${title}`);
  for (const [key, [ms, calls]] of byTime(Object.entries(totals)).slice(0, 22)) {
    console.log(
      `${key.padEnd(45)} ${ms.toFixed(1).padStart(9)} ms ${String(calls).padStart(8)} calls ${((ms / calls) * 1000).toFixed(2).padStart(8)} us`,
    );
  }
  console.log(`--- calls over ${SLOW_MS} ms`);
  for (const [key, [ms, calls]] of byTime(Object.entries(slowCalls)).slice(0, 15)) {
    console.log(`${key.padEnd(60)} ${ms.toFixed(1).padStart(9)} ms ${String(calls).padStart(6)}`);
  }
  console.log('--- grids per pipeline (dispatches, mean and largest workgroups)');
  for (const [label, [dispatches, workgroups, largest]] of Object.entries(grids).sort(
    (a, b) => b[1][1] - a[1][1],
  )) {
    console.log(
      `${label.padEnd(40)} ${String(dispatches).padStart(7)} ${(workgroups / dispatches).toFixed(0).padStart(9)} ${String(largest).padStart(9)}`,
    );
  }
};
