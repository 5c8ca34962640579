import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/version';
import { runCliCaptured, spawnCli } from './helpers';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('version', () => {
  it('VERSION equals package.json', () => {
    expect(VERSION).toBe(packageJson.version);
  });

  it('--version prints it and exits 0 (in process)', async () => {
    const run = await runCliCaptured(['--version']);
    expect(run).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: '' });
  });

  it('--version prints it and exits 0 (spawned)', async () => {
    const run = await spawnCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(packageJson.version);
  });
});
