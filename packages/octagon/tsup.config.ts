import { definePackageConfig, WEBGPU_TYPES } from '../../tsup.base';

export default definePackageConfig(
  {
    index: 'src/index.ts',
  },
  WEBGPU_TYPES,
);
