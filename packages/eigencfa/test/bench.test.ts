import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eigencfaBench, PAPER_TABLE_1, parsePaperTable1 } from '../src/bench/index';
import { repoRoot, vhmDir } from './data';

const seed = resolve(repoRoot, '../shared/seeds/eigencfa-popl11.txt');

describe('bench eigencfa', () => {
  it.runIf(existsSync(seed))("PAPER_TABLE_1 is the seed's Table 1", () => {
    expect(parsePaperTable1(readFileSync(seed, 'utf8'))).toEqual(PAPER_TABLE_1);
  });

  it.runIf(vhmDir !== undefined)('runs the CPU rows of chosen sizes with the paper beside', async () => {
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
    }
  });
});
