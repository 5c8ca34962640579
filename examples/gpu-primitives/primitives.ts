// The data-parallel primitives of @gpumorph/gpu-primitives on WebGPU — scan, radix sort
// (key–value) and stream compaction — each beside its CPU reference, which must agree bit for bit.
//
//   npx tsx examples/gpu-primitives/primitives.ts [count]     (default 100000 elements)
//
// Needs a WebGPU adapter (a software one does: see `gpumorph doctor`).
import { acquireGpu, createGpuArray } from '@gpumorph/gpu-allocator';
import {
  compactReference,
  createCompaction,
  createRadixSort,
  createScan,
  radixSortReference,
  scanReference,
} from '@gpumorph/gpu-primitives';

const count = Number(process.argv[2] ?? 100_000);
const ctx = await acquireGpu();
if (!ctx) {
  console.log('no WebGPU adapter: nothing to compare the CPU references with (see gpumorph doctor)');
  process.exit(0);
}
console.log(`adapter: ${ctx}`);

// Deterministic pseudo-random input (xorshift), so every run checks the same data.
const data = new Uint32Array(count);
let state = 0x9e3779b9;
for (let i = 0; i < count; i++) {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  data[i] = (state >>> 0) % 1000;
}

function report(name: string, gpu: Uint32Array, cpu: Uint32Array, ms: number): void {
  const same = gpu.length === cpu.length && gpu.every((x, i) => x === cpu[i]);
  console.log(
    `${name}: ${same ? 'GPU = CPU' : 'GPU ≠ CPU'} (${gpu.length} elements, GPU ${ms.toFixed(1)} ms)`,
  );
  if (!same) process.exitCode = 1;
}

const input = await createGpuArray(ctx, { label: 'input', type: 'u32', data });
const output = await createGpuArray(ctx, { label: 'output', type: 'u32', length: count });
const values = await createGpuArray(ctx, { label: 'values', type: 'u32', data: data.map((_, i) => i) });
const scan = createScan(ctx);
const sort = createRadixSort(ctx);
const compaction = createCompaction(ctx);
try {
  let start = performance.now();
  await scan.run({ input: input.buffer, output: output.buffer, count, kind: 'exclusive', op: 'add' });
  report(
    'exclusive scan (add)',
    await output.read(),
    scanReference(data, { kind: 'exclusive', op: 'add' }),
    performance.now() - start,
  );

  // Elements above 500, in order: the predicate is WGSL over the element x and its index i.
  start = performance.now();
  const kept = await compaction.run({
    input: input.buffer,
    count,
    output: output.buffer,
    predicate: 'x > 500u',
  });
  report(
    'compaction (x > 500)',
    await output.read(0, kept),
    compactReference(data, (x) => x > 500),
    performance.now() - start,
  );

  // Keys < 1000 need only 10 bits: 2 passes of 8 bits instead of 4. Stable, so the values
  // (original indices) of equal keys stay in order, as in the reference.
  start = performance.now();
  await sort.run({ keys: input.buffer, values: values.buffer, count, bits: { start: 0, end: 10 } });
  const elapsed = performance.now() - start;
  const want = radixSortReference(
    data,
    data.map((_, i) => i),
    { start: 0, end: 10 },
  );
  report('radix sort keys', await input.read(), want.keys, elapsed);
  report('radix sort values', await values.read(), want.values as Uint32Array, elapsed);
} finally {
  for (const resource of [scan, sort, compaction, input, output, values]) resource.destroy();
  ctx.destroy();
}
