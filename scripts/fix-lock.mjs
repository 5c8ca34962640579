#!/usr/bin/env node
// Adds package-lock entries for the platform-specific optional binaries of Biome and Rollup that
// this workplace's npm registry mirror does not serve (it 404s every platform but linux-x64).
// `npm install` then writes a lock without them and `npm ci` refuses it as out of sync. Each
// entry carries its os/cpu/libc, so npm skips it on other platforms without fetching anything.
// Run after any change of dependencies: `npm install && npm run lock:fix`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8'));
/**
 * @typedef {{ version?: string, dev?: boolean, license?: string, optional?: boolean, os?: string[],
 *   cpu?: string[], libc?: string[], optionalDependencies?: Record<string, string> }} LockEntry
 */
/** @type {Record<string, LockEntry>} */
const packages = lock.packages;

/** @param {string} name an optional binary's package name, e.g. `@biomejs/cli-linux-x64-musl` */
function platform(name) {
  const short = (name.split('/').pop() ?? name).replace(/^(cli-|rollup-)/, '');
  const [os = '', cpu = '', ...rest] = short.split('-');
  /** @type {string | undefined} */
  let libc;
  if (os === 'linux') {
    if (rest.some((r) => r.startsWith('musl'))) libc = 'musl';
    else libc = 'glibc';
  }
  return { os, cpu, libc };
}

const added = [];
for (const entry of Object.values(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (!/^@(biomejs\/cli|rollup\/rollup)-/.test(dep)) continue;
    const target = `node_modules/${dep}`;
    if (packages[target]) continue;
    const { os, cpu, libc } = platform(dep);
    /** @type {LockEntry} */
    const record = { version, cpu: [cpu] };
    if (entry.dev) record.dev = true;
    if (libc) record.libc = [libc];
    record.license = entry.license ?? 'MIT';
    record.optional = true;
    record.os = [os];
    packages[target] = record;
    added.push(target);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`fix-lock: added ${added.length} platform entries`);
