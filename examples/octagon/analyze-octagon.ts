// An octagon analysis with @gpumorph/octagon: the invariants a program of the tiny octagon
// language keeps at its loop heads and at its end, and which assertions they prove. The domain
// itself is used directly at the end (closure of a few constraints, then a bound).
//
//   npx tsx examples/octagon/analyze-octagon.ts [file.oct]     (default: examples/octagon/relational.oct)
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { acquireGpu } from '@gpumorph/gpu-allocator';
import { analyzeProgram, createOctagonDomain } from '@gpumorph/octagon';

const file = process.argv[2] ?? join(import.meta.dirname, 'relational.oct');
// With an adapter the analyzer closes its octagons on the GPU; else on the f64 CPU engine.
const ctx = await acquireGpu();
try {
  const result = await analyzeProgram(readFileSync(file, 'utf8'), {
    engine: ctx ? 'webgpu' : 'f64',
    gpu: ctx,
    file: basename(file),
  });
  console.log(`engine: ${result.engine}; variables: ${result.variables.join(', ')}`);
  for (const point of result.points) {
    if (point.label.startsWith('loop head') || point.label === 'end') {
      console.log(`${point.label} (line ${point.pos.line}): ${point.invariant}`);
    }
  }
  for (const check of result.assertions) {
    console.log(`${check.proved ? 'proved' : 'NOT proved'}: ${check.text} (line ${check.pos.line})`);
  }
} finally {
  ctx?.destroy();
}

// The domain on its own: x ≤ 10 and y − x ≤ 0 close to y ≤ 10.
const D = createOctagonDomain({ engine: 'exact', kind: 'int' });
const o = D.fromConstraints(2, [
  { i: 0, si: 1, c: 10 },
  { i: 1, si: 1, j: 0, sj: -1, c: 0 },
]);
console.log(`domain: ${o.toString(['x', 'y'])}; y <= ${o.bound(1)?.hi?.toString()}`);
