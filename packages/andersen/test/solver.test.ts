import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createConstraintBuilder,
  createCpuSolver,
  EngineUnavailableError,
  HARDEKOPF_REFERENCE_CONVENTIONS,
  type IterationEvent,
  readHardekopf,
  SolveAbortedError,
  type SolvePhase,
  solveAndersen,
  solveAndersenReference,
  verifySolution,
} from '../src/index';
import { constraintProgram } from '../src/testing/index';
import { benchmarkPrefix, describeEachBenchmark } from './benchmarks';

/** A small C-like program: `struct S { int *f; int *g; } s; int x, y; int *p, *q, **pp, *r, *t;` */
function smallProgram() {
  const b = createConstraintBuilder();
  const s = b.object('s', { fields: 2 });
  const x = b.object('x');
  const y = b.object('y');
  const pObj = b.object('p'); // p's address is taken: pp = &p
  const p = pObj;
  const pp = b.variable('pp');
  const q = b.variable('q');
  const r = b.variable('r');
  const t = b.variable('t');
  const u = b.variable('u');
  b.addressOf(p, x); //       p = &x
  b.addressOf(pp, pObj); //   pp = &p
  b.store(pp, b.variable('w')); // *pp = w (w points nowhere)
  b.addressOf(q, s); //       q = &s
  b.offset(r, q, 1); //       r = &q->g
  b.store(r, p); //           q->g = p      (s.g ⊇ {x})
  b.load(t, q, 1); //         t = q->g      (t ⊇ {x})
  b.load(u, pp); //           u = *pp       (u ⊇ pts(p) = {x})
  const v = b.variable('v');
  b.addressOf(v, y);
  b.offset(b.variable('far'), v, 1); // y has 1 field: never applies
  return { program: b.build(), s, x, y, p, pp, q, r, t, u };
}

describe('CPU engine on hand-written programs', () => {
  it('follows address-of, offsets, loads and stores through struct fields', async () => {
    const { program, s, x, p, pp, q, r, t, u } = smallProgram();
    const result = await solveAndersen(program);
    expect([...result.pointsTo(p)]).toEqual([x]);
    expect([...result.pointsTo(pp)]).toEqual([p]);
    expect([...result.pointsTo(q)]).toEqual([s]);
    expect([...result.pointsTo(r)]).toEqual([s + 1]);
    expect([...result.pointsTo(s + 1)]).toEqual([x]);
    expect([...result.pointsTo(t)]).toEqual([x]);
    expect([...result.pointsTo(u)]).toEqual([x]);
    expect(result.pointsTo(program.names?.indexOf('far') ?? -1)).toHaveLength(0);
    expect(result.mayAlias(t, u)).toBe(true);
    expect(result.mayAlias(t, q)).toBe(false);
    expect(result.mayPointTo(r, s + 1)).toBe(true);
    expect(result.engine).toBe('cpu');
  });

  it('collapses a copy cycle into one representative with one set', async () => {
    const b = createConstraintBuilder();
    const o = b.object('o');
    const [a, c, d] = [b.variable('a'), b.variable('c'), b.variable('d')];
    b.addressOf(a, o).copy(c, a).copy(d, c).copy(a, d);
    const result = await solveAndersen(b.build());
    expect(result.representative(a)).toBe(result.representative(c));
    expect(result.representative(c)).toBe(result.representative(d));
    expect([...result.pointsTo(d)]).toEqual([o]);
    expect(result.statistics.cycleMerges).toBe(2);
    expect(result.pointsToEdges).toBe(3);
  });

  it('rejects node ids outside the program in queries', async () => {
    const { program } = smallProgram();
    const result = await solveAndersen(program);
    expect(() => result.pointsTo(program.nodeCount)).toThrow(RangeError);
    expect(() => result.mayAlias(-1, 0)).toThrow(RangeError);
  });

  it('says the WebGPU engine is unavailable without an adapter instead of running another', async () => {
    const noAdapter = { requestAdapter: async () => null } as unknown as GPU;
    await expect(
      solveAndersen(smallProgram().program, {
        engine: 'webgpu',
        acquire: { gpu: noAdapter, require: false },
      }),
    ).rejects.toBeInstanceOf(EngineUnavailableError);
  });
});

describe('CPU engine against the literal definition (fast-check)', () => {
  it('gives every node exactly the reference set', async () => {
    await fc.assert(
      fc.asyncProperty(constraintProgram({ maxNodes: 60, maxConstraints: 90 }), async (program) => {
        const expected = solveAndersenReference(program);
        const result = await solveAndersen(program);
        for (let v = 0; v < program.nodeCount; v++) {
          expect([...result.pointsTo(v)]).toEqual([...(expected[v] as Set<number>)].sort((a, b) => a - b));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same answer when the pool starts empty and grows (large member ids)', async () => {
    await fc.assert(
      fc.asyncProperty(
        constraintProgram({ maxNodes: 3000, maxConstraints: 200, maxFields: 30 }),
        async (program) => {
          const expected = solveAndersenReference(program);
          const result = await solveAndersen(program);
          for (let v = 0; v < program.nodeCount; v++) {
            expect(result.pointsToCount(v)).toBe((expected[v] as Set<number>).size);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('events and cancellation', () => {
  it('emits phase, iteration and done in order', async () => {
    const solver = createCpuSolver(smallProgram().program);
    const phases: SolvePhase[] = [];
    const rounds: IterationEvent[] = [];
    let done = 0;
    solver.on('phase', (phase) => phases.push(phase));
    solver.on('iteration', (event) => rounds.push(event));
    solver.on('done', (statistics) => {
      done = statistics.rounds;
    });
    await solver.solve();
    expect(phases[0]).toBe('setup');
    expect(phases.at(-1)).toBe('done');
    expect(rounds.length).toBeGreaterThan(1);
    expect(rounds.map((r) => r.round)).toEqual(rounds.map((_, i) => i + 1));
    expect(rounds.at(-1)?.propagated).toBe(0);
    expect(done).toBe(rounds.length);
  });

  it('rejects with SolveAbortedError when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user'));
    const solving = solveAndersen(smallProgram().program, { signal: controller.signal });
    await expect(solving).rejects.toBeInstanceOf(SolveAbortedError);
  });

  it('stops a running solve when the signal aborts', async () => {
    const input = await readHardekopf({ prefix: benchmarkPrefix('ex') });
    const controller = new AbortController();
    const solver = createCpuSolver(input.program, {
      hcd: input.hcd,
      signal: controller.signal,
      yieldEveryMs: 0,
    });
    let rounds = 0;
    solver.on('iteration', () => {
      rounds++;
      if (rounds === 2) controller.abort('enough');
    });
    const error = await solver.solve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolveAbortedError);
    expect((error as SolveAbortedError).cause).toBe('enough');
    expect(rounds).toBe(2);
  });
});

describeEachBenchmark(['ex', 'perl'])("the PPoPP'12 suite: %s", (bench) => {
  it('matches the reference solution for every variable (node 1 per the Hardekopf convention)', async () => {
    const input = await readHardekopf({ prefix: benchmarkPrefix(bench) });
    if (!input.solution) throw new Error('the reference solution is missing');
    const result = await solveAndersen(input.program, { hcd: input.hcd });
    const report = verifySolution(result, input.solution, { ignore: HARDEKOPF_REFERENCE_CONVENTIONS });
    expect(report.differences).toEqual([]);
    expect(report.exact).toBe(true);
    expect(report.checked).toBe(input.program.nodeCount - 1);
    // Without the convention exactly that one node differs, and nothing else.
    const strict = verifySolution(result, input.solution);
    expect(strict.differing).toBe(1);
    expect(strict.differences[0]?.variable).toBe(1);
  }, 300_000);
});
