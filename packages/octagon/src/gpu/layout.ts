import { type BindingLayout, defineBindings } from '@gpumorph/gpu-allocator';

/**
 * How bounds are stored on the GPU. WGSL has no f64 and no rounding mode, so:
 * - `i32` (integer octagons): finite bounds in `[−LIM, LIM]`, LIM = 2^29 − 1, and +∞ = 2^30 − 1.
 *   Two stored values sum without overflow; a sum ≥ 2^29 becomes +∞ and one below −LIM becomes
 *   −LIM — both only raise a bound, which is sound (a larger upper bound is a weaker constraint).
 * - `f32` (real octagons): +∞ is 2^100 (values ≥ 2^99 read back as +∞; WGSL may assume no
 *   infinities), sums are moved one ulp up unless both operands are on the exact grid (multiples
 *   of 2^-8 below 2^15 in magnitude, whose sums f32 represents exactly), and never go below −2^100.
 */
export type GpuNumberFormat = 'i32' | 'f32';

/** +∞ of the i32 format. */
export const I32_INF = 0x3fffffff;
/** Largest finite magnitude of the i32 format. */
export const I32_LIM = 0x1fffffff;
/** +∞ of the f32 format. */
export const F32_INF = 2 ** 100;
/** Values at or above this read back as +∞ (f32). */
export const F32_INF_THRESHOLD = 2 ** 99;
/** Finite f32 inputs are clamped to ±2^60 (above: +∞; below: −2^60, a weaker bound). */
export const F32_INPUT_LIM = 2 ** 60;

/** Parameters of every octagon kernel (one 16-byte uniform struct). */
export const OCT_PARAMS_WGSL = `struct OctParams { n: u32, round: u32, a: u32, b: u32, c: i32, cf: f32, count: u32, pad: u32 }`;

const cache = new Map<string, BindingLayout>();

function layout(name: string, make: () => unknown): BindingLayout {
  let l = cache.get(name);
  if (!l) {
    l = make() as BindingLayout;
    cache.set(name, l);
  }
  return l;
}

/**
 * Bindings of the closure kernels: `params`, the matrix (or batch of matrices) `m`, the
 * per-octagon emptiness flags `flags`, and `unary` (the snapshot of the unary cells the
 * strengthening step reads).
 *
 * @example
 * ```ts
 * closureLayout('f32').wgsl(); // "@group(0) @binding(0) var<uniform> params: OctParams; …"
 * ```
 */
export function closureLayout(format: GpuNumberFormat): BindingLayout {
  return layout(`closure ${format}`, () =>
    defineBindings(`gm octagon closure ${format}`, {
      params: { kind: 'uniform', type: 'OctParams' },
      m: { kind: 'storage', type: `array<${format}>`, access: 'read_write' },
      flags: { kind: 'storage', type: 'array<atomic<u32>>', access: 'read_write' },
      unary: { kind: 'storage', type: `array<${format}>`, access: 'read_write' },
    }),
  );
}

/**
 * Bindings of the elementwise kernels (join, meet, widening, narrowing): `out = op(a, b)`.
 *
 * @example
 * ```ts
 * elementwiseLayout('i32').wgsl(); // params, a, b, out
 * ```
 */
export function elementwiseLayout(format: GpuNumberFormat): BindingLayout {
  return layout(`elementwise ${format}`, () =>
    defineBindings(`gm octagon elementwise ${format}`, {
      params: { kind: 'uniform', type: 'OctParams' },
      a: { kind: 'storage', type: `array<${format}>`, access: 'read' },
      b: { kind: 'storage', type: `array<${format}>`, access: 'read' },
      out: { kind: 'storage', type: `array<${format}>`, access: 'read_write' },
    }),
  );
}

/**
 * Bindings of the transfer-function kernels (assignment shift, guard): the matrix only.
 *
 * @example
 * ```ts
 * transferLayout('f32').wgsl(); // params, m
 * ```
 */
export function transferLayout(format: GpuNumberFormat): BindingLayout {
  return layout(`transfer ${format}`, () =>
    defineBindings(`gm octagon transfer ${format}`, {
      params: { kind: 'uniform', type: 'OctParams' },
      m: { kind: 'storage', type: `array<${format}>`, access: 'read_write' },
    }),
  );
}
