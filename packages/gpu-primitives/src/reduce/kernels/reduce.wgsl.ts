import type { ScanOp } from '../../common/ops';
import { scanUpsweepWgsl } from '../../scan/kernels/scan.wgsl';

/** Parameters of {@link reduceKernelWgsl}. */
export interface ReduceKernelParams {
  readonly op: ScanOp;
  readonly subgroups: boolean;
  readonly workgroupSize: number;
  readonly vectors: number;
  readonly source: 'values' | 'partials';
  /** One workgroup folding the last level into the running total and `result[params.result]`. */
  readonly top: boolean;
  /** WGSL bind declarations (`reduceLayout(...).wgsl()`). */
  readonly bindings: string;
}

/**
 * WGSL of one reduce level: the scan's upsweep (each workgroup folds a tile of vec4 loads with
 * subgroup or workgroup-memory reductions); the top level adds the running total of earlier
 * windows and writes the result.
 *
 * @example
 * ```ts
 * const code = reduceKernelWgsl({ op: 'min', subgroups: false, workgroupSize: 256, vectors: 4,
 *   source: 'values', top: true, bindings: reduceLayout('top-values').wgsl() });
 * ```
 */
export function reduceKernelWgsl(p: ReduceKernelParams): string {
  return scanUpsweepWgsl({
    ...p,
    segmented: false,
    ...(p.top
      ? {
          finish: `var acc = total;
    if (params.first == 0u) { acc = ts_comb(sc_get(params.carry), total); }
    sc_put(params.carry, acc);
    result[params.result] = acc;`,
        }
      : {}),
  });
}
