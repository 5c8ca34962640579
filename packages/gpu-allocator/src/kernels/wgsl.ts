/**
 * A piece of WGSL other kernels can include: functions, structs and module-scope variables,
 * plus the `enable` and `diagnostic` directives it needs and the modules it builds on.
 */
export interface WgslModule {
  /** Unique name; a module is emitted once however many others require it. */
  readonly name: string;
  readonly code: string;
  readonly requires?: readonly WgslModule[];
  /** Extensions to `enable` (e.g. `subgroups`). */
  readonly enables?: readonly string[];
  /** Global diagnostic filters, e.g. `off, subgroup_uniformity`. */
  readonly diagnostics?: readonly string[];
}

/**
 * Joins a kernel's own code with the library modules it uses: directives first (deduplicated),
 * then each module once, dependencies before dependants, then the kernel.
 *
 * @example
 * ```ts
 * const square: WgslModule = { name: 'square', code: 'fn square(x: u32) -> u32 { return x * x; }' };
 * const code = linkWgsl('@compute @workgroup_size(64) fn main() { _ = square(3u); }', [square]);
 * ```
 */
export function linkWgsl(kernel: string, modules: readonly WgslModule[]): string {
  const ordered: WgslModule[] = [];
  const seen = new Map<string, WgslModule>();
  const visiting = new Set<string>();
  const visit = (module: WgslModule) => {
    const known = seen.get(module.name);
    if (known) {
      if (known.code !== module.code)
        throw new Error(`two different WGSL modules are named '${module.name}'`);
      return;
    }
    if (visiting.has(module.name)) throw new Error(`WGSL module '${module.name}' requires itself`);
    visiting.add(module.name);
    for (const dependency of module.requires ?? []) visit(dependency);
    visiting.delete(module.name);
    seen.set(module.name, module);
    ordered.push(module);
  };
  for (const module of modules) visit(module);
  const enables = unique(ordered.flatMap((m) => m.enables ?? []));
  const diagnostics = unique(ordered.flatMap((m) => m.diagnostics ?? []));
  const header = [...enables.map((e) => `enable ${e};`), ...diagnostics.map((d) => `diagnostic(${d});`)];
  const body = ordered.map((m) => `// ---- ${m.name}\n${m.code.trim()}`);
  return [...header, ...body, '// ---- kernel', kernel.trim(), ''].join('\n');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** WGSL helpers every kernel may use: linear workgroup index over a 2-D grid. */
export const gridWgsl: WgslModule = {
  name: 'gm_grid',
  code: /* wgsl */ `
// Linear index of a workgroup in a grid that dispatchGrid() may have folded into two dimensions.
fn gm_workgroup_index(workgroup_id: vec3u, num_workgroups: vec3u) -> u32 {
  return workgroup_id.x + workgroup_id.y * num_workgroups.x;
}`,
};
