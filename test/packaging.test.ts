// Installs the packages as a user would — `npm pack` tarballs into a fresh project, third-party
// dependencies from npm's cache — and runs each package README's main example there (the first
// fenced block; see test/readme-example.ts). It needs the build (`npm run build`): `npm test` runs
// it first. The examples that need a GPU take one when present, and must under GPUMORPH_REQUIRE_GPU=1.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gpumorphCommands, readmeMainExample } from './readme-example';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const requireGpu = process.env.GPUMORPH_REQUIRE_GPU === '1';

interface Workspace {
  readonly dir: string;
  readonly name: string;
}

/** The published workspaces: the private ones (the bench) are never packed. */
const workspaces: Workspace[] = (
  await Promise.all(
    (
      JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }
    ).workspaces.map(async (dir) => {
      const manifest = JSON.parse(await readFile(join(root, dir, 'package.json'), 'utf8')) as {
        name: string;
        private?: boolean;
      };
      return { dir, name: manifest.name, published: manifest.private !== true };
    }),
  )
).flatMap(({ dir, name, published }) => (published ? [{ dir, name }] : []));

/** What each README example must print, beyond exiting 0 (GPU lines only where a GPU is required). */
const expectedOutput: Record<string, RegExp[]> = {
  '@gpumorph/andersen': [/^true$/m],
  '@gpumorph/sparse-bitvector': [/961/],
  '@gpumorph/eigencfa': [/^f@.* ← /m],
  '@gpumorph/octagon': [/^10$/m, /\{ -x \+ y <= 0, y <= 10 \}/, /\[ true \]/],
  ...(requireGpu
    ? {
        '@gpumorph/gpu-allocator': [/llvmpipe|\[/],
        '@gpumorph/gpu-primitives': [
          /\[ 0, 5, 6, 10, 11 \].*\[ 0, 5, 6, 10, 11 \]/,
          /\[ 1, 1, 3, 4, 5 \].*\[ 1, 1, 3, 4, 5 \]/,
        ],
      }
    : {}),
};

let scratch = '';

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout, stderr } = await run('npm', args, { cwd, maxBuffer: 16 << 20 });
  return stdout + stderr;
}

beforeAll(async () => {
  const missing = workspaces.filter((w) => !existsSync(join(root, w.dir, 'dist')));
  if (missing.length > 0) {
    throw new Error(`no dist/ in ${missing.map((w) => w.dir).join(', ')}: run npm run build first`);
  }
  scratch = await mkdtemp(join(tmpdir(), 'gpumorph-packaging-'));
  const packs = join(scratch, 'packs');
  const project = join(scratch, 'project');
  await mkdir(packs);
  await mkdir(project);
  const packWorkspaces = workspaces.flatMap((w) => ['--workspace', w.dir]);
  await npm(['pack', ...packWorkspaces, '--pack-destination', packs, '--silent'], root);
  const tarballs = (await readdir(packs)).filter((f) => f.endsWith('.tgz')).map((f) => join(packs, f));
  expect(tarballs).toHaveLength(workspaces.length);
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'gpumorph-scratch', private: true, type: 'module' }, null, 2)}\n`,
  );
  // All tarballs at the top level: the packages' dependencies on each other (exact versions) are
  // then met by them, not fetched. Third-party tarballs come from npm's cache, which `npm ci`
  // filled. `npm ci` caches tarballs but not the registry's package documents that resolving a
  // range needs, so on a fresh CI machine --offline fails (ENOTCACHED); --prefer-offline then asks
  // the registry for those documents only. Where they are cached (any earlier `npm install`),
  // the install runs fully offline.
  const install = ['install', '--no-audit', '--no-fund', ...tarballs];
  try {
    await npm([...install, '--offline'], project);
  } catch {
    process.stderr.write('packaging: not everything is in npm’s cache; installing with --prefer-offline\n');
    await npm([...install, '--prefer-offline'], project);
  }
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: [],
        strict: true,
        noEmit: true,
        // Checked like a careful user: the packages' declarations too, not just the example.
        skipLibCheck: false,
      },
      include: ['*.mts'],
    }),
  );
  for (const w of workspaces) {
    const example = readmeMainExample(await readFile(join(root, w.dir, 'README.md'), 'utf8'));
    if (example.lang === 'ts') await writeFile(join(project, `${exampleFile(w)}`), example.code);
  }
}, 180_000);

afterAll(async () => {
  if (scratch && process.env.GPUMORPH_KEEP_SCRATCH !== '1')
    await rm(scratch, { recursive: true, force: true });
});

function exampleFile(w: Workspace): string {
  return `${w.name.replace('@gpumorph/', '')}.readme.mts`;
}

describe('the packed packages', () => {
  it.each(workspaces)('$name loads through import and require', async (w) => {
    const project = join(scratch, 'project');
    const script = `import(${JSON.stringify(w.name)}).then((m) => { const c = require(${JSON.stringify(w.name)}); console.log(Object.keys(m).length, Object.keys(c).length); })`;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: project });
    const [esm, cjs] = stdout.trim().split(' ').map(Number);
    expect(esm).toBeGreaterThan(0);
    expect(cjs).toBe(esm);
  });

  it('type-check every README example against their own declarations (NodeNext, no skipLibCheck)', async () => {
    const project = join(scratch, 'project');
    const result = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: project }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(result.stdout).toBe('');
  });

  it.each(workspaces)('README example of $name runs', async (w) => {
    const project = join(scratch, 'project');
    const example = readmeMainExample(await readFile(join(root, w.dir, 'README.md'), 'utf8'));
    let output = '';
    if (example.lang === 'ts') {
      const { stdout } = await run(bin('tsx'), [exampleFile(w)], { cwd: project, timeout: 300_000 });
      output = stdout;
    } else {
      const commands = gpumorphCommands(example.code);
      expect(commands.length).toBeGreaterThan(0);
      for (const args of commands) {
        const { stdout } = await run(join(project, 'node_modules', '.bin', 'gpumorph'), args, {
          cwd: project,
          timeout: 300_000,
        });
        output += stdout;
      }
    }
    for (const pattern of expectedOutput[w.name] ?? []) expect(output).toMatch(pattern);
  });
});
