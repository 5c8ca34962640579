import { definePackageConfig } from '../../tsup.base';

export default definePackageConfig({ index: 'src/index.ts', main: 'src/main.ts' });
