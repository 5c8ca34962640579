import { definePackageConfig, WEBGPU_TYPES } from '../../tsup.base';

export default definePackageConfig(
  {
    index: 'src/index.ts',
    cpu: 'src/cpu.ts',
    testing: 'src/testing/index.ts',
    // Not an export: dist/bench.js keeps settleGarbage at the path scripts outside the repository
    // import from a built checkout (it was the bench entry before the benchmarks left the package).
    bench: 'src/testing/gc.ts',
  },
  WEBGPU_TYPES,
);
