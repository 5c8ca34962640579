import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, vhmFixtures } from '../../test/data';
import { eigencfaBench, PAPER_TABLE_1, parsePaperTable1 } from '../src/index';

const seed = resolve(repoRoot, '../shared/seeds/eigencfa-popl11.txt');

describe('bench eigencfa', () => {
  it.runIf(existsSync(seed))("PAPER_TABLE_1 is the seed's Table 1", () => {
    expect(parsePaperTable1(readFileSync(seed, 'utf8'))).toEqual(PAPER_TABLE_1);
  });

  it('runs the CPU rows of chosen sizes with the paper beside', async () => {
    // A data folder ($GPUMORPH_DATA) holding only the sizes carried as fixtures.
    const data = mkdtempSync(join(tmpdir(), 'gpumorph-bench-'));
    mkdirSync(join(data, 'eigencfa'));
    symlinkSync(vhmFixtures, join(data, 'eigencfa/vhm'));
    const saved = process.env.GPUMORPH_DATA;
    process.env.GPUMORPH_DATA = data;
    process.env.GPUMORPH_EIGENCFA_SIZES = '2,16';
    try {
      const report = await eigencfaBench.run({ ctx: null, engines: ['cpu'], quick: false, log: () => {} });
      expect(report.rows.map((r) => r.case)).toEqual(['vhm 2', 'vhm 16']);
      expect(report.rows[0]?.metrics).toMatchObject({ terms: 297, '= expected': 1, 'paper CPU(Sp) ms': 0.1 });
      expect(report.rows[1]?.metrics).toMatchObject({
        terms: 2033,
        '= expected': 1,
        'paper CPU(Sp) ms': 0.84,
      });
    } finally {
      delete process.env.GPUMORPH_EIGENCFA_SIZES;
      if (saved === undefined) delete process.env.GPUMORPH_DATA;
      else process.env.GPUMORPH_DATA = saved;
      rmSync(data, { recursive: true, force: true });
    }
  });
});
