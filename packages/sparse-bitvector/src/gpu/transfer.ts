import {
  BASE_WORD,
  BITS_WORDS,
  ELEMENT_WORDS,
  MEMBERS_PER_ELEMENT,
  NEXT_WORD,
  NO_ELEMENT,
} from '../cpu/layout';
import { type SparseBitVector, SparseBitVectorPool } from '../cpu/sparse-bitvector';
import { MAX_BASE } from './layout';

/**
 * A list found on the GPU that is not a canonical sparse bit vector (bases not strictly
 * increasing, an empty element, a link past the pool, or a cycle). `vector` is its index.
 *
 * @example
 * ```ts
 * try { await sets.download(pool); } catch (e) { if (e instanceof SparseBitVectorLayoutError) console.log(e.vector); }
 * ```
 */
export class SparseBitVectorLayoutError extends Error {
  override readonly name = 'SparseBitVectorLayoutError';
  readonly vector: number;
  constructor(message: string, vector: number, options?: { cause?: unknown }) {
    super(message, options);
    this.vector = vector;
  }
}

/**
 * CPU vectors packed in the GPU layout: elements renumbered from `firstElement`, one head each.
 *
 * @example
 * ```ts
 * const { words, heads }: PackedVectors = packVectors(vectors, 0);
 * ```
 */
export interface PackedVectors {
  /** `elements × 32` words, element `k` holding index `firstElement + k`. */
  readonly words: Uint32Array;
  /** Head element index of each vector (`NO_ELEMENT` when empty). */
  readonly heads: Uint32Array;
}

/**
 * Copies the element lists of `vectors` (any pools) word for word into one array, renumbering the
 * elements consecutively from `firstElement` (list order, so each list is contiguous) and
 * rewriting the `next` links. The layouts are identical, so no member is decoded.
 *
 * @example
 * ```ts
 * const pool = new SparseBitVectorPool();
 * const packed = packVectors([pool.fromArray([1, 960])], 0);
 * packed.heads; // Uint32Array [0]; packed.words.length === 64
 * ```
 */
export function packVectors(vectors: readonly SparseBitVector[], firstElement: number): PackedVectors {
  let total = 0;
  for (const v of vectors) total += v.elementCount;
  const words = new Uint32Array(total * ELEMENT_WORDS);
  const heads = new Uint32Array(vectors.length).fill(NO_ELEMENT);
  let k = 0;
  vectors.forEach((v, i) => {
    const source = v.pool.words;
    for (let e = v.head; e !== NO_ELEMENT; ) {
      const from = e * ELEMENT_WORDS;
      const to = k * ELEMENT_WORDS;
      words.set(source.subarray(from, from + NEXT_WORD), to);
      const next = source[from + NEXT_WORD] as number;
      words[to + NEXT_WORD] = next === NO_ELEMENT ? NO_ELEMENT : firstElement + k + 1;
      if (e === v.head) heads[i] = firstElement + k;
      k++;
      e = next;
    }
  });
  return { words, heads };
}

/** {@link PackedVectors} built by {@link packMemberPairs}, with the number of distinct pairs. */
export interface PackedMemberPairs extends PackedVectors {
  /** Distinct `(vector, member)` pairs packed: the sum of the vectors' member counts. */
  readonly members: number;
}

/**
 * Packs vectors given as `(vector, member)` pairs straight into the element layout, without
 * building a {@link SparseBitVector} per vector: a counting sort by vector, a numeric sort of
 * each vector's members, then one element per distinct base. Vector `v`'s list is contiguous
 * (vectors in id order) and its head is `heads[v]` (`NO_ELEMENT` when it has no pair). Repeated
 * pairs count once. For a front end or solver that starts with millions of edges, this is linear
 * in the pairs plus the sorts, where inserting member by member walks a list per insertion.
 *
 * @param vectorCount - the vectors are `0 … vectorCount − 1`; `heads` has this length.
 * @param vectors - each pair's vector (below `vectorCount`).
 * @param members - each pair's member.
 * @param count - pairs to read from the two arrays (default: all of `vectors`).
 * @param firstElement - index of the first element (the layout's own links count from it).
 * @throws RangeError when a vector id is not below `vectorCount` or `members` is shorter than `count`.
 *
 * @example
 * ```ts
 * // Vector 0 = {5, 961}, vector 2 = {7}.
 * const packed = packMemberPairs(3, Uint32Array.of(0, 2, 0, 0), Uint32Array.of(961, 7, 5, 5));
 * packed.heads; // Uint32Array [0, NO_ELEMENT, 2]; packed.members === 3
 * ```
 */
export function packMemberPairs(
  vectorCount: number,
  vectors: ArrayLike<number>,
  members: ArrayLike<number>,
  count: number = vectors.length,
  firstElement = 0,
): PackedMemberPairs {
  if (count > vectors.length || count > members.length)
    throw new RangeError(
      `packMemberPairs: ${count} pairs asked, ${vectors.length} vectors and ${members.length} members given`,
    );
  const start = new Uint32Array(vectorCount + 1);
  for (let i = 0; i < count; i++) {
    const v = vectors[i] as number;
    if (!(v >= 0 && v < vectorCount))
      throw new RangeError(`packMemberPairs: pair ${i} names vector ${v}, not below ${vectorCount}`);
    start[v + 1] = (start[v + 1] as number) + 1;
  }
  for (let v = 0; v < vectorCount; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const sorted = new Uint32Array(count);
  const fill = start.slice(0, vectorCount);
  for (let i = 0; i < count; i++) {
    const v = vectors[i] as number;
    const at = fill[v] as number;
    sorted[at] = members[i] as number;
    fill[v] = at + 1;
  }
  // Sort each vector's members and count the elements (distinct bases) they need.
  let elements = 0;
  for (let v = 0; v < vectorCount; v++) {
    const from = start[v] as number;
    const to = start[v + 1] as number;
    if (to - from > 1) sorted.subarray(from, to).sort();
    let previousBase = -1;
    for (let i = from; i < to; i++) {
      const base = Math.floor((sorted[i] as number) / MEMBERS_PER_ELEMENT);
      if (base !== previousBase) {
        elements++;
        previousBase = base;
      }
    }
  }
  const words = new Uint32Array(elements * ELEMENT_WORDS);
  const heads = new Uint32Array(vectorCount).fill(NO_ELEMENT);
  let k = 0;
  let distinct = 0;
  for (let v = 0; v < vectorCount; v++) {
    const from = start[v] as number;
    const to = start[v + 1] as number;
    let previousBase = -1;
    let previousMember = -1;
    for (let i = from; i < to; i++) {
      const member = sorted[i] as number;
      if (member === previousMember) continue;
      previousMember = member;
      distinct++;
      const base = Math.floor(member / MEMBERS_PER_ELEMENT);
      if (base !== previousBase) {
        const at = k * ELEMENT_WORDS;
        if (previousBase === -1) heads[v] = firstElement + k;
        else words[at - ELEMENT_WORDS + NEXT_WORD] = firstElement + k;
        words[at + BASE_WORD] = base;
        words[at + NEXT_WORD] = NO_ELEMENT;
        previousBase = base;
        k++;
      }
      const bit = member - base * MEMBERS_PER_ELEMENT;
      const at = (k - 1) * ELEMENT_WORDS + (bit >>> 5);
      words[at] = ((words[at] as number) | (1 << (bit & 31))) >>> 0;
    }
  }
  return { words, heads, members: distinct };
}

/**
 * Checks that each list from `heads` in `words` is canonical (strictly increasing bases, no empty
 * element, no link past the words, no cycle, no member past 2^32 − 1); returns each list's length
 * and their sum, or throws {@link SparseBitVectorLayoutError}.
 */
function checkLists(
  words: Uint32Array,
  heads: ArrayLike<number>,
  firstVector: number,
): { lengths: Uint32Array; total: number } {
  const elements = Math.floor(words.length / ELEMENT_WORDS);
  const lengths = new Uint32Array(heads.length);
  let total = 0;
  for (let i = 0; i < heads.length; i++) {
    const name = firstVector + i;
    let previousBase = -1;
    let steps = 0;
    for (let e = heads[i] as number; e !== NO_ELEMENT; ) {
      if (e >= elements) {
        throw new SparseBitVectorLayoutError(
          `vector ${name}: link to element ${e} past the ${elements} read`,
          name,
        );
      }
      if (++steps > elements)
        throw new SparseBitVectorLayoutError(`vector ${name}: its list has a cycle`, name);
      const at = e * ELEMENT_WORDS;
      const base = words[at + BASE_WORD] as number;
      if (base <= previousBase) {
        throw new SparseBitVectorLayoutError(
          `vector ${name}: element ${e} has base ${base} after base ${previousBase}`,
          name,
        );
      }
      previousBase = base;
      let any = false;
      for (let w = 0; w < BITS_WORDS && !any; w++) any = (words[at + w] as number) !== 0;
      if (!any) throw new SparseBitVectorLayoutError(`vector ${name}: element ${e} is empty`, name);
      // Members are u32: nothing past base MAX_BASE, and in it nothing past 2^32 - 1 (bit 255).
      let past = base > MAX_BASE;
      for (let w = 8; base === MAX_BASE && w < BITS_WORDS; w++) past ||= (words[at + w] as number) !== 0;
      if (past) {
        throw new SparseBitVectorLayoutError(
          `vector ${name}: element ${e} (base ${base}) holds members past 2^32 - 1`,
          name,
        );
      }
      e = words[at + NEXT_WORD] as number;
    }
    lengths[i] = steps;
    total += steps;
  }
  return { lengths, total };
}

/** The lengths the caller vouches for, after checking that each list's elements lie in `words`. */
function checkedRanges(
  words: Uint32Array,
  heads: ArrayLike<number>,
  lengths: ArrayLike<number>,
  firstVector: number,
): ArrayLike<number> {
  if (lengths.length !== heads.length) {
    throw new RangeError(`${lengths.length} lengths for ${heads.length} heads`);
  }
  const elements = Math.floor(words.length / ELEMENT_WORDS);
  for (let i = 0; i < heads.length; i++) {
    const length = lengths[i] as number;
    const head = heads[i] as number;
    if ((length === 0) !== (head === NO_ELEMENT) || (length > 0 && head + length > elements)) {
      throw new SparseBitVectorLayoutError(
        `vector ${firstVector + i}: ${length} elements from ${head} do not lie in the ${elements} read`,
        firstVector + i,
      );
    }
  }
  return lengths;
}

/**
 * Rebuilds CPU vectors in `pool` from GPU words (`words` = elements `[0, n)` of a GPU pool) and
 * heads, copying each element's bit and base words as they are (no member is decoded) into one
 * block of consecutive elements. Checks that each list is canonical (strictly increasing bases, no
 * empty element, no link past `n`, no cycle) and throws {@link SparseBitVectorLayoutError}
 * otherwise. `firstVector` only names vectors in errors.
 *
 * @example
 * ```ts
 * const pool = new SparseBitVectorPool();
 * const [v] = unpackVectors(pool, packed.words, packed.heads); // v has the members packed
 * ```
 */
export function unpackVectors(
  pool: SparseBitVectorPool,
  words: Uint32Array,
  heads: ArrayLike<number>,
  firstVector = 0,
): SparseBitVector[] {
  const { lengths, total } = checkLists(words, heads, firstVector);
  // One block for all copies: one growth, no allocation per element.
  let next = pool.allocBlock(total);
  const target = pool.words;
  const out: SparseBitVector[] = [];
  for (let i = 0; i < heads.length; i++) {
    const vector = pool.create();
    const length = lengths[i] as number;
    if (length > 0) {
      vector.adoptList(next);
      let e = heads[i] as number;
      for (let k = 0; k < length; k++) {
        const from = e * ELEMENT_WORDS;
        const to = (next + k) * ELEMENT_WORDS;
        target.set(words.subarray(from, from + NEXT_WORD), to);
        target[to + NEXT_WORD] = k + 1 < length ? next + k + 1 : NO_ELEMENT;
        e = words[from + NEXT_WORD] as number;
      }
      next += length;
    }
    out.push(vector);
  }
  return out;
}

/**
 * Like {@link unpackVectors}, but the vectors live in `words` themselves: a new pool adopts the
 * array as its storage (no copy; elements no list reaches stay in it unused), which saves copying
 * and first-touching gigabytes when a big GPU pool is read back once at the end. The same checks
 * run first. `words` belongs to the returned pool afterwards.
 *
 * @example
 * ```ts
 * const { pool, vectors } = adoptVectors(packed.words, packed.heads);
 * vectors[0]?.toArray(); // the members packed; pool.words === packed.words
 * ```
 */
export function adoptVectors(
  words: Uint32Array,
  heads: ArrayLike<number>,
  firstVector = 0,
): { pool: SparseBitVectorPool; vectors: SparseBitVector[] } {
  const table = adoptVectorTable(words, heads, { firstVector });
  const vectors = Array.from({ length: table.length }, (_, i) => table.at(i) as SparseBitVector);
  return { pool: table.pool, vectors };
}

/** Vectors by index over one adopted pool, each made on first use; see {@link adoptVectorTable}. */
export interface AdoptedVectorTable {
  readonly pool: SparseBitVectorPool;
  /** Number of vectors (the number of heads given). */
  readonly length: number;
  /** The `index`-th vector (the same object on every call), or `undefined` past the end. */
  at(index: number): SparseBitVector | undefined;
}

/**
 * Like {@link adoptVectors} (the same checks first, then `words` becomes the pool's storage), but
 * each vector object is made when first asked for: reading back a million sets of which a
 * caller looks at a few then costs no million objects to allocate and collect.
 *
 * `checkedLengths` skips the walk over every list: pass it only when whoever laid the lists out
 * has checked them (canonical, and each laid out from its head over that many consecutive
 * elements, linked in order); then only that each list's elements lie in `words` is checked.
 * `laidOut` skips that too, for a writer that also checked that every list lies in `words`, as
 * the Andersen GPU engine's readback kernel does: then no lengths are needed, and a head is only
 * checked to lie in `words` when its vector is first asked for.
 *
 * @example
 * ```ts
 * const table = adoptVectorTable(packed.words, packed.heads);
 * table.at(0)?.toArray(); // the members packed for heads[0]
 * ```
 */
export function adoptVectorTable(
  words: Uint32Array,
  heads: ArrayLike<number>,
  options: { firstVector?: number; checkedLengths?: ArrayLike<number>; laidOut?: boolean } = {},
): AdoptedVectorTable {
  const firstVector = options.firstVector ?? 0;
  const elements = Math.floor(words.length / ELEMENT_WORDS);
  const lengths = options.laidOut
    ? undefined
    : options.checkedLengths
      ? checkedRanges(words, heads, options.checkedLengths, firstVector)
      : checkLists(words, heads, firstVector).lengths;
  const pool = new SparseBitVectorPool(
    words.length >= ELEMENT_WORDS
      ? { adopt: words.subarray(0, words.length - (words.length % ELEMENT_WORDS)) }
      : { simd: false },
  );
  const length = heads.length;
  const made: (SparseBitVector | undefined)[] = new Array(length);
  return {
    pool,
    length,
    at(index: number): SparseBitVector | undefined {
      if (!Number.isInteger(index) || index < 0 || index >= length) return undefined;
      let vector = made[index];
      if (vector === undefined) {
        const head = heads[index] as number;
        if (lengths === undefined) {
          if (head !== NO_ELEMENT && !(head < elements)) {
            throw new SparseBitVectorLayoutError(
              `vector ${firstVector + index}: head ${head} does not lie in the ${elements} elements read`,
              firstVector + index,
            );
          }
        }
        vector = pool.create();
        if (lengths === undefined ? head !== NO_ELEMENT : (lengths[index] as number) > 0)
          vector.adoptList(head);
        made[index] = vector;
      }
      return vector;
    },
  };
}
