import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'scripts/docs',
      {
        test: {
          name: 'examples',
          environment: 'node',
          include: ['test/examples.test.ts'],
          // Each example is a tsx process; the GPU ones compile WGSL on lavapipe.
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'repository',
          environment: 'node',
          include: ['test/check-size.test.ts', 'test/api-contract.test.ts'],
        },
      },
      {
        test: {
          name: 'packaging',
          environment: 'node',
          include: ['test/packaging.test.ts'],
          // npm pack + install, then examples that may compile WGSL on lavapipe.
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
