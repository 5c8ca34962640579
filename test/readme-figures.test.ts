// The figure tables of the package READMEs equal what scripts/readme-figures.ts generates from the
// current records under docs/benchmarks/: when a record is replaced, `npm run readme:figures`
// rewrites them (and this test says which README is behind until then).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBenchFiles } from '../scripts/docs/bench-report/index';
import { FIGURE_TABLES, outdatedReadmes, ReadmeFiguresError, updateReadme } from '../scripts/readme-figures';

const root = resolve(import.meta.dirname, '..');
const files = loadBenchFiles(join(root, 'docs/benchmarks'), root);

describe('README figure tables', () => {
  it('every README table equals its record (run npm run readme:figures when this fails)', () => {
    expect([...outdatedReadmes(root).keys()]).toEqual([]);
  });

  it('a hand-edited figure is found and rewritten (the check can fail)', () => {
    const readme = 'packages/andersen/README.md';
    const text = readFileSync(join(root, readme), 'utf8');
    const edited = text.replace(/^\| ex( +)\| 11,078 +\| [0-9.]+/m, (row) => row.replace(/[0-9.]+$/, '1.00'));
    expect(edited).not.toBe(text);
    expect(updateReadme(readme, edited, files)).toBe(text);
  });

  it('a README that lost its markers, or a marker naming no table, is an error', () => {
    const readme = 'packages/octagon/ENGINES.md';
    const text = readFileSync(join(root, readme), 'utf8');
    expect(() => updateReadme(readme, text.replace('<!-- figures:octagon-h100', '<!-- gone'), files)).toThrow(
      ReadmeFiguresError,
    );
    expect(() =>
      updateReadme(readme, text.replace('figures:octagon-h100', 'figures:nothing'), files),
    ).toThrow(/no figure table "nothing"/);
  });

  it('every table has rows, from a record that exists', () => {
    for (const table of FIGURE_TABLES) {
      const report = files
        .find((f) => f.path.endsWith(`benchmarks/${table.record}`))
        ?.reports.find((r) => r.suite === table.suite);
      expect(report, table.id).toBeDefined();
      if (report) expect(table.render(report).rows.length, table.id).toBeGreaterThan(0);
    }
  });

  it("the Andersen record backs the README's claim: every WebGPU set equals the CPU engine's", () => {
    const andersen = files.find((f) => f.path.endsWith('benchmarks/h100/andersen.json'));
    const rows = andersen?.reports.find((r) => r.suite === 'andersen')?.rows ?? [];
    const gpuRows = rows.filter((r) => r.engine === 'webgpu');
    expect(gpuRows.map((r) => r.case)).toEqual(['ex', 'gcc', 'perl', 'python', 'php', 'linux']);
    for (const row of gpuRows) expect(row.metrics?.['nodes differing from cpu'], row.case).toBe(0);
  });
});
