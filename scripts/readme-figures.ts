/**
 * The figure tables the package READMEs quote, generated from the current bench records under
 * `docs/benchmarks/` so that no README figure is typed by hand. A README holds each table between
 *
 *     <!-- figures:<id> … -->
 *     | … generated … |
 *     <!-- /figures -->
 *
 * and this script rewrites what is between the markers. When a record is replaced, run it and
 * commit the READMEs with the record; `test/readme-figures.test.ts` fails while a README's table
 * differs from its record.
 *
 *   npm run readme:figures            rewrite the tables
 *   npm run readme:figures -- --check list the READMEs whose tables differ, exit 1 if any
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchFile, type BenchReport, type BenchRow, loadBenchFiles } from './docs/bench-report/index';
import { parseSas07Notes } from './docs/bench-report/sections';

/** One generated table: which README, which record and suite, and how its rows are made. */
export interface FigureTable {
  /** The id in the README's marker, `<!-- figures:<id> -->`. */
  readonly id: string;
  /** The README, relative to the repository root. */
  readonly readme: string;
  /** The record, relative to `docs/benchmarks/` (e.g. `h100/andersen.json`). */
  readonly record: string;
  readonly suite: string;
  /** The header and the rows; the first column is left-aligned, the others too (as typed before). */
  render(report: BenchReport): { header: string[]; rows: string[][] };
}

/** Thrown when a README lacks a table's markers or a record lacks what a table needs. */
export class ReadmeFiguresError extends Error {
  override readonly name = 'ReadmeFiguresError';
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** A whole number with thousands separators: `14,668`. */
const whole = (x: number) => grouped.format(x);
/** Three significant digits, with separators from 1,000 on: `26.8`, `1,230`. */
const sig3 = (x: number) => (Math.abs(x) >= 1000 ? whole(x) : String(Number(x.toPrecision(3))));
/** Milliseconds as the tables print them: `73.8 ms`, `1,067 ms`, seconds from 10 s on: `51.6 s`. */
const ms = (x: number) => (x >= 10_000 ? `${sig3(x / 1000)} s` : `${sig3(x)} ms`);

function metric(row: BenchRow | undefined, name: string): number {
  const value = row?.metrics?.[name];
  if (value === undefined)
    throw new ReadmeFiguresError(`no metric "${name}" in ${row?.case} (${row?.engine})`);
  return value;
}

function findRow(report: BenchReport, test: (row: BenchRow) => boolean, what: string): BenchRow {
  const row = report.rows.find(test);
  if (!row) throw new ReadmeFiguresError(`no row for ${what} in the ${report.suite} record`);
  return row;
}

/** The leading number of a row's size (`11078 nodes, …` → 11078; `2^14 pairs` → 2^14 as text). */
const leadingNumber = (size: string) => Number(/^\d+/.exec(size)?.[0] ?? Number.NaN);

/** The tables, in the order of the READMEs. */
export const FIGURE_TABLES: readonly FigureTable[] = [
  {
    id: 'andersen-h100',
    readme: 'packages/andersen/README.md',
    record: 'h100/andersen.json',
    suite: 'andersen',
    render: (report) => ({
      header: [
        'benchmark',
        'nodes',
        'WebGPU',
        'rounds',
        'GPU MiB',
        'CPU engine',
        'CUDA code on the H100',
        "paper's C2070",
        'vs C2070',
      ],
      rows: ['ex', 'gcc', 'perl', 'python', 'php', 'linux'].map((name) => {
        const gpu = findRow(report, (r) => r.case === name && r.engine === 'webgpu', `${name} webgpu`);
        const cpu = findRow(report, (r) => r.case === name && r.engine === 'cpu', `${name} cpu`);
        return [
          name,
          whole(leadingNumber(gpu.size)),
          sig3(gpu.medianMs),
          whole(metric(gpu, 'rounds')),
          whole(metric(gpu, 'GPU MiB')),
          whole(cpu.medianMs),
          whole(metric(gpu, 'CUDA H100 ms')),
          whole(metric(gpu, 'paper GPU ms')),
          `${metric(gpu, 'paper GPU / ours').toFixed(1)}×`,
        ];
      }),
    }),
  },
  {
    id: 'eigencfa-h100',
    readme: 'packages/eigencfa/README.md',
    record: 'h100/eigencfa.json',
    suite: 'eigencfa',
    render: (report) => {
      const sizes = report.rows
        .filter((r) => r.engine === 'webgpu' && leadingNumber(r.case.replace(/^vhm /, '')) >= 512)
        .map((r) => leadingNumber(r.case.replace(/^vhm /, '')))
        .sort((a, b) => a - b);
      return {
        header: ['n (terms)', 'CPU', 'WebGPU (range)', 'total', 'CPU / WebGPU', 'mode', 'rounds', 'GPU MiB'],
        rows: sizes.map((n) => {
          const gpu = findRow(
            report,
            (r) => r.case === `vhm ${n}` && r.engine === 'webgpu',
            `vhm ${n} webgpu`,
          );
          const cpu = findRow(report, (r) => r.case === `vhm ${n}` && r.engine === 'cpu', `vhm ${n} cpu`);
          const range =
            gpu.runs > 1 ? ` (${sig3(metric(gpu, 'min ms'))}–${sig3(metric(gpu, 'max ms'))})` : '';
          return [
            `${n} (${whole(metric(gpu, 'terms'))})`,
            ms(cpu.medianMs),
            `${ms(gpu.medianMs)}${range}`,
            ms(metric(gpu, 'total ms')),
            `${sig3(cpu.medianMs / gpu.medianMs)}×`,
            metric(gpu, 'grid workgroups') > 0 ? 'grid' : 'workgroup',
            whole(metric(gpu, 'rounds')),
            whole(metric(gpu, 'GPU MiB')),
          ];
        }),
      };
    },
  },
  {
    id: 'primitives-h100',
    readme: 'packages/gpu-primitives/README.md',
    record: 'h100/primitives.json',
    suite: 'primitives',
    render: (report) => ({
      header: ['case', 'size', 'GPU ms', 'GB/s', '% of copy'],
      rows: report.rows
        .filter((r) => r.engine === 'webgpu' && r.size === '2^28 u32')
        .map((r) => [
          r.case,
          r.size,
          sig3(r.medianMs),
          whole(metric(r, 'GB/s')),
          r.metrics?.['% of copy'] === undefined ? '—' : `${sig3(metric(r, '% of copy'))}%`,
        ]),
    }),
  },
  {
    id: 'pair-sorts-h100',
    readme: 'packages/gpu-primitives/README.md',
    record: 'h100/primitives.json',
    suite: 'primitives',
    render: (report) => ({
      header: [
        'pairs',
        'radix: GPU ms',
        'merge: GPU ms',
        'radix: host µs to record',
        'merge: host µs to record',
      ],
      rows: report.rows
        .filter((r) => r.case === 'merge sort (key, value)')
        .map((merge) => {
          const radix = findRow(
            report,
            (r) => r.case === 'radix sort key–value 32-bit' && r.size === merge.size,
            `the radix sort of ${merge.size}`,
          );
          return [
            merge.size.replace(/ pairs$/, ''),
            sig3(radix.medianMs),
            sig3(merge.medianMs),
            whole(metric(radix, 'host µs to record')),
            whole(metric(merge, 'host µs to record')),
          ];
        }),
    }),
  },
  {
    id: 'octagon-h100',
    readme: 'packages/octagon/ENGINES.md',
    record: 'h100/octagon.json',
    suite: 'octagon',
    render: (report) => {
      const paper = parseSas07Notes(report.notes ?? []).get('closure');
      const closures = (engine: string) =>
        report.rows.filter((r) => r.case.startsWith('closure (') && r.engine === engine);
      return {
        header: [
          'variables',
          'WebGPU i32 (integer)',
          'WebGPU f32 (real)',
          '% of int32 / fp32 roof (executed)',
          "SAS'07 GPU (per run)",
        ],
        rows: closures('webgpu i32').map((i32) => {
          const n = leadingNumber(i32.size);
          const f32 = findRow(
            report,
            (r) => r.case.startsWith('closure (') && r.engine === 'webgpu f32' && r.size === i32.size,
            `the f32 closure of ${i32.size}`,
          );
          const sas = paper?.get(n)?.gpu;
          return [
            whole(n),
            ms(i32.medianMs),
            ms(f32.medianMs),
            `${sig3(metric(i32, '% of roof'))}% / ${sig3(metric(f32, '% of roof'))}%`,
            sas === undefined ? '—' : ms(sas),
          ];
        }),
      };
    },
  },
  {
    id: 'sparse-bitvector-h100',
    readme: 'packages/sparse-bitvector/README.md',
    record: 'h100/sparse-bitvector.json',
    suite: 'sparse-bitvector',
    render: (report) => ({
      header: ['case', 'size', 'GPU ms', 'M element pairs/s', 'GB/s', '% of the copy roof'],
      rows: report.rows
        .filter((r) => r.engine === 'webgpu')
        .map((r) => [
          r.case,
          r.size,
          sig3(r.medianMs),
          r.metrics?.['Melement pairs/s'] === undefined ? '—' : whole(metric(r, 'Melement pairs/s')),
          whole(metric(r, 'GB/s')),
          `${sig3(metric(r, '% of roof'))}%`,
        ]),
    }),
  },
];

/** A Markdown table with every column padded to its widest cell (readable in the raw README). */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const escapePipes = (cell: string) => cell.replaceAll('|', '\\|');
  const all = [header, ...rows].map((cells) => cells.map(escapePipes));
  const widths = header.map((_, i) => Math.max(3, ...all.map((cells) => [...(cells[i] ?? '')].length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)).join(' | ')} |`;
  const [head = [], ...body] = all;
  return [line(head), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...body.map(line)].join('\n');
}

const MARKERS = /(<!-- figures:([\w-]+)[^>]*-->\n)([\s\S]*?)(<!-- \/figures -->)/g;

/**
 * `text` (a README) with every figure table of {@link FIGURE_TABLES} that names it rewritten from
 * `files`; throws when a table's markers are missing or a marker names no table.
 *
 * @example
 * ```ts
 * const next = updateReadme('packages/andersen/README.md', text, loadBenchFiles('docs/benchmarks', '.'));
 * ```
 */
export function updateReadme(readme: string, text: string, files: readonly BenchFile[]): string {
  const tables = FIGURE_TABLES.filter((t) => t.readme === readme);
  const seen = new Set<string>();
  const next = text.replace(MARKERS, (_, open: string, id: string, _old: string, close: string) => {
    const table = tables.find((t) => t.id === id);
    if (!table)
      throw new ReadmeFiguresError(`${readme}: no figure table "${id}" in scripts/readme-figures.ts`);
    seen.add(id);
    const file = files.find((f) => f.path.endsWith(`benchmarks/${table.record}`));
    const report = file?.reports.find((r) => r.suite === table.suite);
    if (!report) throw new ReadmeFiguresError(`${readme}: no ${table.suite} report in ${table.record}`);
    const { header, rows } = table.render(report);
    return `${open}${alignedTable(header, rows)}\n${close}`;
  });
  const missing = tables.filter((t) => !seen.has(t.id)).map((t) => t.id);
  if (missing.length > 0)
    throw new ReadmeFiguresError(
      `${readme}: no <!-- figures:${missing.join(' -->, <!-- figures:')} --> markers`,
    );
  return next;
}

/** The READMEs whose figure tables differ from the records, with their updated text. */
export function outdatedReadmes(root: string): Map<string, string> {
  const files = loadBenchFiles(join(root, 'docs/benchmarks'), root);
  const out = new Map<string, string>();
  for (const readme of new Set(FIGURE_TABLES.map((t) => t.readme))) {
    const text = readFileSync(join(root, readme), 'utf8');
    const next = updateReadme(readme, text, files);
    if (next !== text) out.set(readme, next);
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '../..');
  const outdated = outdatedReadmes(root);
  if (process.argv.includes('--check')) {
    for (const readme of outdated.keys())
      process.stderr.write(`readme-figures: ${readme} differs from its record\n`);
    process.exitCode = outdated.size > 0 ? 1 : 0;
  } else {
    for (const [readme, text] of outdated) {
      writeFileSync(join(root, readme), text);
      process.stdout.write(`readme-figures: wrote ${readme}\n`);
    }
    if (outdated.size === 0) process.stdout.write('readme-figures: every table equals its record\n');
  }
}
