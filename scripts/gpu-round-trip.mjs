// Run (after `npm run build`; on the H100 machine through .device/enter.sh, or on any adapter):
//   node scripts/gpu-round-trip.mjs
//
// The floor of one submit-and-read round trip, as the Andersen solver makes two of each round:
// 400 times (after 50 untimed), a submission whose only work is one tiny dispatch (or none) and a
// copy of 128 bytes into a staging buffer, then a wait until the bytes are on the host. Ways:
// - `guarded read`: the solver's way, inside GpuContext.guard (three error scopes pushed and
//   popped) with the copy read through the staging pool (mapAsync);
// - `unguarded read`: the same without the error scopes;
// - `done`: no copy, `queue.onSubmittedWorkDone` only;
// - `guarded read, 40 dispatches`: the first way with 40 dispatches of one workgroup before the copy
//   (about what a round's submission holds), to see what recording and submitting them adds.
// Prints the median and 90th percentile in µs per round trip.
import { acquireGpu, BufferUsage } from '@gpumorph/gpu-allocator';

const ctx = await acquireGpu({ require: true });
const device = ctx.device;
console.log(`adapter: ${ctx}`);
const status = device.createBuffer({ size: 4096, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
const module = device.createShaderModule({
  code: `@group(0) @binding(0) var<storage, read_write> words: array<u32>;
@compute @workgroup_size(32) fn main(@builtin(local_invocation_index) i: u32) { words[i] += 1u; }`,
});
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const group = device.createBindGroup({
  layout: pipeline.getBindGroupLayout(0),
  entries: [{ binding: 0, resource: { buffer: status } }],
});

const encode = (dispatches, read) => {
  const encoder = device.createCommandEncoder();
  if (dispatches > 0) {
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    for (let i = 0; i < dispatches; i++) pass.dispatchWorkgroups(1);
    pass.end();
  }
  const staged = read ? ctx.staging.recordRead(encoder, status, 0, 128) : undefined;
  device.queue.submit([encoder.finish()]);
  return staged;
};
const ways = {
  'guarded read': async () => {
    let staged;
    const submitted = ctx.guard('round trip', () => {
      staged = encode(1, true);
    });
    await Promise.all([submitted, staged.read()]);
  },
  'unguarded read': async () => {
    await encode(1, true).read();
  },
  done: async () => {
    encode(1, false);
    await device.queue.onSubmittedWorkDone();
  },
  'guarded read, 40 dispatches': async () => {
    let staged;
    const submitted = ctx.guard('round trip', () => {
      staged = encode(40, true);
    });
    await Promise.all([submitted, staged.read()]);
  },
};
for (const [name, once] of Object.entries(ways)) {
  for (let i = 0; i < 50; i++) await once();
  const times = [];
  for (let i = 0; i < 400; i++) {
    const started = performance.now();
    await once();
    times.push((performance.now() - started) * 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.floor(q * (times.length - 1))].toFixed(0);
  console.log(`${name}: median ${at(0.5)} µs, 90th percentile ${at(0.9)} µs`);
}
ctx.destroy();
process.exit(0);
