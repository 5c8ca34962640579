import { definePackageProject } from '../../vitest.shared.ts';

// The docs tooling: the report generator's unit tests and the browser test of the built site.
export default definePackageProject('docs', { testTimeout: 300_000 });
