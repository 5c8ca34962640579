// Run: node scripts/cpu-profile-top.mjs <dir or .cpuprofile> [rows]
//
// Self time by function of a V8 CPU profile (`node --cpu-prof`), summed over every profile in a
// directory, largest first, in ms. Native calls count toward the JavaScript function that made
// them, so a WebGPU call (a dispatch, a submit) shows as its caller's time. The host profiles in
// packages/andersen/README.md come from this script.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const target = process.argv[2];
if (!target) {
  console.error('usage: node scripts/cpu-profile-top.mjs <dir or .cpuprofile> [rows]');
  process.exit(2);
}
const rows = Number(process.argv[3] ?? 40);
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(target, name))
  : [target];
const selfMs = new Map();
let totalMs = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const where = url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    selfMs.set(key, (selfMs.get(key) ?? 0) + ms);
    totalMs += ms;
  });
}
console.log(`${files.length} profile(s), ${totalMs.toFixed(0)} ms sampled`);
for (const [key, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
  console.log(`${ms.toFixed(1).padStart(9)}  ${key}`);
}
