// Run (preloaded into a script that solves on WebGPU, e.g. on the H100 machine through .device/enter.sh):
//   GPUMORPH_DATA=../shared/data B=gcc,perl RUNS=3 \
//     node --import ./scripts/dawn-call-times.mjs scripts/andersen-ab.mjs
//
// Times every call into Dawn made through the compute pass, command encoder, queue, device and
// buffer classes of the `webgpu` package, to say where a solve's host time goes (the host records
// and submits a few thousand dispatches a solve). A script that calls `globalThis.__hookReset()`
// before the runs it times and `globalThis.__hookPrint(title)` after them (andersen-ab.mjs does,
// around its timed runs) gets the totals per method (ms, calls, µs a call) and the calls over
// 0.2 ms, grouped by method and the label of the pass, encoder or buffer. The timing wrapper adds
// about a microsecond a call. The figures of section 1 of
// docs/benchmarks/h100/andersen-ab-2026-11-27c.txt come from it.
import { globals } from 'webgpu';

const SLOW_MS = 0.2;
const totals = {};
const slowCalls = {};
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
};
