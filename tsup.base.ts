import { defineConfig, type Options } from 'tsup';

/**
 * The one tsup configuration every package builds with: ESM + CJS + declarations, per-entry
 * output so subpath exports stay separate files, and no bundling of dependencies.
 */
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
