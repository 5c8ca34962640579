import { definePackageConfig } from '../../tsup.base';

export default definePackageConfig({
  index: 'src/index.ts',
  testing: 'src/testing/programs.ts',
});
