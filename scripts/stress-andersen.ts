// The Andersen differential stress harness (`npm run stress:andersen -- [options]`), in one
// long-lived process:
// 1. with --data, the Hardekopf programs of DIR, smallest first (so linux comes after the others),
//    each solved with its shipped HCD table on the WebGPU engine (when an adapter is present) on
//    the long-lived GPU context (reused pools), again with HVN's merges, again on a fresh context
//    (fresh pools), and on the CPU engine with HVN's merges (where the answer has at most
//    --cpu-max-edges points-to edges); the answer is verified against the reference solution where
//    there is one (node 1 `empty`); the raw constraints are solved with our offline HCD table and
//    HVN and without any table (both exact: they must be equal); then --data-passes − 1 more passes
//    over all programs on the long-lived context, in alternating order, each answer's fingerprint
//    equal to the first pass's;
// 2. generated C-shaped programs solved by the CPU engine, the WebGPU engine and the literal
//    reference, with and without HCD and HVN, raw and after-HCD, in a seeded random order, on the
//    long-lived context and, between rounds, on fresh ones. A program that breaks a relation is
//    shrunk by fast-check and saved under packages/andersen/test/fixtures/stress/, which
//    test/stress.test.ts replays.
//
// Options:
//   --mode small|long|h100   sizes and counts (small: what npm test runs; h100: larger programs,
//                            a hardware adapter required, a wall-clock budget of 200 s)
//   --runs N                 programs per round (default by mode)
//   --rounds N               rounds of generated programs, each with its own seed (default by mode)
//   --seed N                 the first round's seed (default random; printed)
//   --seconds N              wall-clock budget: the generated rounds share what the data left
//                            (at least 30 s); default by mode (none in small and long)
//   --engines cpu|all        all (default): the WebGPU engine too when an adapter is present
//                            (lavapipe counts in small and long modes)
//   --data DIR               the Hardekopf programs to check first (long and h100 modes)
//   --data-passes N          passes over the data programs (default 3 in h100, 2 in long)
//   --cpu-max-edges N        CPU engine only on data answers of at most N points-to edges
//                            (default 4e9; mplayer has 2.2e9)
// Prints one JSON line per data solve and per round; exit status 1 when anything differs.
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type AndersenResult,
  appendOfflineMerges,
  applyOpaqueObjects,
  computeHvn,
  computeOfflineHcd,
  type HardekopfInput,
  type HcdPairs,
  readHardekopf,
  solveAndersen,
  verifySolution,
} from '@gpumorph/andersen';
import { answerFingerprint, compareAnswers, stressAndersen } from '@gpumorph/andersen/testing';
import { acquireGpu, type GpuContext } from '@gpumorph/gpu-allocator';

const MODES = {
  small: {
    runs: 40,
    rounds: 1,
    maxNodes: 60,
    maxConstraints: 120,
    size: 'small' as const,
    freshContexts: false,
    seconds: undefined,
    dataPasses: 0,
  },
  long: {
    runs: 500,
    rounds: 4,
    maxNodes: 200,
    maxConstraints: 500,
    size: 'large' as const,
    freshContexts: true,
    seconds: undefined,
    dataPasses: 2,
  },
  h100: {
    runs: 1_000_000,
    rounds: 4,
    maxNodes: 2000,
    maxConstraints: 6000,
    size: 'max' as const,
    freshContexts: true,
    seconds: 200,
    dataPasses: 3,
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
    seconds: { type: 'string' },
    'data-passes': { type: 'string' },
    'cpu-max-edges': { type: 'string' },
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
const seconds = values.seconds === undefined ? mode.seconds : Number(values.seconds);
const dataPasses = values['data-passes'] === undefined ? mode.dataPasses : Number(values['data-passes']);
const cpuMaxEdges = values['cpu-max-edges'] === undefined ? 4e9 : Number(values['cpu-max-edges']);
const startedAt = performance.now();
const found = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/andersen/test/fixtures/stress');

// The h100 mode needs a hardware adapter (it throws without one); the others take what there is.
const acquire = async (): Promise<GpuContext | null> =>
  values.engines === 'cpu'
    ? null
    : acquireGpu({ allowSoftware: values.mode !== 'h100', require: values.mode === 'h100' });

let gpu = await acquire().catch((error: unknown) => {
  console.error(`stress-andersen: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
});
console.log(
  JSON.stringify({
    mode: values.mode,
    runs,
    rounds,
    seed: firstSeed,
    seconds,
    gpu: gpu ? String(gpu) : null,
  }),
);
let failures = 0;
if (values.data !== undefined && values.mode !== 'small' && dataPasses > 0) {
  failures += await checkData(values.data);
}

const generatedMs =
  seconds === undefined ? undefined : Math.max(30_000, seconds * 1000 - (performance.now() - startedAt));
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
    timeLimitMs: generatedMs === undefined ? undefined : generatedMs / rounds,
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
gpu?.destroy();
console.log(JSON.stringify({ failures, ms: Math.round(performance.now() - startedAt) }));
process.exit(failures > 0 ? 1 : 0);

/** The data check (step 1 of the header); returns the number of failures. */
async function checkData(dir: string): Promise<number> {
  const prefixes = readdirSync(dir)
    .filter((f) => /_nodes\.txt(\.gz)?$/.test(f))
    .sort((a, b) => statSync(resolve(dir, a)).size - statSync(resolve(dir, b)).size)
    .map((f) => resolve(dir, f.replace(/_nodes\.txt(\.gz)?$/, '')));
  const inputs = new Map<string, { input: HardekopfInput; withHvn: HcdPairs }>();
  const fingerprints = new Map<string, string>();
  let failed = 0;
  const engine = gpu ? ('webgpu' as const) : ('cpu' as const);
  const solve = (input: HardekopfInput, hcd: HcdPairs | undefined, on: 'cpu' | 'webgpu', ctx = gpu) =>
    solveAndersen(input.program, {
      engine: on,
      gpu: on === 'webgpu' ? (ctx ?? undefined) : undefined,
      hcd,
      opaqueObjects: input.opaqueObjects,
    });
  const report = (fields: Record<string, unknown>, ok: boolean) => {
    if (!ok) failed++;
    console.log(JSON.stringify({ ...fields, ok }));
  };
  const timed = async (what: () => Promise<AndersenResult>) => {
    const t = performance.now();
    const result = await what();
    return { result, ms: Math.round(performance.now() - t) };
  };
  for (let pass = 0; pass < dataPasses; pass++) {
    for (const prefix of pass % 2 === 0 ? prefixes : [...prefixes].reverse()) {
      const program = prefix.slice(prefix.lastIndexOf('/') + 1);
      let entry = inputs.get(prefix);
      if (entry === undefined) {
        const input = await readHardekopf({ prefix }, { nonObjectAddress: 'make-object' });
        entry = { input, withHvn: appendOfflineMerges(input.hcd, computeHvn(input.program).merges) };
        inputs.set(prefix, entry);
      }
      const { input, withHvn } = entry;
      if (pass > 0) {
        const { result, ms } = await timed(() => solve(input, withHvn, engine));
        const fingerprint = answerFingerprint(result);
        report(
          { pass, program, engine, hvn: true, ms, fingerprint },
          fingerprint === fingerprints.get(prefix),
        );
        continue;
      }
      const base = await timed(() => solve(input, input.hcd, engine));
      fingerprints.set(prefix, answerFingerprint(base.result));
      const exact = input.solution ? verifySolution(base.result, input.solution).exact : undefined;
      const edges = base.result.pointsToEdges;
      report({ pass, program, engine, hvn: false, ms: base.ms, edges, exact }, exact !== false);
      const others: { what: Record<string, unknown>; run: () => Promise<AndersenResult> }[] = [
        { what: { engine, hvn: true }, run: () => solve(input, withHvn, engine) },
      ];
      if (gpu) {
        others.push({
          what: { engine, hvn: false, context: 'fresh' },
          run: async () => {
            const fresh = await acquire();
            try {
              return await solve(input, input.hcd, 'webgpu', fresh);
            } finally {
              fresh?.destroy();
            }
          },
        });
        if (edges <= cpuMaxEdges) {
          others.push({ what: { engine: 'cpu', hvn: true }, run: () => solve(input, withHvn, 'cpu') });
        } else console.log(JSON.stringify({ pass, program, engine: 'cpu', skipped: `${edges} edges` }));
      }
      for (const other of others) {
        const { result, ms } = await timed(other.run);
        const { differing, firstNode } = compareAnswers(base.result, result);
        report({ pass, program, ...other.what, ms, differing, firstNode }, differing === 0);
      }
      failed += await checkRaw(prefix, program, engine);
    }
  }
  return failed;
}

/**
 * The raw constraints solved with our offline HCD table (exact) and HVN, and with no table: equal
 * answers. Absent raw files are skipped.
 */
async function checkRaw(prefix: string, program: string, engine: 'cpu' | 'webgpu'): Promise<number> {
  let raw: HardekopfInput;
  try {
    raw = await readHardekopf({ prefix }, { constraints: 'raw', nonObjectAddress: 'make-object' });
  } catch {
    console.log(JSON.stringify({ program, raw: 'no raw constraints' }));
    return 0;
  }
  const solved = applyOpaqueObjects(raw.program, undefined, raw.opaqueObjects).program;
  const hcd = computeOfflineHcd(solved);
  const table = appendOfflineMerges(hcd, computeHvn(solved).merges);
  const options = { engine, gpu: gpu ?? undefined, opaqueObjects: raw.opaqueObjects };
  const t = performance.now();
  const plain = await solveAndersen(raw.program, options);
  const plainMs = Math.round(performance.now() - t);
  const withTable = await solveAndersen(raw.program, { ...options, hcd: table });
  const { differing, firstNode } = compareAnswers(plain, withTable);
  const ms = Math.round(performance.now() - t) - plainMs;
  console.log(
    JSON.stringify({
      program,
      raw: true,
      engine,
      plainMs,
      ms,
      onlinePairs: hcd.statistics.onlinePairs,
      differing,
      firstNode,
      ok: differing === 0,
    }),
  );
  return differing === 0 ? 0 : 1;
}
