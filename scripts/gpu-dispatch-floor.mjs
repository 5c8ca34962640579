// Run (after `npm run build`; on the H100 machine through .device/enter.sh, or on any adapter with
// timestamp-query):
//   node scripts/gpu-dispatch-floor.mjs
//
// The GPU's own cost of a dispatch that does (nearly) nothing, which sets the floor of a round of
// the Andersen solver (forty-odd dispatches, most of them tiny in the quiet rounds): 1,000
// dispatches of one kernel in one compute pass, timed by the pass's timestamps, for several grid
// sizes. Each invocation returns at once unless its id is past a bound it never reaches; the
// kernel writes its storage buffer (statically), so Dawn puts a barrier between the dispatches as
// it does in the solver. Then the same dispatches one per pass (as the solver's profile times
// them), and two kernels alternating (a pipeline change per dispatch). Prints the median of 5
// repetitions in µs per dispatch.
import { acquireGpu, BufferUsage, MapMode } from '@gpumorph/gpu-allocator';

const ctx = await acquireGpu({ require: true });
const device = ctx.device;
if (!ctx.features.timestampQuery) throw new Error('this script needs timestamp-query');
console.log(`adapter: ${ctx}`);
const DISPATCHES = 1000;

function kernel(tag) {
  const module = device.createShaderModule({
    code: `@group(0) @binding(0) var<storage, read_write> words: array<atomic<u32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x == 0xffffffffu - ${tag}u) { atomicAdd(&words[0], 1u); }
}`,
  });
  return device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
}
const pipelines = [kernel(0), kernel(1)];
const buffer = device.createBuffer({ size: 1 << 12, usage: BufferUsage.STORAGE });
const groups = pipelines.map((pipeline) =>
  device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer } }],
  }),
);
const querySet = device.createQuerySet({ type: 'timestamp', count: 2 * DISPATCHES });
const resolved = device.createBuffer({
  size: 16 * DISPATCHES,
  usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
});
const readback = device.createBuffer({
  size: 16 * DISPATCHES,
  usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
});

/** GPU µs per dispatch: the passes' summed spans over the dispatches, median of 5. */
async function measure(label, { grid, perPass, alternate }) {
  const runs = [];
  for (let rep = 0; rep < 5; rep++) {
    const encoder = device.createCommandEncoder();
    const passes = perPass ? DISPATCHES : 1;
    for (let p = 0; p < passes; p++) {
      const pass = encoder.beginComputePass({
        timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * p, endOfPassWriteIndex: 2 * p + 1 },
      });
      const count = perPass ? 1 : DISPATCHES;
      for (let i = 0; i < count; i++) {
        const which = alternate ? (p + i) % 2 : 0;
        pass.setPipeline(pipelines[which]);
        pass.setBindGroup(0, groups[which]);
        pass.dispatchWorkgroups(grid);
      }
      pass.end();
    }
    encoder.resolveQuerySet(querySet, 0, 2 * passes, resolved, 0);
    encoder.copyBufferToBuffer(resolved, 0, readback, 0, 16 * passes);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(MapMode.READ);
    const stamps = new BigUint64Array(readback.getMappedRange().slice(0));
    readback.unmap();
    let ns = 0n;
    for (let p = 0; p < passes; p++) ns += stamps[2 * p + 1] - stamps[2 * p];
    runs.push(Number(ns) / 1000 / DISPATCHES);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(46)} ${runs[2].toFixed(2)} µs per dispatch (range ${runs[0].toFixed(2)}–${runs[4].toFixed(2)})`,
  );
}
for (const grid of [1, 16, 128, 1024, 4096, 32768]) {
  await measure(`grid ${grid} workgroups of 64, one pass`, { grid });
}
await measure('grid 1, two kernels in turn, one pass', { grid: 1, alternate: true });
await measure('grid 1, a pass per dispatch', { grid: 1, perPass: true });
await measure('grid 1024, a pass per dispatch', { grid: 1024, perPass: true });
ctx.destroy();
process.exit(0);
