import { defineProject } from 'vitest/config';

/** Source condition so tests import `src/` of sibling packages without a build. */
export const sourceCondition = '@gpumorph/source';

/** The per-package vitest project: node environment, sources resolved through the source condition. */
export function definePackageProject(name: string, extra: { testTimeout?: number } = {}) {
  return defineProject({
    resolve: { conditions: [sourceCondition, 'module', 'node', 'import', 'default'] },
    ssr: { resolve: { conditions: [sourceCondition], externalConditions: [sourceCondition] } },
    test: {
      name,
      environment: 'node',
      include: ['test/**/*.test.ts'],
      // Limits end a hung test; they never judge speed. Generous, so that a 2-core machine under a
      // load of 10 (lavapipe compiling WGSL beside everything else) finishes what a fast one does.
      testTimeout: extra.testTimeout ?? 180_000,
      hookTimeout: 600_000,
      // One Dawn device per worker is plenty on a 2-core machine running lavapipe.
      pool: 'forks',
    },
  });
}
