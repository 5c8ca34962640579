// Run (after `npm run build`; any adapter, lavapipe included):
//   node scripts/kernel-cache-lookups.mjs
//
// What `ctx.kernels.get` costs the host for pipelines it already built, the way a solver asks for
// them: one large module (176 KB of WGSL, about the size of the Andersen solver's 109 KB linked
// module and its libraries) with 37 entry points, looked up once per entry point with a source
// string that is new on every solve but equal in content. Prints five repetitions, in ms per 37.
import { acquireGpu, defineBindings } from '@gpumorph/gpu-allocator';

const ctx = await acquireGpu({ require: true });
const ENTRY_POINTS = 37;
const source = [
  '// padding\n'.repeat(16_000),
  ...Array.from({ length: ENTRY_POINTS }, (_, i) => `@compute @workgroup_size(1) fn e${i}() {}`),
].join('\n');
const layout = defineBindings('kernel cache look-ups', {});
for (let i = 0; i < ENTRY_POINTS; i++) {
  await ctx.kernels.get({ label: 'look-up', code: source, layout, entryPoint: `e${i}` });
}
console.log(`module: ${source.length} characters, ${ENTRY_POINTS} entry points`);
for (let rep = 0; rep < 5; rep++) {
  // A new string with the same text, as a solver's linked module is on each solve.
  const code = source.split('\n').join('\n');
  const started = performance.now();
  for (let i = 0; i < ENTRY_POINTS; i++) {
    await ctx.kernels.get({ label: 'look-up', code, layout, entryPoint: `e${i}` });
  }
  console.log(`${ENTRY_POINTS} cached look-ups: ${(performance.now() - started).toFixed(2)} ms`);
}
ctx.destroy();
process.exit(0);
