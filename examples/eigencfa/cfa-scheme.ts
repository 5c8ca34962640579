// 0CFA of a Scheme file with @gpumorph/eigencfa: which lambdas may flow to each source variable,
// and which lambdas each call site may call.
//
//   npx tsx examples/eigencfa/cfa-scheme.ts [file.scm]     (default: examples/eigencfa/evenodd.scm)
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { analyzeScheme, flowValueText } from '@gpumorph/eigencfa';
import { acquireGpu } from '@gpumorph/gpu-allocator';

const file = process.argv[2] ?? join(import.meta.dirname, 'evenodd.scm');
// null without an adapter: the CPU engine runs (and gives the same flow sets).
const gpu = await acquireGpu();
try {
  const analysis = await analyzeScheme(readFileSync(file, 'utf8'), { file: basename(file), gpu });
  console.log(`engine: ${analysis.statistics.engine}`);
  console.log('flow sets of source variables:');
  for (const v of analysis.source.variables) {
    console.log(`  ${v.name}@${v.pos} <- {${v.flow.map(flowValueText).join(', ')}}`);
  }
  console.log('callees of source call sites:');
  for (const site of analysis.source.callSites) {
    console.log(`  (${site.operator} ...)@${site.pos} -> {${site.callees.map(flowValueText).join(', ')}}`);
  }
} finally {
  gpu?.destroy();
}
