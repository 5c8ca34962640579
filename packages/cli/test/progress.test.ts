import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli';
import type { CliIo } from '../src/io';
import { progressFor } from '../src/progress';
import { repoRoot } from './helpers';

/** A stderr that says it is a terminal, and keeps what is drawn on it. */
function fakeTerminal(): { stream: CliIo['stderr']; text: () => string } {
  let text = '';
  const stream = {
    isTTY: true,
    columns: 120,
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
  };
  return { stream, text: () => text };
}

async function runWithTerminal(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const terminal = fakeTerminal();
  let stdout = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: terminal.stream,
    color: false,
  };
  const code = await runCli(['node', 'gpumorph', ...args], io);
  return { code, stdout, stderr: terminal.text() };
}

const example = (path: string) => join(repoRoot, 'examples', path);

describe('progress bars', () => {
  it('are a no-op unless stderr is a terminal', () => {
    let written = '';
    const progress = progressFor(
      { stdout: process.stdout, stderr: { write: (s: string) => (written += s) } },
      'x',
      3,
    );
    progress.tick();
    progress.stop();
    expect(progress.active).toBe(false);
    expect(written).toBe('');
  });

  it.each([
    [
      'andersen solve',
      ['andersen', 'solve', '--input', example('andersen/callbacks.constraints.txt'), '--engine', 'cpu'],
      'andersen',
    ],
    ['cfa', ['cfa', example('eigencfa/evenodd.scm'), '--engine', 'cpu'], 'cfa'],
    ['octagon', ['octagon', example('octagon/count.oct'), '--engine', 'f64'], 'octagon'],
    ['bench', ['bench', 'sparse-bitvector', '--quick', '--engine', 'cpu'], 'bench'],
  ])('%s draws one on a terminal stderr, and clears it before the results', async (_, args, label) => {
    const run = await runWithTerminal(args);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`${label}[^\\n]*\\[[░█]+\\]`));
    expect(run.stdout).not.toContain('░');
  });

  it('andersen ll draws one on a terminal stderr', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gpumorph-progress-'));
    try {
      const file = join(dir, 'tiny.ll');
      await writeFile(
        file,
        '@a = global i32 0\n@p = global ptr null\n\ndefine void @main() {\nentry:\n  store ptr @a, ptr @p\n  ret void\n}\n',
      );
      const run = await runWithTerminal(['andersen', 'll', file, '--engine', 'cpu']);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/andersen ll[^\n]*\[[░█]+\]/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
