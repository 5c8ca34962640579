import { ShaderStage } from '../webgpu-constants';

/** One binding of a compute kernel: its WGSL address space, access and type. */
export type BindingSpec =
  | { readonly kind: 'storage'; readonly type: string; readonly access?: 'read' | 'read_write' }
  | { readonly kind: 'uniform'; readonly type: string };

/** Bindings by WGSL variable name, in binding-number order. */
export type BindingSpecs = Readonly<Record<string, BindingSpec>>;

/**
 * A bind-group layout described once, from which both the WGSL declarations and the
 * `GPUBindGroupLayoutEntry` list are derived, so a kernel never retypes its bindings.
 *
 * @example
 * ```ts
 * const layout = defineBindings('scale', {
 *   params: { kind: 'uniform', type: 'ScaleParams' },
 *   data: { kind: 'storage', type: 'array<f32>' },
 * });
 * layout.wgsl(); // "@group(0) @binding(0) var<uniform> params: ScaleParams; …"
 * ```
 */
export class BindingLayout<S extends BindingSpecs = BindingSpecs> {
  readonly label: string;
  readonly specs: S;
  /** The names this layout binds, in binding-number order (the order of `specs`). */
  readonly names: readonly (keyof S & string)[];
  /** Identity of the layout's shape (binding numbers, kinds and access), used as a cache key. */
  readonly key: string;
  /** Binding number of each name of `specs`: its position there. */
  readonly #bindings: ReadonlyMap<string, number>;

  constructor(label: string, specs: S) {
    this.label = label;
    this.specs = specs;
    const all = Object.keys(specs) as (keyof S & string)[];
    this.#bindings = new Map(all.map((name, binding) => [name, binding]));
    this.names = all;
    const shape = (name: string) => {
      const spec = specs[name] as BindingSpec;
      return spec.kind === 'storage' ? `s${spec.access === 'read' ? 'r' : 'w'}` : 'u';
    };
    this.key = this.names.map(shape).join('');
  }

  /** The binding number of `name` (its position in the specs). */
  bindingOf(name: keyof S & string): number {
    const binding = this.#bindings.get(name);
    if (binding === undefined) throw new TypeError(`${this.label}: no binding '${name}'`);
    return binding;
  }

  /** The WGSL `var` declarations of every binding of the specs in bind group `group`. */
  wgsl(group = 0): string {
    return (Object.keys(this.specs) as (keyof S & string)[])
      .map((name) => {
        const spec = this.specs[name] as BindingSpec;
        const space = spec.kind === 'uniform' ? 'uniform' : `storage, ${spec.access ?? 'read_write'}`;
        return `@group(${group}) @binding(${this.bindingOf(name)}) var<${space}> ${name}: ${spec.type};`;
      })
      .join('\n');
  }

  /** The entries of the matching `GPUBindGroupLayout`. */
  entries(): GPUBindGroupLayoutEntry[] {
    return this.names.map((name) => {
      const spec = this.specs[name] as BindingSpec;
      const type: GPUBufferBindingType =
        spec.kind === 'uniform' ? 'uniform' : spec.access === 'read' ? 'read-only-storage' : 'storage';
      return { binding: this.bindingOf(name), visibility: ShaderStage.COMPUTE, buffer: { type } };
    });
  }

  /** Bind-group entries from buffers (or buffer bindings) named as in the layout; other names are ignored. */
  bindGroupEntries(resources: BindingResources<S>): GPUBindGroupEntry[] {
    return this.names.map((name) => {
      const resource = resources[name];
      if (resource === undefined) throw new TypeError(`${this.label}: no resource for binding '${name}'`);
      return {
        binding: this.bindingOf(name),
        resource: isBuffer(resource) ? { buffer: resource } : resource,
      };
    });
  }
}

/** What to bind to each name of a layout: a whole buffer or a range of one. */
export type BindingResources<S extends BindingSpecs> = {
  readonly [K in keyof S]: GPUBuffer | GPUBufferBinding;
};

/** Creates a {@link BindingLayout}. */
export function defineBindings<S extends BindingSpecs>(label: string, specs: S): BindingLayout<S> {
  return new BindingLayout(label, specs);
}

function isBuffer(resource: GPUBuffer | GPUBufferBinding): resource is GPUBuffer {
  return 'mapAsync' in resource;
}
