// The one place tests find inputs: the small published inputs the project carries as fixtures, and
// the big data sets (../shared/data beside the checkout, or $GPUMORPH_DATA) that only some suites
// read. A fresh clone has no data folder: those suites are skipped with one line saying how to get
// it, and GPUMORPH_REQUIRE_DATA=1 (CI) turns the absence into a failure. Every package's tests
// import this module rather than looking for the folder themselves.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe } from 'vitest';

/** The monorepo root. */
export const repoRoot = resolve(import.meta.dirname, '..');

/** Hardekopf & Lin's `ex` benchmark (PPoPP'12 suite), carried as a fixture: `${hardekopfFixtures}/ex_nodes.txt.gz`, … */
export const hardekopfFixtures = resolve(repoRoot, 'packages/andersen/test/fixtures/hardekopf');

/** The smallest EigenCFA (POPL'11) Van Horn–Mairson sizes, carried as fixtures: `${vhmFixtures}/<n>/Fun.mat`, … */
export const vhmFixtures = resolve(repoRoot, 'packages/eigencfa/test/fixtures/vhm');

/** The sizes in {@link vhmFixtures}, smallest first; each has an `expected-store.rkt`. */
export const vhmFixtureSizes = ['smallest', '2', '4', '8', '16'] as const;

/** Whether `GPUMORPH_REQUIRE_DATA=1` demands the data folder (CI sets it). */
export const dataRequired = process.env.GPUMORPH_REQUIRE_DATA === '1';

/** Where the data folder may be: `$GPUMORPH_DATA`, then `shared/data` beside the checkout. */
function dataRoots(): string[] {
  const roots = [resolve(repoRoot, '../shared/data')];
  if (process.env.GPUMORPH_DATA) roots.unshift(resolve(process.env.GPUMORPH_DATA));
  return roots;
}

/** Declares a suite: `describe`, or a skipped one. */
export type SuiteDeclaration = (name: string, body: () => void) => void;

/** A data set of the data folder, as tests see it. */
export interface DataSet {
  /** The data set's folder, or `undefined` when it is absent. */
  readonly dir: string | undefined;
  /**
   * `describe` when the data set is present; otherwise it declares the suite skipped and says, the
   * first time, in one line on stderr that the data is absent and how to get it.
   */
  readonly describe: SuiteDeclaration;
  /** `dir`/`name`; only for use inside suites declared with {@link DataSet.describe}. */
  path(name: string): string;
}

const warned = new Set<string>();

/**
 * The data set at `relative` under the data folder (e.g. `andersen/hardekopf`), found where `probe`
 * exists in it. Under `GPUMORPH_REQUIRE_DATA=1` an absent data set throws, failing the test file.
 *
 * @example
 * ```ts
 * const hardekopf = dataSet('andersen/hardekopf', 'perl_nodes.txt.gz');
 * hardekopf.describe('perl', () => {
 *   it('solves', async () => { await readHardekopf({ prefix: hardekopf.path('perl') }); });
 * });
 * ```
 */
export function dataSet(relative: string, probe: string): DataSet {
  const dir = dataRoots()
    .map((root) => resolve(root, relative))
    .find((d) => existsSync(resolve(d, probe)));
  if (dir === undefined && dataRequired) {
    throw new Error(
      `GPUMORPH_REQUIRE_DATA=1 but no ${relative} data (looked in $GPUMORPH_DATA/${relative} and ../shared/data/${relative} beside the checkout)`,
    );
  }
  const skipped: SuiteDeclaration = (name, body) => {
    if (!warned.has(relative)) {
      warned.add(relative);
      console.warn(
        `${relative}: data absent, skipping the suites over it (to run them, set GPUMORPH_DATA to a folder holding ${relative}, or put shared/data beside the checkout)`,
      );
    }
    // biome-ignore lint/suspicious/noSkippedTests: the data is absent; the line above says so and how to get it.
    describe.skip(name, body);
  };
  return {
    dir,
    describe: dir === undefined ? skipped : (name, body) => describe(name, body),
    path: (name) => resolve(dir ?? '/absent-data', name),
  };
}
