import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ConstraintProgram,
  createConstraintBuilder,
  solveAndersen,
  solveAndersenReference,
} from '../src/index';

/**
 * Programs shaped to exercise the CPU engine's shortcuts: layers of variables with high fan-in
 * (the same delta reaches a node along many paths, so interned deltas are skipped), nodes with
 * many offset constraints over few distinct offsets (one shifted set serves them all), loads and
 * stores through the layers, and back edges that close cycles after the first rounds.
 */
const layeredProgram: fc.Arbitrary<ConstraintProgram> = fc
  .record({
    objects: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 8 }),
    layers: fc.integer({ min: 2, max: 5 }),
    width: fc.integer({ min: 1, max: 6 }),
    seeds: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 12 }),
    fanIn: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 60 }),
    offsets: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 3 })), { maxLength: 40 }),
    complex: fc.array(fc.tuple(fc.boolean(), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 2 })), {
      maxLength: 16,
    }),
    backEdges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 }),
  })
  .map(({ objects, layers, width, seeds, fanIn, offsets, complex, backEdges }) => {
    const b = createConstraintBuilder();
    const objectIds = objects.map((fields, i) => b.object(`o${i}`, { fields }));
    const grid = Array.from({ length: layers }, (_, l) =>
      Array.from({ length: width }, (_, i) => b.variable(`v${l}_${i}`)),
    );
    const at = (layer: number, index: number) => grid[layer % layers]?.[index % width] as number;
    const object = (k: number) => objectIds[k % objectIds.length] as number;
    for (const [i, o, field] of seeds) {
      const base = object(o);
      // &o.field for a field that exists (field 0 is the object itself).
      const fields = (objects[o % objects.length] as number) - 1;
      b.addressOf(at(0, i), base + (field % (fields + 1)));
    }
    for (const [layer, from, to] of fanIn) {
      const l = layer % (layers - 1);
      b.copy(at(l + 1, to), at(l, from));
    }
    // Many offset constraints from one source with few distinct offsets (0–3, past some objects
    // but, as the model requires, within the largest).
    const largest = Math.max(...objects);
    for (const [from, to, k] of offsets) b.offset(at(layers - 1, to), at(from % layers, from), k % largest);
    for (const [isLoad, p, q, k] of complex) {
      if (isLoad) b.load(at(p, q), at(q, p), k % largest);
      else b.store(at(p, q), at(q + 1, p), k % largest);
    }
    for (const [from, to] of backEdges) b.copy(at(0, to), at(layers - 1, from));
    return b.build();
  });

describe('CPU engine shortcuts (fan-in, shared offsets) against the literal definition', () => {
  it('gives every node exactly the reference set', async () => {
    await fc.assert(
      fc.asyncProperty(layeredProgram, async (program) => {
        const expected = solveAndersenReference(program);
        const result = await solveAndersen(program, { engine: 'cpu' });
        for (let v = 0; v < program.nodeCount; v++) {
          expect([...result.pointsTo(v)]).toEqual([...(expected[v] as Set<number>)].sort((a, b) => a - b));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('lets one shifted set serve many offset constraints of one source', async () => {
    const b = createConstraintBuilder();
    const s = b.object('s', { fields: 4 });
    const t = b.object('t', { fields: 2 });
    const p = b.variable('p');
    b.addressOf(p, s).addressOf(p, t);
    // p + 1 twice, p + 3 once (past t), p + 0 once: three distinct offsets, four destinations.
    const [a, c, d, e] = [b.variable('a'), b.variable('c'), b.variable('d'), b.variable('e')];
    b.offset(a, p, 1).offset(c, p, 1).offset(d, p, 3).offset(e, p, 0);
    const result = await solveAndersen(b.build(), { engine: 'cpu' });
    expect([...result.pointsTo(a)]).toEqual([s + 1, t + 1]);
    expect([...result.pointsTo(c)]).toEqual([s + 1, t + 1]);
    expect([...result.pointsTo(d)]).toEqual([s + 3]);
    expect([...result.pointsTo(e)]).toEqual([s, t]);
  });

  it('keeps the HCD targets of merged pointers apart while the pointers point nowhere', async () => {
    // x1 and x2 form a copy cycle and never point anywhere; each is the pointer of an HCD pair
    // (a1 = *x1; *x1 = a1, likewise a2 with x2). Merging x1 with x2 must not merge a1 with a2.
    const b = createConstraintBuilder();
    const [o1, o2] = [b.object('o1'), b.object('o2')];
    const [a1, a2, x1, x2] = [b.variable('a1'), b.variable('a2'), b.variable('x1'), b.variable('x2')];
    b.addressOf(a1, o1).addressOf(a2, o2).copy(x1, x2).copy(x2, x1);
    b.load(a1, x1).store(x1, a1).load(a2, x2).store(x2, a2);
    const program = b.build();
    // The online pairs (y, x) these cycles justify: every o in pts(x) is equivalent to y.
    const hcd = { offlineMerges: new Uint32Array(0), online: Uint32Array.of(a1, x1, a2, x2) };
    const result = await solveAndersen(program, { engine: 'cpu', hcd });
    expect([...result.pointsTo(a1)]).toEqual([o1]);
    expect([...result.pointsTo(a2)]).toEqual([o2]);
    expect(result.representative(x1)).toBe(result.representative(x2));
  });

  it('merges the HCD targets once the merged pointers point somewhere', async () => {
    const b = createConstraintBuilder();
    const [o1, o2, t] = [b.object('o1'), b.object('o2'), b.object('t')];
    const [a1, a2, x1, x2] = [b.variable('a1'), b.variable('a2'), b.variable('x1'), b.variable('x2')];
    b.addressOf(a1, o1).addressOf(a2, o2).copy(x1, x2).copy(x2, x1).addressOf(x1, t);
    b.load(a1, x1).store(x1, a1).load(a2, x2).store(x2, a2);
    const program = b.build();
    const expected = solveAndersenReference(program);
    const hcd = { offlineMerges: new Uint32Array(0), online: Uint32Array.of(a1, x1, a2, x2) };
    const result = await solveAndersen(program, { engine: 'cpu', hcd });
    for (let v = 0; v < program.nodeCount; v++) {
      expect([...result.pointsTo(v)]).toEqual([...(expected[v] as Set<number>)].sort((x, y) => x - y));
    }
    expect([...result.pointsTo(a1)]).toEqual([o1, o2]);
  });
});
