// The CPU entry point (@gpumorph/sparse-bitvector/cpu) loads no GPU code, and its hash (duplicated
// from gpu-primitives on purpose) stays equal to the one the GPU sets use.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { hashFinish as gpuHashFinish, hashMix as gpuHashMix } from '@gpumorph/gpu-primitives';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { hashFinish, hashMix } from '../src/cpu/hash';
import { SparseBitVectorPool } from '../src/cpu/index';

const packages = resolve(import.meta.dirname, '../..');

/**
 * The files a module loads at run time, transitively: every import and re-export that is not
 * type-only, resolved as the repository's sources are (`@gpumorph/source` condition).
 */
function runtimeModuleGraph(entry: string): Set<string> {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ['@gpumorph/source'],
    allowImportingTsExtensions: true,
  };
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      let specifier: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
        const bindings = statement.importClause?.namedBindings;
        const allTypes =
          !statement.importClause?.name &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.length > 0 &&
          bindings.elements.every((e) => e.isTypeOnly);
        if (!allTypes) specifier = statement.moduleSpecifier;
      } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
        specifier = statement.moduleSpecifier;
      }
      if (!specifier || !ts.isStringLiteral(specifier)) continue;
      if (specifier.text.startsWith('node:')) continue;
      const resolved = ts.resolveModuleName(specifier.text, file, options, ts.sys).resolvedModule;
      if (!resolved) throw new Error(`${file}: cannot resolve ${specifier.text}`);
      if (resolved.isExternalLibraryImport && !resolved.resolvedFileName.startsWith(packages)) {
        seen.add(resolved.resolvedFileName);
        continue;
      }
      visit(resolved.resolvedFileName);
    }
  };
  visit(entry);
  return seen;
}

describe('@gpumorph/sparse-bitvector/cpu', () => {
  const graph = [...runtimeModuleGraph(join(packages, 'sparse-bitvector/src/cpu/index.ts'))].map((file) =>
    file.startsWith(packages) ? file.slice(packages.length + 1) : file,
  );

  it('loads no GPU package: no gpu-primitives, and of gpu-allocator only its CPU pool', () => {
    expect(graph.some((file) => file.startsWith('sparse-bitvector/src/cpu/sparse-bitvector.ts'))).toBe(true);
    expect(graph.filter((file) => file.startsWith('gpu-primitives/'))).toEqual([]);
    expect(graph.filter((file) => file.startsWith('gpu-allocator/')).sort()).toEqual([
      'gpu-allocator/src/cpu.ts',
      'gpu-allocator/src/errors.ts',
      'gpu-allocator/src/pool/layout.ts',
      'gpu-allocator/src/pool/reference.ts',
    ]);
    expect(graph.filter((file) => file.startsWith('sparse-bitvector/src/gpu/'))).toEqual([]);
    expect(
      graph.filter((file) => !file.startsWith('sparse-bitvector/') && !file.startsWith('gpu-allocator/')),
    ).toEqual([]);
  });

  it('the entry point of the whole package does load the GPU packages (the check can fail)', () => {
    const all = [...runtimeModuleGraph(join(packages, 'sparse-bitvector/src/index.ts'))];
    expect(all.some((file) => file.includes(`${join('gpu-primitives', 'src')}`))).toBe(true);
    expect(dirname(all[0] ?? '')).toBe(join(packages, 'sparse-bitvector/src'));
  });

  it('hashes exactly as gpu-primitives does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 })),
        (seed, words) => {
          let ours = seed >>> 0;
          let theirs = seed >>> 0;
          for (const word of words) {
            ours = hashMix(ours, word);
            theirs = gpuHashMix(theirs, word);
          }
          expect(hashFinish(ours, words.length * 4)).toBe(gpuHashFinish(theirs, words.length * 4));
        },
      ),
    );
  });

  it('works as the package entry point does', () => {
    const pool = new SparseBitVectorPool();
    const a = pool.fromArray([1, 5, 960, 100_000]);
    expect([...a.toArray()]).toEqual([1, 5, 960, 100_000]);
    expect(a.hash()).toBe(pool.fromArray([100_000, 960, 5, 1]).hash());
  });
});
