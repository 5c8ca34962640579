import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import { analyzeModule } from '../src/index';
import { clangAvailable, compileCorpusProgram, corpusPrograms } from './llvm/compile';

// CI installs clang-16 and sets GPUMORPH_REQUIRE_CLANG=1, so a missing compiler fails there
// instead of skipping the corpus.
const required = process.env.GPUMORPH_REQUIRE_CLANG === '1';
const haveClang = clangAvailable();
if (!haveClang) {
  if (required) throw new Error('GPUMORPH_REQUIRE_CLANG=1 but clang-16/opt-16 are not installed');
  console.warn('llvm corpus: clang-16/opt-16 not found, skipping (apt-get install clang-16 llvm-16)');
}

const programs = corpusPrograms();

describe.skipIf(!haveClang)('the C alias corpus compiled by clang-16 (PTABen-style checks)', () => {
  it('has at least 40 programs', () => {
    expect(programs.length).toBeGreaterThanOrEqual(40);
  });

  it.each(programs.map((path) => [basename(path), path]))(
    '%s: every check holds on the CPU engine',
    async (_, path) => {
      const ll = await compileCorpusProgram(path);
      const analysis = await analyzeModule(await readFile(ll, 'utf8'), { file: ll, engine: 'cpu' });
      const report = analysis.aliasReport();
      expect(report.checks.length).toBeGreaterThan(0);
      const failures = report.checks.filter((check) => !check.pass);
      expect(failures).toEqual([]);
    },
  );
});

describeGpu('the C alias corpus on the WebGPU engine', (gpu) => {
  it.skipIf(!haveClang)(
    'answers every check of every program as the CPU engine does, set for set',
    async () => {
      for (const path of programs) {
        const ll = await compileCorpusProgram(path);
        const text = await readFile(ll, 'utf8');
        const cpu = await analyzeModule(text, { file: ll, engine: 'cpu' });
        const webgpu = await analyzeModule(text, { file: ll, engine: 'webgpu', gpu: gpu.ctx });
        expect(webgpu.engine).toBe('webgpu');
        const name = basename(path);
        expect({ name, failures: webgpu.aliasReport().checks.filter((check) => !check.pass) }).toEqual({
          name,
          failures: [],
        });
        for (let v = 0; v < cpu.extracted.program.nodeCount; v++) {
          const want = [...cpu.result.pointsTo(v)];
          const got = [...webgpu.result.pointsTo(v)];
          if (got.join() !== want.join())
            expect({ name, node: v, got }).toEqual({ name, node: v, got: want });
        }
      }
    },
    900_000,
  );
});
