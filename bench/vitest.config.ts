import { definePackageProject } from '../vitest.shared.ts';

export default definePackageProject('bench');
