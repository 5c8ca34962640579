import { definePackageConfig, WEBGPU_TYPES } from '../../tsup.base';

export default definePackageConfig(
  {
    index: 'src/index.ts',
    cpu: 'src/cpu/index.ts',
    testing: 'src/testing/index.ts',
  },
  WEBGPU_TYPES,
);
