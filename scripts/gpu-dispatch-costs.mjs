// Run (after `npm run build`; on the H100 machine through .device/enter.sh, or on any adapter):
//   node scripts/gpu-dispatch-costs.mjs
//
// The host's cost of one dispatch, by the number of storage buffers in its bind group: 2,000
// `setPipeline` + `dispatchWorkgroups` pairs recorded into one compute pass, then `finish` and
// `queue.submit` (where Dawn records the backend's commands and barriers). Dawn checks and tracks
// every binding of the bound groups at each dispatch, so a kernel bound to a large group pays for
// bindings it never touches. Prints the median of 7 repetitions per size, in µs per dispatch.
// Then the same with a group set before every dispatch, alternating between two pipelines and
// their groups (what a solver pays when each kernel binds only the bindings it uses).
import { acquireGpu, BufferUsage } from '@gpumorph/gpu-allocator';

const ctx = await acquireGpu({ require: true });
const device = ctx.device;
const DISPATCHES = 2000;

/** A pipeline that declares (and, statically, uses) `bindings` storage buffers, and its bind group. */
function kernelWith(bindings) {
  const declarations = Array.from(
    { length: bindings },
    (_, i) => `@group(0) @binding(${i}) var<storage, read_write> b${i}: array<u32>;`,
  ).join('\n');
  const uses = Array.from({ length: bindings }, (_, i) => `b${i}[gid.x] += 1u;`).join(' ');
  const module = device.createShaderModule({
    code: `${declarations}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x > 1000000u) { ${uses} }
}`,
  });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const buffers = Array.from({ length: bindings }, () =>
    device.createBuffer({ size: 1 << 16, usage: BufferUsage.STORAGE }),
  );
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  return { pipeline, group, buffers };
}

console.log(`adapter: ${ctx}`);
/** Median record, finish and submit times of 7 repetitions of `record(pass, i)` for each dispatch. */
async function measure(label, record) {
  const runs = [];
  for (let rep = 0; rep < 7; rep++) {
    const started = performance.now();
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    for (let i = 0; i < DISPATCHES; i++) record(pass, i);
    pass.end();
    const recorded = performance.now();
    const commands = encoder.finish();
    const finished = performance.now();
    device.queue.submit([commands]);
    const submitted = performance.now();
    await device.queue.onSubmittedWorkDone();
    runs.push({ record: recorded - started, finish: finished - recorded, submit: submitted - finished });
  }
  runs.sort((a, b) => a.record + a.finish + a.submit - (b.record + b.finish + b.submit));
  const median = runs[3];
  const us = (ms) => ((1000 * ms) / DISPATCHES).toFixed(2);
  console.log(
    `${label}: per dispatch record ${us(median.record)} µs, finish ${us(median.finish)} µs, submit ${us(median.submit)} µs`,
  );
}
const kernels = new Map([1, 2, 4, 8, 12, 16].map((bindings) => [bindings, kernelWith(bindings)]));
for (const [bindings, { pipeline, group }] of kernels) {
  await measure(`${String(bindings).padStart(2)} bindings, group set once`, (pass, i) => {
    if (i === 0) pass.setBindGroup(0, group);
    pass.setPipeline(pipeline);
    pass.dispatchWorkgroups(1);
  });
}
for (const bindings of [2, 16]) {
  const a = kernels.get(bindings);
  const b = kernelWith(bindings);
  await measure(
    `${String(bindings).padStart(2)} bindings, two kernels in turn, group set each dispatch`,
    (pass, i) => {
      const { pipeline, group } = i % 2 === 0 ? a : b;
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(1);
    },
  );
  for (const buffer of b.buffers) buffer.destroy();
}
for (const { buffers } of kernels.values()) for (const buffer of buffers) buffer.destroy();
ctx.destroy();
process.exit(0);
