import { definePackageConfig, WEBGPU_TYPES } from '../../tsup.base';

export default definePackageConfig(
  {
    index: 'src/index.ts',
    cpu: 'src/cpu.ts',
    testing: 'src/testing/index.ts',
    // Not an export: dist/bench.js keeps the bench's settleGarbage at the path scripts outside the
    // repository import from a built checkout (the bench entry before the benchmarks left the
    // package). Node built-ins only: it pulls in no test runner.
    bench: '../../bench/src/gc.ts',
  },
  WEBGPU_TYPES,
);
