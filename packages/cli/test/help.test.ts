import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../src/cli';
import { runCliCaptured, spawnCli } from './helpers';

/** Every command path of the program (`[]` for gpumorph itself), found by walking commander's tree. */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

const paths = commandPaths(createProgram());

describe('gpumorph <command> --help', () => {
  it('covers every command and subcommand', () => {
    expect(paths.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining([
        '',
        'doctor',
        'bench',
        'andersen',
        'andersen solve',
        'andersen ll',
        'cfa',
        'octagon',
      ]),
    );
  });

  it.each(paths.map((path) => [path.join(' ') || '(gpumorph)', path]))(
    '%s: exits 0 with usage, description, examples and exit statuses',
    async (_, path) => {
      const run = await runCliCaptured([...path, '--help']);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(new RegExp(`^Usage: ${['gpumorph', ...path].join(' ')} `, 'm'));
      // The description sits between the usage line and the first section.
      const [, description] = run.stdout.split('\n\n');
      expect(description?.trim().length).toBeGreaterThan(20);
      const examples = run.stdout.slice(run.stdout.indexOf('\nExamples:\n'));
      expect(examples).toMatch(new RegExp(`^ {2}\\$ gpumorph ${path.join(' ')}`, 'm'));
      expect(run.stdout).toMatch(/^Exit status:\n {2}0 success\n/m);
      expect(run.stdout).toMatch(/^ {2}2 usage error/m);
    },
  );

  it('the installed command prints the same help and exits 0 (a real process)', async () => {
    const run = await spawnCli(['andersen', 'solve', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: gpumorph andersen solve [options]');
    expect(run.stdout).toContain(
      '$ gpumorph andersen solve --input examples/andersen/callbacks.constraints.txt --print',
    );
  });

  it('gpumorph help <command> is the same as <command> --help', async () => {
    const viaHelp = await runCliCaptured(['help', 'octagon']);
    const viaOption = await runCliCaptured(['octagon', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaOption.stdout);
  });
});
