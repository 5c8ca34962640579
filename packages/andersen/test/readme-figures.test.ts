// The README's performance table quotes the current H100 record (docs/benchmarks/h100/andersen.json):
// when the record is replaced, this test says which figures to update.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

interface Row {
  readonly case: string;
  readonly engine: string;
  readonly medianMs: number;
  readonly metrics: Readonly<Record<string, number>>;
}

const record = JSON.parse(readFileSync(join(root, 'docs/benchmarks/h100/andersen.json'), 'utf8')) as {
  reports: { suite: string; rows: Row[] }[];
};
const rows = record.reports.find((r) => r.suite === 'andersen')?.rows ?? [];
const readme = readFileSync(join(root, 'packages/andersen/README.md'), 'utf8');

/** The README table's cells by benchmark: `| ex | 11,078 | 26.8 | … |`. */
function readmeTable(): Map<string, string[]> {
  const section = readme.slice(readme.indexOf('## Performance'));
  const table = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = cells[1];
    if (name && /^(ex|gcc|perl|python|php|linux)$/.test(name)) table.set(name, cells.slice(2, -1));
  }
  return table;
}

const number = (cell: string | undefined) => Number((cell ?? '').replaceAll(',', '').replace('×', ''));
const sig3 = (x: number) => Number(x.toPrecision(3));

describe('packages/andersen/README.md, Performance', () => {
  const table = readmeTable();

  it('lists the six benchmarks of the record', () => {
    expect([...table.keys()]).toEqual(['ex', 'gcc', 'perl', 'python', 'php', 'linux']);
  });

  it.each(['ex', 'gcc', 'perl', 'python', 'php', 'linux'])('%s: the figures of the record', (name) => {
    const gpu = rows.find((r) => r.case === name && r.engine === 'webgpu');
    const cpu = rows.find((r) => r.case === name && r.engine === 'cpu');
    if (!gpu || !cpu) throw new Error(`no ${name} rows in the record`);
    const [, webgpuMs, rounds, gpuMiB, cpuMs, cudaMs, paperMs, vsPaper] = table.get(name) ?? [];
    expect(number(webgpuMs)).toBe(sig3(gpu.medianMs));
    expect(number(rounds)).toBe(gpu.metrics.rounds);
    expect(number(gpuMiB)).toBe(Math.round(gpu.metrics['GPU MiB'] ?? Number.NaN));
    expect(number(cpuMs)).toBe(Math.round(cpu.medianMs));
    expect(number(cudaMs)).toBe(gpu.metrics['CUDA H100 ms']);
    expect(number(paperMs)).toBe(gpu.metrics['paper GPU ms']);
    expect(number(vsPaper)).toBe(Number((gpu.metrics['paper GPU / ours'] ?? Number.NaN).toFixed(1)));
    // The record's claim the README repeats: every node equal to the CPU engine's.
    expect(gpu.metrics['nodes differing from cpu']).toBe(0);
  });
});
