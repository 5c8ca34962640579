/**
 * The version of `@gpumorph/cli`, printed by `gpumorph --version`. Kept equal to `package.json`
 * (a unit test checks it) so the same code works from `src/` under tsx and from `dist/` in ESM and
 * CJS builds without reading JSON at run time.
 *
 * @example
 * ```ts
 * import { VERSION } from '@gpumorph/cli';
 * console.log(`gpumorph ${VERSION}`);
 * ```
 */
export const VERSION = '0.1.0';
