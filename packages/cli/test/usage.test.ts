import { describe, expect, it } from 'vitest';
import { JS_STACK_LINE, runCliCaptured, spawnCli } from './helpers';

describe('usage errors', () => {
  it('an unknown command exits 2 with one error line and no stack trace', async () => {
    const run = await spawnCli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: unknown command 'frobnicate'/m);
    expect(run.stderr).not.toMatch(JS_STACK_LINE);
  });

  it('an unknown bench suite exits 2 and names the known suites', async () => {
    const run = await spawnCli(['bench', 'nonsense']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: unknown bench suite 'nonsense' \(known: .*\ballocator\b.*\)/m);
    expect(run.stderr).not.toMatch(JS_STACK_LINE);
  });

  it.each([
    [['bench', '--engine', 'gpu'], /--engine <list>.*'gpu' is invalid/],
    [['doctor', '--frob'], /unknown option '--frob'/],
    [['bench', 'allocator', 'nonsense', 'more'], /unknown bench suites 'nonsense', 'more'/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runCliCaptured(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('no command prints the help on stderr and exits 2', async () => {
    const run = await runCliCaptured([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: gpumorph');
    expect(run.stderr).toContain('doctor');
    expect(run.stderr).toContain('bench');
  });

  it('--help exits 0 and lists the commands', async () => {
    const run = await runCliCaptured(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/doctor/);
    expect(run.stdout).toMatch(/bench/);
  });
});
