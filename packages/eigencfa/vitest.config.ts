import { definePackageProject } from '../../vitest.shared.ts';

export default definePackageProject('eigencfa', { testTimeout: 300_000 });
