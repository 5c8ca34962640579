import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

export const here = dirname(fileURLToPath(import.meta.url));
/** The monorepo root. */
export const repoRoot = resolve(here, '../../..');
/** The EigenCFA benchmark folder (../shared/data or $GPUMORPH_DATA), or undefined. */
export const vhmDir = [
  process.env.GPUMORPH_DATA ? resolve(process.env.GPUMORPH_DATA, 'eigencfa/vhm') : undefined,
  resolve(repoRoot, '../shared/data/eigencfa/vhm'),
].find((d) => d !== undefined && existsSync(resolve(d, 'smallest/Fun.mat')));

/**
 * `describe` for suites that read the data folder. A user's clone has no `../shared`, so there the
 * suites are skipped with a warning; CI sets `GPUMORPH_REQUIRE_DATA=1`, where a missing folder fails.
 */
export const describeWithData: typeof describe | typeof describe.skip = (() => {
  if (vhmDir) return describe;
  if (process.env.GPUMORPH_REQUIRE_DATA === '1') {
    throw new Error(
      'GPUMORPH_REQUIRE_DATA=1 but no eigencfa/vhm data folder (../shared/data or $GPUMORPH_DATA)',
    );
  }
  console.warn(
    'eigencfa: no data folder (../shared/data/eigencfa/vhm or $GPUMORPH_DATA): skipping its suites',
  );
  return describe.skip;
})();

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
