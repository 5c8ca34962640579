import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/cli';
import { reportCliError } from '../src/errors';
import type { CliIo } from '../src/io';

const here = dirname(fileURLToPath(import.meta.url));
/** The monorepo root (where `tsx` is installed). */
export const repoRoot = resolve(here, '../../..');
/** The CLI entry point, run from source. */
export const mainSource = resolve(here, '../src/main.ts');

/** What a finished CLI run left behind. */
export interface CliRun {
  /** Exit status; null when the process was killed (it did not exit on its own in time). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `gpumorph <args>` as its own Node process from source (tsx with the source condition, so no
 * build is needed), the way a user's shell would, and waits for it to exit by itself.
 */
export function spawnCli(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...options.env };
  delete env.FORCE_COLOR;
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=@gpumorph/source', mainSource, ...args],
      {
        cwd: repoRoot,
        env: env as NodeJS.ProcessEnv,
        timeout: options.timeoutMs ?? 150_000,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number | string; signal?: NodeJS.Signals | null }) | null;
        const code = failure ? (typeof failure.code === 'number' ? failure.code : null) : 0;
        done({ code, signal: failure?.signal ?? null, stdout, stderr });
      },
    );
  });
}

/** Runs the CLI in this process with captured, colourless output; errors are reported as `main.ts` does. */
export async function runCliCaptured(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    color: false,
  };
  let code: number;
  try {
    code = await runCli(['node', 'gpumorph', ...args], io);
  } catch (error) {
    code = reportCliError(error, io);
  }
  return { code, stdout, stderr };
}

/** A line of a JavaScript stack trace (`    at fn (file.ts:12:34)`); Dawn's own C++ warnings do not match. */
export const JS_STACK_LINE = /^\s+at .*(:\d+:\d+\)?|node:internal)/m;
