import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'bench',
      'scripts/docs',
      {
        test: {
          name: 'examples',
          environment: 'node',
          include: ['test/examples.test.ts'],
          // Each example is a tsx process; the GPU ones compile WGSL on lavapipe (limits generous
          // for a loaded 2-core machine: they end hung runs, never judge speed).
          testTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'repository',
          environment: 'node',
          include: ['test/check-size.test.ts', 'test/api-contract.test.ts', 'test/readme-figures.test.ts'],
        },
      },
      {
        test: {
          name: 'packaging',
          environment: 'node',
          include: ['test/packaging.test.ts', 'test/cpu-only.test.ts'],
          // npm pack + install, then examples that may compile WGSL on lavapipe.
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
