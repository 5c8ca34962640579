/**
 * Compiles the C and C++ programs of the LLVM front end's alias-check corpus
 * (`./corpus/*.c`, `./corpus/*.cpp`, see `./corpus/README.md`) to LLVM IR with
 * Debian's clang-16 (clang++-16) and opt-16, at two levels:
 *
 * ```sh
 * # 'O0': what the corpus facts were written for
 * clang-16 -S -emit-llvm -O0 -Xclang -disable-O0-optnone -fno-discard-value-names -g \
 *   -I<corpus dir> x.c -o x0.ll
 * opt-16 -S -passes=mem2reg x0.ll -o x.ll
 * # 'O2': the optimized IR, on which every fact of a real alias must still hold
 * clang-16 -S -emit-llvm -O2 -fno-discard-value-names -g -I<corpus dir> x.c -o x.ll
 * ```
 *
 * Results are cached by a hash of the source, the header and the flags under
 * `os.tmpdir()/gpumorph-llvm-corpus/`, so a test run compiles each program
 * once. Never commit the `.ll` files.
 *
 * @example
 * ```ts
 * import { clangAvailable, compileCorpusProgram, corpusPrograms } from './compile';
 *
 * describe.runIf(clangAvailable())('alias checks', () => {
 *   it.each(corpusPrograms())('%s', async (c) => {
 *     const ll = await compileCorpusProgram(c);
 *     // read `ll`, run the front end and the solver, evaluate the checks
 *   });
 * });
 * ```
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder that holds the corpus `.c` files and `aliascheck.h`. */
export const CORPUS_DIR: string = fileURLToPath(new URL('./corpus/', import.meta.url));

/** Where compiled IR is cached: `os.tmpdir()/gpumorph-llvm-corpus/`. */
export const CACHE_DIR: string = join(tmpdir(), 'gpumorph-llvm-corpus');

const CLANG = 'clang-16';
const CLANGXX = 'clang++-16';
const OPT = 'opt-16';

/** How a program is compiled: `-O0` then `mem2reg`, or `-O2`. */
export type CorpusLevel = 'O0' | 'O2';

/** clang flags (before `-I`, the input and `-o`). */
export const CLANG_FLAGS: readonly string[] = [
  '-S',
  '-emit-llvm',
  '-O0',
  '-Xclang',
  '-disable-O0-optnone',
  '-fno-discard-value-names',
  '-g',
];

/** opt flags (before the input and `-o`). */
export const OPT_FLAGS: readonly string[] = ['-S', '-passes=mem2reg'];

/** clang flags of the `O2` level. */
export const CLANG_O2_FLAGS: readonly string[] = [
  '-S',
  '-emit-llvm',
  '-O2',
  '-fno-discard-value-names',
  '-g',
];

let available: boolean | undefined;

/**
 * Whether `clang-16` and `opt-16` can be run (checked once per process).
 * Tests that need them should be skipped when this is false.
 */
export function clangAvailable(): boolean {
  if (available === undefined) {
    try {
      execFileSync(CLANG, ['--version'], { stdio: 'ignore' });
      execFileSync(CLANGXX, ['--version'], { stdio: 'ignore' });
      execFileSync(OPT, ['--version'], { stdio: 'ignore' });
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

/** Absolute paths of the corpus `.c` and `.cpp` files, sorted by name. */
export function corpusPrograms(): string[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.c') || f.endsWith('.cpp'))
    .sort()
    .map((f) => join(CORPUS_DIR, f));
}

interface RunResult {
  stdout: string;
  stderr: string;
}

function run(tool: string, args: readonly string[]): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(tool, [...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const err = error as NodeJS.ErrnoException;
        const why = err.code === 'ENOENT' ? `${tool} not found on PATH` : `${tool} failed`;
        reject(Object.assign(new Error(why), { stderr: String(stderr), cause: error }));
        return;
      }
      resolvePromise({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** One in-flight compilation per output path, so concurrent callers share it. */
const inFlight = new Map<string, Promise<string>>();

/**
 * Compiles one C file to mem2reg'd LLVM IR and returns the path of the `.ll`
 * (cached by content hash under {@link CACHE_DIR}). The include path is the
 * C file's own folder (where `aliascheck.h` lives).
 *
 * @throws Error naming the file and carrying clang's (or opt's) stderr when
 *   compilation fails, or when the tools are missing.
 */
export async function compileCorpusProgram(cFile: string, level: CorpusLevel = 'O0'): Promise<string> {
  const source = resolve(cFile);
  const cxx = source.endsWith('.cpp');
  const compiler = cxx ? CLANGXX : CLANG;
  const includeDir = dirname(source);
  let text: Buffer;
  try {
    text = await readFile(source);
  } catch (cause) {
    throw new Error(`cannot read C program ${source}`, { cause });
  }
  // A program may ask for more clang flags on a line of its own: `// corpus-flags: -flto …`.
  const extra = /^\/\/ corpus-flags: (.+)$/m.exec(text.toString('utf8'))?.[1]?.trim().split(/\s+/) ?? [];
  const flags = [...(level === 'O0' ? CLANG_FLAGS : CLANG_O2_FLAGS), ...extra];
  const hash = createHash('sha256');
  hash.update(text);
  const header = join(includeDir, 'aliascheck.h');
  if (existsSync(header)) hash.update(readFileSync(header));
  hash.update([compiler, ...flags, ...(level === 'O0' ? [OPT, ...OPT_FLAGS] : [])].join('\0'));
  const digest = hash.digest('hex').slice(0, 16);
  const stem = `${basename(source).replace(/\.(c|cpp)$/, '')}-${cxx ? 'cpp' : 'c'}-${level}`;
  const out = join(CACHE_DIR, `${stem}-${digest}.ll`);

  const pending = inFlight.get(out);
  if (pending) return pending;
  const job = (async () => {
    try {
      if ((await stat(out)).size > 0) return out;
    } catch {
      // not cached yet
    }
    await mkdir(CACHE_DIR, { recursive: true });
    const unique = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    const raw = join(CACHE_DIR, `${stem}-${digest}.${unique}.0.ll`);
    const tmp = join(CACHE_DIR, `${stem}-${digest}.${unique}.ll`);
    try {
      try {
        await run(compiler, [...flags, `-I${includeDir}`, source, '-o', level === 'O0' ? raw : tmp]);
      } catch (e) {
        const stderr = (e as { stderr?: string }).stderr ?? '';
        throw new Error(`${compiler} could not compile ${source}:\n${stderr || (e as Error).message}`, {
          cause: e,
        });
      }
      try {
        if (level === 'O0') await run(OPT, [...OPT_FLAGS, raw, '-o', tmp]);
      } catch (e) {
        const stderr = (e as { stderr?: string }).stderr ?? '';
        throw new Error(
          `opt-16 -passes=mem2reg failed on the IR of ${source}:\n${stderr || (e as Error).message}`,
          {
            cause: e,
          },
        );
      }
      await rename(tmp, out);
      return out;
    } finally {
      await rm(raw, { force: true });
      await rm(tmp, { force: true });
    }
  })();
  inFlight.set(out, job);
  try {
    return await job;
  } finally {
    inFlight.delete(out);
  }
}

/**
 * Whether the compilers are here for a suite of compiled programs; without them, a failure under
 * `GPUMORPH_REQUIRE_CLANG=1` (as CI sets it) and a warning otherwise, so that a missing compiler
 * never passes as a skipped suite where one is required.
 *
 * @example
 * ```ts
 * describe.runIf(requireClang('generated C'))('generated C', () => { … });
 * ```
 */
export function requireClang(suite: string): boolean {
  if (clangAvailable()) return true;
  if (process.env.GPUMORPH_REQUIRE_CLANG === '1')
    throw new Error(`${suite}: GPUMORPH_REQUIRE_CLANG=1 but clang-16/clang++-16/opt-16 are not installed`);
  console.warn(`${suite}: clang-16/opt-16 not found, skipping (apt-get install clang-16 llvm-16)`);
  return false;
}
