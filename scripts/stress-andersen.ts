// The Andersen differential stress harness (`npm run stress:andersen -- [options]`): generated
// C-shaped programs (and, with --data, the Hardekopf programs present) solved by the CPU engine,
// the WebGPU engine and the literal reference, with and without HCD and HVN, raw and after-HCD,
// in a seeded random order, on one long-lived GPU context (reused pools) and, between rounds, on
// fresh ones. A program that breaks a relation is shrunk by fast-check and saved under
// packages/andersen/test/fixtures/stress/, which test/stress-regressions.test.ts replays.
//
// Options:
//   --mode small|long|h100   sizes and counts (small: what npm test runs; h100: larger programs)
//   --runs N                 programs per round (default by mode)
//   --rounds N               rounds in this process, each with its own seed (default by mode)
//   --seed N                 the first round's seed (default random; printed)
//   --engines cpu|all        all (default): the WebGPU engine too when an adapter is present
//                            (lavapipe counts in small and long modes)
//   --data DIR               also solve every Hardekopf program in DIR (long and h100 modes)
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  appendOfflineMerges,
  computeHvn,
  readHardekopf,
  solveAndersen,
  verifySolution,
} from '@gpumorph/andersen';
import { stressAndersen } from '@gpumorph/andersen/testing';
import { acquireGpu, type GpuContext } from '@gpumorph/gpu-allocator';

const MODES = {
  small: {
    runs: 40,
    rounds: 1,
    maxNodes: 60,
    maxConstraints: 120,
    size: 'small' as const,
    freshContexts: false,
  },
  long: {
    runs: 500,
    rounds: 4,
    maxNodes: 200,
    maxConstraints: 500,
    size: 'large' as const,
    freshContexts: true,
  },
  h100: {
    runs: 2000,
    rounds: 4,
    maxNodes: 2000,
    maxConstraints: 6000,
    size: 'max' as const,
    freshContexts: true,
  },
} as const;

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'small' },
    runs: { type: 'string' },
    rounds: { type: 'string' },
    seed: { type: 'string' },
    engines: { type: 'string', default: 'all' },
    data: { type: 'string' },
  },
});
const mode = MODES[values.mode as keyof typeof MODES];
if (!mode) {
  console.error(`unknown --mode ${values.mode} (small, long or h100)`);
  process.exit(2);
}
const runs = values.runs === undefined ? mode.runs : Number(values.runs);
const rounds = values.rounds === undefined ? mode.rounds : Number(values.rounds);
const firstSeed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const found = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/andersen/test/fixtures/stress');

const acquire = async (): Promise<GpuContext | null> =>
  values.engines === 'cpu' ? null : acquireGpu({ allowSoftware: values.mode !== 'h100', require: false });

let gpu = await acquire();
console.log(
  JSON.stringify({ mode: values.mode, runs, rounds, seed: firstSeed, gpu: gpu ? String(gpu) : null }),
);
let failures = 0;
for (let round = 0; round < rounds; round++) {
  const seed = (firstSeed + round) % 2 ** 31;
  if (round > 0 && mode.freshContexts && gpu) {
    gpu.destroy();
    gpu = await acquire();
  }
  const started = performance.now();
  const report = await stressAndersen({
    runs,
    seed,
    gpu,
    maxNodes: mode.maxNodes,
    maxConstraints: mode.maxConstraints,
    size: mode.size,
  });
  const line = { round, seed, programs: report.programs, ms: Math.round(performance.now() - started) };
  if (!report.failure) {
    console.log(JSON.stringify({ ...line, differences: 0 }));
    continue;
  }
  failures++;
  mkdirSync(found, { recursive: true });
  const file = resolve(found, `seed-${seed}${report.failure.opaque ? '.opaque' : ''}.constraints.txt`);
  writeFileSync(file, report.failure.text);
  console.log(JSON.stringify({ ...line, saved: file, differences: report.failure.differences.slice(0, 3) }));
}

if (values.data !== undefined && values.mode !== 'small') {
  const dir = values.data;
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('_nodes.txt.gz') || f.endsWith('_nodes.txt'))
    .map((f) => f.replace(/_nodes\.txt(\.gz)?$/, ''));
  for (const name of names) {
    const input = await readHardekopf({ prefix: resolve(dir, name) }, { nonObjectAddress: 'make-object' });
    const hvn = appendOfflineMerges(input.hcd, computeHvn(input.program).merges);
    const engines = gpu ? (['cpu', 'webgpu'] as const) : (['cpu'] as const);
    const answers = [];
    for (const engine of engines) {
      for (const hcd of [input.hcd, hvn]) {
        answers.push(
          await solveAndersen(input.program, {
            engine,
            gpu: gpu ?? undefined,
            hcd,
            opaqueObjects: input.opaqueObjects,
          }),
        );
      }
    }
    const [base, ...others] = answers;
    if (base === undefined) continue;
    let differing = 0;
    for (const answer of others) {
      for (let v = 0; v < input.program.nodeCount; v++) {
        const a = base.pointsTo(v);
        const b = answer.pointsTo(v);
        if (a.length !== b.length || a.some((m, i) => m !== b[i])) differing++;
      }
    }
    const exact = input.solution ? verifySolution(base, input.solution).exact : undefined;
    if (differing > 0 || exact === false) failures++;
    console.log(JSON.stringify({ program: name, answers: answers.length, differing, exact }));
  }
}
gpu?.destroy();
process.exit(failures > 0 ? 1 : 0);
