import { definePackageConfig } from '../../tsup.base';

export default definePackageConfig({
  index: 'src/index.ts',
  bench: 'src/bench/index.ts',
});
