/**
 * `npm run fuzz -- [--minutes N] [--engine cpu|webgpu|both] [--seed S] [--soak N]`: the long run
 * of the reliability fuzzer (the small deterministic run is `packages/cli/test/fuzz.test.ts`).
 * Prints a line per round, then the cases tried by layer, engine and target, and every violation
 * with its shrunk input; exits 1 when there is one.
 * @module
 */
import { parseArgs } from 'node:util';
import { runFuzz } from './run';
import { runSoak, soakMemoryProblems } from './soak';
import type { FuzzEngine } from './targets';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    engine: { type: 'string', default: 'both' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    soak: { type: 'string', default: '1000' },
  },
});
const minutes = Number(values.minutes);
const seed = Number(values.seed);
const soak = Number(values.soak);
const engines: FuzzEngine[] =
  values.engine === 'both'
    ? ['cpu', 'webgpu']
    : values.engine === 'cpu' || values.engine === 'webgpu'
      ? [values.engine]
      : [];
if (!(minutes > 0) || !Number.isInteger(seed) || engines.length === 0 || !(soak >= 0)) {
  console.error('usage: npm run fuzz -- [--minutes N] [--engine cpu|webgpu|both] [--seed S] [--soak N]');
  process.exit(2);
}

console.log(`fuzz: ${minutes} min on ${engines.join(' and ')}, seed ${seed}`);
const report = await runFuzz({
  engines,
  seed,
  casesPerRound: 20,
  processCasesPerRound: 2,
  timeLimitMs: minutes * 60_000,
  log: (line) => console.log(line),
});
console.log(`\n${report.total} cases in ${report.rounds} rounds:`);
for (const [key, n] of Object.entries(report.cases).sort()) console.log(`  ${String(n).padStart(7)}  ${key}`);
if (engines.includes('webgpu') && soak > 0) {
  const result = await runSoak(soak);
  console.log(
    `soak: ${result.succeeded} analyses succeeded and ${result.failed} failed as they should on one GPU context; ` +
      `heap ${mib(result.heapBytes.first)} → ${mib(result.heapBytes.last)}, RSS ${mib(result.rssBytes.first)} → ${mib(result.rssBytes.last)}`,
  );
  for (const problem of [...result.problems, ...soakMemoryProblems(result)])
    report.violations.push({
      layer: 'library',
      target: 'soak',
      engine: 'webgpu',
      reason: problem,
      input: '',
      inputLength: 0,
    });
}
for (const v of report.violations) {
  console.log(`\nVIOLATION [${v.layer} ${v.engine} ${v.target}] ${v.reason}`);
  if (v.argv) console.log(`  gpumorph ${v.argv.join(' ')}`);
  if (v.input) console.log(`  input (${v.inputLength} characters):\n${v.input}`);
}
console.log(`\n${report.violations.length} violations`);
process.exitCode = report.violations.length > 0 ? 1 : 0;

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
