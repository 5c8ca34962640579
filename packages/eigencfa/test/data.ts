import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The monorepo root. */
export const repoRoot = resolve(here, '../../..');
/** The EigenCFA benchmark folder (../shared/data or $GPUMORPH_DATA), or undefined. */
export const vhmDir = [
  process.env.GPUMORPH_DATA ? resolve(process.env.GPUMORPH_DATA, 'eigencfa/vhm') : undefined,
  resolve(repoRoot, '../shared/data/eigencfa/vhm'),
].find((d) => d !== undefined && existsSync(resolve(d, 'smallest/Fun.mat')));

/** Sizes present in the data folder, smallest first ('smallest' first of all). */
export const vhmSizes: string[] = vhmDir
  ? readdirSync(vhmDir).sort((a, b) => (a === 'smallest' ? -1 : b === 'smallest' ? 1 : Number(a) - Number(b)))
  : [];
/** Sizes with an expected-store.rkt. */
export const expectedSizes = vhmSizes.filter(
  (n) => vhmDir && existsSync(resolve(vhmDir, n, 'expected-store.rkt')),
);

export const examplesDir = resolve(repoRoot, 'examples/eigencfa');
export const examplePrograms = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.scm'))
  .sort();
export const readExample = (name: string) => readFileSync(resolve(examplesDir, name), 'utf8');
