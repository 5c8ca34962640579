import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { dataSet, vhmFixtureSizes, vhmFixtures } from '../../../test/data';

export { repoRoot } from '../../../test/data';

/** This folder (the eigencfa tests). */
export const here = import.meta.dirname;

/** The sizes carried as fixtures (smallest … 16), each with its expected store. */
export const fixtureSizes: readonly string[] = vhmFixtureSizes;

/** The folder of a fixture size. */
export const fixtureDir = (n: string) => resolve(vhmFixtures, n);

/** The full EigenCFA benchmark folder (`eigencfa/vhm` of the data folder); its suites skip without it. */
export const vhmData = dataSet('eigencfa/vhm', 'smallest/Fun.mat');

/** Sizes of the data folder that are not fixtures, smallest first (empty without the data folder). */
export const dataSizes: string[] = vhmData.dir
  ? readdirSync(vhmData.dir)
      .filter((n) => !fixtureSizes.includes(n))
      .sort((a, b) => Number(a) - Number(b))
  : [];

/** Of {@link dataSizes}, those with an expected-store.rkt. */
export const dataExpectedSizes = dataSizes.filter((n) =>
  existsSync(resolve(vhmData.path(n), 'expected-store.rkt')),
);

export const examplesDir = resolve(import.meta.dirname, '../../../examples/eigencfa');
export const examplePrograms = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.scm'))
  .sort();
export const readExample = (name: string) => readFileSync(resolve(examplesDir, name), 'utf8');
