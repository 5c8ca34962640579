/**
 * The benchmark report: reads the committed bench JSON and builds the Markdown and the SVG charts
 * of the docs' report page. `buildBenchReport` is pure; `loadBenchFiles` and `writeBenchReport`
 * touch the file system.
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { formatValue, markdownTable } from './format';
import { type BenchFile, toBenchFile } from './model';
import {
  andersenSection,
  eigencfaSection,
  escapeMarkdownText,
  llvmSection,
  octagonSection,
  type ReportChart,
  type ReportSection,
  runsSection,
  type SectionContext,
  sparseBitvectorSection,
  tableSection,
} from './sections';

export type { BenchFile, BenchReport, BenchRow } from './model';
export type { ReportChart, ReportSection } from './sections';

/** The report: Markdown to include in the page, and the charts it links to. */
export interface BenchReportOutput {
  readonly markdown: string;
  readonly charts: readonly ReportChart[];
}

/**
 * Builds the report from bench files keyed by their path under `docs/benchmarks/`
 * (`h100/andersen.json`, …). Suites whose file is missing are left out; every file also appears
 * in full in the closing "All rows" section, so no measured value is hidden.
 *
 * @example
 * ```ts
 * const report = buildBenchReport(loadBenchFiles('docs/benchmarks', '.'), '/generated/bench');
 * report.charts.map((c) => c.file); // ['andersen-solve.svg', …]
 * ```
 */
export function buildBenchReport(files: readonly BenchFile[], chartBase: string): BenchReportOutput {
  const context: SectionContext = {
    chartBase,
    files: new Map(files.map((file) => [file.path.replace(/^.*?benchmarks\//, ''), file])),
  };
  const sections: (ReportSection | undefined)[] = [
    runsSection(context),
    andersenSection(context),
    llvmSection(context),
    eigencfaSection(context),
    octagonSection(context),
    sparseBitvectorSection(context),
    tableSection(context, 'h100/primitives.json', 'primitives', 'GPU primitives', [
      'GB/s',
      '% of copy',
      'Gkeys/s',
      'Mrecords/s',
    ]),
    tableSection(context, 'h100/allocator.json', 'allocator', 'Element-pool allocator', ['GB/s', 'Malloc/s']),
    allRowsSection(files),
  ];
  const present = sections.filter((s): s is ReportSection => s !== undefined);
  return {
    markdown: present.map((s) => s.markdown).join('\n'),
    charts: present.flatMap((s) => s.charts),
  };
}

/** Every row of every file with all its metrics, folded away: the report hides nothing measured. */
function allRowsSection(files: readonly BenchFile[]): ReportSection {
  const parts = ['## All rows\n', 'Every row of every committed file, with all the metrics it carries.\n'];
  for (const file of files)
    for (const report of file.reports) {
      const table = markdownTable(
        ['case', 'size', 'engine', 'median ms', 'timed by', 'runs', 'metrics'],
        report.rows.map((r) => [
          r.case,
          r.size,
          r.engine,
          formatValue(r.medianMs),
          r.method,
          String(r.runs),
          Object.entries(r.metrics ?? {})
            .map(([key, value]) => `${key}: ${formatValue(value)}`)
            .join('; '),
        ]),
        ['left', 'left', 'left', 'right', 'left', 'right', 'left'],
      );
      parts.push(
        `<details><summary><code>${escapeMarkdownText(file.path)}</code>: ${escapeMarkdownText(report.suite)} (${report.rows.length} rows)</summary>\n\n${table}\n</details>\n`,
      );
    }
  return { markdown: parts.join('\n'), charts: [] };
}

/**
 * Reads every `*.json` bench file in the machine folders of `benchmarksDir` (sorted, so the
 * report is stable); files that are not bench runs (`doctor.json`) are skipped.
 */
export function loadBenchFiles(benchmarksDir: string, repositoryRoot: string): BenchFile[] {
  const files: BenchFile[] = [];
  for (const machine of readdirSync(benchmarksDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort())
    for (const name of readdirSync(join(benchmarksDir, machine))
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      const path = join(benchmarksDir, machine, name);
      const file = toBenchFile(
        JSON.parse(readFileSync(path, 'utf8')),
        relative(repositoryRoot, path),
        machine,
      );
      if (file) files.push(file);
    }
  return files;
}

/** Writes the report's Markdown to `markdownPath` and its charts into `chartDir` (emptied first). */
export function writeBenchReport(report: BenchReportOutput, markdownPath: string, chartDir: string): void {
  rmSync(chartDir, { recursive: true, force: true });
  mkdirSync(chartDir, { recursive: true });
  for (const figure of report.charts) writeFileSync(join(chartDir, figure.file), figure.svg);
  mkdirSync(join(markdownPath, '..'), { recursive: true });
  writeFileSync(markdownPath, report.markdown);
}
