/**
 * fast-check arbitraries for property tests of code that uses sparse bit vectors: member sets that
 * cluster like real points-to sets (ids assigned in program order, so a variable points to
 * neighbours), sets that straddle element boundaries (multiples of 960), and ids near 2^32.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * import { memberSets } from '@gpumorph/sparse-bitvector/testing';
 * fc.assert(fc.property(memberSets(), memberSets(), (a, b) => { … }));
 * ```
 * @module
 */
import fc from 'fast-check';

const ELEMENT = 960;
const MAX = 0xffff_ffff;

/** Members around a few centres, like the points-to set of one variable. */
export function clusteredMembers(
  options: { maxClusters?: number; maxPerCluster?: number; maxCentre?: number } = {},
) {
  const centre = fc.integer({ min: 0, max: options.maxCentre ?? 200_000 });
  const cluster = fc.tuple(
    centre,
    fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: options.maxPerCluster ?? 40 }),
  );
  return fc
    .array(cluster, { maxLength: options.maxClusters ?? 4 })
    .map((clusters) => clusters.flatMap(([c, offsets]) => offsets.map((o) => Math.min(MAX, c + o))));
}

/**
 * Members at and around element boundaries (959, 960, 961, 1919, …) and word boundaries (31, 32,
 * 63, …): the sign bit of a 32-bit word is where JavaScript's signed bit operators go wrong.
 */
export function boundaryMembers(options: { maxElements?: number; maxLength?: number } = {}) {
  const elements = options.maxElements ?? 40;
  const boundary = fc.oneof(
    fc.integer({ min: 1, max: elements }).map((k) => k * ELEMENT),
    fc.integer({ min: 1, max: elements * (ELEMENT / 32) }).map((k) => k * 32),
  );
  return fc.array(
    fc.tuple(boundary, fc.integer({ min: -2, max: 1 })).map(([b, d]) => b + d),
    { maxLength: options.maxLength ?? 20 },
  );
}

/** Members near the top of the u32 range (the last elements). */
export function highMembers(options: { maxLength?: number } = {}) {
  return fc.array(fc.integer({ min: MAX - 3 * ELEMENT, max: MAX - 1 }), {
    maxLength: options.maxLength ?? 12,
  });
}

/** Any of the above, sometimes mixed, sometimes empty: the default for set properties. */
export function memberSets(): fc.Arbitrary<number[]> {
  return fc.oneof(
    { weight: 4, arbitrary: clusteredMembers() },
    { weight: 2, arbitrary: boundaryMembers() },
    { weight: 1, arbitrary: highMembers() },
    { weight: 1, arbitrary: fc.constant<number[]>([]) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          clusteredMembers({ maxClusters: 2 }),
          boundaryMembers({ maxLength: 6 }),
          highMembers({ maxLength: 3 }),
        )
        .map(([a, b, c]) => [...a, ...b, ...c]),
    },
  );
}
