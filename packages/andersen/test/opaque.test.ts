import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import { describe, expect, it } from 'vitest';
import {
  type AndersenEngine,
  applyOpaqueObjects,
  ConstraintModelError,
  createConstraintBuilder,
  type HcdPairs,
  type OpaqueContents,
  parseHardekopfConstraints,
  parseHardekopfNodes,
  readHardekopf,
  solveAndersen,
  solveAndersenReference,
} from '../src/index';

/**
 * The shape that made vim differ from its reference: node 1 is the unknown target of
 * integer-to-pointer casts; `p = (int *)n` points to it, a store through p writes into it, a load
 * through it reads it back; and an HCD online pair (t, x) whose pointer x points
 * to the unknown target (the cycle `t = *x; y = t; *x = y`).
 */
function castProgram() {
  const b = createConstraintBuilder();
  b.variable('null'); // node 0, as in the Hardekopf files
  const unknown = b.object('i2p'); // node 1
  const a = b.object('a');
  const o = b.object('b');
  const [p, q, r, x, t, y] = ['p', 'q', 'r', 'x', 't', 'y'].map((name) => b.variable(name)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  b.addressOf(p, unknown).addressOf(q, a).store(p, q).load(r, p); // *p = &a; r = *p
  b.addressOf(x, unknown).addressOf(y, a).load(t, x).copy(y, t).store(x, y); // the HCD cycle
  b.addressOf(t, o); // so that t's class has members of its own when HCD joins x's pointees to it
  const hcd: HcdPairs = { offlineMerges: new Uint32Array(0), online: Uint32Array.of(t, x) };
  return { program: b.build(), hcd, unknown, a, o, p, r, x, t, y };
}

const expected = (contents: OpaqueContents, c: ReturnType<typeof castProgram>) =>
  contents === 'empty'
    ? { unknown: [], r: [], t: [c.o], y: [c.a, c.o], x: [c.unknown] }
    : { unknown: [c.a, c.o], r: [c.a, c.o], t: [c.a, c.o], y: [c.a, c.o], x: [c.unknown] };

async function checkEngine(engine: AndersenEngine, gpu?: Parameters<typeof solveAndersen>[1]) {
  for (const contents of ['empty', 'tracked'] as const) {
    for (const withHcd of [false, true]) {
      const c = castProgram();
      const opaqueObjects = { nodes: [c.unknown], contents };
      const result = await solveAndersen(c.program, {
        ...gpu,
        engine,
        opaqueObjects,
        ...(withHcd ? { hcd: c.hcd } : {}),
      });
      const want = expected(contents, c);
      const got = {
        unknown: [...result.pointsTo(c.unknown)],
        r: [...result.pointsTo(c.r)],
        t: [...result.pointsTo(c.t)],
        y: [...result.pointsTo(c.y)],
        x: [...result.pointsTo(c.x)],
      };
      expect(got, `${engine} ${contents} hcd=${withHcd}`).toEqual(want);
      expect(result.opaqueObjects).toEqual(opaqueObjects);
      // The literal definition on the rewritten program agrees on every node.
      const reference = solveAndersenReference(
        applyOpaqueObjects(c.program, undefined, opaqueObjects).program,
      );
      for (let v = 0; v < c.program.nodeCount; v++) {
        expect([...result.pointsTo(v)], `node ${v}`).toEqual(
          [...(reference[v] as Set<number>)].sort((m, n) => m - n),
        );
      }
    }
  }
}

describe('opaque objects (the unknown target of integer-to-pointer casts)', () => {
  it('keeps the contents empty or tracks them, as asked, on the CPU engine, HCD pairs included', async () => {
    await checkEngine('cpu');
  });

  it('drops direct assignments to an opaque object and HCD pairs that would fill it', () => {
    const b = createConstraintBuilder();
    b.variable('null');
    const unknown = b.object('i2p');
    const v = b.variable('v');
    const w = b.variable('w');
    b.copy(unknown, v).addressOf(v, unknown).load(w, v);
    const hcd = { offlineMerges: Uint32Array.of(v, unknown), online: Uint32Array.of(unknown, v, w, v) };
    const rewrite = applyOpaqueObjects(b.build(), hcd, { nodes: [unknown], contents: 'empty' });
    expect(rewrite.droppedConstraints).toBe(1);
    expect(rewrite.program.constraints.length).toBe(2);
    expect(rewrite.droppedHcdPairs).toBe(2);
    expect([...(rewrite.hcd?.online ?? [])]).toEqual([w, v]);
    expect(rewrite.program.objectSize[unknown]).toBe(0);
    expect(() => applyOpaqueObjects(b.build(), undefined, { nodes: [v], contents: 'empty' })).toThrow(
      ConstraintModelError,
    );
  });

  it('reads the Hardekopf convention: node 1 opaque with empty contents unless asked otherwise', async () => {
    const nodes = parseHardekopfNodes('3\n1\n0\n0,0,0\n1,1,0\n2,0,0\n');
    const program = parseHardekopfConstraints('1,0,0,0,0\n0,1,2,0,0\n', nodes);
    expect(program.objectSize[1]).toBe(1);
    const dir = new URL('./fixtures/', import.meta.url).pathname;
    const input = await readHardekopf({ prefix: `${dir}tiny` });
    expect(input.opaqueObjects.contents).toBe('empty');
    const tracked = await readHardekopf({ prefix: `${dir}tiny` }, { unknownTarget: 'tracked' });
    expect(tracked.opaqueObjects.contents).toBe('tracked');
    expect(tracked.opaqueObjects.nodes).toEqual(input.opaqueObjects.nodes);
  });
});

describeGpu('opaque objects on the WebGPU engine', (gpu) => {
  it('keeps the contents empty or tracks them, as asked, HCD pairs included', async () => {
    if (!gpu.available) return;
    await checkEngine('webgpu', { gpu: gpu.ctx });
  });
});
