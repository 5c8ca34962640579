import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { expect, it } from 'vitest';
import { hardekopfFixtures } from '../../test/data';
import { andersenOfflineBench } from '../src/index';

describeGpu('bench andersen-offline', (gpu) => {
  it('times both passes on both engines on ex and finds the GPU results equal to the CPU ones', async () => {
    // A data folder ($GPUMORPH_DATA) holding only the ex files the project carries.
    const data = mkdtempSync(join(tmpdir(), 'gpumorph-bench-'));
    mkdirSync(join(data, 'andersen'));
    symlinkSync(hardekopfFixtures, join(data, 'andersen/hardekopf'));
    const saved = process.env.GPUMORPH_DATA;
    process.env.GPUMORPH_DATA = data;
    try {
      const report = await andersenOfflineBench.run({
        ctx: gpu.ctx,
        engines: ['webgpu', 'cpu'],
        quick: true,
        log: () => {},
      });
      expect(report.rows.map((r) => `${r.case} ${r.engine}`)).toEqual([
        'ex hvn cpu',
        'ex hvn webgpu',
        'ex hcd cpu',
        'ex hcd webgpu',
      ]);
      for (const row of report.rows) {
        expect(row.medianMs).toBeGreaterThan(0);
        if (row.engine === 'webgpu') expect(row.metrics['= cpu']).toBe(1);
      }
      expect(report.rows[1]?.metrics.levels).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.GPUMORPH_DATA;
      else process.env.GPUMORPH_DATA = saved;
      rmSync(data, { recursive: true, force: true });
    }
  }, 300_000);
});
