/**
 * The API reference: TypeDoc with typedoc-plugin-markdown (and its VitePress theme, which writes
 * the sidebar) over every public entry point of every workspace package, read from the
 * `@gpumorph/source` condition of each `exports` map so the reference follows the packages.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Application, Converter, ReflectionKind } from 'typedoc';

/** One public entry point: its import specifier and its source file. */
export interface ApiEntryPoint {
  /** e.g. `@gpumorph/andersen/testing`. */
  readonly specifier: string;
  /** Absolute path of the source file. */
  readonly file: string;
}

/** The entry points of the published workspace packages, from their `exports` maps (source condition). */
export function listApiEntryPoints(root: string): ApiEntryPoint[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  return workspaces.flatMap((dir) => {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
      name: string;
      private?: boolean;
      exports?: Record<string, unknown>;
    };
    // A private workspace (the bench) has no public API to document.
    if (manifest.private === true) return [];
    return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
      const source = (target as Record<string, unknown> | null)?.['@gpumorph/source'];
      if (typeof source !== 'string') return [];
      return [{ specifier: `${manifest.name}${subpath.slice(1)}`, file: resolve(root, dir, source) }];
    });
  });
}

/** Runs TypeDoc into `outDir` (Markdown pages and `typedoc-sidebar.json` for VitePress). */
export async function generateApiReference(root: string, outDir: string, docsRoot: string): Promise<number> {
  const entryPoints = listApiEntryPoints(root);
  const app = await Application.bootstrapWithPlugins({
    name: 'API reference',
    entryPoints: entryPoints.map((e) => e.file),
    entryPointStrategy: 'resolve',
    tsconfig: join(root, 'scripts/docs/tsconfig.api.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: outDir,
    // typedoc-vitepress-theme's option: where VitePress's root is, for the sidebar's links.
    docsRoot,
    readme: 'none',
    // The tsc run of `npm test` checks the types; TypeDoc only needs to read them.
    skipErrorChecking: true,
    excludePrivate: true,
    excludeInternal: true,
    disableSources: true,
    hideGenerator: true,
    logLevel: 'Warn',
  } as Parameters<typeof Application.bootstrapWithPlugins>[0]);
  // TypeDoc names each module after its path below the entry points' common folder
  // ("andersen/src/testing"); name them as users import them ("@gpumorph/andersen/testing").
  const base = commonFolder(entryPoints.map((e) => e.file));
  const byDefaultName = new Map(
    entryPoints.map((e) => [
      relative(base, e.file)
        .replace(/\.ts$/, '')
        .replace(/\/index$/, ''),
      e.specifier,
    ]),
  );
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const specifier = byDefaultName.get(module.name);
      if (specifier) module.name = specifier;
    }
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the project (see the messages above)');
  await app.generateOutputs(project);
  return entryPoints.length;
}

/** The deepest folder that holds all `files`. */
function commonFolder(files: readonly string[]): string {
  const split = files.map((f) => dirname(f).split(sep));
  const first = split[0] ?? [];
  let length = first.length;
  for (const parts of split) {
    let i = 0;
    while (i < length && parts[i] === first[i]) i++;
    length = i;
  }
  return first.slice(0, length).join(sep) || sep;
}
