/**
 * The fuzzing loop: the fixed regression cases once, then fast-check properties over every
 * (target, engine, layer) in rounds, each round a new seed, until the case budget or the time
 * limit is spent. A property that finds a violation shrinks its input to few edits and records it.
 * @module
 */
import { acquireGpu, type GpuContext } from '@gpumorph/gpu-allocator';
import fc from 'fast-check';
import {
  checkCliCase,
  checkLibraryCase,
  judgeRun,
  LIBRARY_TARGETS,
  runInProcess,
  runInSubprocess,
  timeBoundMs,
  type Violation,
  writeCaseFiles,
} from './contract';
import { mutatedText } from './mutate';
import { cliTargets, type FuzzEngine, regressionCases } from './targets';

/** Options of {@link runFuzz}. */
export interface FuzzOptions {
  readonly engines: readonly FuzzEngine[];
  /** fast-check seed of the first round. */
  readonly seed: number;
  /** Generated cases per (target, engine) and round in the in-process layers. */
  readonly casesPerRound: number;
  /** Generated cases per engine and round in their own processes (each costs a Node start). */
  readonly processCasesPerRound: number;
  /** Rounds to run (default: until `timeLimitMs`). */
  readonly rounds?: number;
  /** Stop starting rounds after this long. */
  readonly timeLimitMs?: number;
  /** Run every fixed regression case in its own process too (default true; else only those marked). */
  readonly regressionsInProcesses?: boolean;
  readonly log?: (line: string) => void;
}

/** What a fuzzing run tried and found. */
export interface FuzzReport {
  /** Cases run, by `layer engine target` (shrinking runs included). */
  readonly cases: Record<string, number>;
  readonly total: number;
  readonly rounds: number;
  readonly violations: Violation[];
}

class ContractBroken extends Error {}

/**
 * Runs the fuzzer. The webgpu engine needs an adapter (lavapipe counts); without one it throws.
 *
 * @example
 * ```ts
 * const report = await runFuzz({ engines: ['cpu'], seed: 1, casesPerRound: 5, processCasesPerRound: 0, rounds: 1 });
 * report.violations.length; // 0
 * ```
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const cases: Record<string, number> = {};
  const violations: Violation[] = [];
  const count = (key: string) => {
    cases[key] = (cases[key] ?? 0) + 1;
  };
  const log = options.log ?? (() => {});
  const gpu = options.engines.includes('webgpu') ? await acquireGpu({ require: true }) : null;
  const start = performance.now();
  try {
    await runRegressions(options, count, violations);
    let round = 0;
    const more = () =>
      options.rounds !== undefined
        ? round < options.rounds
        : performance.now() - start < (options.timeLimitMs ?? 0);
    while (more()) {
      const seed = options.seed + round;
      for (const engine of options.engines) {
        await fuzzRound(options, engine, seed, gpu as GpuContext | null, count, violations);
      }
      round++;
      const total = Object.values(cases).reduce((a, b) => a + b, 0);
      log(`round ${round} (seed ${seed}): ${total} cases, ${violations.length} violations`);
    }
    return { cases, total: Object.values(cases).reduce((a, b) => a + b, 0), rounds: round, violations };
  } finally {
    gpu?.destroy();
  }
}

async function runRegressions(
  options: FuzzOptions,
  count: (key: string) => void,
  violations: Violation[],
): Promise<void> {
  for (const engine of options.engines) {
    for (const fixed of regressionCases()) {
      const layers =
        options.regressionsInProcesses !== false || fixed.ownProcess
          ? (['cli', 'process'] as const)
          : (['cli'] as const);
      for (const layer of layers) {
        const files = await writeCaseFiles(fixed.files);
        const argv = fixed.argv(engine).map((arg) => arg.replaceAll('{dir}', files.dir));
        const size = Object.values(fixed.files).reduce((sum, text) => sum + text.length, 0);
        const bound = timeBoundMs(size);
        const run = layer === 'cli' ? await runInProcess(argv, bound) : await runInSubprocess(argv, bound);
        const problems = judgeRun(
          run,
          bound,
          engine === 'webgpu' ? (fixed.webgpuStatus ?? fixed.status) : fixed.status,
        );
        await files.check(problems);
        count(`${layer} ${engine} regression`);
        for (const reason of problems) {
          violations.push({
            layer,
            target: `regression: ${fixed.name}`,
            engine,
            reason,
            input: '',
            inputLength: size,
            argv,
          });
        }
      }
    }
  }
}

async function fuzzRound(
  options: FuzzOptions,
  engine: FuzzEngine,
  seed: number,
  gpu: GpuContext | null,
  count: (key: string) => void,
  violations: Violation[],
): Promise<void> {
  const targets = cliTargets();
  const check = async <T>(
    layer: Violation['layer'],
    name: string,
    arbitrary: fc.Arbitrary<T>,
    numRuns: number,
    run: (value: T) => Promise<string[]>,
    describe: (value: T) => string,
  ) => {
    if (numRuns <= 0) return;
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (value) => {
        count(`${layer} ${engine} ${name}`);
        const problems = await run(value);
        if (problems.length > 0) throw new ContractBroken(problems.join('; '));
      }),
      { seed, numRuns, endOnFailure: false, maxSkipsPerRun: 0 },
    );
    if (details.failed && details.counterexample) {
      const input = describe(details.counterexample[0]);
      const reason =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : String(details.errorInstance);
      violations.push({
        layer,
        target: name,
        engine,
        reason,
        input: input.slice(0, 2000),
        inputLength: input.length,
      });
    }
  };
  for (const target of targets) {
    const inputs = mutatedText(target.seeds, target.dictionary);
    await check(
      'cli',
      target.name,
      inputs,
      options.casesPerRound,
      async (input) => {
        return (await checkCliCase('cli', target, engine, input)).problems;
      },
      (input) => input,
    );
  }
  // One property over every command in its own process: each case costs a Node start.
  const anyTarget = fc
    .integer({ min: 0, max: targets.length - 1 })
    .chain((i) =>
      mutatedText(
        (targets[i] as (typeof targets)[number]).seeds,
        (targets[i] as (typeof targets)[number]).dictionary,
      ).map((input) => ({ i, input })),
    );
  await check(
    'process',
    'any command',
    anyTarget,
    options.processCasesPerRound,
    async ({ i, input }) => {
      return (await checkCliCase('process', targets[i] as (typeof targets)[number], engine, input)).problems;
    },
    ({ i, input }) => `${(targets[i] as (typeof targets)[number]).name}\n${input}`,
  );
  for (const target of LIBRARY_TARGETS) {
    const like = targets.find((t) => t.name === target.like);
    if (!like) throw new Error(`no CLI target ${target.like}`);
    await check(
      'library',
      target.name,
      mutatedText(like.seeds, like.dictionary),
      options.casesPerRound,
      (input) => checkLibraryCase(target, engine, gpu, input),
      (input) => input,
    );
  }
}
