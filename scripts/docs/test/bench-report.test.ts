import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatRatio, formatValue, markdownTable } from '../bench-report/format';
import { buildBenchReport, loadBenchFiles } from '../bench-report/index';
import { sizeNumber } from '../bench-report/model';
import { parseSas07Notes } from '../bench-report/sections';
import { renderLineChart } from '../bench-report/svg-chart';

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const files = loadBenchFiles(`${fixtures}/benchmarks`, fixtures);
const report = buildBenchReport(files, '/charts');

/** The body rows of the Markdown table that follows `heading` (or the first table after it). */
function tableAfter(markdown: string, marker: string): string[][] {
  const start = markdown.indexOf(marker);
  expect(start, `"${marker}" in the report`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const table: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    table.push(
      line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return table;
}

/** Series name → number of points of its polyline, from the SVG text. */
function polylines(svg: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const match of svg.matchAll(/<g class="series" data-series="([^"]*)">\n<polyline points="([^"]*)"/g))
    out.set(
      (match[1] as string).replaceAll('&#39;', "'").replaceAll('&amp;', '&'),
      (match[2] as string).split(' ').length,
    );
  return out;
}

describe('loadBenchFiles', () => {
  it('reads the bench runs of each machine folder and skips other JSON (doctor.json)', () => {
    expect(files.map((f) => f.path)).toEqual([
      'benchmarks/h100/eigencfa.json',
      'benchmarks/h100/octagon.json',
    ]);
    expect(files[0]?.machine).toBe('h100');
    expect(files[0]?.device).toBe('test-gpu');
  });
});

describe('eigencfa section', () => {
  const rows = tableAfter(report.markdown, "## EigenCFA (POPL'11 Table 1 and beyond)");

  it('has one row per program, sorted by terms, with the values of the JSON', () => {
    expect(rows.map((r) => r[0])).toEqual(['vhm 2', 'vhm 1024', 'vhm 8192']);
    // vhm 2: terms, CPU ms, paper CPU ms, ratio, WebGPU ms, paper GPU ms, ratio, agree.
    expect(rows[0]).toEqual([
      'vhm 2',
      '297',
      formatValue(0.09788),
      formatValue(0.1),
      formatRatio(1.0216),
      formatValue(0.7175),
      formatValue(0.4),
      formatRatio(0.5575),
      'yes',
    ]);
    expect(rows[0]?.[2]).toBe('0.0979');
    expect(rows[1]?.[3]).toBe('1,200,000');
    // No WebGPU row and no paper figure for n = 8192: dashes, not zeros.
    expect(rows[2]).toEqual(['vhm 8192', '1,015,857', '20,906', '—', '—', '—', '—', '—', '—']);
  });

  it('draws one polyline per engine and per paper column, with one point per program that has the value', () => {
    const chart = report.charts.find((c) => c.file === 'eigencfa-solve.svg');
    expect(chart).toBeDefined();
    expect(report.markdown).toContain('![EigenCFA time against program size](/charts/eigencfa-solve.svg)');
    expect(polylines(chart?.svg ?? '')).toEqual(
      new Map([
        ['ours, CPU engine', 3],
        ['ours, WebGPU engine', 2],
        ['paper CPU(Sp)', 2],
        ['paper GPU(Sp)', 2],
      ]),
    );
    expect(chart?.svg).toContain('terms (log scale)');
    expect(chart?.svg).toContain('<title>ours, CPU engine · vhm 1024: 159 at 127,025</title>');
  });

  it('escapes the notes, which are free text', () => {
    expect(report.markdown).toContain('programs: the &lt;n&gt; family; \\*not\\* markdown');
  });
});

describe('octagon section', () => {
  it("reads the SAS'07 figures from the notes", () => {
    const paper = parseSas07Notes([
      "SAS'07 closure (ms per run) — 128: CPU 2.02, GPU 0.322; 256: CPU 17.44, GPU 2.92.",
      'unrelated note',
    ]);
    expect([...paper.keys()]).toEqual(['closure']);
    expect(paper.get('closure')?.get(256)).toEqual({ cpu: 17.44, gpu: 2.92 });
  });

  it("puts ours and the SAS'07 figures in one table per operator and the closure chart", () => {
    const closure = tableAfter(report.markdown, '### closure');
    expect(closure).toEqual([
      ['128 vars', formatValue(10.49), formatValue(0.3036), '2.02', '0.322'],
      ['256 vars', formatValue(70.04), formatValue(1.486), '17.4', '2.92'],
    ]);
    const chart = report.charts.find((c) => c.file === 'octagon-closure.svg');
    expect(polylines(chart?.svg ?? '')).toEqual(
      new Map([
        ['ours, cpu f64', 2],
        ['ours, webgpu i32', 2],
        ["SAS'07 CPU", 3],
        ["SAS'07 GPU", 3],
      ]),
    );
  });
});

describe('all rows', () => {
  it('lists every row of every file', () => {
    const rows = report.markdown.split('\n').filter((line) => /^\| (vhm|closure|union)/.test(line));
    // 5 eigencfa + 5 octagon rows in "All rows", besides the section tables.
    expect(report.markdown.match(/<details><summary><code>/g)?.length).toBe(2);
    expect(rows.some((line) => line.includes('agree: 1'))).toBe(true);
  });
});

describe('renderLineChart', () => {
  it('leaves out points a log scale cannot show, and series left without points', () => {
    const svg = renderLineChart({
      title: 'a <b> & c',
      xLabel: 'x',
      yLabel: 'y',
      xScale: 'log',
      yScale: 'log',
      series: [
        {
          name: 'kept',
          points: [
            { x: 1, y: 1 },
            { x: 10, y: 0 },
            { x: 100, y: 50 },
          ],
        },
        { name: 'empty', points: [{ x: -1, y: 3 }] },
      ],
    });
    expect(polylines(svg)).toEqual(new Map([['kept', 2]]));
    expect(svg).toContain('a &lt;b&gt; &amp; c');
    expect(svg).not.toContain('empty');
  });
});

describe('helpers', () => {
  it.each([
    ['n=1024, 127,025 terms (data)', 'terms', 127025],
    ['120870 nodes, 127171 constraints', 'constraints', 127171],
    ['128 vars', 'vars', 128],
    ['1024 MiB', 'vars', undefined],
  ])('sizeNumber(%j, %j) = %j', (size, unit, expected) => {
    expect(sizeNumber(size, unit)).toBe(expected);
  });

  it('escapes pipes in table cells', () => {
    expect(markdownTable(['a', 'b'], [['x|y', '1']])).toBe('| a | b |\n| :--- | ---: |\n| x\\|y | 1 |\n');
  });
});
