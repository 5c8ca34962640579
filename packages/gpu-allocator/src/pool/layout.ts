import type { BindingSpec } from '../kernels/layout';
import type { WgslModule } from '../kernels/wgsl';

/** Words of a pool's header: `next`, `capacity`, `exhausted`, `reserved`. */
export const POOL_HEADER_WORDS = 4;
/** Index returned by `alloc` when the pool is exhausted (and by `first` of an empty list, by convention). */
export const INVALID_ELEMENT = 0xffff_ffff;
/** Default element size: 32 u32 = 128 bytes, one coalesced transaction of a 32-lane subgroup. */
export const DEFAULT_ELEMENT_WORDS = 32;

/** The header struct shared by every pool's WGSL. */
export const poolHeaderWgsl: WgslModule = {
  name: 'gm_pool_header',
  code: /* wgsl */ `
// Bump-pointer state of one element pool. 'next' may run past 'capacity' when the pool is
// exhausted: then it holds the demand of the failed step, which tells the host how far to grow.
struct GmPoolHeader {
  next: atomic<u32>,
  capacity: u32,
  exhausted: atomic<u32>,
  reserved: u32,
}
const GM_INVALID_ELEMENT: u32 = 0xffffffffu;`,
};

/** Geometry of a pool's storage as kernels see it. */
export interface PoolGeometry {
  /** WGSL identifier prefix of the pool's bindings and functions. */
  readonly name: string;
  readonly elementWords: number;
  /** Elements per binding window. */
  readonly windowElements: number;
  /** Number of windows bound (enough to cover the capacity). */
  readonly windows: number;
}

/** The bindings of a pool: its header, and its elements (one binding per window) unless `elements` is false. */
export function poolBindingSpecs(geometry: PoolGeometry, elements = true): Record<string, BindingSpec> {
  const specs: Record<string, BindingSpec> = {
    [`${geometry.name}_header`]: { kind: 'storage', type: 'GmPoolHeader' },
  };
  if (elements) {
    for (let w = 0; w < geometry.windows; w++)
      specs[`${geometry.name}_w${w}`] = { kind: 'storage', type: 'array<u32>' };
  }
  return specs;
}

/** Checks that `name` can prefix WGSL identifiers. */
export function assertWgslIdentifier(name: string): void {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name) || name.includes('__')) {
    throw new TypeError(`pool name '${name}' is not a WGSL identifier prefix (letters, digits, single '_')`);
  }
}
