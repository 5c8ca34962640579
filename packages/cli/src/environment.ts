/**
 * The one list of the `GPUMORPH_*` environment variables, and the only place the CLI reads the
 * ones that change what a command does. The libraries read no environment: the CLI turns these
 * variables into explicit options (`acquireGpu`'s `require`, `dawnFlags`, `robustness` and
 * `onShader`). The bench suites, the test harness and CI read the variables listed for them here
 * (and nothing else); `packages/cli/README.md` shows this list as a table, and a test keeps the two
 * equal.
 * @module
 */
import type { AcquireGpuOptions } from '@gpumorph/gpu-allocator';

/** Who reads a variable: the CLI (through this module), the bench suites, or the tests and CI. */
export type EnvironmentReader = 'cli' | 'bench' | 'tests';

/** One documented variable. */
export interface EnvironmentVariable {
  readonly name: `GPUMORPH_${string}`;
  readonly readBy: EnvironmentReader;
  /** What it does, in one sentence (the README table's text). */
  readonly description: string;
}

/**
 * Every `GPUMORPH_*` variable anything in the repository reads.
 *
 * @example
 * ```ts
 * ENVIRONMENT_VARIABLES.filter((v) => v.readBy === 'cli').map((v) => v.name);
 * // ['GPUMORPH_REQUIRE_GPU', 'GPUMORPH_DAWN_FLAGS', 'GPUMORPH_ROBUSTNESS', 'GPUMORPH_DUMP_WGSL', 'GPUMORPH_DEBUG']
 * ```
 */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    name: 'GPUMORPH_REQUIRE_GPU',
    readBy: 'cli',
    description:
      '`1`: `--engine auto` uses any adapter (software ones too) and never falls back to the CPU engine; no adapter is exit status 3. The GPU test suites fail instead of skipping.',
  },
  {
    name: 'GPUMORPH_DAWN_FLAGS',
    readBy: 'cli',
    description: 'Comma-separated Dawn toggles added to those of `--dawn-flag`.',
  },
  {
    name: 'GPUMORPH_ROBUSTNESS',
    readBy: 'cli',
    description:
      "`1`: keep Dawn's robustness transform (bounds clamps in every shader), e.g. to debug a kernel.",
  },
  {
    name: 'GPUMORPH_DUMP_WGSL',
    readBy: 'cli',
    description: '`1`: print the WGSL source of every shader module compiled, on stderr.',
  },
  {
    name: 'GPUMORPH_DEBUG',
    readBy: 'cli',
    description: '`1`: print the stack trace of an unexpected error.',
  },
  {
    name: 'GPUMORPH_DATA',
    readBy: 'bench',
    description:
      'The data folder (default `../shared/data`) of the Andersen and eigencfa suites and of the data tests.',
  },
  {
    name: 'GPUMORPH_SEEDS',
    readBy: 'bench',
    description: 'The seeds folder whose paper figures the eigencfa suite prints beside its own.',
  },
  {
    name: 'GPUMORPH_ANDERSEN_BENCHMARKS',
    readBy: 'bench',
    description: 'Comma-separated Andersen benchmarks to run (default all six).',
  },
  {
    name: 'GPUMORPH_ANDERSEN_CPU_BENCHMARKS',
    readBy: 'bench',
    description:
      'Comma-separated Andersen benchmarks that get CPU rows (the CPU engine takes minutes on php and linux).',
  },
  {
    name: 'GPUMORPH_ANDERSEN_GPU_RUNS',
    readBy: 'bench',
    description: 'Timed WebGPU runs per Andersen benchmark (default 5, 3 on php and linux).',
  },
  {
    name: 'GPUMORPH_ANDERSEN_PROCESSES',
    readBy: 'bench',
    description:
      'Runs the Andersen suite in this many separate processes (cold, right after a GPU process, after the GPU idled) and reports the spread of their medians.',
  },
  {
    name: 'GPUMORPH_ANDERSEN_IDLE_S',
    readBy: 'bench',
    description:
      'Seconds the GPU idles before an `idle` process of `GPUMORPH_ANDERSEN_PROCESSES` (default 10).',
  },
  {
    name: 'GPUMORPH_EIGENCFA_SIZES',
    readBy: 'bench',
    description: 'Comma-separated program sizes n of the eigencfa suite.',
  },
  {
    name: 'GPUMORPH_REAL_C_IR',
    readBy: 'bench',
    description:
      'The folder of whole-program IR (`scripts/real-c/build-ir.sh`) that the llvm suite analyzes.',
  },
  {
    name: 'GPUMORPH_CACHE',
    readBy: 'bench',
    description:
      'Cache folder (default `~/.cache/gpumorph`) where `build-ir.sh` writes and the llvm suite looks for IR.',
  },
  {
    name: 'GPUMORPH_REQUIRE_CLANG',
    readBy: 'tests',
    description: '`1`: tests that compile C fail instead of skipping when clang-16 is missing (CI sets it).',
  },
  {
    name: 'GPUMORPH_REQUIRE_DATA',
    readBy: 'tests',
    description: '`1`: tests on the shared data fail instead of skipping when it is missing (CI sets it).',
  },
  {
    name: 'GPUMORPH_REQUIRE_BROWSER',
    readBy: 'tests',
    description:
      "`1`: the documentation's browser test fails instead of skipping without Chromium (CI sets it).",
  },
  {
    name: 'GPUMORPH_CHROMIUM',
    readBy: 'tests',
    description: 'The Chromium executable of the browser test (default `/usr/bin/chromium`).',
  },
  {
    name: 'GPUMORPH_SLOW_GPU_TESTS',
    readBy: 'tests',
    description: '`1`: also run the GPU tests of the workgroup-memory paths, minutes to compile on lavapipe.',
  },
  {
    name: 'GPUMORPH_SOUNDNESS_RUNS',
    readBy: 'tests',
    description:
      'Generated programs the eigencfa soundness oracle checks (default 300; the long run uses 10000).',
  },
  {
    name: 'GPUMORPH_KEEP_SCRATCH',
    readBy: 'tests',
    description: "`1`: keep the packaging test's scratch folder for inspection.",
  },
];

/** What the CLI's variables ask for, read once per command. */
export interface CliEnvironment {
  /** `GPUMORPH_REQUIRE_GPU=1`. */
  readonly requireGpu: boolean;
  /** `GPUMORPH_DAWN_FLAGS`, split at commas. */
  readonly dawnFlags: readonly string[];
  /** `GPUMORPH_ROBUSTNESS=1`. */
  readonly robustness: boolean;
  /** `GPUMORPH_DUMP_WGSL=1`. */
  readonly dumpWgsl: boolean;
  /** `GPUMORPH_DEBUG=1`. */
  readonly debug: boolean;
}

/**
 * Reads the CLI's variables from `env` (default `process.env`).
 *
 * @example
 * ```ts
 * readCliEnvironment({ GPUMORPH_DAWN_FLAGS: 'a, b', GPUMORPH_DEBUG: '1' });
 * // { requireGpu: false, dawnFlags: ['a', 'b'], robustness: false, dumpWgsl: false, debug: true }
 * ```
 */
export function readCliEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  return {
    requireGpu: env.GPUMORPH_REQUIRE_GPU === '1',
    dawnFlags: (env.GPUMORPH_DAWN_FLAGS ?? '')
      .split(',')
      .map((flag) => flag.trim())
      .filter(Boolean),
    robustness: env.GPUMORPH_ROBUSTNESS === '1',
    dumpWgsl: env.GPUMORPH_DUMP_WGSL === '1',
    debug: env.GPUMORPH_DEBUG === '1',
  };
}

/**
 * The `acquireGpu` options the CLI's variables ask for; a command adds its own (e.g.
 * `require: true` for `--engine webgpu`, extra `dawnFlags`).
 *
 * @example
 * ```ts
 * const ctx = await acquireGpu({ ...gpuOptionsFromEnvironment(), subgroups: false });
 * ```
 */
export function gpuOptionsFromEnvironment(
  environment: CliEnvironment = readCliEnvironment(),
  stderr: Pick<NodeJS.WritableStream, 'write'> = process.stderr,
): AcquireGpuOptions {
  return {
    require: environment.requireGpu,
    dawnFlags: environment.dawnFlags,
    robustness: environment.robustness,
    ...(environment.dumpWgsl
      ? { onShader: (label: string, code: string) => stderr.write(`// ===== WGSL: ${label}\n${code}\n`) }
      : {}),
  };
}
