#!/usr/bin/env node
// Runs publint and @arethetypeswrong/cli (`attw --pack`, which packs the package with npm the way
// it would be published) over every workspace package, after `npm run build`. Exits 1 when either
// tool reports a problem in any package, so a broken exports map or a missing declaration file
// fails CI instead of a user's install.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** @param {string} name */
const bin = (name) => join(root, 'node_modules', '.bin', name);

const failures = [];
for (const workspace of workspaces) {
  const dir = join(root, workspace);
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
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
process.stdout.write(`\nall ${workspaces.length} packages pass publint and attw\n`);
