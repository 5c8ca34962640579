import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readHardekopf } from '../src/io/index';
import { ConstraintKind, type ConstraintProgram } from '../src/model/program';
import { createGpuOfflinePasses, type GpuOfflinePasses } from '../src/offline/gpu/index';
import { compressEdges, stronglyConnectedComponents } from '../src/offline/graph';
import {
  computeHvn,
  computeOfflineHcd,
  type HvnResult,
  type OfflineHcd,
  type OfflineHcdOptions,
  runOfflinePasses,
} from '../src/offline/index';
import { componentsFromLabels } from '../src/offline/pass';
import { constraintProgram, cShapedProgram } from '../src/testing/index';
import { benchmarkPrefix, describeEachBenchmark } from './benchmarks';

/** Labels renamed by first appearance (0 stays 0): equal exactly when two labellings are equal up to renaming. */
function canonicalLabels(labels: Uint32Array): number[] {
  const rename = new Map<number, number>([[0, 0]]);
  return Array.from(labels, (l) => {
    let r = rename.get(l);
    if (r === undefined) {
      r = rename.size;
      rename.set(l, r);
    }
    return r;
  });
}

/** Pairs `y, x` (flat) as a sorted list of `y,x` strings: the table's content whatever its order. */
function pairSet(pairs: Uint32Array): string[] {
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) out.push(`${pairs[i]},${pairs[i + 1]}`);
  return out.sort();
}

function expectSameHvn(gpu: HvnResult, cpu: HvnResult): void {
  expect([...gpu.merges]).toEqual([...cpu.merges]);
  expect(gpu.nonPointers).toBe(cpu.nonPointers);
  expect(canonicalLabels(gpu.labels)).toEqual(canonicalLabels(cpu.labels));
  expect({ ...gpu.statistics, elapsedMs: 0 }).toEqual({ ...cpu.statistics, elapsedMs: 0 });
}

function expectSameHcd(gpu: OfflineHcd, cpu: OfflineHcd): void {
  expect(pairSet(gpu.offlineMerges)).toEqual(pairSet(cpu.offlineMerges));
  expect(pairSet(gpu.online)).toEqual(pairSet(cpu.online));
  expect({ ...gpu.statistics, elapsedMs: 0 }).toEqual({ ...cpu.statistics, elapsedMs: 0 });
}

function program(
  nodeCount: number,
  objects: number,
  rows: readonly (readonly number[])[],
): ConstraintProgram {
  const objectSize = new Uint32Array(nodeCount);
  objectSize.fill(1, 0, objects);
  return {
    nodeCount,
    objectSize,
    isFunction: new Uint8Array(nodeCount),
    constraints: {
      length: rows.length,
      kind: Uint8Array.from(rows, (r) => r[0] as number),
      dst: Uint32Array.from(rows, (r) => r[1] as number),
      src: Uint32Array.from(rows, (r) => r[2] as number),
      offset: Uint32Array.from(rows, (r) => r[3] as number),
    },
  };
}

/**
 * Programs that stress HVN's labelling: many variables taking the addresses of the same few
 * objects and copying from the same few sources (many equal predecessor sets, built in different
 * orders), loads and offsets of equal pointers, long copy cycles and cycles through loads (big
 * components), nodes with many predecessors (deep set trees).
 */
const hvnShapes = fc
  .record({
    objects: fc.integer({ min: 1, max: 6 }),
    variables: fc.integer({ min: 1, max: 150 }),
    seed: fc.array(fc.tuple(fc.nat(4), fc.nat(), fc.nat(), fc.nat(1)), { maxLength: 400 }),
    cycle: fc.array(fc.nat(), { maxLength: 60 }),
    loadCycle: fc.boolean(),
    fan: fc.nat(80),
  })
  .map(({ objects, variables, seed, cycle, loadCycle, fan }) => {
    const n = objects + variables;
    const variable = (x: number) => objects + (x % variables);
    const rows: number[][] = [];
    for (const [pattern, a, b, offset] of seed) {
      if (pattern === 0) rows.push([ConstraintKind.AddressOf, variable(a), b % Math.min(objects, 2)]);
      else if (pattern === 1) rows.push([ConstraintKind.Copy, variable(a), variable(b % 4)]);
      else if (pattern === 2) rows.push([ConstraintKind.Load, variable(a), variable(b % 3), offset]);
      else if (pattern === 3) rows.push([ConstraintKind.Offset, variable(a), variable(b % 3), offset]);
      else rows.push([ConstraintKind.Copy, variable(a), variable(b)]);
    }
    cycle.forEach((x, i) => {
      rows.push([ConstraintKind.Copy, variable(cycle[(i + 1) % cycle.length] as number), variable(x)]);
    });
    if (loadCycle && variables > 1)
      rows.push(
        [ConstraintKind.Load, variable(0), variable(1), 0],
        [ConstraintKind.Copy, variable(1), variable(0)],
      );
    for (let k = 0; k < fan; k++) rows.push([ConstraintKind.AddressOf, variable(variables - 1), k % objects]);
    for (let k = 0; k < fan; k++) rows.push([ConstraintKind.Copy, variable(variables - 2), variable(k)]);
    return program(
      n,
      objects,
      rows.map((r) => [r[0] as number, r[1] as number, r[2] as number, r[3] ?? 0]),
    );
  });

const anyProgram = fc.oneof(
  constraintProgram({ maxNodes: 60, maxConstraints: 120 }),
  cShapedProgram(),
  hvnShapes,
);

describe('componentsFromLabels', () => {
  it('gives Tarjan’s components, numbered sinks first with members increasing', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((n) =>
            fc.tuple(fc.constant(n), fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 80 })),
          ),
        ([n, pairs]) => {
          const graph = compressEdges(n, Uint32Array.from(pairs.flat()), pairs.length);
          const tarjan = stronglyConnectedComponents(graph);
          const smallest = Uint32Array.from({ length: n }, (_, v) => {
            const c = tarjan.component[v] as number;
            return tarjan.members[tarjan.memberStart[c] as number] as number;
          });
          const ours = componentsFromLabels(graph, smallest);
          expect(ours.count).toBe(tarjan.count);
          for (const [u, w] of pairs) {
            expect(ours.component[u] === ours.component[w]).toBe(tarjan.component[u] === tarjan.component[w]);
            expect(ours.component[u] as number).toBeGreaterThanOrEqual(ours.component[w] as number);
          }
          for (let c = 0; c < ours.count; c++) {
            const members = [...ours.members.subarray(ours.memberStart[c], ours.memberStart[c + 1])];
            expect(members).toEqual([...members].sort((a, b) => a - b));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects labels that are not components', () => {
    const graph = compressEdges(2, Uint32Array.of(0, 1, 1, 0), 2);
    expect(() => componentsFromLabels(graph, Uint32Array.of(0, 1))).toThrow(RangeError);
    expect(() => componentsFromLabels(graph, Uint32Array.of(0))).toThrow(RangeError);
  });
});

describeGpu('offline passes on the GPU', (gpu) => {
  let passes: GpuOfflinePasses;
  const withPasses = async (body: () => Promise<void>) => {
    passes = createGpuOfflinePasses(gpu.ctx);
    try {
      await body();
    } finally {
      passes.destroy();
    }
  };

  it('HVN gives the CPU pass’s merges and labels on random programs', () =>
    withPasses(async () => {
      await fc.assert(
        fc.asyncProperty(anyProgram, fc.boolean(), async (p, mergeNonPointers) => {
          expectSameHvn(
            await passes.computeHvn(p, { mergeNonPointers }),
            computeHvn(p, { mergeNonPointers }),
          );
        }),
        { numRuns: 30 },
      );
    }));

  it.each([0, 2])(
    'HVN stays exact when the table’s hash is cut to %i bits (every record collides)',
    (hashBits) =>
      withPasses(async () => {
        await fc.assert(
          fc.asyncProperty(fc.oneof(hvnShapes, cShapedProgram()), async (p) => {
            expectSameHvn(await passes.computeHvn(p, { hashBits, roundsPerCheck: 1 }), computeHvn(p));
          }),
          { numRuns: 8 },
        );
      }),
  );

  it.each<OfflineHcdOptions>([{}, { refCycleVariables: 'merge' }, { searchLimit: 3 }])(
    'offline HCD gives the CPU pass’s table on random programs (%o)',
    (options) =>
      withPasses(async () => {
        await fc.assert(
          fc.asyncProperty(anyProgram, async (p) => {
            expectSameHcd(await passes.computeOfflineHcd(p, options), computeOfflineHcd(p, options));
          }),
          { numRuns: 20 },
        );
      }),
  );

  it('handles a program with no constraints and one with no nodes', () =>
    withPasses(async () => {
      for (const p of [program(3, 1, []), program(0, 0, [])]) {
        expectSameHvn(await passes.computeHvn(p), computeHvn(p));
        expectSameHcd(await passes.computeOfflineHcd(p), computeOfflineHcd(p));
      }
    }));

  it('runOfflinePasses gives the same passes on either engine, and only those asked for', async () => {
    const p = program(4, 1, [
      [ConstraintKind.AddressOf, 1, 0, 0],
      [ConstraintKind.AddressOf, 2, 0, 0],
      [ConstraintKind.Copy, 3, 1, 0],
      [ConstraintKind.Copy, 1, 3, 0],
    ]);
    const cpu = await runOfflinePasses(p);
    const webgpu = await runOfflinePasses(p, { engine: 'webgpu', gpu: gpu.ctx });
    expect([cpu.engine, webgpu.engine]).toEqual(['cpu', 'webgpu']);
    expectSameHvn(webgpu.hvn as HvnResult, cpu.hvn as HvnResult);
    expectSameHcd(webgpu.hcd as OfflineHcd, cpu.hcd as OfflineHcd);
    expect([...(cpu.hvn as HvnResult).merges]).toEqual([2, 1, 3, 1]);
    const hvnOnly = await runOfflinePasses(p, { engine: 'webgpu', gpu: gpu.ctx, hcd: false });
    expect(hvnOnly.hcd).toBeUndefined();
    expect(hvnOnly.hvn?.merges.length).toBe(4);
  });

  it('refuses to run after destroy()', async () => {
    const destroyed = createGpuOfflinePasses(gpu.ctx);
    destroyed.destroy();
    await expect(destroyed.computeHvn(program(1, 1, []))).rejects.toThrow(/destroy/);
  });
});

describeEachBenchmark(['ex', 'perl', 'gcc'])(
  'offline passes on the GPU equal the CPU passes on $name',
  (name) => {
    describeGpu(`offline passes on the GPU: ${name}`, (gpu) => {
      it('HVN and both HCD tables', async () => {
        const { program: p } = await readHardekopf({ prefix: benchmarkPrefix(name) });
        const passes = createGpuOfflinePasses(gpu.ctx);
        try {
          expectSameHvn(await passes.computeHvn(p), computeHvn(p));
          expectSameHcd(await passes.computeOfflineHcd(p), computeOfflineHcd(p));
          const merge = { refCycleVariables: 'merge' } as const;
          expectSameHcd(await passes.computeOfflineHcd(p, merge), computeOfflineHcd(p, merge));
        } finally {
          passes.destroy();
        }
      }, 600_000);
    });
  },
);
