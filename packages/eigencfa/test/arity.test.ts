import { describeGpu } from '@gpumorph/gpu-allocator/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ARITY_ANY,
  arityAccepts,
  arityClass,
  arityMask,
  type CfaStore,
  compileScheme,
  createCfaMatrices,
  firstDifference,
  flowValueText,
  MatrixFormatError,
  solveCpuSparse,
  solveWebGpu,
  sourceResults,
} from '../src/index';
import { randomSchemeProgram } from '../src/testing/programs';
import { examplePrograms, readExample } from './data';

/** Whether every entry of `a` is in `b`. */
function within(a: CfaStore, b: CfaStore): boolean {
  for (let r = 0; r < a.rows; r++) for (const l of a.row(r)) if (!b.has(r, l)) return false;
  return true;
}

const PICK = `
(define (add x y) (+ x y))
(define (inc x) (+ x 1))
(define (pick b) (if b add inc))
(define g (pick #t))
(g 1 2)
(g 5)
(define (opt a . more) a)
(opt 1)
(opt 1 2 3)
(define (compose f h) (lambda (x) (f (h x))))
((compose inc inc) 1)
`;

describe('arity-aware flows', () => {
  it('masks and classes: fixed, rest, any; 30 stands for 30 or more', () => {
    expect(arityAccepts(arityMask(2), arityClass(2))).toBe(true);
    expect(arityAccepts(arityMask(2), arityClass(1))).toBe(false);
    expect(arityAccepts(arityMask(2), arityClass(3))).toBe(false);
    expect(arityAccepts(arityMask(1, null), arityClass(0))).toBe(false);
    expect(arityAccepts(arityMask(1, null), arityClass(1))).toBe(true);
    expect(arityAccepts(arityMask(1, null), arityClass(40))).toBe(true);
    expect(arityAccepts(arityMask(0), arityClass(0))).toBe(true);
    expect(arityAccepts(arityMask(35), arityClass(31))).toBe(true);
    expect(arityAccepts(arityMask(35), arityClass(29))).toBe(false);
    expect(arityAccepts(arityMask(0, 1), arityClass(1))).toBe(true);
    expect(arityAccepts(arityMask(0, 1), arityClass(2))).toBe(false);
    expect(arityClass(undefined)).toBe(ARITY_ANY);
    for (const mask of [arityMask(0), arityMask(3, null), arityMask(undefined)])
      expect(arityAccepts(mask, arityClass(undefined))).toBe(true);
  });

  it('a call applies only the procedures whose arity accepts its argument count', () => {
    const calleesAt = (arity: boolean, line: number) => {
      const compiled = compileScheme(PICK, { file: 'pick.scm', arity });
      const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
      return r.callSites
        .filter((s) => s.pos.startsWith(`pick.scm:${line}:`))
        .flatMap((s) => s.callees.map(flowValueText));
    };
    expect(calleesAt(false, 6).sort()).toEqual(['λ(add)@pick.scm:2:1', 'λ(inc)@pick.scm:3:1']);
    expect(calleesAt(true, 6)).toEqual(['λ(add)@pick.scm:2:1']);
    expect(calleesAt(true, 7)).toEqual(['λ(inc)@pick.scm:3:1']);
    // A rest list takes any number of further arguments.
    expect(calleesAt(true, 9)).toEqual(['λ(opt)@pick.scm:8:1']);
    expect(calleesAt(true, 10)).toEqual(['λ(opt)@pick.scm:8:1']);
  });

  it('a rest procedure returns what its body returns, its absorbers stay inside', () => {
    const text = `(define (make-w-vector . items)
  (define (dispatch msg) (if (eq? msg 'size) (length items) (car items)))
  dispatch)
(define w (make-w-vector 1 2 3))
(w 'size)
(define (tail a . more) more)
(define t (tail 1 2 3))`;
    const flowsOf = (arity: boolean) => {
      const compiled = compileScheme(text, { file: 'w.scm', arity });
      const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
      const flow = (name: string) => r.variables.find((v) => v.name === name)?.flow.map(flowValueText);
      return { w: flow('w'), a: flow('a'), t: flow('t'), callees: r.callSites.map((s) => s.callees.length) };
    };
    const aware = flowsOf(true);
    expect(aware.w).toEqual(['λ(dispatch)@w.scm:2:3']);
    expect(aware.t).toEqual(['basic']);
    // Each site lists its procedure once, though a rest procedure's step is two lambdas.
    expect(aware.callees).toEqual([1, 1, 1]);
    expect(flowsOf(false).w?.length).toBeGreaterThan(1);
  });

  it('matrices without arity masks are unchanged; the masks are checked', () => {
    const compiled = compileScheme(PICK, { arity: false });
    expect(compiled.matrices.arity).toBeUndefined();
    const m = compileScheme(PICK).matrices;
    expect(m.arity?.lambdas.length).toBe(m.lams);
    expect(m.arity?.calls.length).toBe(m.calls);
    const { fun, arg1, arg2, lams } = m;
    const arity = m.arity as NonNullable<typeof m.arity>;
    expect(() =>
      createCfaMatrices({ lams, fun, arg1, arg2, arity: { ...arity, calls: arity.calls.slice(1) } }),
    ).toThrow(MatrixFormatError);
    const badMask = arity.lambdas.slice();
    badMask[0] = 1;
    expect(() => createCfaMatrices({ lams, fun, arg1, arg2, arity: { ...arity, lambdas: badMask } })).toThrow(
      /lacks bit 31/,
    );
    const badClass = arity.calls.slice();
    badClass[0] = 32;
    expect(() => createCfaMatrices({ lams, fun, arg1, arg2, arity: { ...arity, calls: badClass } })).toThrow(
      /0 … 31/,
    );
  });

  it.each(examplePrograms)('%s: the arity-aware fixpoint is within the plain one', (name) => {
    const text = readExample(name);
    const plain = solveCpuSparse(compileScheme(text, { arity: false }).matrices).store;
    const aware = solveCpuSparse(compileScheme(text).matrices).store;
    expect(within(aware, plain)).toBe(true);
  });

  it('random programs: the arity-aware fixpoint is within the plain one (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 6 }), (seed, size) => {
        const text = randomSchemeProgram(seed, size);
        const plain = solveCpuSparse(compileScheme(text, { arity: false }).matrices).store;
        const aware = solveCpuSparse(compileScheme(text).matrices).store;
        expect(within(aware, plain)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describeGpu('arity-aware flows on the WebGPU engine', (gpu) => {
  it('both kernels filter: the CPU fixpoint, smaller than the plain one', async () => {
    const m = compileScheme(PICK).matrices;
    const cpu = solveCpuSparse(m).store;
    const plain = solveCpuSparse(compileScheme(PICK, { arity: false }).matrices).store;
    expect(cpu.size).toBeLessThan(plain.size);
    for (const webgpu of [{ mode: 'workgroup' }, { mode: 'grid', gridWorkgroups: 3 }] as const) {
      const { store } = await solveWebGpu(gpu.ctx, m, webgpu);
      expect(firstDifference(store, cpu), webgpu.mode).toBeUndefined();
    }
  });

  it('random programs == CPU (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 6 }), async (seed, size) => {
        const m = compileScheme(randomSchemeProgram(seed, size)).matrices;
        const { store } = await solveWebGpu(gpu.ctx, m, { itemCapacity: 1 });
        expect(firstDifference(store, solveCpuSparse(m).store)).toBeUndefined();
      }),
      { numRuns: 6 },
    );
  });
});
