import { definePackageConfig } from '../../tsup.base';

// `@gpumorph/bench` is a private workspace (never published): the build bundles its suites into
// dist/ so that the published `gpumorph bench` works, while the libraries it measures stay
// external dependencies (docs/decisions/bench-workspace.md).
export default definePackageConfig(
  { index: 'src/index.ts', main: 'src/main.ts' },
  { noExternal: ['@gpumorph/bench'] },
);
