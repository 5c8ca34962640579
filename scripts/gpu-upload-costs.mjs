// Run (after `npm run build`; on the H100 machine through .device/enter.sh):
//   node scripts/gpu-upload-costs.mjs
//
// Where the time of uploading a solve's inputs goes on this device (linux's are about 25 MB): the
// host's first touch of new typed arrays against reused ones, `queue.writeBuffer` of the whole
// array or of 4 MiB pieces, and a kept MAP_WRITE staging buffer (map, copy in, unmap, copy on the
// GPU). Each line is the median of five runs, in ms.
import { acquireGpu, BufferUsage, MapMode } from '@gpumorph/gpu-allocator';

const MIB = 2 ** 20;
const bytes = Number(process.env.MIB ?? 25) * MIB;
const words = bytes / 4;
const runs = 5;
const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)].toFixed(2);
const time = async (label, work) => {
  const times = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work(run);
    times.push(performance.now() - started);
  }
  console.log(`${label}: median ${median(times)} ms [${times.map((t) => t.toFixed(1)).join(' ')}]`);
};
const fill = (array, seed) => {
  for (let i = 0; i < array.length; i++) array[i] = (i * 2654435761 + seed) >>> 0;
};

await time('host: new array, filled', async (run) => fill(new Uint32Array(words), run));
const reused = new Uint32Array(words);
await time('host: reused array, filled', async (run) => fill(reused, run));

const ctx = await acquireGpu({ require: true });
const { device, queue } = ctx;
const target = device.createBuffer({ size: bytes, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
await time('writeBuffer whole (to done)', async () => {
  queue.writeBuffer(target, 0, reused.buffer, 0, bytes);
  await queue.onSubmittedWorkDone();
});
await time('writeBuffer whole (call only)', async () => {
  queue.writeBuffer(target, 0, reused.buffer, 0, bytes);
});
await queue.onSubmittedWorkDone();
const piece = 4 * MIB;
await time('writeBuffer 4 MiB pieces (to done)', async () => {
  for (let at = 0; at < bytes; at += piece)
    queue.writeBuffer(target, at, reused.buffer, at, Math.min(piece, bytes - at));
  await queue.onSubmittedWorkDone();
});
const staging = device.createBuffer({ size: bytes, usage: BufferUsage.MAP_WRITE | BufferUsage.COPY_SRC });
await staging.mapAsync(MapMode.WRITE);
const parts = { set: [], unmapCopy: [], remap: [] };
await time('kept MAP_WRITE staging (set, unmap, copy, done, map again)', async () => {
  const t0 = performance.now();
  new Uint8Array(staging.getMappedRange()).set(new Uint8Array(reused.buffer));
  const t1 = performance.now();
  staging.unmap();
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(staging, 0, target, 0, bytes);
  queue.submit([encoder.finish()]);
  await queue.onSubmittedWorkDone();
  const t2 = performance.now();
  await staging.mapAsync(MapMode.WRITE);
  const t3 = performance.now();
  parts.set.push(t1 - t0);
  parts.unmapCopy.push(t2 - t1);
  parts.remap.push(t3 - t2);
});
console.log(
  `  of which set ${median(parts.set)}, unmap + copy ${median(parts.unmapCopy)}, map again ${median(parts.remap)}`,
);
await time('kept MAP_WRITE staging: filled in place (scattered words)', async (run) => {
  const mapped = new Uint32Array(staging.getMappedRange());
  fill(mapped, run);
  staging.unmap();
  await staging.mapAsync(MapMode.WRITE);
});
staging.unmap();
staging.destroy();
target.destroy();
ctx.destroy();
process.exit(0);
