import { ELEMENT_WORDS, MEMBERS_PER_ELEMENT } from '../cpu/layout';

/**
 * Status bit of a GPU set operation: the destination changed.
 *
 * @example
 * ```ts
 * const changed = (status & STATUS_CHANGED) !== 0;
 * ```
 */
export const STATUS_CHANGED = 1;
/**
 * Status bit: the pool ran out before the operation finished (re-run after growing completes it).
 *
 * @example
 * ```ts
 * if (status & STATUS_INCOMPLETE) await pool.grow();
 * ```
 */
export const STATUS_INCOMPLETE = 2;
/**
 * Status bit: a list was longer than the pool can hold (a cycle or a broken link).
 *
 * @example
 * ```ts
 * if (status & STATUS_CORRUPT) throw new Error('broken list');
 * ```
 */
export const STATUS_CORRUPT = 4;

/**
 * Operation codes of the batch kernel, in the order the WGSL `switch` uses.
 *
 * @example
 * ```ts
 * OP_CODES.union; // 0
 * ```
 */
export const OP_CODES = {
  union: 0,
  difference: 1,
  intersection: 2,
  shiftedUnion: 3,
  none: 4,
} as const;

/**
 * Query codes of the query kernel.
 *
 * @example
 * ```ts
 * QUERY_CODES.hash; // 1
 * ```
 */
export const QUERY_CODES = { equals: 0, hash: 1, count: 2 } as const;

/**
 * Largest element base whose first member is a u32: `floor(0xffffffff / 960)`.
 *
 * @example
 * ```ts
 * MAX_BASE * 960 <= 0xffffffff; // true
 * ```
 */
export const MAX_BASE = Math.floor(0xffff_ffff / MEMBERS_PER_ELEMENT);

/**
 * Words per batch operation record: kind, dst, src, offset, last.
 *
 * @example
 * ```ts
 * new Uint32Array(count * OP_RECORD_WORDS);
 * ```
 */
export const OP_RECORD_WORDS = 5;

/**
 * Smallest subgroup size any WebGPU implementation uses.
 *
 * @example
 * ```ts
 * laneWords(MIN_TEAM_LANES); // 8
 * ```
 */
export const MIN_TEAM_LANES = 4;

/**
 * Words one lane owns at most: lanes stride over the 30 bit words (and the base, for equality).
 *
 * @example
 * ```ts
 * laneWords(8); // 4
 * laneWords(32); // 1
 * ```
 */
export function laneWords(teamLanes: number): number {
  return Math.ceil((ELEMENT_WORDS - 1) / teamLanes);
}
