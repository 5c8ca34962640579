import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ELEMENT_WORDS,
  MAX_MEMBER,
  NO_ELEMENT,
  packMemberPairs,
  packVectors,
  type SparseBitVector,
  SparseBitVectorPool,
  unpackVectors,
} from '../src/index';
import { boundaryMembers, memberSets } from '../src/testing/index';

const sorted = (s: Iterable<number>) => [...new Set(s)].sort((a, b) => a - b);
const members = (v: SparseBitVector) => [...v];

/** Structural invariants: sorted strictly increasing bases, no empty element, pool accounting. */
function expectWellFormed(v: SparseBitVector) {
  const words = v.pool.words;
  let previousBase = -1;
  for (let e = v.head; e !== NO_ELEMENT; e = words[e * 32 + 31] as number) {
    const base = words[e * 32 + 30] as number;
    expect(base).toBeGreaterThan(previousBase);
    previousBase = base;
    expect(words.subarray(e * 32, e * 32 + 30).some((w) => w !== 0)).toBe(true);
  }
}

describe('SparseBitVector against Set<number>', () => {
  it('agrees on test/set/reset/testAndSet sequences (model-based)', () => {
    const member = fc.oneof(
      fc.integer({ min: 0, max: 5000 }),
      fc.constantFrom(959, 960, 961, MAX_MEMBER - 1, MAX_MEMBER),
    );
    type Model = { set: Set<number> };
    type Real = { v: SparseBitVector };
    const commands = [
      member.map(
        (m) =>
          ({
            check: () => true,
            run: (model: Model, real: Real) => {
              expect(real.v.set(m)).toBe(!model.set.has(m));
              model.set.add(m);
            },
            toString: () => `set(${m})`,
          }) satisfies fc.Command<Model, Real>,
      ),
      member.map(
        (m) =>
          ({
            check: () => true,
            run: (model: Model, real: Real) => {
              expect(real.v.testAndSet(m)).toBe(!model.set.has(m));
              model.set.add(m);
            },
            toString: () => `testAndSet(${m})`,
          }) satisfies fc.Command<Model, Real>,
      ),
      member.map(
        (m) =>
          ({
            check: () => true,
            run: (model: Model, real: Real) => {
              expect(real.v.reset(m)).toBe(model.set.has(m));
              model.set.delete(m);
            },
            toString: () => `reset(${m})`,
          }) satisfies fc.Command<Model, Real>,
      ),
      member.map(
        (m) =>
          ({
            check: () => true,
            run: (model: Model, real: Real) => {
              expect(real.v.test(m)).toBe(model.set.has(m));
              expect(real.v.count()).toBe(model.set.size);
              expectWellFormed(real.v);
            },
            toString: () => `test(${m})`,
          }) satisfies fc.Command<Model, Real>,
      ),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 200 }), (cmds) => {
        const pool = new SparseBitVectorPool({ capacity: 2 });
        const real = { v: pool.create() };
        const model = { set: new Set<number>() };
        fc.modelRun(() => ({ model, real }), cmds);
        expect(members(real.v)).toEqual(sorted(model.set));
        real.v.clear();
        expect(pool.elementsInUse).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  const binary = [
    {
      name: 'unionWith',
      run: (a: SparseBitVector, b: SparseBitVector) => a.unionWith(b),
      model: (a: Set<number>, b: Set<number>) => new Set([...a, ...b]),
    },
    {
      name: 'intersectWith',
      run: (a: SparseBitVector, b: SparseBitVector) => a.intersectWith(b),
      model: (a: Set<number>, b: Set<number>) => new Set([...a].filter((m) => b.has(m))),
    },
    {
      name: 'subtract',
      run: (a: SparseBitVector, b: SparseBitVector) => a.subtract(b),
      model: (a: Set<number>, b: Set<number>) => new Set([...a].filter((m) => !b.has(m))),
    },
  ];

  it.each(binary)('$name gives the model result and says whether it changed', ({ run, model }) => {
    fc.assert(
      fc.property(memberSets(), memberSets(), fc.boolean(), (xs, ys, samePool) => {
        const pool = new SparseBitVectorPool({ capacity: 1 });
        const a = pool.fromArray(xs);
        const b = (samePool ? pool : new SparseBitVectorPool({ capacity: 1 })).fromArray(ys);
        const expected = model(new Set(xs), new Set(ys));
        const changed = run(a, b);
        expect(members(a)).toEqual(sorted(expected));
        expect(changed).toBe(
          expected.size !== new Set(xs).size || ![...expected].every((m) => xs.includes(m)),
        );
        expect(members(b)).toEqual(sorted(ys)); // the argument is untouched
        expectWellFormed(a);
      }),
      { numRuns: 300 },
    );
  });

  it('answers intersects, contains, equals, count, isEmpty, first, last, toArray like the model', () => {
    fc.assert(
      fc.property(memberSets(), memberSets(), (xs, ys) => {
        const pool = new SparseBitVectorPool();
        const a = pool.fromArray(xs);
        const b = pool.fromArray(ys);
        const sa = new Set(xs);
        const sb = new Set(ys);
        expect(a.intersects(b)).toBe([...sa].some((m) => sb.has(m)));
        expect(a.contains(b)).toBe([...sb].every((m) => sa.has(m)));
        expect(a.equals(b)).toBe(sa.size === sb.size && [...sa].every((m) => sb.has(m)));
        expect(a.count()).toBe(sa.size);
        expect(a.isEmpty()).toBe(sa.size === 0);
        expect(a.first()).toBe(sa.size ? Math.min(...sa) : undefined);
        expect(a.last()).toBe(sa.size ? Math.max(...sa) : undefined);
        expect([...a.toArray()]).toEqual(sorted(sa));
        expect(a.toString()).toBe(`{${sorted(sa).join(', ')}}`);
        // Random pairs are seldom subsets of each other: test a true containment every run.
        const union = pool.fromArray([...xs, ...ys]);
        expect(union.contains(a) && union.contains(b)).toBe(true);
        expect(a.contains(union)).toBe([...sb].every((m) => sa.has(m)));
      }),
      { numRuns: 300 },
    );
  });

  it('unionWithShifted adds member + offset within a global or per-member bound', () => {
    fc.assert(
      fc.property(
        memberSets(),
        memberSets(),
        fc.nat(3000),
        fc.nat(300_000),
        fc.boolean(),
        (xs, ys, offset, bound, perMember) => {
          const pool = new SparseBitVectorPool();
          const a = pool.fromArray(xs);
          const b = pool.fromArray(ys);
          // Per member: objects of 7 fields starting at multiples of 7 (the member's object ends there).
          const limit = perMember ? (m: number) => (Math.floor(m / 7) + 1) * 7 : bound;
          const expected = new Set(xs);
          for (const m of new Set(ys)) {
            const t = m + offset;
            if (t <= MAX_MEMBER && t < (typeof limit === 'number' ? limit : limit(m))) expected.add(t);
          }
          const changed = a.unionWithShifted(b, offset, limit);
          expect(members(a)).toEqual(sorted(expected));
          expect(changed).toBe(expected.size !== new Set(xs).size);
          expectWellFormed(a);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('hashes equal sets equally, wherever their elements sit in the pool', () => {
    fc.assert(
      fc.property(memberSets(), fc.shuffledSubarray([0, 1, 2, 3]), (xs, noise) => {
        const pool = new SparseBitVectorPool();
        const a = pool.fromArray(xs);
        const filler = pool.fromArray(noise.map((k) => k * 5000));
        const b = pool.fromArray([...xs].reverse());
        filler.clear();
        const c = pool.fromArray(xs);
        expect(b.hash()).toBe(a.hash());
        expect(c.hash()).toBe(a.hash());
        expect(a.hash(7)).not.toBe(a.hash(8));
      }),
    );
  });
});

describe('algebraic laws', () => {
  const three = fc.tuple(memberSets(), memberSets(), memberSets());
  const build = (pool: SparseBitVectorPool, xs: number[]) => pool.fromArray(xs);

  it('union and intersection are commutative, associative, idempotent; they distribute', () => {
    fc.assert(
      fc.property(three, ([xs, ys, zs]) => {
        const pool = new SparseBitVectorPool();
        const op = (x: number[], y: number[], f: 'unionWith' | 'intersectWith') => {
          const v = build(pool, x);
          v[f](build(pool, y));
          return v;
        };
        for (const f of ['unionWith', 'intersectWith'] as const) {
          expect(op(xs, ys, f).equals(op(ys, xs, f))).toBe(true);
          const left = op(xs, ys, f);
          left[f](build(pool, zs));
          const right = build(pool, xs);
          right[f](op(ys, zs, f));
          expect(left.equals(right)).toBe(true);
          const same = build(pool, xs);
          expect(same[f](build(pool, xs))).toBe(false);
          expect(same.equals(build(pool, xs))).toBe(true);
        }
        // a ∩ (b ∪ c) = (a ∩ b) ∪ (a ∩ c)
        const lhs = build(pool, xs);
        lhs.intersectWith(op(ys, zs, 'unionWith'));
        const rhs = op(xs, ys, 'intersectWith');
        rhs.unionWith(op(xs, zs, 'intersectWith'));
        expect(lhs.equals(rhs)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('difference identities: a − a = ∅, (a − b) ∩ b = ∅, (a − b) ∪ (a ∩ b) = a, a − ∅ = a', () => {
    fc.assert(
      fc.property(memberSets(), memberSets(), (xs, ys) => {
        const pool = new SparseBitVectorPool();
        const a = build(pool, xs);
        const self = a.clone();
        self.subtract(self);
        expect(self.isEmpty()).toBe(true);
        const diff = a.clone();
        diff.subtract(build(pool, ys));
        expect(diff.intersects(build(pool, ys))).toBe(false);
        const meet = a.clone();
        meet.intersectWith(build(pool, ys));
        diff.unionWith(meet);
        expect(diff.equals(a)).toBe(true);
        const untouched = a.clone();
        expect(untouched.subtract(pool.create())).toBe(false);
        expect(untouched.equals(a)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

describe('edge cases', () => {
  it('tests containment of members in the sign bit of a word (31, 959, 22079)', () => {
    const pool = new SparseBitVectorPool();
    for (const m of [31, 63, 959, 22_079]) {
      const a = pool.fromArray([m]);
      expect(a.contains(pool.fromArray([m]))).toBe(true);
      expect(pool.fromArray([m, m - 1]).contains(a)).toBe(true);
      expect(a.contains(pool.fromArray([m - 1]))).toBe(false);
    }
  });

  it('keeps 959, 960 and 961 in neighbouring elements', () => {
    const pool = new SparseBitVectorPool();
    const v = pool.fromArray([961, 959, 960]);
    expect(v.elementCount).toBe(2);
    expect([...v]).toEqual([959, 960, 961]);
    expect(v.reset(959)).toBe(true);
    expect(v.elementCount).toBe(1);
  });

  it('holds ids near 2^32 − 2 and rejects non-u32 members', () => {
    const pool = new SparseBitVectorPool();
    const v = pool.fromArray([MAX_MEMBER - 1, MAX_MEMBER, 0]);
    expect(v.last()).toBe(MAX_MEMBER);
    expect(v.test(MAX_MEMBER - 1)).toBe(true);
    expect(v.unionWithShifted(pool.fromArray([MAX_MEMBER - 3]), 2)).toBe(false); // 2^32 − 1 is already there
    expect(v.unionWithShifted(pool.fromArray([MAX_MEMBER - 3]), 5)).toBe(false); // past u32: dropped
    expect(() => v.set(MAX_MEMBER + 1)).toThrow(RangeError);
    expect(() => v.set(-1)).toThrow(RangeError);
    expect(() => v.test(1.5)).toThrow(RangeError);
  });

  it('handles empty sets in every operation', () => {
    const pool = new SparseBitVectorPool();
    const empty = pool.create();
    const other = pool.fromArray([1, 2000]);
    expect(empty.first()).toBeUndefined();
    expect(empty.last()).toBeUndefined();
    expect(empty.count()).toBe(0);
    expect(empty.intersectWith(other)).toBe(false);
    expect(empty.subtract(other)).toBe(false);
    expect(other.contains(empty)).toBe(true);
    expect(empty.contains(other)).toBe(false);
    expect(empty.intersects(other)).toBe(false);
    expect(empty.equals(pool.create())).toBe(true);
    expect(empty.toString()).toBe('{}');
    expect(other.intersectWith(empty)).toBe(true);
    expect(other.isEmpty()).toBe(true);
    expect(pool.elementsInUse).toBe(0);
  });

  it('builds long chains, frees their elements for reuse, and grows the pool mid-operation', () => {
    const pool = new SparseBitVectorPool({ capacity: 1 });
    const spread = Array.from({ length: 3000 }, (_, k) => k * 961);
    const a = pool.fromArray(spread);
    expect(a.elementCount).toBe(3000);
    const b = pool.fromArray(spread.map((m) => m + 1));
    const capacityBefore = pool.capacity;
    expect(a.unionWith(b)).toBe(true); // allocates into a pool that must grow while both lists are walked
    expect(a.count()).toBe(6000);
    expect(pool.capacity).toBeGreaterThanOrEqual(capacityBefore);
    const inUse = pool.elementsInUse;
    const freed = a.elementCount;
    const capacity = pool.capacity;
    a.clear();
    expect(pool.elementsInUse).toBe(inUse - freed);
    const c = pool.fromArray(spread);
    expect(pool.elementsInUse).toBe(inUse - freed + 3000);
    expect(pool.capacity).toBe(capacity); // c was built from a's freed elements, no growth
    expect(c.equals(pool.fromArray(spread))).toBe(true);
  });

  it('property arbitraries straddle element and word boundaries', () => {
    fc.assert(
      fc.property(boundaryMembers(), (xs) => {
        for (const m of xs) expect([30, 31, 0, 1]).toContain(m % 32);
      }),
    );
    const seen = new Set(
      fc
        .sample(boundaryMembers(), 200)
        .flat()
        .map((m) => m % 960),
    );
    expect([...seen].some((r) => r === 959 || r === 0)).toBe(true); // element boundaries
    expect([...seen].some((r) => r !== 959 && r !== 0 && r % 32 === 31)).toBe(true); // word ones
  });
});

describe.each([
  { simd: true, label: 'WebAssembly SIMD kernels' },
  { simd: false, label: 'JavaScript word loops' },
])('one pool on $label', ({ simd }) => {
  it('has SIMD kernels exactly when asked (WebAssembly SIMD is available on Node 20)', () => {
    expect(new SparseBitVectorPool({ simd }).simd !== undefined).toBe(simd);
  });

  it('unionWith and setToDifference match the Set model, growing from one element', () => {
    fc.assert(
      fc.property(memberSets(), memberSets(), (xs, ys) => {
        const pool = new SparseBitVectorPool({ capacity: 1, simd });
        const a = pool.fromArray(xs);
        const b = pool.fromArray(ys);
        const difference = pool.create();
        const expectedDifference = sorted(xs).filter((x) => !ys.includes(x));
        expect(difference.setToDifference(a, b)).toBe(expectedDifference.length > 0);
        expect(members(difference)).toEqual(expectedDifference);
        expectWellFormed(difference);
        const grew = a.unionWith(b);
        expect(members(a)).toEqual(sorted([...xs, ...ys]));
        expect(grew).toBe(sorted([...xs, ...ys]).length > sorted(xs).length);
        expectWellFormed(a);
      }),
    );
  });
});

describe('setSorted', () => {
  it('adds an ascending member list like set() one by one, and says whether it grew', () => {
    fc.assert(
      fc.property(memberSets(), memberSets(), (xs, ys) => {
        const pool = new SparseBitVectorPool({ capacity: 1 });
        const a = pool.fromArray(xs);
        const ascending = Uint32Array.from(ys).sort();
        const expected = sorted([...xs, ...ys]);
        expect(a.setSorted(ascending)).toBe(expected.length > sorted(xs).length);
        expect(members(a)).toEqual(expected);
        expectWellFormed(a);
      }),
    );
  });

  it('refuses a list that is not ascending', () => {
    const pool = new SparseBitVectorPool();
    expect(() => pool.create().setSorted([5, 3])).toThrow(RangeError);
  });
});

describe('packMemberPairs', () => {
  it('packs (vector, member) pairs into the lists set() builds, in vector order, repeats once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.nat(11), memberSets()), { maxLength: 10 }),
        fc.nat(50),
        (vectorCount, groups, firstElement) => {
          const vectors: number[] = [];
          const members: number[] = [];
          const model = new Map<number, Set<number>>();
          for (const [raw, list] of groups) {
            const v = raw % vectorCount;
            for (const m of list) {
              // Each pair twice, the second time later, to check repeats count once.
              vectors.push(v, v);
              members.push(m, m);
              const set = model.get(v) ?? new Set<number>();
              model.set(v, set);
              set.add(m);
            }
          }
          const packed = packMemberPairs(
            vectorCount,
            Uint32Array.from(vectors),
            Uint32Array.from(members),
            vectors.length,
            firstElement,
          );
          let distinct = 0;
          for (const set of model.values()) distinct += set.size;
          expect(packed.members).toBe(distinct);
          // The same words as packVectors of the vectors that set() builds, vector by vector.
          const pool = new SparseBitVectorPool();
          const built = Array.from({ length: vectorCount }, (_, v) =>
            pool.fromArray([...(model.get(v) ?? [])]),
          );
          const reference = packVectors(built, firstElement);
          expect(packed.words).toEqual(reference.words);
          expect(packed.heads).toEqual(reference.heads);
          // And the lists are canonical and hold the model's members.
          const shifted = new Uint32Array(
            (firstElement + packed.words.length / ELEMENT_WORDS) * ELEMENT_WORDS,
          );
          shifted.set(packed.words, firstElement * ELEMENT_WORDS);
          const decoded = unpackVectors(new SparseBitVectorPool(), shifted, packed.heads);
          decoded.forEach((vector, v) => {
            expect([...vector.toArray()]).toEqual([...(model.get(v) ?? [])].sort((a, b) => a - b));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('gives empty vectors no element', () => {
    const packed = packMemberPairs(3, Uint32Array.of(2, 0, 0), Uint32Array.of(7, 961, 5));
    expect([...packed.heads]).toEqual([0, NO_ELEMENT, 2]);
    expect(packed.words.length).toBe(3 * ELEMENT_WORDS);
    expect(packed.members).toBe(3);
  });

  it('refuses a vector id past the count and a pair count past the arrays', () => {
    expect(() => packMemberPairs(2, Uint32Array.of(2), Uint32Array.of(0))).toThrow(RangeError);
    expect(() => packMemberPairs(2, Uint32Array.of(0), Uint32Array.of(0), 2)).toThrow(RangeError);
  });
});
