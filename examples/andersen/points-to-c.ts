// Points-to analysis of a C file: clang-16 compiles it to LLVM IR (mem2reg turns most locals into
// SSA values named after the C variables), and @gpumorph/andersen analyzes the module.
//
//   npx tsx examples/andersen/points-to-c.ts [file.c]     (default: examples/andersen/callbacks.c)
//
// Needs clang-16 and opt-16 (Debian: apt-get install clang-16 llvm-16).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { analyzeModule } from '@gpumorph/andersen';

const source = process.argv[2] ?? join(import.meta.dirname, 'callbacks.c');
const work = mkdtempSync(join(tmpdir(), 'gpumorph-points-to-'));
try {
  const raw = join(work, 'raw.ll');
  const ll = join(work, `${basename(source, '.c')}.ll`);
  // -disable-O0-optnone lets opt run mem2reg at -O0; -g gives the source lines of heap sites.
  execFileSync('clang-16', [
    ...['-S', '-emit-llvm', '-O0', '-Xclang', '-disable-O0-optnone'],
    ...['-fno-discard-value-names', '-g', source, '-o', raw],
  ]);
  execFileSync('opt-16', ['-S', '-passes=mem2reg', raw, '-o', ll]);

  // engine 'auto': WebGPU when an adapter is found, else the CPU engine (the same sets).
  const analysis = await analyzeModule(readFileSync(ll, 'utf8'), { file: basename(source) });
  console.log(`engine: ${analysis.engine}`);

  console.log('points-to sets of the named locals:');
  const lines: string[] = [];
  for (const [value, node] of analysis.extracted.valueNodes) {
    // Unnamed temporaries (%0, %1, …) repeat their named sources, and a global's own address
    // (@a -> {@a}) says nothing: leave both out.
    if (!value.startsWith('%') || /^%\d+ /.test(value)) continue;
    const targets = Array.from(analysis.result.pointsTo(node), (o) => analysis.locationName(o));
    if (targets.length > 0) lines.push(`  ${value} -> {${targets.sort().join(', ')}}`);
  }
  console.log(lines.sort().join('\n'));

  console.log('indirect calls:');
  for (const site of analysis.callSites) {
    if (site.direct !== undefined) continue;
    console.log(`  in ${site.caller} at line ${site.line ?? '?'} -> {${analysis.callees(site).join(', ')}}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
