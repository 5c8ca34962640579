/**
 * Number formatting and Markdown tables for the benchmark report.
 * @module
 */

const significant = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/**
 * A measured value as the report prints it: three significant digits below 1,000 (timings span
 * microseconds to minutes, so fixed decimals would either drown small values or invent precision
 * for large ones), whole numbers with thousands separators from 1,000 on; `—` for no value.
 *
 * @example
 * ```ts
 * formatValue(34.11885); // '34.1'
 * formatValue(42876.27); // '42,876'
 * ```
 */
export function formatValue(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  return Math.abs(value) >= 1000 ? whole.format(value) : significant.format(value);
}

/** A ratio as `1.65×`. */
export function formatRatio(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '—' : `${formatValue(value)}×`;
}

/** Escapes text for one Markdown table cell (pipes and line breaks would split the row). */
export function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll(/\r?\n/g, ' ');
}

/** Column alignment in {@link markdownTable}. */
export type Align = 'left' | 'right';

/**
 * A GitHub-flavoured Markdown table. Cells are escaped; `align` defaults to left for the first
 * column and right for the others (numbers).
 *
 * @example
 * ```ts
 * markdownTable(['case', 'ms'], [['ex', '34.1']]);
 * // '| case | ms |\n| :--- | ---: |\n| ex | 34.1 |\n'
 * ```
 */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = header.map((_, i) => (i === 0 ? 'left' : 'right')),
): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  const rule = `| ${header.map((_, i) => (align[i] === 'right' ? '---:' : ':---')).join(' | ')} |`;
  return `${[line(header), rule, ...rows.map(line)].join('\n')}\n`;
}

/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
