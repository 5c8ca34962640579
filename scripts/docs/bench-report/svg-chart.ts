/**
 * A small, dependency-free SVG line chart for the benchmark report: axes with ticks and labels,
 * log or linear scales, one polyline per series with point markers (hover titles give the exact
 * values) and a legend. Pure: the same spec gives the same text, so the tests can read it.
 * @module
 */
import { escapeXml, formatValue } from './format';

/** One point of a series; `label` names it in the hover title (e.g. the benchmark). */
export interface ChartPoint {
  readonly x: number;
  readonly y: number;
  readonly label?: string;
}

/** One line of the chart. */
export interface ChartSeries {
  readonly name: string;
  readonly points: readonly ChartPoint[];
  /** Dashed line: used for published figures, so ours (solid) stand out from the papers'. */
  readonly dashed?: boolean;
}

/** Axis scale. Log scales drop non-positive values (they have no place on them). */
export type Scale = 'log' | 'linear';

/** What {@link renderLineChart} draws. */
export interface LineChartSpec {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xScale?: Scale;
  readonly yScale?: Scale;
  readonly series: readonly ChartSeries[];
  readonly width?: number;
  readonly height?: number;
}

/** Okabe–Ito colours: distinguishable with the common colour-vision deficiencies, and on white. */
export const SERIES_COLORS: readonly string[] = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#999999',
];

const MARGIN = { left: 72, top: 36, bottom: 52 };
/** Legend width per character of the longest series name at 12 px (system sans-serif runs ≈ 6.5 px). */
const LEGEND_CHAR_WIDTH = 6.8;

interface Axis {
  readonly scale: Scale;
  readonly min: number;
  readonly max: number;
  readonly ticks: readonly number[];
}

/**
 * Renders a line chart as a standalone SVG document (white background, so it reads in dark mode
 * too). Series without a drawable point are left out of the plot and of the legend.
 *
 * @example
 * ```ts
 * const svg = renderLineChart({
 *   title: 'closure', xLabel: 'variables', yLabel: 'ms', xScale: 'log', yScale: 'log',
 *   series: [{ name: 'cpu', points: [{ x: 128, y: 10.5 }, { x: 256, y: 70 }] }],
 * });
 * ```
 */
export function renderLineChart(spec: LineChartSpec): string {
  const height = spec.height ?? 420;
  const xScale = spec.xScale ?? 'linear';
  const yScale = spec.yScale ?? 'linear';
  const series = spec.series
    .map((s) => ({
      ...s,
      points: s.points
        .filter((p) => drawable(p.x, xScale) && drawable(p.y, yScale))
        .slice()
        .sort((a, b) => a.x - b.x),
    }))
    .filter((s) => s.points.length > 0);
  const all = series.flatMap((s) => s.points);
  // The legend sits right of the plot; it is as wide as its longest name, the plot keeps 560 px.
  const legendWidth = 56 + LEGEND_CHAR_WIDTH * Math.max(8, ...series.map((s) => s.name.length));
  const width = spec.width ?? Math.round(MARGIN.left + 560 + legendWidth);
  const marginRight = legendWidth;
  const xAxis = makeAxis(
    all.map((p) => p.x),
    xScale,
  );
  const yAxis = makeAxis(
    all.map((p) => p.y),
    yScale,
  );
  const plotWidth = width - MARGIN.left - marginRight;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + fraction(x, xAxis) * plotWidth;
  const py = (y: number) => MARGIN.top + (1 - fraction(y, yAxis)) * plotHeight;
  const round = (v: number) => Math.round(v * 10) / 10;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="chart-title" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`,
    `<title id="chart-title">${escapeXml(spec.title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="600" fill="#111">${escapeXml(spec.title)}</text>`,
  );
  // Grid and tick labels.
  out.push('<g class="x-axis" fill="#333">');
  for (const tick of xAxis.ticks) {
    const x = round(px(tick));
    out.push(
      `<line x1="${x}" y1="${MARGIN.top}" x2="${x}" y2="${MARGIN.top + plotHeight}" stroke="#e5e5e5"/>`,
      `<text x="${x}" y="${MARGIN.top + plotHeight + 16}" text-anchor="middle">${escapeXml(tickLabel(tick))}</text>`,
    );
  }
  out.push('</g>', '<g class="y-axis" fill="#333">');
  for (const tick of yAxis.ticks) {
    const y = round(py(tick));
    out.push(
      `<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotWidth}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${escapeXml(tickLabel(tick))}</text>`,
    );
  }
  out.push('</g>');
  out.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#888"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${height - 12}" text-anchor="middle" fill="#111">${escapeXml(axisTitle(spec.xLabel, xScale))}</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle" fill="#111">${escapeXml(axisTitle(spec.yLabel, yScale))}</text>`,
  );
  // Series.
  series.forEach((s, index) => {
    const color = SERIES_COLORS[index % SERIES_COLORS.length] as string;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    const points = s.points.map((p) => `${round(px(p.x))},${round(py(p.y))}`).join(' ');
    out.push(
      `<g class="series" data-series="${escapeXml(s.name)}">`,
      `<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    for (const p of s.points) {
      const what = `${s.name}${p.label ? ` · ${p.label}` : ''}: ${formatValue(p.y)} at ${formatValue(p.x)}`;
      out.push(
        `<circle cx="${round(px(p.x))}" cy="${round(py(p.y))}" r="3.5" fill="${s.dashed ? '#ffffff' : color}" stroke="${color}" stroke-width="1.5"><title>${escapeXml(what)}</title></circle>`,
      );
    }
    out.push('</g>');
  });
  // Legend.
  const legendX = MARGIN.left + plotWidth + 16;
  out.push('<g class="legend" fill="#111">');
  series.forEach((s, index) => {
    const color = SERIES_COLORS[index % SERIES_COLORS.length] as string;
    const y = MARGIN.top + 10 + index * 20;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<line x1="${legendX}" y1="${y}" x2="${legendX + 24}" y2="${y}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<circle cx="${legendX + 12}" cy="${y}" r="3.5" fill="${s.dashed ? '#ffffff' : color}" stroke="${color}" stroke-width="1.5"/>`,
      `<text x="${legendX + 32}" y="${y + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</g>', '</svg>');
  return `${out.join('\n')}\n`;
}

function drawable(value: number, scale: Scale): boolean {
  return Number.isFinite(value) && (scale === 'linear' || value > 0);
}

function axisTitle(label: string, scale: Scale): string {
  return scale === 'log' ? `${label} (log scale)` : label;
}

function fraction(value: number, axis: Axis): number {
  if (axis.max === axis.min) return 0.5;
  if (axis.scale === 'log')
    return (Math.log10(value) - Math.log10(axis.min)) / (Math.log10(axis.max) - Math.log10(axis.min));
  return (value - axis.min) / (axis.max - axis.min);
}

/** Axis range and ticks: whole decades on a log axis, 1–2–5 steps on a linear one. */
function makeAxis(values: readonly number[], scale: Scale): Axis {
  if (values.length === 0) return { scale, min: scale === 'log' ? 1 : 0, max: 10, ticks: [] };
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (scale === 'log') {
    const minExp = Math.floor(Math.log10(lo));
    const maxExp = Math.max(Math.ceil(Math.log10(hi)), minExp + 1);
    const ticks: number[] = [];
    for (let e = minExp; e <= maxExp; e++) {
      ticks.push(10 ** e);
      // A log axis over a decade or two reads better with 2 and 5 between the powers of ten.
      if (maxExp - minExp <= 2 && e < maxExp) ticks.push(2 * 10 ** e, 5 * 10 ** e);
    }
    return { scale, min: 10 ** minExp, max: 10 ** maxExp, ticks: ticks.map(clean) };
  }
  const min = Math.min(0, lo);
  const step = niceStep((Math.max(hi, min + 1e-12) - min) / 5);
  const max = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = min; t <= max + step / 2; t += step) ticks.push(clean(t));
  return { scale, min, max: max === min ? min + step : max, ticks };
}

function niceStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  const mantissa = rough / power;
  return (mantissa <= 1 ? 1 : mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10) * power;
}

/** Removes binary floating-point noise (10 ** -3 is 0.0010000000000000002). */
function clean(value: number): number {
  return Number(value.toPrecision(12));
}

/** Compact tick text: 0.001, 1, 10k, 2M. */
export function tickLabel(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${clean(value / 1e9)}G`;
  if (abs >= 1e6) return `${clean(value / 1e6)}M`;
  if (abs >= 1e3) return `${clean(value / 1e3)}k`;
  return String(clean(value));
}
