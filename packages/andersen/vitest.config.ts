import { definePackageProject } from '../../vitest.shared.ts';

// The GPU tests compile kernel variants on lavapipe, 20–30 s each with a cold shader cache (CI).
export default definePackageProject('andersen', { testTimeout: 600_000 });
