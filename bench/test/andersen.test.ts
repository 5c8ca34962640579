import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hardekopfFixtures } from '../../test/data';
import { SPREAD_LIMIT, spreadRows, warmupHistories } from '../src/andersen-processes';
import { andersenBench } from '../src/index';
import type { BenchRow } from '../src/types';

const row = (
  name: string,
  engine: string,
  medianMs: number,
  endToEnd?: number,
  readMs?: number,
): BenchRow => ({
  case: name,
  size: 's',
  engine,
  medianMs,
  runs: 5,
  method: 'wall-clock',
  metrics: {
    ...(endToEnd === undefined ? {} : { 'end-to-end ms': endToEnd }),
    ...(readMs === undefined ? {} : { 'read ms': readMs }),
  },
});

describe('bench andersen in several processes', () => {
  it('starts the first process cold, then after a GPU process and after an idle GPU in turn', () => {
    expect(warmupHistories(5)).toEqual(['cold', 'after-gpu', 'idle', 'after-gpu', 'idle']);
    expect(warmupHistories(1)).toEqual(['cold']);
  });

  it('reports per program and engine the median of the processes, each process, the spread and its flag', () => {
    const rows = spreadRows([
      { history: 'cold', rows: [row('gcc', 'webgpu', 100, 300, 50), row('perl', 'webgpu', 40)] },
      { history: 'after-gpu', rows: [row('gcc', 'webgpu', 110, 310, 70), row('perl', 'webgpu', 80)] },
      { history: 'idle', rows: [row('gcc', 'webgpu', 105, 305, 60)] },
    ]);
    expect(rows.map((r) => [r.case, r.engine, r.medianMs, r.runs])).toEqual([
      ['gcc', 'webgpu', 105, 3],
      ['perl', 'webgpu', 80, 2],
    ]);
    const [gcc, perl] = rows as [BenchRow, BenchRow];
    expect(gcc.metrics).toMatchObject({
      'solve ms p1 (cold)': 100,
      'solve ms p2 (after-gpu)': 110,
      'solve ms p3 (idle)': 105,
      'end-to-end ms p2 (after-gpu)': 310,
      'solve spread': 1.1,
      'solve spread > 15%': 0,
      'read ms (median)': 60,
      'end-to-end median ms': 305,
      'end-to-end spread': 310 / 300,
      'end-to-end spread > 15%': 0,
    });
    // perl: 80 against 40 is past the limit; the process that did not report it has no column.
    expect(perl.metrics['solve spread']).toBe(2);
    expect(perl.metrics['solve spread']).toBeGreaterThan(SPREAD_LIMIT);
    expect(perl.metrics['solve spread > 15%']).toBe(1);
    expect(perl.metrics['solve ms p3 (idle)']).toBeUndefined();
    expect(perl.metrics['end-to-end spread']).toBeUndefined();
  });
});

describe('bench andersen', () => {
  it('reports the pipeline of the carried ex: read, offline passes, solve and their sum', async () => {
    // A data folder ($GPUMORPH_DATA) holding only the programs carried as fixtures.
    const data = mkdtempSync(join(tmpdir(), 'gpumorph-bench-'));
    mkdirSync(join(data, 'andersen'));
    symlinkSync(hardekopfFixtures, join(data, 'andersen/hardekopf'));
    const saved = process.env.GPUMORPH_DATA;
    process.env.GPUMORPH_DATA = data;
    try {
      const report = await andersenBench.run({ ctx: null, engines: ['cpu'], quick: true, log: () => {} });
      expect(report.rows.map((r) => [r.case, r.engine])).toEqual([['ex', 'cpu']]);
      const m = report.rows[0]?.metrics ?? {};
      expect(m['verified (1=exact)']).toBe(1);
      expect(m['solve ms']).toBe(report.rows[0]?.medianMs);
      for (const stage of ['read ms', 'read ms (no threads)', 'HCD ms (raw)', 'HVN ms']) {
        expect(m[stage]).toBeGreaterThan(0);
      }
      expect(m['end-to-end ms']).toBeCloseTo(
        (m['read ms'] as number) + (m['HVN ms'] as number) + (m['solve ms'] as number),
        6,
      );
      expect(m['HVN merged']).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.GPUMORPH_DATA;
      else process.env.GPUMORPH_DATA = saved;
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});
