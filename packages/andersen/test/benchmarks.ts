// The PPoPP'12 suite's programs as the tests read them: `ex` from the fixtures the project carries,
// the others from the data folder, whose suites skip (or fail under GPUMORPH_REQUIRE_DATA=1)
// without it. See test/data.ts at the repository root.
import { resolve } from 'node:path';
import { describe } from 'vitest';
import { dataSet, hardekopfFixtures, type SuiteDeclaration } from '../../../test/data';

/** The suite's folder in the data folder (gcc, perl, python, vim, linux, php, mplayer). */
export const hardekopfData = dataSet('andersen/hardekopf', 'perl_nodes.txt.gz');

/** The file prefix of benchmark `name` (`readHardekopf({ prefix })`): ex from the fixtures, the others from the data folder. */
export function benchmarkPrefix(name: string): string {
  return name === 'ex' ? resolve(hardekopfFixtures, 'ex') : hardekopfData.path(name);
}

/** `describe` for a suite over benchmark `name`: always for ex, the data folder's otherwise. */
export function describeBenchmark(name: string): SuiteDeclaration {
  return name === 'ex' ? (title, body) => describe(title, body) : hardekopfData.describe;
}

/**
 * `describe.each` over benchmarks: one suite per benchmark, declared by {@link describeBenchmark}
 * (`$name` or `%s` in the title is the benchmark's name).
 */
export function describeEachBenchmark<T extends string | { readonly name: string }>(
  benchmarks: readonly T[],
) {
  return (title: string, body: (benchmark: T) => void): void => {
    for (const benchmark of benchmarks) {
      const name = typeof benchmark === 'string' ? benchmark : benchmark.name;
      describeBenchmark(name)(title.replace('$name', name).replace('%s', name), () => body(benchmark));
    }
  };
}
