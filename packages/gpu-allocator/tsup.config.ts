import { definePackageConfig, WEBGPU_TYPES } from '../../tsup.base';

export default definePackageConfig(
  {
    index: 'src/index.ts',
    cpu: 'src/cpu.ts',
    testing: 'src/testing/index.ts',
  },
  WEBGPU_TYPES,
);
