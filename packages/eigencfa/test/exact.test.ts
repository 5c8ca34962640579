import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileScheme,
  decompileMatrices,
  firstDifference,
  parseExpectedStore,
  readMatricesDir,
  referenceCfa,
  referenceStore,
  solveCfa,
  solveCpuSparse,
  vanHornMairson,
} from '../src/index';
import { dataExpectedSizes, fixtureDir, fixtureSizes, vhmData } from './data';

/** The two fixpoint checks, for the sizes in `dirOf`'s folders. */
function fixpointTests(sizes: readonly string[], dirOf: (n: string) => string) {
  it.each(sizes)('n = %s: CPU sparse engine', async (n) => {
    const dir = dirOf(n);
    const m = await readMatricesDir(dir);
    const expected = parseExpectedStore(
      readFileSync(resolve(dir, 'expected-store.rkt'), 'utf8'),
      'expected-store.rkt',
      m.rows,
    );
    const { store } = solveCpuSparse(m);
    expect(firstDifference(store, expected)).toBeUndefined();
  });

  it.each(sizes)('n = %s: reference 0CFA over the decompiled terms', async (n) => {
    const dir = dirOf(n);
    const m = await readMatricesDir(dir);
    const expected = parseExpectedStore(
      readFileSync(resolve(dir, 'expected-store.rkt'), 'utf8'),
      'expected-store.rkt',
      m.rows,
    );
    const { top, lambdas } = decompileMatrices(m);
    expect(firstDifference(referenceStore(lambdas, referenceCfa(top)), expected)).toBeUndefined();
  });
}

describe('fixpoints equal expected-store.rkt (the sizes carried as fixtures)', () => {
  fixpointTests(fixtureSizes, fixtureDir);
});

vhmData.describe('fixpoints equal expected-store.rkt (the larger sizes of the data folder)', () => {
  fixpointTests(dataExpectedSizes, (n) => vhmData.path(n));
});

describe('the CPU engine through solveCfa', () => {
  it('reports sizes and emits its events; an aborted signal cancels', async () => {
    // n = 64 as the front end compiles it (the same matrices as the data folder's, see frontend.test.ts).
    const m = compileScheme(vanHornMairson(64)).matrices;
    const result = await solveCfa(m, { engine: 'cpu' });
    expect(result.statistics).toMatchObject({
      engine: 'cpu',
      lams: 1996,
      vars: 3992,
      calls: 1997,
      terms: 7985,
      storeEntries: 10362,
    });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(solveCfa(m, { engine: 'cpu', signal: controller.signal })).rejects.toThrow(/cancelled/);
  });
});
