import { stripVTControlCharacters } from 'node:util';

/** Alignment of a table column. */
export type Align = 'left' | 'right';

/** One column of {@link renderTable}. */
export interface Column {
  readonly header: string;
  readonly align?: Align;
}

/**
 * Renders rows of (possibly coloured) cells as a plain-text table: a header, a rule, the rows,
 * columns padded to their widest visible cell (ANSI colour codes do not count).
 *
 * @example
 * ```ts
 * renderTable([{ header: 'case' }, { header: 'ms', align: 'right' }], [['copy', '1.25']]);
 * // case  ms
 * // ────  ────
 * // copy  1.25
 * ```
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  indent = '',
): string {
  const widths = columns.map((column, i) =>
    Math.max(visibleLength(column.header), ...rows.map((row) => visibleLength(row[i] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    indent +
    columns
      .map((column, i) => pad(cells[i] ?? '', widths[i] ?? 0, column.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((c) => c.header)),
    line(widths.map((w) => '─'.repeat(w))),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

/** Length of `text` as shown on a terminal (ANSI escapes removed). */
export function visibleLength(text: string): number {
  return stripVTControlCharacters(text).length;
}

function pad(text: string, width: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * A number with about three significant digits and no exponent for large values
 * (`0.0123`, `1.23`, `12.3`, `1234`); `n/a` for NaN and infinities.
 *
 * @example
 * ```ts
 * formatNumber(2741.6); // '2742'
 * formatNumber(0.04567); // '0.0457'
 * ```
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  if (abs === 0) return '0';
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/**
 * A byte count in binary units, exact where possible (`128 MiB`, `1 TiB`, `48 KiB`, `1000 B`).
 *
 * @example
 * ```ts
 * formatBytes(134217728); // '128 MiB'
 * ```
 */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
  return `${text} ${units[unit]}`;
}
