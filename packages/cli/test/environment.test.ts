// The registry of GPUMORPH_* variables: what the CLI makes of them, and the README's table.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, gpuOptionsFromEnvironment, readCliEnvironment } from '../src/environment';

describe('environment registry', () => {
  it('reads the CLI variables, and nothing when they are unset', () => {
    expect(readCliEnvironment({})).toEqual({
      requireGpu: false,
      dawnFlags: [],
      robustness: false,
      dumpWgsl: false,
      debug: false,
    });
    expect(
      readCliEnvironment({
        GPUMORPH_REQUIRE_GPU: '1',
        GPUMORPH_DAWN_FLAGS: ' a=1, b ,',
        GPUMORPH_ROBUSTNESS: '1',
        GPUMORPH_DUMP_WGSL: '1',
        GPUMORPH_DEBUG: '1',
      }),
    ).toEqual({ requireGpu: true, dawnFlags: ['a=1', 'b'], robustness: true, dumpWgsl: true, debug: true });
    // Only '1' turns a switch on.
    expect(readCliEnvironment({ GPUMORPH_REQUIRE_GPU: 'true' }).requireGpu).toBe(false);
  });

  it('turns them into acquireGpu options, printing shaders only when asked', () => {
    const written: string[] = [];
    const stderr = { write: (text: string) => written.push(text) > 0 };
    const quiet = gpuOptionsFromEnvironment(readCliEnvironment({ GPUMORPH_DAWN_FLAGS: 'x' }), stderr);
    expect(quiet).toEqual({ require: false, dawnFlags: ['x'], robustness: false });
    const dumping = gpuOptionsFromEnvironment(
      readCliEnvironment({ GPUMORPH_DUMP_WGSL: '1', GPUMORPH_REQUIRE_GPU: '1' }),
      stderr,
    );
    expect(dumping.require).toBe(true);
    dumping.onShader?.('k', 'fn main() {}');
    expect(written).toEqual(['// ===== WGSL: k\nfn main() {}\n']);
  });

  it('is the table of the README, row for row', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `(GPUMORPH_[A-Z_]+)`\s*\| (\w+)\s*\| (.*?)\s*\|$/gm)].map((m) => ({
      name: m[1],
      readBy: m[2],
      description: m[3],
    }));
    expect(rows).toEqual(ENVIRONMENT_VARIABLES.map((v) => ({ ...v })));
  });

  it('lists every GPUMORPH_ variable the code names, and no other', () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (name === 'node_modules' || name === 'dist' || name === '.git') return [];
        if (statSync(path).isDirectory()) return files(path);
        return /\.(ts|mts|mjs|sh)$/.test(name) || name === 'run' ? [path] : [];
      });
    const sources = [
      ...readdirSync(join(root, 'packages')).flatMap((name) => files(join(root, 'packages', name))),
      ...files(join(root, 'bench')),
      ...files(join(root, 'test')),
      ...files(join(root, 'scripts')),
      ...files(join(root, 'examples')),
      ...files(join(root, '.ci')),
    ].filter((path) => relative(root, path) !== join('packages', 'cli', 'src', 'environment.ts'));
    const named = new Map<string, string>();
    for (const path of sources)
      for (const [name] of readFileSync(path, 'utf8').matchAll(/GPUMORPH_[A-Z0-9_]*[A-Z0-9]/g))
        if (!named.has(name)) named.set(name, relative(root, path));
    const listed = new Set<string>(ENVIRONMENT_VARIABLES.map((v) => v.name));
    expect([...named].filter(([name]) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !named.has(name))).toEqual([]);
  });

  it('lists every GPUMORPH_ variable once', () => {
    const names = ENVIRONMENT_VARIABLES.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
