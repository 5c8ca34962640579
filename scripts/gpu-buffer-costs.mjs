// Run (after `npm run build`; on the H100 machine through .device/enter.sh):
//   node scripts/gpu-buffer-costs.mjs
//
// Where the time of a large storage buffer goes on this device: the createBuffer call, its first
// use (Dawn clears a buffer lazily, on the first command that uses it), and the same again right
// after a buffer of that size was destroyed. Each line is one buffer; sizes in MiB, times in ms.
import { acquireGpu, BufferUsage } from '@gpumorph/gpu-allocator';

const ctx = await acquireGpu({ require: true });
const device = ctx.device;
const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const firstUse = async (buffer) => {
  // A 4-byte copy out of the buffer is a use: Dawn clears all of it first.
  const probe = device.createBuffer({ size: 4, usage: BufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, probe, 0, 4);
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
  probe.destroy();
};
const sizes = (process.env.SIZES ?? '64,256,1024,2048').split(',').map(Number);
for (const mib of sizes) {
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const buffer = device.createBuffer({ size: mib * 2 ** 20, usage });
    const t1 = performance.now();
    await firstUse(buffer);
    const t2 = performance.now();
    await firstUse(buffer);
    const t3 = performance.now();
    buffer.destroy();
    await device.queue.onSubmittedWorkDone();
    const t4 = performance.now();
    console.log(
      `${mib} MiB run ${run}: create ${(t1 - t0).toFixed(1)} first use ${(t2 - t1).toFixed(1)} ` +
        `second use ${(t3 - t2).toFixed(1)} destroy ${(t4 - t3).toFixed(1)}`,
    );
  }
}
// Many buffers held at once, as a solve holds its pools' windows.
const held = [];
const t0 = performance.now();
for (let i = 0; i < 8; i++) held.push(device.createBuffer({ size: 512 * 2 ** 20, usage }));
const t1 = performance.now();
for (const buffer of held) await firstUse(buffer);
const t2 = performance.now();
for (const buffer of held) buffer.destroy();
await device.queue.onSubmittedWorkDone();
const t3 = performance.now();
const again = [];
for (let i = 0; i < 8; i++) again.push(device.createBuffer({ size: 512 * 2 ** 20, usage }));
for (const buffer of again) await firstUse(buffer);
const t4 = performance.now();
console.log(
  `8 x 512 MiB: create ${(t1 - t0).toFixed(1)} first use ${(t2 - t1).toFixed(1)} destroy ${(t3 - t2).toFixed(1)} ` +
    `create + first use right after ${(t4 - t3).toFixed(1)}`,
);
for (const buffer of again) buffer.destroy();
ctx.destroy();
process.exit(0);
