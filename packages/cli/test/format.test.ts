import { stripVTControlCharacters } from 'node:util';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { formatBytes, formatNumber, renderTable, visibleLength } from '../src/format';

describe('format', () => {
  it.each([
    [0, '0'],
    [0.04567, '0.0457'],
    [1.234, '1.23'],
    [12.34, '12.3'],
    [2741.6, '2742'],
    [Number.NaN, 'n/a'],
    [Number.POSITIVE_INFINITY, 'n/a'],
  ])('formatNumber(%d) = %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });

  it.each([
    [1000, '1000 B'],
    [48 * 1024, '48 KiB'],
    [134217728, '128 MiB'],
    [2 ** 40, '1 TiB'],
    [4294967295, '4 GiB'],
    [1.5 * 2 ** 30, '1.5 GiB'],
  ])('formatBytes(%d) = %s', (value, text) => {
    expect(formatBytes(value)).toBe(text);
  });

  it('aligns columns by visible width, ignoring colour codes', () => {
    const colors = pc.createColors(true);
    const table = renderTable(
      [{ header: 'case' }, { header: 'ms', align: 'right' }],
      [
        [colors.cyan('copy'), '1.25'],
        ['alloc team', '12.5'],
      ],
    );
    const lines = table.split('\n').map((line) => stripVTControlCharacters(line));
    expect(lines).toEqual(['case          ms', '──────────  ────', 'copy        1.25', 'alloc team  12.5']);
    expect(visibleLength(colors.red('abc'))).toBe(3);
  });
});
