/**
 * Inclusion-based (Andersen) points-to analysis for C programs: the constraint model and its
 * builder, readers and writers (Hardekopf files, an own text format, JSON), offline passes (HCD,
 * HVN), an exact CPU engine and the results API.
 *
 * @example
 * ```ts
 * import { readHardekopf, solveAndersen } from '@gpumorph/andersen';
 * const input = await readHardekopf({ prefix: 'data/gcc' });
 * const result = solveAndersen(input.program, { hcd: input.hcd });
 * result.pointsTo(42); // Uint32Array of object ids
 * ```
 * @module
 */
export * from './errors';
export * from './io/index';
export * from './model/index';
