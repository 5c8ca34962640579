const EMPTY = 0xffff_ffff;

/**
 * A set of (from, to) pairs of u32 node ids: open addressing with linear probing over two
 * `Uint32Array`s, doubling at half load. The solver's copy-edge dedup: inserting in any order costs
 * O(1), where a sorted bit-vector list would walk from its head for each out-of-order insert.
 *
 * @example
 * ```ts
 * const edges = new EdgeSet();
 * edges.add(3, 7); // true
 * edges.add(3, 7); // false: already there
 * ```
 */
export class EdgeSet {
  #from: Uint32Array;
  #to: Uint32Array;
  #mask: number;
  #size = 0;

  constructor(initialCapacity = 1 << 12) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.#from = new Uint32Array(capacity).fill(EMPTY);
    this.#to = new Uint32Array(capacity);
    this.#mask = capacity - 1;
  }

  /** Pairs stored. */
  get size(): number {
    return this.#size;
  }

  /** Adds the pair; true when it was not there. `from` must not be 2^32 − 1. */
  add(from: number, to: number): boolean {
    const fromArray = this.#from;
    const toArray = this.#to;
    const mask = this.#mask;
    let slot = hashPair(from, to) & mask;
    for (;;) {
      const f = fromArray[slot] as number;
      if (f === EMPTY) break;
      if (f === from && toArray[slot] === to) return false;
      slot = (slot + 1) & mask;
    }
    fromArray[slot] = from;
    toArray[slot] = to;
    if (++this.#size * 2 > mask) this.#grow();
    return true;
  }

  /** Whether the pair is in the set. */
  has(from: number, to: number): boolean {
    const mask = this.#mask;
    let slot = hashPair(from, to) & mask;
    for (;;) {
      const f = this.#from[slot] as number;
      if (f === EMPTY) return false;
      if (f === from && this.#to[slot] === to) return true;
      slot = (slot + 1) & mask;
    }
  }

  #grow(): void {
    const oldFrom = this.#from;
    const oldTo = this.#to;
    const capacity = oldFrom.length * 2;
    this.#from = new Uint32Array(capacity).fill(EMPTY);
    this.#to = new Uint32Array(capacity);
    this.#mask = capacity - 1;
    this.#size = 0;
    for (let i = 0; i < oldFrom.length; i++) {
      const f = oldFrom[i] as number;
      if (f !== EMPTY) this.add(f, oldTo[i] as number);
    }
  }
}

function hashPair(from: number, to: number): number {
  let h = Math.imul(from, 0x9e37_79b1) ^ to;
  h = Math.imul(h ^ (h >>> 16), 0x85eb_ca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
