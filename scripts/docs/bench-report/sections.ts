/**
 * The sections of the benchmark report, one per suite: Markdown tables and chart specs built from
 * the committed bench JSON only. Published figures come from the same JSON (the bench suites
 * write them as `paper …` metrics or as notes), never from this file.
 * @module
 */
import { type Align, escapeXml, formatRatio, formatValue, markdownTable } from './format';
import { type BenchFile, type BenchReport, type BenchRow, findReport, sizeNumber } from './model';
import { type ChartSeries, type LineChartSpec, renderLineChart } from './svg-chart';

/** A chart of the report: its file name (under the chart folder) and its SVG text. */
export interface ReportChart {
  readonly file: string;
  readonly alt: string;
  readonly spec: LineChartSpec;
  readonly svg: string;
}

/** A part of the report page. */
export interface ReportSection {
  readonly markdown: string;
  readonly charts: readonly ReportChart[];
}

/** Where the page finds the charts (a URL path) and which files the sections read. */
export interface SectionContext {
  readonly chartBase: string;
  /** Bench files by their path under `docs/benchmarks/`, e.g. `h100/andersen.json`. */
  readonly files: ReadonlyMap<string, BenchFile>;
}

/** Makes a chart and the Markdown image that shows it. */
export function chart(
  context: SectionContext,
  file: string,
  alt: string,
  spec: LineChartSpec,
): [string, ReportChart] {
  return [`![${alt}](${context.chartBase}/${file})\n`, { file, alt, spec, svg: renderLineChart(spec) }];
}

/** Escapes free text (notes from the JSON) so Markdown and the Vue template compiler keep it as text. */
export function escapeMarkdownText(text: string): string {
  return escapeXml(text).replace(/([\\`*_[\]{}|#])/g, '\\$1');
}

function notesList(report: BenchReport | undefined): string {
  if (!report?.notes?.length) return '';
  return `<details><summary>Notes written by the run</summary>\n\n${report.notes
    .map((n) => `- ${escapeMarkdownText(n)}`)
    .join('\n')}\n\n</details>\n`;
}

function caption(file: BenchFile, report: BenchReport): string {
  return `_Source: \`${file.path}\` (${escapeMarkdownText(report.adapter)}${file.date ? `, ${file.date.slice(0, 10)}` : ''})._\n`;
}

const metric = (row: BenchRow | undefined, key: string): number | undefined => row?.metrics?.[key];

function rowsOf(report: BenchReport, engine: string): Map<string, BenchRow> {
  return new Map(report.rows.filter((r) => r.engine === engine).map((r) => [r.case, r]));
}

function uniqueCases(report: BenchReport): string[] {
  return [...new Set(report.rows.map((r) => r.case))];
}

/** Andersen on the PPoPP'12 suite: CPU and WebGPU beside the paper's CPU-s, GPU and CUDA-on-H100. */
export function andersenSection(context: SectionContext): ReportSection | undefined {
  const file = context.files.get('h100/andersen.json');
  const report = findReport(file, 'andersen');
  if (!file || !report) return undefined;
  const dev = findReport(context.files.get('dev-2core/andersen.json'), 'andersen');
  const cpu = rowsOf(report, 'cpu');
  const gpu = rowsOf(report, 'webgpu');
  const devCpu = dev ? rowsOf(dev, 'cpu') : new Map<string, BenchRow>();
  const cases = uniqueCases(report);
  const size = (name: string) => (cpu.get(name) ?? gpu.get(name))?.size ?? '';

  const cpuTable = markdownTable(
    [
      'benchmark',
      'constraints',
      'ours: offline ms',
      'ours: solve ms',
      'paper CPU-s: offline ms',
      'paper CPU-s: solve ms',
      'paper total / ours',
      'ours on 2 cores: solve ms',
      '2 cores: paper total / ours',
      'verified',
    ],
    cases.map((name) => {
      const row = cpu.get(name);
      const devRow = devCpu.get(name);
      return [
        name,
        formatValue(sizeNumber(size(name), 'constraints')),
        formatValue(metric(row, 'offline ms')),
        formatValue(row?.medianMs),
        formatValue(metric(row, 'paper offline ms')),
        formatValue(metric(row, 'paper solve ms')),
        formatRatio(metric(row, 'paper total / ours')),
        formatValue(devRow?.medianMs),
        formatRatio(metric(devRow, 'paper total / ours')),
        verified(metric(row, 'verified (1=exact)')),
      ];
    }),
  );
  const gpuTable = markdownTable(
    [
      'benchmark',
      'ours: WebGPU ms',
      'rounds',
      'GPU MiB',
      'nodes ≠ CPU',
      'ours: CPU ms',
      'CPU / WebGPU',
      'paper GPU ms (C2070)',
      'paper CUDA on this H100 ms',
      'CUDA / ours',
    ],
    cases.map((name) => {
      const row = gpu.get(name);
      return [
        name,
        formatValue(row?.medianMs),
        formatValue(metric(row, 'rounds')),
        formatValue(metric(row, 'GPU MiB')),
        formatValue(metric(row, 'nodes differing from cpu')),
        formatValue(cpu.get(name)?.medianMs),
        formatRatio(metric(row, 'cpu / webgpu')),
        formatValue(metric(row, 'paper GPU ms')),
        formatValue(metric(row, 'CUDA H100 ms')),
        formatRatio(metric(row, 'CUDA H100 / ours')),
      ];
    }),
  );
  const byConstraints = (rows: Map<string, BenchRow>, value: (row: BenchRow) => number | undefined) =>
    cases.flatMap((name) => {
      const row = rows.get(name);
      const x = sizeNumber(size(name), 'constraints');
      const y = row ? value(row) : undefined;
      return x !== undefined && y !== undefined ? [{ x, y, label: name }] : [];
    });
  const series: ChartSeries[] = [
    { name: 'ours, CPU engine (H100 host)', points: byConstraints(cpu, (r) => r.medianMs) },
    { name: 'ours, WebGPU engine (H100)', points: byConstraints(gpu, (r) => r.medianMs) },
    { name: 'ours, CPU engine (2 cores)', points: byConstraints(devCpu, (r) => r.medianMs) },
    {
      name: 'paper CPU-s solve',
      points: byConstraints(cpu, (r) => metric(r, 'paper solve ms')),
      dashed: true,
    },
    { name: 'paper GPU (C2070)', points: byConstraints(gpu, (r) => metric(r, 'paper GPU ms')), dashed: true },
    {
      name: 'paper CUDA on H100',
      points: byConstraints(gpu, (r) => metric(r, 'CUDA H100 ms')),
      dashed: true,
    },
  ];
  const [image, figure] = chart(context, 'andersen-solve.svg', 'Andersen solve time against constraints', {
    title: "Andersen points-to: solve time on the PPoPP'12 suite",
    xLabel: 'constraints',
    yLabel: 'solve time, ms',
    xScale: 'log',
    yScale: 'log',
    series,
  });
  return {
    markdown: [
      "## Andersen points-to analysis (PPoPP'12 suite)\n",
      caption(file, report),
      image,
      "### CPU engine against the paper's CPU-s column\n",
      cpuTable,
      "### WebGPU engine against the paper's GPU and its CUDA code on the same H100\n",
      gpuTable,
      notesList(report),
    ].join('\n'),
    charts: [figure],
  };
}

function verified(value: number | undefined): string {
  return value === undefined ? '—' : value === 1 ? 'exact' : 'differs';
}

/** LLVM front end on real C code bases: extraction and both engines. */
export function llvmSection(context: SectionContext): ReportSection | undefined {
  const file = context.files.get('h100/llvm.json');
  const report = findReport(file, 'llvm');
  if (!file || !report) return undefined;
  const cpu = rowsOf(report, 'cpu');
  const gpu = rowsOf(report, 'webgpu');
  const table = markdownTable(
    [
      'code base',
      'IR',
      'constraints',
      'extract ms',
      'CPU solve ms',
      'WebGPU solve ms',
      'nodes ≠ between engines',
    ],
    uniqueCases(report).map((name) => {
      const row = cpu.get(name) ?? gpu.get(name);
      return [
        name,
        row?.size ?? '',
        formatValue(metric(row, 'constraints')),
        formatValue(metric(row, 'extract ms')),
        formatValue(cpu.get(name)?.medianMs),
        formatValue(gpu.get(name)?.medianMs),
        formatValue(metric(gpu.get(name), 'agree')),
      ];
    }),
  );
  return {
    markdown: [
      '## Andersen through the LLVM IR front end (real C code)\n',
      caption(file, report),
      table,
      notesList(report),
    ].join('\n'),
    charts: [],
  };
}

/** EigenCFA on the Van Horn–Mairson family against Table 1 of the paper. */
export function eigencfaSection(context: SectionContext): ReportSection | undefined {
  const file = context.files.get('h100/eigencfa.json');
  const report = findReport(file, 'eigencfa');
  if (!file || !report) return undefined;
  const cpu = rowsOf(report, 'cpu');
  const gpu = rowsOf(report, 'webgpu');
  const terms = (name: string) => metric(cpu.get(name) ?? gpu.get(name), 'terms');
  const cases = uniqueCases(report).sort((a, b) => (terms(a) ?? 0) - (terms(b) ?? 0));
  const table = markdownTable(
    [
      'program',
      'terms',
      'ours: CPU ms',
      'paper CPU(Sp) ms',
      'paper / ours',
      'ours: WebGPU ms',
      'paper GPU(Sp) ms',
      'paper / ours',
      'stores agree',
    ],
    cases.map((name) => {
      const c = cpu.get(name);
      const g = gpu.get(name);
      return [
        name,
        formatValue(terms(name)),
        formatValue(c?.medianMs),
        formatValue(metric(c, 'paper CPU(Sp) ms')),
        formatRatio(metric(c, 'paper CPU(Sp) / ours')),
        formatValue(g?.medianMs),
        formatValue(metric(g, 'paper GPU(Sp) ms')),
        formatRatio(metric(g, 'paper GPU(Sp) / ours')),
        metric(g, 'agree') === undefined ? '—' : metric(g, 'agree') === 1 ? 'yes' : 'no',
      ];
    }),
  );
  const points = (rows: Map<string, BenchRow>, value: (row: BenchRow) => number | undefined) =>
    cases.flatMap((name) => {
      const row = rows.get(name);
      const x = terms(name);
      const y = row ? value(row) : undefined;
      return x !== undefined && y !== undefined ? [{ x, y, label: name }] : [];
    });
  const [image, figure] = chart(context, 'eigencfa-solve.svg', 'EigenCFA time against program size', {
    title: '0CFA of the Van Horn–Mairson programs',
    xLabel: 'terms',
    yLabel: 'time, ms',
    xScale: 'log',
    yScale: 'log',
    series: [
      { name: 'ours, CPU engine', points: points(cpu, (r) => r.medianMs) },
      { name: 'ours, WebGPU engine', points: points(gpu, (r) => r.medianMs) },
      { name: 'paper CPU(Sp)', points: points(cpu, (r) => metric(r, 'paper CPU(Sp) ms')), dashed: true },
      { name: 'paper GPU(Sp)', points: points(gpu, (r) => metric(r, 'paper GPU(Sp) ms')), dashed: true },
    ],
  });
  return {
    markdown: [
      "## EigenCFA (POPL'11 Table 1 and beyond)\n",
      caption(file, report),
      image,
      table,
      notesList(report),
    ].join('\n'),
    charts: [figure],
  };
}

/**
 * The SAS'07 figures the octagon suite writes into its notes, e.g.
 * `SAS'07 closure (ms per run) — 128: CPU 2.02, GPU 0.322; …`: per operation, per variable count.
 */
export function parseSas07Notes(
  notes: readonly string[],
): Map<string, Map<number, { cpu: number; gpu: number }>> {
  const out = new Map<string, Map<number, { cpu: number; gpu: number }>>();
  for (const note of notes) {
    const match = /^SAS'07 (\S+) \(ms per run\) — (.*)\.$/.exec(note);
    if (!match?.[1] || match[2] === undefined) continue;
    const bySize = new Map<number, { cpu: number; gpu: number }>();
    for (const cell of match[2].split('; ')) {
      const parts = /^(\d+): CPU ([0-9.e+-]+), GPU ([0-9.e+-]+)$/.exec(cell);
      if (parts) bySize.set(Number(parts[1]), { cpu: Number(parts[2]), gpu: Number(parts[3]) });
    }
    out.set(match[1], bySize);
  }
  return out;
}

/** Octagon operators by size, with the SAS'07 figures; charts of the closure and emptiness. */
export function octagonSection(context: SectionContext): ReportSection | undefined {
  const file = context.files.get('h100/octagon.json');
  const report = findReport(file, 'octagon');
  if (!file || !report) return undefined;
  const paper = parseSas07Notes(report.notes ?? []);
  // The operator is the first word of the case ("closure (int, tight)", "guard x0 − x1 ≤ 5").
  const operator = (row: BenchRow) => row.case.split(' ')[0] ?? row.case;
  const vars = (row: BenchRow) => sizeNumber(row.size, 'vars');
  const engines = [...new Set(report.rows.map((r) => r.engine))];
  const operators = [...new Set(report.rows.map(operator))];
  const parts: string[] = ["## Octagon domain (SAS'07 sizes and beyond)\n", caption(file, report)];
  const charts: ReportChart[] = [];
  for (const op of ['closure', 'emptiness']) {
    const rows = report.rows.filter((r) => operator(r) === op);
    const series: ChartSeries[] = engines.map((engine) => ({
      name: `ours, ${engine}`,
      points: rows.flatMap((r) => {
        const x = vars(r);
        return r.engine === engine && x !== undefined ? [{ x, y: r.medianMs, label: r.case }] : [];
      }),
    }));
    const published = paper.get(op);
    if (published) {
      const sizes = [...published.keys()];
      series.push(
        {
          name: "SAS'07 CPU",
          points: sizes.map((x) => ({ x, y: published.get(x)?.cpu ?? Number.NaN })),
          dashed: true,
        },
        {
          name: "SAS'07 GPU",
          points: sizes.map((x) => ({ x, y: published.get(x)?.gpu ?? Number.NaN })),
          dashed: true,
        },
      );
    }
    const [image, figure] = chart(context, `octagon-${op}.svg`, `Octagon ${op} time against variables`, {
      title: `Octagon ${op}: time per run`,
      xLabel: 'variables',
      yLabel: 'time, ms',
      xScale: 'log',
      yScale: 'log',
      series,
    });
    parts.push(image);
    charts.push(figure);
  }
  for (const op of operators) {
    const rows = report.rows.filter((r) => operator(r) === op);
    const sizes = [...new Set(rows.map((r) => r.size))];
    const opEngines = engines.filter((engine) => rows.some((r) => r.engine === engine));
    const published = paper.get(op);
    const header = [
      'size',
      ...opEngines.map((e) => `${e} ms`),
      ...(published ? ["SAS'07 CPU ms", "SAS'07 GPU ms"] : []),
    ];
    const body = sizes.map((size) => {
      const n = sizeNumber(size, 'vars');
      const cells = opEngines.map((engine) =>
        formatValue(rows.find((r) => r.size === size && r.engine === engine)?.medianMs),
      );
      const anchor = n === undefined ? undefined : published?.get(n);
      return [size, ...cells, ...(published ? [formatValue(anchor?.cpu), formatValue(anchor?.gpu)] : [])];
    });
    const cases = [...new Set(rows.map((r) => r.case))].map((c) => `“${escapeMarkdownText(c)}”`).join(', ');
    parts.push(`### ${escapeMarkdownText(op)}\n`, `Cases: ${cases}.\n`, markdownTable(header, body));
  }
  parts.push(notesList(report));
  return { markdown: parts.join('\n'), charts };
}

/** Our CPU sparse bit vector against typedfastbitset and CRoaring, and the GPU batched union. */
export function sparseBitvectorSection(context: SectionContext): ReportSection | undefined {
  const file = context.files.get('h100/sparse-bitvector.json');
  const report = findReport(file, 'sparse-bitvector');
  if (!file || !report) return undefined;
  const members = (row: BenchRow) => sizeNumber(row.size, 'members');
  const cpuRows = report.rows.filter((r) => r.method === 'cpu' && members(r) !== undefined);
  const engines = [...new Set(cpuRows.map((r) => r.engine))];
  const parts: string[] = ['## Sparse bit vector\n', caption(file, report)];
  const charts: ReportChart[] = [];
  for (const operation of [...new Set(cpuRows.map((r) => r.case))]) {
    const slug = operation.split(' ')[0] ?? 'operation';
    const [image, figure] = chart(
      context,
      `sparse-bitvector-${slug}.svg`,
      `CPU ${operation} against set size`,
      {
        title: `CPU set ${operation}, per pair`,
        xLabel: 'members per set',
        yLabel: 'time, ms',
        xScale: 'log',
        yScale: 'log',
        series: engines.map((engine) => ({
          name: engine === 'cpu' ? 'ours (SparseBitVector)' : engine,
          points: cpuRows.flatMap((r) =>
            r.case === operation && r.engine === engine ? [{ x: members(r) as number, y: r.medianMs }] : [],
          ),
        })),
      },
    );
    parts.push(image);
    charts.push(figure);
  }
  parts.push(pivotTable(report, ['GB/s', '% of roof', 'Melement pairs/s', 'Mops/s']), notesList(report));
  return { markdown: parts.join('\n'), charts };
}

/**
 * A table of every row of a report: case, size, engine, median ms, method, runs, and the chosen
 * metrics where a row has them.
 */
export function pivotTable(report: BenchReport, metrics: readonly string[]): string {
  const shown = metrics.filter((key) => report.rows.some((r) => r.metrics?.[key] !== undefined));
  const align: Align[] = [
    'left',
    'left',
    'left',
    'right',
    'left',
    'right',
    ...shown.map((): Align => 'right'),
  ];
  return markdownTable(
    ['case', 'size', 'engine', 'median ms', 'timed by', 'runs', ...shown],
    report.rows.map((r) => [
      r.case,
      r.size,
      r.engine,
      formatValue(r.medianMs),
      r.method,
      String(r.runs),
      ...shown.map((key) => formatValue(r.metrics?.[key])),
    ]),
    align,
  );
}

/** A suite shown as its full table (allocator, primitives). */
export function tableSection(
  context: SectionContext,
  path: string,
  suite: string,
  title: string,
  metrics: readonly string[],
): ReportSection | undefined {
  const file = context.files.get(path);
  const report = findReport(file, suite);
  if (!file || !report) return undefined;
  return {
    markdown: [`## ${title}\n`, caption(file, report), pivotTable(report, metrics), notesList(report)].join(
      '\n',
    ),
    charts: [],
  };
}

/** The list of runs the report reads: file, machine, device, date, Node, suites and row counts. */
export function runsSection(context: SectionContext): ReportSection {
  const rows = [...context.files.values()].map((file) => [
    `\`${file.path}\``,
    file.device ?? 'no GPU (CPU engines only)',
    file.date?.slice(0, 10) ?? '—',
    file.node ?? '—',
    file.reports.map((r) => `${r.suite} (${r.rows.length} rows)`).join(', '),
  ]);
  return {
    markdown: [
      '## The runs\n',
      markdownTable(['file', 'device', 'date', 'Node', 'suites'], rows, [
        'left',
        'left',
        'left',
        'left',
        'left',
      ]),
    ].join('\n'),
    charts: [],
  };
}
