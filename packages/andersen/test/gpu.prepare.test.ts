import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { takeHostArrays } from '../src/gpu/host-arrays';
import { RULE_KIND } from '../src/gpu/layout';
import { type PreparedProgram, prepareProgram } from '../src/gpu/prepare/prepare';
import { ConstraintKind } from '../src/model/program';
import { programWithHcdPairs } from './hcd-programs';

/** What the uploads read of a prepared program (its arrays may be longer views' prefixes). */
function uploaded(prepared: PreparedProgram) {
  const pairs = prepared.initialPairs;
  return {
    nodeCount: prepared.nodeCount,
    offlineMerges: prepared.offlineMerges,
    ruleCount: prepared.ruleCount,
    hcdCount: prepared.hcdCount,
    parent: [...prepared.parent],
    objectSize: [...prepared.objectSize],
    rules: [...prepared.rules],
    keys: [...pairs.keys.subarray(0, pairs.count)],
    sources: [...pairs.sources.subarray(0, pairs.count)],
    points: pairs.points,
  };
}

describe('host arrays kept between solves', () => {
  it('hands the same memory to the next taker once released, and a set of its own to a second taker meanwhile', () => {
    const owner = {};
    const first = takeHostArrays(owner);
    const a = first.uint32('a', 100, 5);
    expect(a.length).toBe(100);
    expect(a.every((x) => x === 5)).toBe(true);
    // Taken while the first set is out: new memory, zero unless asked.
    const second = takeHostArrays(owner);
    const b = second.uint32('a', 100);
    expect(b.buffer).not.toBe(a.buffer);
    expect(b.every((x) => x === 0)).toBe(true);
    first.release();
    second.release();
    // The first set released is the one kept.
    const third = takeHostArrays(owner);
    const again = third.uint32('a', 60);
    expect(again.buffer).toBe(a.buffer);
    expect(again.length).toBe(60);
    expect(again.every((x) => x === 5)).toBe(true);
    expect(third.uint32('a', 60, 0).every((x) => x === 0)).toBe(true);
    // Longer than kept: a new array, kept from now on.
    const longer = third.uint32('a', 1000);
    expect(longer.buffer).not.toBe(a.buffer);
    expect(third.bytes).toBeGreaterThanOrEqual(4000);
    third.release();
    third.release();
    expect(() => third.uint32('a', 1)).toThrow(/released/);
    expect(takeHostArrays(owner).uint32('a', 1000).buffer).toBe(longer.buffer);
  });

  it('keeps nothing with keep: false', () => {
    const owner = {};
    const arrays = takeHostArrays(owner, { keep: false });
    const a = arrays.uint32('a', 10, 3);
    arrays.release();
    expect(takeHostArrays(owner).uint32('a', 10).buffer).not.toBe(a.buffer);
  });

  it('prepares a program in arrays another program left dirty exactly as in new ones', () => {
    fc.assert(
      fc.property(programWithHcdPairs(40), programWithHcdPairs(25), ([before, beforeHcd], [program, hcd]) => {
        const owner = {};
        const dirty = takeHostArrays(owner);
        const left = prepareProgram(before, beforeHcd, dirty);
        // Scribble over whatever the first program left, past its lengths too.
        for (const array of [left.parent, left.rules, left.initialPairs.keys]) array.fill(0xdead);
        dirty.release();
        const reused = takeHostArrays(owner);
        const got = uploaded(prepareProgram(program, hcd, reused));
        reused.release();
        expect(got).toEqual(uploaded(prepareProgram(program, hcd)));
      }),
      { numRuns: 200 },
    );
  });

  it('puts every class under its smallest id, however the merges are ordered', () => {
    fc.assert(
      fc.property(programWithHcdPairs(40), ([program, hcd]) => {
        const prepared = prepareProgram(program, hcd);
        const n = program.nodeCount;
        // The reference: each merge's two classes become one whose representative is its smallest id.
        const classOf = Array.from({ length: n }, (_, v) => new Set([v]));
        for (let i = 0; i + 1 < hcd.offlineMerges.length; i += 2) {
          const a = classOf[hcd.offlineMerges[i] as number] as Set<number>;
          const b = classOf[hcd.offlineMerges[i + 1] as number] as Set<number>;
          if (a === b) continue;
          for (const v of b) {
            a.add(v);
            classOf[v] = a;
          }
        }
        for (let v = 0; v < n; v++) {
          expect(prepared.parent[v]).toBe(Math.min(...(classOf[v] as Set<number>)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('lists the loads, stores and offsets as rules in constraint order, then the online pairs', () => {
    const kindOf = { [ConstraintKind.Load]: RULE_KIND.load, [ConstraintKind.Store]: RULE_KIND.store };
    fc.assert(
      fc.property(programWithHcdPairs(40), ([program, hcd]) => {
        const prepared = prepareProgram(program, hcd);
        const c = program.constraints;
        const expected: number[] = [];
        for (let i = 0; i < c.length; i++) {
          const kind = c.kind[i] as ConstraintKind;
          if (kind === ConstraintKind.AddressOf || kind === ConstraintKind.Copy) continue;
          expected.push(
            (kindOf as Record<number, number>)[kind] ?? RULE_KIND.offset,
            c.src[i] as number,
            c.offset[i] as number,
            c.dst[i] as number,
          );
        }
        expect(prepared.ruleCount).toBe(expected.length / 4);
        const online = [...hcd.online];
        for (let i = 0; i + 1 < online.length; i += 2)
          expected.push(online[i] as number, online[i + 1] as number, 0, 0);
        expect(prepared.hcdCount).toBe(Math.floor(online.length / 2));
        if (expected.length === 0) expected.push(0, 0, 0, 0);
        expect([...prepared.rules]).toEqual(expected);
        expect([...prepared.objectSize]).toEqual([...program.objectSize]);
      }),
      { numRuns: 200 },
    );
  });
});
