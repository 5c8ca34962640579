import { describe, expect, it } from 'vitest';
import {
  createCfaMatrices,
  formatExpectedStore,
  formatMat,
  MAX_MATRIX_LAMBDAS,
  MatrixFormatError,
  matricesFromTexts,
  parseExpectedStore,
  parseMat,
  parseParams,
  rowName,
  storeFromRows,
  termCount,
} from '../src/index';

describe('data-folder formats', () => {
  it('reads and writes .mat lists', () => {
    expect(Array.from(parseMat('(11 8 14)'))).toEqual([11, 8, 14]);
    expect(Array.from(parseMat('(\n 1\t2 )\n'))).toEqual([1, 2]);
    expect(formatMat([1, 2, 3])).toBe('(1 2 3)');
    expect(Array.from(parseMat(formatMat([0, 5, 99])))).toEqual([0, 5, 99]);
    expect(() => parseMat('1 2 3', 'x.mat')).toThrow(MatrixFormatError);
    expect(() => parseMat('(1 -2)', 'x.mat')).toThrow(/x.mat: unexpected character '-'/);
  });

  it('reads program-params.lst', () => {
    expect(parseParams('14 28 15 32\n')).toEqual({ lams: 14, vars: 28, calls: 15, wordSize: 32 });
    expect(() => parseParams('14 28')).toThrow(/four integers/);
  });

  it('rejects more lambdas than MAX_MATRIX_LAMBDAS before allocating anything', () => {
    const at = MAX_MATRIX_LAMBDAS;
    expect(parseParams(`${at} ${2 * at} 1 32`).lams).toBe(at);
    for (const lams of [at + 1, 999_999_999]) {
      expect(() => parseParams(`${lams} ${2 * lams} 193 32`, 'p.lst')).toThrow(
        new MatrixFormatError('p.lst', `${lams} lambdas is above the limit of ${at}`),
      );
    }
  });

  it('checks the vectors against the parameters', () => {
    expect(() => matricesFromTexts({ params: '1 2 2 32', fun: '(0)', arg1: '(0)', arg2: '(0)' })).toThrow(
      /Fun.mat: has 1 entries/,
    );
    expect(() => createCfaMatrices({ lams: 1, fun: [0], arg1: [3], arg2: [0] })).toThrow(
      /Arg1\[0\] = 3 is not a store row/,
    );
    const m = createCfaMatrices({ lams: 1, fun: [0], arg1: [1], arg2: [2] });
    expect(m.rows).toBe(3);
    expect(termCount(m)).toBe(4);
    expect([0, 1, 2].map((r) => rowName(1, r))).toEqual(['λ0', 'a0', 'b0']);
  });

  it('reads and writes expected-store.rkt', () => {
    const text = '#hash((0 . (0)) (1 . (1)) (2 . ()) (3 . (1 0)))';
    const store = parseExpectedStore(text);
    expect(store.toArrays()).toEqual([[0], [1], [], [0, 1]]);
    expect(parseExpectedStore(formatExpectedStore(store)).equals(store)).toBe(true);
    expect(() => parseExpectedStore('#hash((0 . (0)) (2 . ()))')).toThrow(
      /has 2 rows, expected 3|row 1 is missing/,
    );
    expect(storeFromRows([[2, 1, 1]]).has(0, 2)).toBe(true);
  });
});
