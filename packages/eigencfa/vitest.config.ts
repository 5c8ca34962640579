import { definePackageProject } from '../../vitest.shared.ts';

export default definePackageProject('eigencfa', { testTimeout: 120_000 });
