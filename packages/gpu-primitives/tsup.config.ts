import { definePackageConfig, WEBGPU_TYPES } from '../../tsup.base';

export default definePackageConfig(
  {
    index: 'src/index.ts',
    bench: 'src/bench/index.ts',
  },
  WEBGPU_TYPES,
);
