import { LlvmParseError } from './errors';
import type { IrFunction, IrGlobal, IrModule, IrType } from './ir';

/**
 * Links modules by symbol, as `llvm-link` would for a points-to analysis: a function or global
 * defined in one module and declared in others is one symbol; `internal`/`private` symbols of
 * different modules stay apart (a later module's are renamed `@"name<file>"` when the name is
 * taken); of several definitions of a `linkonce`/`weak` symbol (C++ inline functions, vtables)
 * the first is kept; a named type whose body differs from an earlier module's is renamed
 * `%"name<file>"` in the later module; debug locations are kept per module.
 *
 * @throws {@link LlvmParseError} when two modules define the same external symbol.
 * @example
 * ```ts
 * const program = linkModules([parseLlvmModule(a, 'a.ll'), parseLlvmModule(b, 'b.ll')]);
 * ```
 */
export function linkModules(modules: readonly IrModule[]): IrModule {
  if (modules.length === 1) return modules[0] as IrModule;
  const types = new Map<string, IrType>();
  const debugLines = new Map<string, number>();
  const symbols = new Map<string, { file: string; line: number; defined: boolean; discardable: boolean }>();
  const globals = new Map<string, IrGlobal>();
  const functions = new Map<string, IrFunction>();
  const linked: IrModule[] = [];
  modules.forEach((original, index) => {
    const module = index === 0 ? original : renamed(original, types, symbols);
    linked.push(module);
    for (const [name, type] of module.types) if (!types.has(name)) types.set(name, type);
    for (const [id, line] of module.debugLines) debugLines.set(id, line);
    const add = <T extends IrGlobal | IrFunction>(into: Map<string, T>, item: T, defined: boolean) => {
      const earlier = symbols.get(item.name);
      const discardable = item.linkage === 'discardable';
      if (earlier?.defined && defined) {
        if (earlier.discardable && discardable) return; // one definition of an inline function or vtable
        throw new LlvmParseError(
          { file: module.file, line: item.line, column: 1 },
          `${item.name} is defined here and in ${earlier.file}:${earlier.line}`,
        );
      }
      if (earlier === undefined || (!earlier.defined && defined)) {
        into.set(item.name, item);
        symbols.set(item.name, { file: module.file, line: item.line, defined, discardable });
      }
    };
    for (const g of module.globals) add(globals, g, g.initializer !== undefined || g.aliasee !== undefined);
    for (const f of module.functions) add(functions, f, !f.isDeclaration);
  });
  // A symbol now defined is no longer also a declaration of the other kind (a function declared
  // in one module may not be a global in another: LLVM would reject it too).
  for (const name of functions.keys()) globals.delete(name);
  return {
    file: modules.map((m) => m.file).join(', '),
    types,
    globals: [...globals.values()],
    functions: [...functions.values()],
    debugLines,
    size: modules.reduce((sum, m) => sum + m.size, 0),
    integerAddresses: linked.flatMap((m) => m.integerAddresses ?? []),
  };
}

/**
 * A later module with its local symbols renamed where the name is already taken, its named types
 * renamed where an earlier module gives the name another body, and its debug locations tagged
 * with the file.
 */
function renamed(
  module: IrModule,
  types: ReadonlyMap<string, IrType>,
  symbols: ReadonlyMap<string, unknown>,
): IrModule {
  const tag = module.file.replace(/[^\w.-]/g, '_');
  const rename = (name: string) =>
    name.startsWith('@"') || name.startsWith('%"')
      ? `${name.slice(0, -1)}<${tag}>"`
      : `${name[0]}"${name.slice(1)}<${tag}>"`;
  const globalNames = new Map<string, string>();
  for (const item of [...module.globals, ...module.functions])
    if (item.linkage === 'local' && symbols.has(item.name)) globalNames.set(item.name, rename(item.name));
  const typeNames = new Map<string, string>();
  for (const [name, type] of module.types) {
    const earlier = types.get(name);
    if (earlier !== undefined && JSON.stringify(earlier) !== JSON.stringify(type))
      typeNames.set(name, rename(name));
  }
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (typeof value === 'string') {
      // Debug locations, and metadata nodes naming a class of internal linkage (`!type !{i64 16,
      // !12}`, `llvm.type.test(…, metadata !12)`), are per module.
      if (key === 'dbg' || ((key === 'id' || key === 'type') && /^!\d+$/.test(value)))
        return `${value}<${tag}>`;
      return value;
    }
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(object)) copy[k] = walk(v, k);
    if (object.kind === 'global' && typeof object.name === 'string')
      copy.name = globalNames.get(object.name) ?? object.name;
    if (object.kind === 'named' && typeof object.name === 'string')
      copy.name = typeNames.get(object.name) ?? object.name;
    return copy;
  };
  const renameItem = <T extends IrGlobal | IrFunction>(item: T): T => {
    const copy = walk(item) as T;
    return { ...copy, name: globalNames.get(item.name) ?? item.name };
  };
  return {
    file: module.file,
    types: new Map(
      [...module.types].map(([name, type]) => [typeNames.get(name) ?? name, walk(type) as IrType]),
    ),
    globals: module.globals.map(renameItem),
    functions: module.functions.map(renameItem),
    debugLines: new Map([...module.debugLines].map(([id, line]) => [`${id}<${tag}>`, line])),
    size: module.size,
    integerAddresses: walk(module.integerAddresses) as IrModule['integerAddresses'],
  };
}
