import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import {
  decompileMatrices,
  firstDifference,
  parseExpectedStore,
  readMatricesDir,
  referenceCfa,
  referenceStore,
  solveCfa,
  solveCpuSparse,
} from '../src/index';
import { describeWithData, expectedSizes, vhmDir } from './data';

describeWithData('fixpoints equal expected-store.rkt', () => {
  it.each(expectedSizes)('n = %s: CPU sparse engine', async (n) => {
    const dir = resolve(vhmDir as string, n);
    const m = await readMatricesDir(dir);
    const expected = parseExpectedStore(
      readFileSync(resolve(dir, 'expected-store.rkt'), 'utf8'),
      'expected-store.rkt',
      m.rows,
    );
    const { store } = solveCpuSparse(m);
    expect(firstDifference(store, expected)).toBeUndefined();
  });

  it.each(expectedSizes)('n = %s: reference 0CFA over the decompiled terms', async (n) => {
    const dir = resolve(vhmDir as string, n);
    const m = await readMatricesDir(dir);
    const expected = parseExpectedStore(
      readFileSync(resolve(dir, 'expected-store.rkt'), 'utf8'),
      'expected-store.rkt',
      m.rows,
    );
    const { top, lambdas } = decompileMatrices(m);
    expect(firstDifference(referenceStore(lambdas, referenceCfa(top)), expected)).toBeUndefined();
  });
});

describeWithData('the CPU engine through solveCfa', () => {
  it('reports sizes and emits its events; an aborted signal cancels', async () => {
    const m = await readMatricesDir(resolve(vhmDir as string, '64'));
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
