#!/usr/bin/env node
// Runs publint and @arethetypeswrong/cli (`attw --pack`, which packs the package with npm the way
// it would be published) over every workspace package, after `npm run build`. Exits 1 when either
// tool reports a problem in any package, so a broken exports map or a missing declaration file
// fails CI instead of a user's install. It also checks that the private benchmark workspace
// (`@gpumorph/bench`) stays out of what is published: no published package exports a `bench`
// subpath, depends on it (a dev dependency, which is never installed, is allowed), or has a dist/
// file that imports it (the CLI bundles it; docs/decisions/bench-workspace.md); and that every
// package a dist/ file imports is declared in its package.json (dependencies, peer or optional).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** @param {string} name */
const bin = (name) => join(root, 'node_modules', '.bin', name);

/** The private benchmark workspace: never published, never a dependency of a published package. */
const BENCH = '@gpumorph/bench';
const importsBench = /["']@gpumorph\/bench(\/[^"']*)?["']/;

/**
 * What ties a published package to the private bench: a `bench` export, a dependency on it, or a
 * dist/ file that imports it.
 * @param {string} dir the package's folder
 * @param {Record<string, any>} manifest its package.json
 * @returns {string[]}
 */
function benchLeaks(dir, manifest) {
  const leaks = [];
  for (const subpath of Object.keys(manifest.exports ?? {}))
    if (/(^|\/)bench(\/|$)/.test(subpath)) leaks.push(`exports ${subpath}`);
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies'])
    if (manifest[field] && BENCH in manifest[field]) leaks.push(`${field} has ${BENCH}`);
  const dist = join(dir, 'dist');
  if (existsSync(dist))
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }))
      if (/\.(c|m)?(js|ts)$/.test(file) && readFileSync(join(dist, file), 'utf8').match(importsBench))
        leaks.push(`dist/${file} imports ${BENCH}`);
  return leaks;
}

const builtins = new Set(builtinModules);
const bareImport = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["']([^"'./][^"']*)["']/gm;

/**
 * Packages a published package's dist/ imports without declaring them (dependencies, peer or
 * optional): an install would not have them (e.g. a test runner pulled in through a bundle).
 * @param {string} dir the package's folder
 * @param {Record<string, any>} manifest its package.json
 * @returns {string[]}
 */
function undeclaredImports(dir, manifest) {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const found = new Set();
  const dist = join(dir, 'dist');
  if (!existsSync(dist)) return [];
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!/\.(c|m)?js$/.test(file)) continue;
    for (const match of readFileSync(join(dist, file), 'utf8').matchAll(bareImport)) {
      const specifier = match[1] ?? '';
      const parts = specifier.split('/');
      const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
      // A testing entry brings its test runner (an optional peer): only testing entries use one.
      if (/^@gpumorph\/[^/]+\/testing$/.test(specifier) && !file.includes('testing'))
        found.add(`dist/${file} imports ${specifier}, a testing entry, outside a testing entry`);
      if (specifier.startsWith('node:') || builtins.has(pkg) || declared.has(pkg)) continue;
      found.add(`dist/${file} imports ${pkg}, which package.json does not declare`);
    }
  }
  return [...found];
}

const failures = [];
for (const workspace of workspaces) {
  const dir = join(root, workspace);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const { name } = manifest;
  if (manifest.private === true) {
    process.stdout.write(`- ${name} (private, not published: skipped)\n`);
    continue;
  }
  if (name === BENCH) {
    failures.push(`${BENCH} must be private`);
    continue;
  }
  const leaks = [...benchLeaks(dir, manifest), ...undeclaredImports(dir, manifest)];
  for (const leak of leaks) failures.push(`${name}: ${leak}`);
  process.stdout.write(
    `${leaks.length === 0 ? '✓' : '✗'} ${name} (no ${BENCH} in exports, dependencies, dist; every import declared)\n`,
  );
  if (!existsSync(join(dir, 'dist'))) {
    failures.push(`${name}: no dist/ (run npm run build first)`);
    continue;
  }
  // --strict: publint's warnings fail too; its suggestions are printed but never fail.
  /** @type {[tool: string, command: string, args: string[]][]} */
  const checks = [
    ['publint', bin('publint'), ['--strict', dir]],
    ['attw', bin('attw'), ['--pack', dir, '--format', 'ascii']],
  ];
  for (const [tool, command, args] of checks) {
    const run = spawnSync(command, args, { cwd: dir, encoding: 'utf8' });
    const output = `${run.stdout}${run.stderr}`.replace(/^npm warn Unknown user config.*\n/gm, '');
    if (run.status !== 0) {
      failures.push(`${name}: ${tool} exited ${run.status}`);
      process.stdout.write(`✗ ${name} (${tool})\n${output}\n`);
    } else {
      process.stdout.write(`✓ ${name} (${tool})\n`);
    }
  }
}
if (failures.length > 0) {
  process.stdout.write(`\n${failures.length} problem(s):\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`\nall published packages pass publint and attw, none tied to ${BENCH}\n`);
