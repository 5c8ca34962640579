import type { GpuContext } from '@gpumorph/gpu-allocator';

/** `n` pseudo-random words (xorshift32 from `seed`), masked. */
export function randomKeys(n: number, seed: number, mask = 0xffffffff): Uint32Array {
  let x = seed >>> 0 || 1;
  return Uint32Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) & mask;
  });
}

/** Element-wise equality reporting the first difference (fast on long arrays). */
export function expectSameArray(
  got: Uint32Array | undefined,
  want: Uint32Array | undefined,
  what: string,
): void {
  if (!got || !want) throw new Error(`${what}: missing array`);
  if (got.length !== want.length) throw new Error(`${what}: length ${got.length}, expected ${want.length}`);
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== want[i]) throw new Error(`${what}[${i}] = ${got[i]}, expected ${want[i]}`);
  }
}

/** One sorter per (context, options), so that a suite compiles each sorter's pipelines once. */
export function sorterPerContext<S, O>(
  create: (ctx: GpuContext, options: O) => S,
): (ctx: GpuContext, options: O) => S {
  const sorts = new WeakMap<GpuContext, Map<string, S>>();
  return (ctx, options) => {
    let byOptions = sorts.get(ctx);
    if (!byOptions) {
      byOptions = new Map();
      sorts.set(ctx, byOptions);
    }
    const key = JSON.stringify(options);
    let sort = byOptions.get(key);
    if (!sort) {
      sort = create(ctx, options);
      byOptions.set(key, sort);
    }
    return sort;
  };
}
