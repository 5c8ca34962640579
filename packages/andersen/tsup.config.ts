import { definePackageConfig } from '../../tsup.base';

// Declarations leave out what is marked `@internal` (the engines' constructor of results, the
// readers' byte scanner): nothing public names it.
export default definePackageConfig(
  {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
  },
  { dts: { compilerOptions: { stripInternal: true } } },
);
