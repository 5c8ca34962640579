import { defineConfig, type Options } from 'tsup';

/**
 * The one tsup configuration every package builds with: ESM + CJS + declarations, per-entry
 * output so subpath exports stay separate files, and no bundling of dependencies.
 */
/**
 * Options for a package whose declarations name WebGPU's global types (`GPUBuffer`, …): each
 * declaration file references `@webgpu/types` (a dependency of such a package), so a user's
 * TypeScript finds them without adding the package to its own `types`.
 */
export const WEBGPU_TYPES: Options = { dts: { banner: '/// <reference types="@webgpu/types" />' } };

export function definePackageConfig(entry: Record<string, string>, overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'neutral',
    splitting: true,
    treeshake: true,
    outDir: 'dist',
    ...overrides,
  });
}
