import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeModule } from '../src/index';
import { type CorpusLevel, compileCorpusProgram, corpusPrograms, requireClang } from './llvm/compile';

// CI installs clang-16 and sets GPUMORPH_REQUIRE_CLANG=1, so a missing compiler fails there
// instead of skipping the corpus.
const haveClang = requireClang('llvm corpus');

const programs = corpusPrograms();
const LEVELS: readonly CorpusLevel[] = ['O0', 'O2'];
/** Checks whose two pointers really alias in some execution: the analysis must say may-alias. */
const REAL_ALIASES = new Set(['MAYALIAS', 'MUSTALIAS', 'PARTIALALIAS', 'EXPECTEDFAIL_MAYALIAS']);

/** Compiled IR by program and level, every program compiled once per run (a few at a time). */
const compiled = new Map<string, string>();
const key = (path: string, level: CorpusLevel) => `${level} ${path}`;

beforeAll(async () => {
  if (!haveClang) return;
  const jobs = programs.flatMap((path) => LEVELS.map((level) => [path, level] as const));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const [path, level] = jobs[next++] as (typeof jobs)[number];
      compiled.set(key(path, level), await compileCorpusProgram(path, level));
    }
  };
  await Promise.all(Array.from({ length: Math.max(2, availableParallelism()) }, worker));
}, 900_000);

async function analyze(path: string, level: CorpusLevel) {
  const ll = compiled.get(key(path, level)) as string;
  return analyzeModule(await readFile(ll, 'utf8'), { file: ll, engine: 'cpu' });
}

describe.skipIf(!haveClang)('the C and C++ alias corpus compiled by clang-16 (PTABen-style checks)', () => {
  it('has at least 100 programs, C++ among them', () => {
    expect(programs.length).toBeGreaterThanOrEqual(100);
    expect(programs.filter((path) => path.endsWith('.cpp')).length).toBeGreaterThanOrEqual(10);
  });

  it.each(programs.map((path) => [basename(path), path]))(
    '%s at -O0 + mem2reg: every check holds',
    async (_, path) => {
      const report = (await analyze(path, 'O0')).aliasReport();
      expect(report.checks.length).toBeGreaterThan(0);
      expect(report.checks.filter((check) => !check.pass)).toEqual([]);
    },
  );

  it.each(programs.map((path) => [basename(path), path]))(
    '%s at -O2: no pair that really aliases is answered no-alias',
    async (_, path) => {
      const report = (await analyze(path, 'O2')).aliasReport();
      expect(report.checks.length).toBeGreaterThan(0);
      const unsound = report.checks.filter((check) => REAL_ALIASES.has(check.kind) && check.result === 'no');
      expect(unsound).toEqual([]);
    },
  );
});

describeGpu('the C and C++ alias corpus on the WebGPU engine', (gpu) => {
  it.skipIf(!haveClang)(
    'answers every check of every program as the CPU engine does, set for set',
    async () => {
      for (const path of programs) {
        const ll = compiled.get(key(path, 'O0')) ?? (await compileCorpusProgram(path, 'O0'));
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
