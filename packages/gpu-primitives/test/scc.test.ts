import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createStronglyConnectedComponents,
  type EdgeList,
  stronglyConnectedComponentsReference,
} from '../src/index';

function edgeList(nodeCount: number, pairs: readonly (readonly [number, number])[]): EdgeList {
  return {
    nodeCount,
    sources: Uint32Array.from(pairs.map((p) => p[0])),
    targets: Uint32Array.from(pairs.map((p) => p[1])),
  };
}

/** The oracle: u and v share a component iff each reaches the other (transitive closure). */
function componentsByClosure(graph: EdgeList): number[] {
  const n = graph.nodeCount;
  const reach = Array.from({ length: n }, (_, v) => {
    const row = new Uint8Array(n);
    row[v] = 1;
    return row;
  });
  for (let e = 0; e < graph.sources.length; e++)
    (reach[graph.sources[e] as number] as Uint8Array)[graph.targets[e] as number] = 1;
  for (let k = 0; k < n; k++)
    for (let i = 0; i < n; i++)
      if ((reach[i] as Uint8Array)[k])
        for (let j = 0; j < n; j++) if ((reach[k] as Uint8Array)[j]) (reach[i] as Uint8Array)[j] = 1;
  return Array.from({ length: n }, (_, v) => {
    for (let u = 0; u < n; u++) if ((reach[u] as Uint8Array)[v] && (reach[v] as Uint8Array)[u]) return u;
    return v;
  });
}

/** Random graphs, plus planted shapes the coloring finds hard: long cycles, chains of cycles, self-loops. */
const graphArb = (maxNodes: number): fc.Arbitrary<EdgeList> =>
  fc
    .integer({ min: 1, max: maxNodes })
    .chain((n) =>
      fc.record({
        n: fc.constant(n),
        random: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
        cycles: fc.array(fc.array(fc.nat(n - 1), { minLength: 1, maxLength: n }), { maxLength: 3 }),
        chain: fc.boolean(),
      }),
    )
    .map(({ n, random, cycles, chain }) => {
      const pairs: [number, number][] = [...random];
      for (const cycle of cycles)
        cycle.forEach((v, i) => {
          pairs.push([v, cycle[(i + 1) % cycle.length] as number]);
        });
      // Descending chain of 2-cycles: each round of coloring removes only one of them.
      if (chain)
        for (let v = n - 1; v >= 2; v -= 2) {
          pairs.push([v, v - 1], [v - 1, v], [v - 1, v - 2]);
        }
      return edgeList(n, pairs);
    });

describe('stronglyConnectedComponentsReference', () => {
  it('labels each node with the smallest node of its component', () => {
    const graph = edgeList(6, [
      [0, 1],
      [1, 2],
      [2, 1],
      [3, 3],
      [4, 5],
      [5, 4],
      [2, 4],
    ]);
    expect([...stronglyConnectedComponentsReference(graph)]).toEqual([0, 1, 1, 3, 4, 4]);
  });

  it('agrees with mutual reachability', () => {
    fc.assert(
      fc.property(graphArb(24), (graph) => {
        expect([...stronglyConnectedComponentsReference(graph)]).toEqual(componentsByClosure(graph));
      }),
      { numRuns: 200 },
    );
  });

  it('rejects malformed edge lists', () => {
    expect(() => stronglyConnectedComponentsReference(edgeList(2, [[0, 2]]))).toThrow(RangeError);
    expect(() =>
      stronglyConnectedComponentsReference({
        nodeCount: 2,
        sources: Uint32Array.of(0),
        targets: new Uint32Array(0),
      }),
    ).toThrow(/sources/);
  });

  it('handles a path of 200,000 nodes and a cycle through all of them without recursion', () => {
    const n = 200_000;
    const sources = Uint32Array.from({ length: n }, (_, v) => v);
    const targets = Uint32Array.from({ length: n }, (_, v) => (v + 1) % n);
    expect(new Set(stronglyConnectedComponentsReference({ nodeCount: n, sources, targets })).size).toBe(1);
    expect(
      new Set(
        stronglyConnectedComponentsReference({
          nodeCount: n,
          sources: sources.subarray(0, n - 1),
          targets: targets.subarray(0, n - 1),
        }),
      ).size,
    ).toBe(n);
  });
});

describeGpu('strongly connected components (coloring with trimming)', (gpu) => {
  it('equals the reference on random graphs with planted cycles and chains of cycles', async () => {
    const scc = createStronglyConnectedComponents(gpu.ctx);
    await fc.assert(
      fc.asyncProperty(graphArb(300), async (graph) => {
        const { component } = await scc.run(graph);
        expect([...component]).toEqual([...stronglyConnectedComponentsReference(graph)]);
      }),
      { numRuns: 25 },
    );
    scc.destroy();
  });

  it('handles no nodes, no edges, one self-loop, and one propagation step per check', async () => {
    const scc = createStronglyConnectedComponents(gpu.ctx);
    expect((await scc.run(edgeList(0, []))).component.length).toBe(0);
    expect([...(await scc.run(edgeList(3, []))).component]).toEqual([0, 1, 2]);
    expect([...(await scc.run(edgeList(1, [[0, 0]]))).component]).toEqual([0]);
    const ring = edgeList(
      500,
      Array.from({ length: 500 }, (_, v) => [(v * 7) % 500, ((v + 1) * 7) % 500] as [number, number]),
    );
    const { component, rounds, batches } = await scc.run(ring, { stepsPerCheck: 1 });
    expect(new Set(component)).toEqual(new Set([0]));
    expect(rounds).toBe(1);
    // Trimming (1 batch), at most 499 color steps to the fixed point (a step may carry a color
    // several edges) and one to see it, the same backwards, then finish.
    expect(batches).toBeGreaterThanOrEqual(4);
    expect(batches).toBeLessThanOrEqual(1 + 500 + 500 + 1);
    await expect(scc.run(edgeList(2, [[0, 5]]))).rejects.toThrow(RangeError);
    scc.destroy();
    await expect(scc.run(edgeList(1, []))).rejects.toThrow(/destroy/);
  });
});
