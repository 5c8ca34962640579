import { CpuElementPool } from '@gpumorph/gpu-allocator/cpu';
import { hashFinish, hashMix } from './hash';
import {
  BASE_WORD,
  BITS_WORDS,
  ELEMENT_WORDS,
  MAX_MEMBER,
  MEMBERS_PER_ELEMENT,
  NEXT_WORD,
  NO_ELEMENT,
} from './layout';
import { createSimdKernels, type SimdKernels } from './wasm/simd';

const EMPTY_SIGNED = new Int32Array(0);

/** Set bits of a u32. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x5555_5555);
  v = (v & 0x3333_3333) + ((v >>> 2) & 0x3333_3333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f_0f0f, 0x0101_0101) >>> 24;
}

function checkMember(member: number): void {
  if (!Number.isInteger(member) || member < 0 || member > MAX_MEMBER) {
    throw new RangeError(`sparse bit vector member ${member} is not a u32`);
  }
}

/** Per-member bound of {@link SparseBitVector.unionWithShifted}: `member + offset` is kept only below it. */
export type ShiftLimit = number | ArrayLike<number> | ((member: number) => number);

/**
 * Many sparse bit vectors in one growable `Uint32Array` of 128-byte elements — the GPU layout:
 * words 0–29 hold 960 member bits, word 30 the base (members `[base · 960, base · 960 + 960)`),
 * word 31 the next element. Freed elements are kept on a free list for reuse. No JS object per
 * element, so millions of small sets cost little.
 *
 * @example
 * ```ts
 * const pool = new SparseBitVectorPool();
 * const a = pool.fromArray([1, 5, 960]);
 * const b = pool.create();
 * b.set(5);
 * a.intersectWith(b); // true: a is now {5}
 * ```
 */
export class SparseBitVectorPool {
  readonly #elements: CpuElementPool;
  #free = NO_ELEMENT;
  #inUse = 0;
  /** @internal SIMD kernels on this pool's memory, when WebAssembly SIMD is available and wanted. */
  readonly simd: SimdKernels | undefined;

  /**
   * @param options.capacity Elements to reserve up front (the pool doubles when full).
   * @param options.simd Keep the elements in WebAssembly memory and run unions, differences and
   *   copies between vectors of this pool with SIMD kernels (default: where WebAssembly SIMD is
   *   available). Limits the pool to 4 GiB (33 M elements).
   * @param options.adopt @internal Start from these words (whole elements) as the storage, without
   *   copying them and without SIMD; every element counts as in use ({@link adoptVectors} links
   *   vectors into them).
   */
  constructor(options: { capacity?: number; simd?: boolean; adopt?: Uint32Array } = {}) {
    if (options.adopt) {
      this.simd = undefined;
      this.#elements = new CpuElementPool({ capacity: 1, elementWords: ELEMENT_WORDS, adopt: options.adopt });
      this.#inUse = this.#elements.allocated;
      return;
    }
    this.simd = options.simd === false ? undefined : createSimdKernels();
    this.#elements = new CpuElementPool({
      capacity: options.capacity ?? 64,
      elementWords: ELEMENT_WORDS,
      ...(this.simd ? { memory: this.simd.memory } : {}),
    });
  }

  /** The storage. Replaced when the pool grows: re-read it after anything that may allocate. */
  get words(): Uint32Array {
    return this.#elements.words;
  }

  #signed: Int32Array = new Int32Array(0);

  /**
   * @internal The storage viewed as `Int32Array`: bitwise operations on it stay in V8's small-integer
   * representation (a `Uint32Array` word above 2^31 reads as a heap double), which makes word loops
   * several times faster. Replaced when the pool grows, like {@link words}.
   */
  get signedWords(): Int32Array {
    const words = this.#elements.words;
    if (this.#signed.buffer !== words.buffer || this.#signed.length !== words.length)
      this.#signed = new Int32Array(words.buffer, words.byteOffset, words.length);
    return this.#signed;
  }

  /** Elements currently linked into some vector. */
  get elementsInUse(): number {
    return this.#inUse;
  }

  /** Elements the storage holds (in use, free, and never used). */
  get capacity(): number {
    return this.#elements.capacity;
  }

  /** A new empty vector in this pool. */
  create(): SparseBitVector {
    return new SparseBitVector(this);
  }

  /** A new vector holding `members` (any order, duplicates allowed). */
  fromArray(members: Iterable<number>): SparseBitVector {
    const vector = new SparseBitVector(this);
    const sorted = Uint32Array.from(members, (m) => {
      checkMember(m);
      return m;
    }).sort();
    for (const member of sorted) vector.set(member);
    return vector;
  }

  /** @internal An element with zero bits, the given base and next. */
  alloc(base: number, next: number): number {
    let element = this.#free;
    if (element !== NO_ELEMENT) {
      this.#free = this.words[element * ELEMENT_WORDS + NEXT_WORD] as number;
    } else {
      element = this.#elements.alloc();
    }
    const words = this.words;
    const at = element * ELEMENT_WORDS;
    words.fill(0, at, at + BITS_WORDS);
    words[at + BASE_WORD] = base;
    words[at + NEXT_WORD] = next;
    this.#inUse++;
    return element;
  }

  /**
   * @internal `count` elements with consecutive indices from the never-used part of the storage
   * (the free list is left alone); returns the first. Their words are the caller's to fill.
   */
  allocBlock(count: number): number {
    const first = this.#elements.allocBlock(count);
    this.#inUse += count;
    return first;
  }

  /** @internal Returns an element to the free list. */
  release(element: number): void {
    this.words[element * ELEMENT_WORDS + NEXT_WORD] = this.#free;
    this.#free = element;
    this.#inUse--;
  }

  toString(): string {
    return `SparseBitVectorPool(${this.#inUse} of ${this.capacity} elements in use)`;
  }
}

/**
 * A set of u32 members as a sorted linked list of 960-member elements in a
 * {@link SparseBitVectorPool} (the layout of the PPoPP'12 GPU solver), with the API of LLVM's
 * `SparseBitVector`. Every mutating operation returns whether the set changed. Elements are never
 * empty, so equal sets have equal representations (and hashes).
 *
 * @example
 * ```ts
 * const pool = new SparseBitVectorPool();
 * const pts = pool.fromArray([3, 961]);
 * pts.unionWith(pool.fromArray([4])); // true
 * [...pts];                           // [3, 4, 961]
 * pts.toString();                     // "{3, 4, 961}"
 * ```
 */
export class SparseBitVector implements Iterable<number> {
  readonly pool: SparseBitVectorPool;
  #head = NO_ELEMENT;
  /** An element of this list whose base is below the last one looked up (a search hint), or none. */
  #cursor = NO_ELEMENT;

  /** Use `pool.create()` or `pool.fromArray()`. */
  constructor(pool: SparseBitVectorPool) {
    this.pool = pool;
  }

  /** Index of the first element in the pool, or `NO_ELEMENT` when empty (for bulk transfer). */
  get head(): number {
    return this.#head;
  }

  /** Number of elements in the list. */
  get elementCount(): number {
    let n = 0;
    const words = this.pool.words;
    for (let e = this.#head; e !== NO_ELEMENT; e = words[e * ELEMENT_WORDS + NEXT_WORD] as number) n++;
    return n;
  }

  /**
   * The first element with base ≥ `base` and the element before it, starting from the cursor
   * when it lies before `base` (sequential access is then O(1) per step, as in LLVM).
   */
  #locate(base: number): { previous: number; element: number } {
    const words = this.pool.words;
    let previous = NO_ELEMENT;
    let element = this.#head;
    const cursor = this.#cursor;
    if (cursor !== NO_ELEMENT && (words[cursor * ELEMENT_WORDS + BASE_WORD] as number) < base) {
      previous = cursor;
      element = words[cursor * ELEMENT_WORDS + NEXT_WORD] as number;
    }
    while (element !== NO_ELEMENT && (words[element * ELEMENT_WORDS + BASE_WORD] as number) < base) {
      previous = element;
      element = words[element * ELEMENT_WORDS + NEXT_WORD] as number;
    }
    this.#cursor = previous;
    return { previous, element };
  }

  /**
   * @internal Bulk transfer: appends an element of base `base` whose 30 bit words are
   * `bits[offset … offset + 30)`, after `tail` (this list's last element, or `NO_ELEMENT` when
   * empty); returns the new tail. The caller guarantees `base` is above every base in the list and
   * the words are not all zero (`unpackVectors` checks both).
   */
  appendElement(base: number, bits: Uint32Array, offset: number, tail: number): number {
    const element = this.pool.alloc(base, NO_ELEMENT);
    this.pool.words.set(bits.subarray(offset, offset + BITS_WORDS), element * ELEMENT_WORDS);
    this.#link(tail, element);
    return element;
  }

  /**
   * @internal Bulk transfer: makes this empty vector the list that starts at `head`, which the
   * caller has linked in this pool (canonical: strictly increasing bases, no empty element).
   */
  adoptList(head: number): void {
    if (this.#head !== NO_ELEMENT) throw new Error('adoptList needs an empty vector');
    this.#head = head;
    this.#cursor = NO_ELEMENT;
  }

  #link(previous: number, element: number): void {
    if (previous === NO_ELEMENT) this.#head = element;
    else this.pool.words[previous * ELEMENT_WORDS + NEXT_WORD] = element;
  }

  /** Unlinks and frees `element` (whose predecessor is `previous`). */
  #unlink(previous: number, element: number): void {
    const next = this.pool.words[element * ELEMENT_WORDS + NEXT_WORD] as number;
    this.#link(previous, next);
    if (this.#cursor === element) this.#cursor = previous;
    this.pool.release(element);
  }

  /** Whether `member` is in the set. */
  test(member: number): boolean {
    checkMember(member);
    const base = Math.floor(member / MEMBERS_PER_ELEMENT);
    const { element } = this.#locate(base);
    const words = this.pool.words;
    if (element === NO_ELEMENT || words[element * ELEMENT_WORDS + BASE_WORD] !== base) return false;
    const bit = member - base * MEMBERS_PER_ELEMENT;
    return ((words[element * ELEMENT_WORDS + (bit >>> 5)] as number) & (1 << (bit & 31))) !== 0;
  }

  /** Adds `member`; true if it was not there. */
  set(member: number): boolean {
    checkMember(member);
    const base = Math.floor(member / MEMBERS_PER_ELEMENT);
    const located = this.#locate(base);
    let element = located.element;
    if (element === NO_ELEMENT || this.pool.words[element * ELEMENT_WORDS + BASE_WORD] !== base) {
      element = this.pool.alloc(base, element);
      this.#link(located.previous, element);
    }
    const words = this.pool.words;
    const bit = member - base * MEMBERS_PER_ELEMENT;
    const at = element * ELEMENT_WORDS + (bit >>> 5);
    const before = words[at] as number;
    const after = (before | (1 << (bit & 31))) >>> 0;
    words[at] = after;
    return after !== before;
  }

  /** Same as {@link SparseBitVector.set} (LLVM's `test_and_set`): true if `member` was newly added. */
  testAndSet(member: number): boolean {
    return this.set(member);
  }

  /** Removes `member`; true if it was there. */
  reset(member: number): boolean {
    checkMember(member);
    const base = Math.floor(member / MEMBERS_PER_ELEMENT);
    const { previous, element } = this.#locate(base);
    const words = this.pool.words;
    if (element === NO_ELEMENT || words[element * ELEMENT_WORDS + BASE_WORD] !== base) return false;
    const bit = member - base * MEMBERS_PER_ELEMENT;
    const at = element * ELEMENT_WORDS + (bit >>> 5);
    const before = words[at] as number;
    const after = (before & ~(1 << (bit & 31))) >>> 0;
    if (after === before) return false;
    words[at] = after;
    if (after === 0 && isEmptyElement(words, element)) this.#unlink(previous, element);
    return true;
  }

  /**
   * Adds `members[0 … count)`, which must be ascending (duplicates allowed), in one walk of the
   * list instead of one search per member; true if this set grew. The bulk form of {@link set}, for
   * shifted or decoded member lists.
   *
   * @example
   * ```ts
   * pts.setSorted(Uint32Array.of(3, 9, 961), 3); // true
   * ```
   */
  setSorted(members: ArrayLike<number>, count = members.length): boolean {
    let changed = false;
    let previous = NO_ELEMENT;
    let element = this.#head;
    let words = this.pool.words;
    let lastMember = -1;
    for (let i = 0; i < count; i++) {
      const member = members[i] as number;
      if (member < lastMember) throw new RangeError(`setSorted: members are not ascending at index ${i}`);
      lastMember = member;
      checkMember(member);
      const base = Math.floor(member / MEMBERS_PER_ELEMENT);
      while (element !== NO_ELEMENT && (words[element * ELEMENT_WORDS + BASE_WORD] as number) < base) {
        previous = element;
        element = words[element * ELEMENT_WORDS + NEXT_WORD] as number;
      }
      if (element === NO_ELEMENT || words[element * ELEMENT_WORDS + BASE_WORD] !== base) {
        const created = this.pool.alloc(base, element);
        words = this.pool.words;
        this.#link(previous, created);
        element = created;
      }
      const bit = member - base * MEMBERS_PER_ELEMENT;
      const at = element * ELEMENT_WORDS + (bit >>> 5);
      const before = words[at] as number;
      const after = (before | (1 << (bit & 31))) >>> 0;
      if (after !== before) {
        words[at] = after;
        changed = true;
      }
    }
    this.#cursor = previous;
    return changed;
  }

  /** Adds every member of `other`; true if this set grew. */
  unionWith(other: SparseBitVector): boolean {
    if (other === this) return false;
    const pool = this.pool;
    const otherPool = other.pool;
    // Locals re-read only after an allocation (which may grow, hence replace, the storage).
    const simd = pool === otherPool ? pool.simd : undefined;
    let words = pool.words;
    let sourceWords = otherPool.words;
    // The signed views serve the JavaScript word loops only.
    let mine = simd === undefined ? pool.signedWords : EMPTY_SIGNED;
    let theirs = simd === undefined ? otherPool.signedWords : EMPTY_SIGNED;
    let changed = false;
    let previous = NO_ELEMENT;
    let element = this.#head;
    for (let source = other.#head; source !== NO_ELEMENT; ) {
      const s = source * ELEMENT_WORDS;
      const base = sourceWords[s + BASE_WORD] as number;
      while (element !== NO_ELEMENT && (words[element * ELEMENT_WORDS + BASE_WORD] as number) < base) {
        previous = element;
        element = words[element * ELEMENT_WORDS + NEXT_WORD] as number;
      }
      if (element !== NO_ELEMENT && words[element * ELEMENT_WORDS + BASE_WORD] === base) {
        const d = element * ELEMENT_WORDS;
        if (simd !== undefined) {
          if (simd.orInto(d * 4, s * 4) !== 0) changed = true;
        } else {
          let gained = 0;
          for (let i = 0; i < BITS_WORDS; i++) {
            const before = mine[d + i] as number;
            const incoming = theirs[s + i] as number;
            gained |= incoming & ~before;
            mine[d + i] = before | incoming;
          }
          if (gained !== 0) changed = true;
        }
        previous = element;
        element = words[d + NEXT_WORD] as number;
      } else {
        const created = pool.alloc(base, element);
        words = pool.words;
        sourceWords = otherPool.words;
        if (simd === undefined) {
          mine = pool.signedWords;
          theirs = otherPool.signedWords;
        }
        const d = created * ELEMENT_WORDS;
        if (simd !== undefined) simd.copyBits(d * 4, s * 4);
        else for (let i = 0; i < BITS_WORDS; i++) mine[d + i] = theirs[s + i] as number;
        this.#link(previous, created);
        previous = created;
        changed = true;
      }
      source = sourceWords[s + NEXT_WORD] as number;
    }
    return changed;
  }

  /** Keeps only the members also in `other`; true if this set shrank. */
  intersectWith(other: SparseBitVector): boolean {
    if (other === this) return false;
    return this.#combine(other, (a, b) => a & b, true);
  }

  /** Removes the members of `other` (`this − other`); true if this set shrank. */
  subtract(other: SparseBitVector): boolean {
    if (other === this) {
      const changed = !this.isEmpty();
      this.clear();
      return changed;
    }
    return this.#combine(other, (a, b) => a & ~b, false);
  }

  /**
   * Makes this set `a − b` in one pass over both lists (LLVM's three-argument
   * `intersectWithComplement`); the difference-propagation step of a points-to solver. Neither
   * argument may be this vector. Returns whether the result is non-empty.
   *
   * @example
   * ```ts
   * delta.setToDifference(pts, propagated); // what pts gained since it was last propagated
   * ```
   */
  setToDifference(a: SparseBitVector, b: SparseBitVector): boolean {
    if (a === this || b === this) throw new RangeError('setToDifference: an argument is the target itself');
    this.clear();
    const pool = this.pool;
    const simd = a.pool === pool && b.pool === pool ? pool.simd : undefined;
    let tail = NO_ELEMENT;
    let source = b.#head;
    for (let element = a.#head; element !== NO_ELEMENT; ) {
      const aWords = a.pool.words;
      const bWords = b.pool.words;
      const s = element * ELEMENT_WORDS;
      const base = aWords[s + BASE_WORD] as number;
      while (source !== NO_ELEMENT && (bWords[source * ELEMENT_WORDS + BASE_WORD] as number) < base) {
        source = bWords[source * ELEMENT_WORDS + NEXT_WORD] as number;
      }
      const matched = source !== NO_ELEMENT && bWords[source * ELEMENT_WORDS + BASE_WORD] === base;
      const m = matched ? source * ELEMENT_WORDS : 0;
      let any = 1; // an unmatched element is never empty
      if (matched) {
        if (simd !== undefined) any = simd.andNotAny(s * 4, m * 4);
        else {
          any = 0;
          for (let i = 0; i < BITS_WORDS; i++) any |= (aWords[s + i] as number) & ~(bWords[m + i] as number);
        }
      }
      if (any !== 0) {
        const created = pool.alloc(base, NO_ELEMENT);
        const d = created * ELEMENT_WORDS;
        if (simd !== undefined) {
          if (matched) simd.andNotInto(d * 4, s * 4, m * 4);
          else simd.copyBits(d * 4, s * 4);
        } else {
          const words = pool.words;
          const from = a.pool.words; // re-read: the pool may have grown
          const other = b.pool.words;
          for (let i = 0; i < BITS_WORDS; i++) {
            words[d + i] = matched
              ? ((from[s + i] as number) & ~(other[m + i] as number)) >>> 0
              : (from[s + i] as number);
          }
        }
        this.#link(tail, created);
        tail = created;
      }
      element = a.pool.words[s + NEXT_WORD] as number;
    }
    return this.#head !== NO_ELEMENT;
  }

  /**
   * Applies `op` word by word to the elements of this list that have a counterpart in `other`;
   * elements without one are dropped when `dropUnmatched` (intersection) and kept otherwise.
   */
  #combine(
    other: SparseBitVector,
    op: (mine: number, theirs: number) => number,
    dropUnmatched: boolean,
  ): boolean {
    let changed = false;
    let previous = NO_ELEMENT;
    let source = other.#head;
    const words = this.pool.words;
    const sourceWords = other.pool.words;
    for (let element = this.#head; element !== NO_ELEMENT; ) {
      const d = element * ELEMENT_WORDS;
      const base = words[d + BASE_WORD] as number;
      const next = words[d + NEXT_WORD] as number;
      while (source !== NO_ELEMENT && (sourceWords[source * ELEMENT_WORDS + BASE_WORD] as number) < base) {
        source = sourceWords[source * ELEMENT_WORDS + NEXT_WORD] as number;
      }
      if (source !== NO_ELEMENT && sourceWords[source * ELEMENT_WORDS + BASE_WORD] === base) {
        const s = source * ELEMENT_WORDS;
        let any = 0;
        for (let i = 0; i < BITS_WORDS; i++) {
          const before = words[d + i] as number;
          const after = op(before, sourceWords[s + i] as number) >>> 0;
          if (after !== before) {
            words[d + i] = after;
            changed = true;
          }
          any |= after;
        }
        if (any === 0) this.#unlink(previous, element);
        else previous = element;
      } else if (dropUnmatched) {
        this.#unlink(previous, element);
        changed = true;
      } else {
        previous = element;
      }
      element = next;
    }
    return changed;
  }

  /**
   * Adds `member + offset` for every member of `source` whose shifted value stays below its
   * bound (pointer arithmetic on points-to sets: `limit` is one bound for all, or per source member
   * the end of the object that member belongs to). True if this set grew.
   */
  unionWithShifted(source: SparseBitVector, offset: number, limit: ShiftLimit = MAX_MEMBER + 1): boolean {
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_MEMBER) {
      throw new RangeError(`shift offset ${offset} is not a u32`);
    }
    const bound =
      typeof limit === 'number'
        ? () => limit
        : typeof limit === 'function'
          ? limit
          : (member: number) => limit[member] ?? 0;
    // Decode first: `source` may be this very vector.
    const members = source.toArray();
    let changed = false;
    for (const member of members) {
      const shifted = member + offset;
      if (shifted > MAX_MEMBER) break;
      if (shifted < bound(member) && this.set(shifted)) changed = true;
    }
    return changed;
  }

  /** Whether the two sets share a member. */
  intersects(other: SparseBitVector): boolean {
    const words = this.pool.words;
    const otherWords = other.pool.words;
    let b = other.#head;
    for (let a = this.#head; a !== NO_ELEMENT; a = words[a * ELEMENT_WORDS + NEXT_WORD] as number) {
      const base = words[a * ELEMENT_WORDS + BASE_WORD] as number;
      while (b !== NO_ELEMENT && (otherWords[b * ELEMENT_WORDS + BASE_WORD] as number) < base) {
        b = otherWords[b * ELEMENT_WORDS + NEXT_WORD] as number;
      }
      if (b === NO_ELEMENT) return false;
      if (otherWords[b * ELEMENT_WORDS + BASE_WORD] !== base) continue;
      for (let i = 0; i < BITS_WORDS; i++) {
        if (((words[a * ELEMENT_WORDS + i] as number) & (otherWords[b * ELEMENT_WORDS + i] as number)) !== 0)
          return true;
      }
    }
    return false;
  }

  /** Whether every member of `other` is in this set (`other ⊆ this`). */
  contains(other: SparseBitVector): boolean {
    const words = this.pool.words;
    const otherWords = other.pool.words;
    let a = this.#head;
    for (let b = other.#head; b !== NO_ELEMENT; b = otherWords[b * ELEMENT_WORDS + NEXT_WORD] as number) {
      const base = otherWords[b * ELEMENT_WORDS + BASE_WORD] as number;
      while (a !== NO_ELEMENT && (words[a * ELEMENT_WORDS + BASE_WORD] as number) < base) {
        a = words[a * ELEMENT_WORDS + NEXT_WORD] as number;
      }
      if (a === NO_ELEMENT || words[a * ELEMENT_WORDS + BASE_WORD] !== base) return false;
      for (let i = 0; i < BITS_WORDS; i++) {
        // `theirs & ~mine` stays a signed int32 on both sides of the test; comparing
        // `mine & theirs` with the unsigned word would miss bit 31.
        const missing =
          (otherWords[b * ELEMENT_WORDS + i] as number) & ~(words[a * ELEMENT_WORDS + i] as number);
        if (missing !== 0) return false;
      }
    }
    return true;
  }

  /** Whether the two sets have the same members. */
  equals(other: SparseBitVector): boolean {
    const words = this.pool.words;
    const otherWords = other.pool.words;
    let a = this.#head;
    let b = other.#head;
    while (a !== NO_ELEMENT && b !== NO_ELEMENT) {
      const x = a * ELEMENT_WORDS;
      const y = b * ELEMENT_WORDS;
      for (let i = 0; i <= BASE_WORD; i++) if (words[x + i] !== otherWords[y + i]) return false;
      a = words[x + NEXT_WORD] as number;
      b = otherWords[y + NEXT_WORD] as number;
    }
    return a === b;
  }

  /** Number of members. */
  count(): number {
    let n = 0;
    const words = this.pool.words;
    for (let e = this.#head; e !== NO_ELEMENT; e = words[e * ELEMENT_WORDS + NEXT_WORD] as number) {
      for (let i = 0; i < BITS_WORDS; i++) n += popcount(words[e * ELEMENT_WORDS + i] as number);
    }
    return n;
  }

  isEmpty(): boolean {
    return this.#head === NO_ELEMENT;
  }

  /** Smallest member, or `undefined` when empty. */
  first(): number | undefined {
    if (this.#head === NO_ELEMENT) return undefined;
    return lowestMember(this.pool.words, this.#head);
  }

  /** Largest member, or `undefined` when empty. */
  last(): number | undefined {
    const words = this.pool.words;
    let e = this.#head;
    if (e === NO_ELEMENT) return undefined;
    for (let next = words[e * ELEMENT_WORDS + NEXT_WORD] as number; next !== NO_ELEMENT; ) {
      e = next;
      next = words[e * ELEMENT_WORDS + NEXT_WORD] as number;
    }
    const at = e * ELEMENT_WORDS;
    for (let i = BITS_WORDS - 1; i >= 0; i--) {
      const word = words[at + i] as number;
      if (word !== 0)
        return (words[at + BASE_WORD] as number) * MEMBERS_PER_ELEMENT + i * 32 + 31 - Math.clz32(word);
    }
    throw new Error('sparse bit vector invariant broken: empty element');
  }

  /** Members in increasing order. */
  *[Symbol.iterator](): IterableIterator<number> {
    const pool = this.pool;
    for (let e = this.#head; e !== NO_ELEMENT; ) {
      const at = e * ELEMENT_WORDS;
      const origin = (pool.words[at + BASE_WORD] as number) * MEMBERS_PER_ELEMENT;
      for (let i = 0; i < BITS_WORDS; i++) {
        let word = pool.words[at + i] as number;
        while (word !== 0) {
          const low = word & -word;
          yield origin + i * 32 + 31 - Math.clz32(low);
          word = (word ^ low) >>> 0;
        }
      }
      e = pool.words[at + NEXT_WORD] as number;
    }
  }

  /** Members in increasing order, as a `Uint32Array`. */
  toArray(): Uint32Array {
    const out = new Uint32Array(this.count());
    let k = 0;
    const words = this.pool.words;
    for (let e = this.#head; e !== NO_ELEMENT; e = words[e * ELEMENT_WORDS + NEXT_WORD] as number) {
      const at = e * ELEMENT_WORDS;
      const origin = (words[at + BASE_WORD] as number) * MEMBERS_PER_ELEMENT;
      for (let i = 0; i < BITS_WORDS; i++) {
        let word = words[at + i] as number;
        while (word !== 0) {
          const low = word & -word;
          out[k++] = origin + i * 32 + 31 - Math.clz32(low);
          word = (word ^ low) >>> 0;
        }
      }
    }
    return out;
  }

  /**
   * MurmurHash3 over each element's base and 30 words of bits. Equal sets have equal hashes (the
   * representation is canonical); the GPU hash of the same set is the same.
   */
  hash(seed = 0): number {
    let h = seed >>> 0;
    let length = 0;
    const words = this.pool.words;
    for (let e = this.#head; e !== NO_ELEMENT; e = words[e * ELEMENT_WORDS + NEXT_WORD] as number) {
      const at = e * ELEMENT_WORDS;
      h = hashMix(h, words[at + BASE_WORD] as number);
      for (let i = 0; i < BITS_WORDS; i++) h = hashMix(h, words[at + i] as number);
      length += (BITS_WORDS + 1) * 4;
    }
    return hashFinish(h, length);
  }

  /** Removes every member, returning the elements to the pool. */
  clear(): void {
    const words = this.pool.words;
    for (let e = this.#head; e !== NO_ELEMENT; ) {
      const next = words[e * ELEMENT_WORDS + NEXT_WORD] as number;
      this.pool.release(e);
      e = next;
    }
    this.#head = NO_ELEMENT;
    this.#cursor = NO_ELEMENT;
  }

  /** Makes this set equal to `other`; true if it changed. */
  copyFrom(other: SparseBitVector): boolean {
    if (other === this || this.equals(other)) return false;
    this.clear();
    this.unionWith(other);
    return true;
  }

  /** A new vector in the same pool with the same members. */
  clone(): SparseBitVector {
    const copy = this.pool.create();
    copy.unionWith(this);
    return copy;
  }

  /** Frees the elements (the vector stays usable, empty). */
  destroy(): void {
    this.clear();
  }

  /** `{a, b, c}`. */
  toString(): string {
    return `{${[...this].join(', ')}}`;
  }

  /** The element list as laid out in the pool, for debugging. */
  dump(): string {
    const words = this.pool.words;
    const lines: string[] = [];
    for (let e = this.#head; e !== NO_ELEMENT; e = words[e * ELEMENT_WORDS + NEXT_WORD] as number) {
      const at = e * ELEMENT_WORDS;
      const bits = Array.from(words.subarray(at, at + BITS_WORDS), (w) =>
        w.toString(16).padStart(8, '0'),
      ).join(' ');
      lines.push(
        `#${e} base ${words[at + BASE_WORD]} next ${words[at + NEXT_WORD] === NO_ELEMENT ? '-' : words[at + NEXT_WORD]}: ${bits}`,
      );
    }
    return lines.join('\n');
  }
}

function isEmptyElement(words: Uint32Array, element: number): boolean {
  const at = element * ELEMENT_WORDS;
  for (let i = 0; i < BITS_WORDS; i++) if (words[at + i] !== 0) return false;
  return true;
}

function lowestMember(words: Uint32Array, element: number): number {
  const at = element * ELEMENT_WORDS;
  for (let i = 0; i < BITS_WORDS; i++) {
    const word = words[at + i] as number;
    if (word !== 0) {
      const low = word & -word;
      return (words[at + BASE_WORD] as number) * MEMBERS_PER_ELEMENT + i * 32 + 31 - Math.clz32(low);
    }
  }
  throw new Error('sparse bit vector invariant broken: empty element');
}
