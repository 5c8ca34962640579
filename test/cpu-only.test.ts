// The CPU sparse bit vector without any GPU package: the *built* entry point
// `@gpumorph/sparse-bitvector/cpu`, imported (ESM) and required (CJS) in a fresh Node process as a
// user would, loads no GPU code, and the package's dependencies install no GPU runtime. The static
// check of the sources is packages/sparse-bitvector/test/cpu-entry.test.ts; this one runs the
// build (`npm run build` first, as for the packaging test).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

/** Text of WebGPU host code: none of it may be in a module the CPU entry loads. */
const WEBGPU_CALLS =
  /\b(requestAdapter|requestDevice|createComputePipeline|createShaderModule|createBindGroup)\b/;

/** A use of the entry, so that a lazily failing import would show. */
const USE = `const pool = new m.SparseBitVectorPool();
const a = pool.fromArray([1, 5, 960, 100000]);
if (a.toArray().join() !== '1,5,960,100000') throw new Error('wrong set');`;

/**
 * The ESM load hook: appends every module URL Node loads to the log file given at registration
 * (written synchronously, so the log is complete when the import resolves).
 */
const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, nextLoad) {
  appendFileSync(log, url + '\\n');
  return nextLoad(url, context);
}`;

let scratch = '';

beforeAll(async () => {
  for (const dir of ['packages/sparse-bitvector/dist', 'packages/gpu-allocator/dist'])
    if (!existsSync(join(root, dir))) throw new Error(`no ${dir}: run npm run build first`);
  scratch = await mkdtemp(join(tmpdir(), 'gpumorph-cpu-only-'));
  await writeFile(join(scratch, 'hooks.mjs'), HOOKS);
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The files (repository-relative where inside it) that importing `specifier` as ESM loads. */
async function esmLoads(specifier: string): Promise<string[]> {
  const log = join(scratch, `${specifier.replace(/\W/g, '_')}.log`);
  await writeFile(log, '');
  const code = `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(scratch, 'hooks.mjs')).href)}, { data: { log: ${JSON.stringify(log)} } });
const m = await import(${JSON.stringify(specifier)});
${specifier.endsWith('/cpu') ? USE : ''}`;
  await run(process.execPath, ['--input-type=module', '-e', code], { cwd: root });
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => repositoryPath(fileURLToPath(url)));
}

/** The files that requiring `specifier` as CommonJS loads (`require.cache`). */
async function cjsLoads(specifier: string): Promise<string[]> {
  const code = `const m = require(${JSON.stringify(specifier)});
${USE}
console.log(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await run(process.execPath, ['-e', code], { cwd: root });
  return (JSON.parse(stdout) as string[]).map(repositoryPath);
}

function repositoryPath(file: string): string {
  const path = relative(root, file);
  return path.startsWith('..') ? file : path;
}

/** Fails unless `files` are the CPU entry's own and gpu-allocator's CPU part, with no WebGPU code. */
function expectCpuOnly(files: readonly string[], ext: 'js' | 'cjs'): void {
  expect(files).toContain(`packages/sparse-bitvector/dist/cpu.${ext}`);
  expect(files).toContain(`packages/gpu-allocator/dist/cpu.${ext}`);
  const outside = files.filter(
    (f) => !f.startsWith('packages/sparse-bitvector/dist/') && !f.startsWith('packages/gpu-allocator/dist/'),
  );
  expect(outside, 'modules outside the two packages (gpu-primitives, webgpu, …)').toEqual([]);
  expect(files).not.toContain(`packages/gpu-allocator/dist/index.${ext}`);
  expect(files).not.toContain(`packages/sparse-bitvector/dist/index.${ext}`);
  const webgpu = files.filter((f) => WEBGPU_CALLS.test(readFileSync(join(root, f), 'utf8')));
  expect(webgpu, 'modules with WebGPU host code').toEqual([]);
}

describe('@gpumorph/sparse-bitvector/cpu, built, in a fresh Node process', () => {
  it('import loads only the CPU modules of sparse-bitvector and gpu-allocator, no WebGPU code', async () => {
    expectCpuOnly(await esmLoads('@gpumorph/sparse-bitvector/cpu'), 'js');
  });

  it('require loads only the CPU modules of sparse-bitvector and gpu-allocator, no WebGPU code', async () => {
    expectCpuOnly(await cjsLoads('@gpumorph/sparse-bitvector/cpu'), 'cjs');
  });

  it('the whole package does load gpu-primitives and WebGPU code (the check can fail)', async () => {
    const files = await esmLoads('@gpumorph/sparse-bitvector');
    expect(files.some((f) => f.startsWith('packages/gpu-primitives/dist/'))).toBe(true);
    expect(files.some((f) => WEBGPU_CALLS.test(readFileSync(resolve(root, f), 'utf8')))).toBe(true);
  });

  it('its dependencies install no GPU runtime: webgpu is at most an optional peer, all the way down', () => {
    const manifests = new Map<string, Record<string, Record<string, string> | undefined>>();
    for (const dir of (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }
    ).workspaces) {
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      manifests.set(manifest.name, manifest);
    }
    const installed = new Set<string>();
    const visit = (name: string) => {
      if (installed.has(name)) return;
      installed.add(name);
      const manifest = manifests.get(name);
      if (!manifest) return; // a third-party package: checked below by name
      const optionalPeers = manifest.peerDependenciesMeta as unknown as Record<
        string,
        { optional?: boolean }
      >;
      for (const peer of Object.keys(manifest.peerDependencies ?? {}))
        if (!optionalPeers?.[peer]?.optional) visit(peer);
      for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep);
      for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep);
    };
    visit('@gpumorph/sparse-bitvector');
    expect(installed.has('@gpumorph/sparse-bitvector')).toBe(true);
    expect(
      [...installed].filter(
        (name) => name === 'webgpu' || (name.startsWith('@webgpu/') && name !== '@webgpu/types'),
      ),
    ).toEqual([]);
    // The negative: the CLI does install Dawn (as an optional dependency).
    installed.clear();
    visit('@gpumorph/cli');
    expect(installed.has('webgpu')).toBe(true);
  });
});
