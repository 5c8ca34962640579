/** Workgroup counts of one dispatch. */
export interface DispatchGrid {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/**
 * Folds `workgroups` into a grid whose dimensions stay within `maxPerDimension` (65,535 by
 * default). Kernels recover the linear index with `gm_workgroup_index` and must ignore the few
 * surplus workgroups of the last row (`index >= workgroups`).
 *
 * @example
 * ```ts
 * dispatchGrid(100_000); // { x: 50000, y: 2, z: 1 }
 * ```
 */
export function dispatchGrid(workgroups: number, maxPerDimension = 65_535): DispatchGrid {
  if (!Number.isInteger(workgroups) || workgroups < 0)
    throw new RangeError(`bad workgroup count ${workgroups}`);
  if (workgroups <= maxPerDimension) return { x: workgroups, y: 1, z: 1 };
  const y = Math.ceil(workgroups / maxPerDimension);
  if (y > maxPerDimension) {
    throw new RangeError(`${workgroups} workgroups exceed ${maxPerDimension}² in one dispatch`);
  }
  return { x: Math.ceil(workgroups / y), y, z: 1 };
}

/** Grid for `items` work items handled `itemsPerWorkgroup` at a time. */
export function dispatchItems(
  items: number,
  itemsPerWorkgroup: number,
  maxPerDimension = 65_535,
): DispatchGrid {
  return dispatchGrid(Math.ceil(items / itemsPerWorkgroup), maxPerDimension);
}

/** Records `pass.dispatchWorkgroups` for a grid (no-op for an empty grid). */
export function encodeDispatch(pass: GPUComputePassEncoder, grid: DispatchGrid): void {
  if (grid.x === 0 || grid.y === 0 || grid.z === 0) return;
  pass.dispatchWorkgroups(grid.x, grid.y, grid.z);
}
