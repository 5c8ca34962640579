/**
 * The reliability contract, checked on one input at a time, in three layers:
 *
 * - **cli**: `runCli` in this process: the exit status is 0–3 (never 4, a bug), stderr has no
 *   stack trace, no input file changed, and it ends within {@link timeBoundMs} of the input size;
 * - **process**: the same in its own Node process, which also catches crashes at exit (134, 139),
 *   hangs, and output the process prints past our streams;
 * - **library**: the public reader or analysis throws only typed errors (`GpumorphError`), ends
 *   in time, and after an error the same GPU context still runs the next analysis exactly.
 * @module
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  analyzeModule,
  parseConstraintJson,
  parseConstraintText,
  parsePointsTo,
  solveAndersen,
} from '@gpumorph/andersen';
import { reportCliError, runCli } from '@gpumorph/cli';
import { analyzeScheme, matricesFromTexts, solveCfa } from '@gpumorph/eigencfa';
import { type GpuContext, GpumorphError } from '@gpumorph/gpu-allocator';
import { analyzeProgram } from '@gpumorph/octagon';
import { type cliTargets, type FuzzEngine, matrixFiles, repoRoot } from './targets';

/** A broken promise of the contract. */
export interface Violation {
  readonly layer: 'cli' | 'process' | 'library';
  readonly target: string;
  readonly engine: FuzzEngine;
  readonly reason: string;
  /** The input (its first 2,000 characters) and its length. */
  readonly input: string;
  readonly inputLength: number;
  readonly argv?: readonly string[];
}

/** A line of a JavaScript stack trace; Dawn's own C++ warnings do not match. */
export const JS_STACK_LINE = /^\s+at .*(:\d+:\d+\)?|node:internal)/m;

/** The most a run may take for an input of `bytes` bytes: 30 s plus 1 ms per byte (a hang detector on a loaded machine). */
export function timeBoundMs(bytes: number): number {
  return 30_000 + bytes;
}

const hash = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Resolves with `work`'s value, or with `undefined` once `ms` have passed. */
async function within<T>(work: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), ms);
  });
  try {
    return await Promise.race([work.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A folder holding one case's files; `{dir}` in arguments names it. */
export interface CaseFiles {
  readonly dir: string;
  /** Runs `check` with the files written, then checks none changed and removes the folder. */
  check(problems: string[]): Promise<void>;
}

/** Writes `files` into a new folder and remembers their contents. */
export async function writeCaseFiles(files: Readonly<Record<string, string>>): Promise<CaseFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'gpumorph-fuzz-'));
  const hashes = new Map<string, string>();
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, name), text);
    hashes.set(name, hash(text));
  }
  return {
    dir,
    async check(problems) {
      for (const [name, before] of hashes) {
        const after = await readFile(join(dir, name)).then(hash, () => 'gone');
        if (after !== before) problems.push(`input file ${name} was changed`);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What a command run gave. */
export interface RunOutcome {
  /** Exit status; null when the process died of a signal or did not end in time. */
  readonly status: number | null;
  readonly signal?: string | null;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Runs `gpumorph argv` in this process with captured output, as `main.ts` does. */
export async function runInProcess(argv: readonly string[], boundMs: number): Promise<RunOutcome> {
  let stderr = '';
  const io = {
    stdout: { write: (_: string) => true },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    color: false,
  };
  const run = runCli(['node', 'gpumorph', ...argv], io).catch((error: unknown) => reportCliError(error, io));
  const ended = await within(run, boundMs);
  return { status: ended ? ended.value : null, stderr, timedOut: !ended };
}

/** Runs `gpumorph argv` as its own Node process from source. */
export function runInSubprocess(argv: readonly string[], boundMs: number): Promise<RunOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  return new Promise((done) => {
    execFile(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@gpumorph/source',
        join(repoRoot, 'packages/cli/src/main.ts'),
        ...argv,
      ],
      { cwd: repoRoot, env, timeout: boundMs, killSignal: 'SIGKILL', maxBuffer: 64 * 2 ** 20 },
      (error, _stdout, stderr) => {
        const failure = error as
          | (Error & { code?: number | string; signal?: string | null; killed?: boolean })
          | null;
        const status = failure ? (typeof failure.code === 'number' ? failure.code : null) : 0;
        done({ status, signal: failure?.signal ?? null, stderr, timedOut: failure?.killed === true });
      },
    );
  });
}

/** The contract's words on one command run; `expected` pins the exit status of a fixed case. */
export function judgeRun(run: RunOutcome, boundMs: number, expected?: number): string[] {
  const problems: string[] = [];
  const firstLine = run.stderr.split('\n').find((line) => line.startsWith('error:')) ?? '';
  if (run.timedOut) problems.push(`did not end within ${boundMs} ms`);
  else if (run.status === null) problems.push(`died of ${run.signal ?? 'a signal'}`);
  else if (expected !== undefined && run.status !== expected) {
    problems.push(`exit status ${run.status}, not ${expected} (${firstLine})`);
  } else if (run.status < 0 || run.status > 3) problems.push(`exit status ${run.status} (${firstLine})`);
  if (JS_STACK_LINE.test(run.stderr)) problems.push('a stack trace on stderr');
  return problems;
}

/** Runs one CLI target on `input` in `layer`; returns the contract's complaints. */
export async function checkCliCase(
  layer: 'cli' | 'process',
  target: ReturnType<typeof cliTargets>[number],
  engine: FuzzEngine,
  input: string,
): Promise<{ problems: string[]; argv: string[] }> {
  const files = await writeCaseFiles({ ...target.extras, [target.file]: input });
  const argv = target.argv(join(files.dir, target.file), engine, files.dir);
  const bound = timeBoundMs(Buffer.byteLength(input));
  const run = layer === 'cli' ? await runInProcess(argv, bound) : await runInSubprocess(argv, bound);
  const problems = judgeRun(run, bound);
  await files.check(problems);
  return { problems, argv };
}

/** A public reader or analysis, run on text with an engine (and the shared GPU context for webgpu). */
export interface LibraryTarget {
  readonly name: string;
  /** The CLI target whose seeds and dictionary it shares. */
  readonly like: string;
  run(text: string, engine: FuzzEngine, gpu: GpuContext | null): Promise<unknown>;
}

/** The library entry points the fuzzer feeds. */
export const LIBRARY_TARGETS: readonly LibraryTarget[] = [
  {
    name: 'parseConstraintText + solveAndersen',
    like: 'andersen solve (text)',
    run: (text, engine, gpu) =>
      solveAndersen(parseConstraintText(text, { file: 'p.txt' }), { engine, ...(gpu ? { gpu } : {}) }),
  },
  {
    name: 'parseConstraintJson + solveAndersen',
    like: 'andersen solve (JSON)',
    run: (text, engine, gpu) =>
      solveAndersen(parseConstraintJson(text, { file: 'p.json' }), { engine, ...(gpu ? { gpu } : {}) }),
  },
  {
    name: 'parsePointsTo',
    like: 'andersen solve --verify',
    run: async (text) => parsePointsTo(text, { file: 'r.pts' }),
  },
  {
    name: 'analyzeModule',
    like: 'andersen ll',
    run: (text, engine, gpu) => analyzeModule(text, { file: 'm.ll', engine, ...(gpu ? { gpu } : {}) }),
  },
  {
    name: 'matricesFromTexts + solveCfa',
    like: 'cfa --matrices (Fun.mat)',
    run: async (text, engine, gpu) => {
      const files = matrixFiles();
      const texts = {
        params: files['program-params.lst'] as string,
        fun: text,
        arg1: files['Arg1.mat'] as string,
        arg2: files['Arg2.mat'] as string,
      };
      return solveCfa(matricesFromTexts(texts, 'm'), { engine, gpu });
    },
  },
  {
    name: 'analyzeScheme',
    like: 'cfa',
    run: (text, engine, gpu) => analyzeScheme(text, { file: 'p.scm', engine, gpu }),
  },
  {
    name: 'analyzeProgram',
    like: 'octagon',
    run: (text, engine, gpu) =>
      analyzeProgram(text, { file: 'p.oct', engine: engine === 'cpu' ? 'f64' : 'webgpu', ctx: gpu }),
  },
];

const PROBE_PROGRAM = 'i = 0;\nwhile (i < 100) { i = i + 1; }\nassert(i == 100);\n';
const PROBE_CONSTRAINTS =
  'gpumorph-constraints 1\nnodes 4\nnode 0 fields 1\nnode 1 fields 1\n2 = &0\n3 = &1\n2 = 3\n';

/** After an error: the same context must still run an octagon and an Andersen solve, exactly. */
export async function probeContext(gpu: GpuContext): Promise<string | undefined> {
  if (gpu.isLost) return 'the GPU context was lost';
  try {
    const octagon = await analyzeProgram(PROBE_PROGRAM, { engine: 'webgpu', ctx: gpu });
    if (!octagon.assertions.every((a) => a.proved))
      return 'the next octagon analysis did not prove its assertion';
    const solved = await solveAndersen(parseConstraintText(PROBE_CONSTRAINTS), { engine: 'webgpu', gpu });
    if ([...solved.pointsTo(2)].join() !== '0,1')
      return `the next Andersen solve gave {${[...solved.pointsTo(2)]}}`;
  } catch (error) {
    return `the next analysis failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

/** Runs one library target on `input`; returns the contract's complaints. */
export async function checkLibraryCase(
  target: LibraryTarget,
  engine: FuzzEngine,
  gpu: GpuContext | null,
  input: string,
): Promise<string[]> {
  const problems: string[] = [];
  const bound = timeBoundMs(Buffer.byteLength(input));
  let failed = false;
  const ended = await within(
    // A synchronous throw (a reader) counts as the analysis's error too.
    Promise.resolve()
      .then(() => target.run(input, engine, engine === 'webgpu' ? gpu : null))
      .then(
        () => undefined,
        (error: unknown) => {
          failed = true;
          if (!(error instanceof GpumorphError)) {
            const name = error instanceof Error ? error.name : typeof error;
            problems.push(`an untyped ${name}: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
      ),
    bound,
  );
  if (!ended) problems.push(`did not end within ${bound} ms`);
  if (engine === 'webgpu' && gpu && (failed || !ended)) {
    const broken = await probeContext(gpu);
    if (broken) problems.push(broken);
  }
  return problems;
}
