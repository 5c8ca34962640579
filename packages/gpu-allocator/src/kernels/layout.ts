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
  readonly names: readonly (keyof S & string)[];
  /** Identity of the layout's shape, used as a cache key. */
  readonly key: string;

  constructor(label: string, specs: S) {
    this.label = label;
    this.specs = specs;
    this.names = Object.keys(specs) as (keyof S & string)[];
    this.key = this.names
      .map((name) => {
        const spec = specs[name] as BindingSpec;
        return spec.kind === 'storage' ? `s${spec.access === 'read' ? 'r' : 'w'}` : 'u';
      })
      .join('');
  }

  /** The WGSL `var` declarations of this layout in bind group `group`. */
  wgsl(group = 0): string {
    return this.names
      .map((name, binding) => {
        const spec = this.specs[name] as BindingSpec;
        const space = spec.kind === 'uniform' ? 'uniform' : `storage, ${spec.access ?? 'read_write'}`;
        return `@group(${group}) @binding(${binding}) var<${space}> ${name}: ${spec.type};`;
      })
      .join('\n');
  }

  /** The entries of the matching `GPUBindGroupLayout`. */
  entries(): GPUBindGroupLayoutEntry[] {
    return this.names.map((name, binding) => {
      const spec = this.specs[name] as BindingSpec;
      const type: GPUBufferBindingType =
        spec.kind === 'uniform' ? 'uniform' : spec.access === 'read' ? 'read-only-storage' : 'storage';
      return { binding, visibility: ShaderStage.COMPUTE, buffer: { type } };
    });
  }

  /** Bind-group entries from buffers (or buffer bindings) named as in the layout. */
  bindGroupEntries(resources: BindingResources<S>): GPUBindGroupEntry[] {
    return this.names.map((name, binding) => {
      const resource = resources[name];
      if (resource === undefined) throw new TypeError(`${this.label}: no resource for binding '${name}'`);
      return { binding, resource: isBuffer(resource) ? { buffer: resource } : resource };
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
