import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileScheme,
  convertToCps,
  expandProgram,
  firstDifference,
  flowValueText,
  numberProgram,
  referenceCfa,
  referenceStore,
  solveCpuSparse,
  sourceResults,
  vanHornMairson,
} from '../src/index';
import { randomSchemeProgram } from '../src/testing/programs';
import { examplePrograms, readExample } from './data';

/** CPU engine vs the oracle on the same program, through independent paths (terms vs vectors). */
function checkAgainstOracle(text: string, file: string) {
  const cps = convertToCps(expandProgram(text, file).body);
  const numbered = numberProgram(cps);
  const oracle = referenceStore(numbered.lambdas, referenceCfa(cps.top));
  const { store } = solveCpuSparse(numbered.matrices);
  expect(firstDifference(store, oracle)).toBeUndefined();
}

describe('own programs', () => {
  it.each(examplePrograms)('%s: CPU engine == reference 0CFA', (name) => {
    checkAgainstOracle(readExample(name), name);
  });

  const flowsOf = (name: string) => {
    const compiled = compileScheme(readExample(name), { file: name });
    return sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
  };
  const calleesAt = (r: ReturnType<typeof flowsOf>, operator: string) =>
    r.callSites.filter((s) => s.operator === operator).flatMap((s) => s.callees.map(flowValueText));

  it('sort.scm: each sort sees only the comparison it is given', () => {
    const r = flowsOf('sort.scm');
    const less = Object.fromEntries(
      r.variables.filter((v) => v.name === 'less?').map((v) => [v.pos, v.flow.map(flowValueText)]),
    );
    expect(less).toEqual({
      'sort.scm:2:23': ['λ(ascending)@sort.scm:24:1'],
      'sort.scm:6:29': ['λ(ascending)@sort.scm:24:1'],
      'sort.scm:14:20': ['λ(descending)@sort.scm:25:1'],
      'sort.scm:19:25': ['λ(descending)@sort.scm:25:1'],
    });
  });

  it('evenodd.scm: pred calls both mutually recursive procedures', () => {
    const r = flowsOf('evenodd.scm');
    expect(new Set(calleesAt(r, 'pred'))).toEqual(
      new Set(['λ(my-even?)@evenodd.scm:2:1', 'λ(my-odd?)@evenodd.scm:3:1']),
    );
  });

  it('callcc.scm: the captured continuation flows to return and to saved', () => {
    const r = flowsOf('callcc.scm');
    const ret = r.variables.find((v) => v.name === 'return');
    expect(ret?.flow.map(flowValueText)).toEqual(['k@callcc.scm:3:3']);
    const saved = r.variables.find((v) => v.name === 'saved');
    expect(saved?.flow.map(flowValueText)).toContain('k@callcc.scm:14:1');
  });

  it('church.scm: numerals flow to succ, plus, mult and church->int', () => {
    const r = flowsOf('church.scm');
    const n = Object.fromEntries(
      r.variables.filter((v) => v.name === 'n').map((v) => [v.pos, v.flow.map(flowValueText)]),
    );
    expect(n['church.scm:3:15']).toEqual(['λ@church.scm:4:20', 'λ(zero)@church.scm:2:14']); // succ: of zero and of plus
    expect(n['church.scm:13:22']).toEqual(['λ@church.scm:7:3']); // church->int: the predecessor's numeral
  });

  it('queue.scm: the variadic dispatcher is what q calls', () => {
    const r = flowsOf('queue.scm');
    expect(new Set(calleesAt(r, 'q'))).toEqual(new Set(['λ@queue.scm:10:5']));
    expect(calleesAt(r, 'push!')).toEqual(['λ(push!)@queue.scm:4:5']);
  });
});

const EVERY_FORM = `
#| every supported form once |#
(define ((adder a) b) (+ a b))
(define (f . xs) (apply + xs))
(define (g a #;ignored b . rest)
  (define inner (lambda () (list a b rest)))
  (begin (define more 1))
  (inner))
(let loop ((i 0))
  (when (< i 3) (loop (+ i 1))))
(let* ((x 1) (y (+ x 1))) (letrec* ((z (lambda () y))) (z)))
(do ((i 0 (+ i 1)) (acc '())) ((= i 2) acc) (set! acc (cons i acc)))
(cond ((assv 2 '((1 . a) (2 . b))) => cdr) ((f 1 2)) (else 'none))
(case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) => (lambda (x) x)) (else 'other))
(and 1 (or #f 2) (unless #f 3))
\`(1 ,(f 2) ,@(list 3) #(4 ,(g 1 2)) "s\\"" #\\a)
(call-with-current-continuation (lambda (k) (k (adder 1))))
(if (null? '()) ((adder 1) 2) (error "never" 'here))
`;

describe('every supported form', () => {
  it('compiles, and the CPU engine equals the oracle', () => {
    checkAgainstOracle(EVERY_FORM, 'forms.scm');
    const compiled = compileScheme(EVERY_FORM, { file: 'forms.scm' });
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    const z = r.variables.find((v) => v.name === 'z');
    expect(z?.flow.map(flowValueText)).toEqual(['λ(z)@forms.scm:11:40']);
    expect(r.callSites.find((s) => s.operator === 'inner')?.callees.map(flowValueText)).toEqual([
      'λ(inner)@forms.scm:6:17',
    ]);
  });

  it('the plain Van Horn–Mairson family compiles and the CPU engine equals the oracle', () => {
    checkAgainstOracle(vanHornMairson(6, 'plain'), 'plain.scm');
  });
});

describe('random programs', () => {
  it('CPU engine == reference 0CFA (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 6 }), (seed, size) => {
        checkAgainstOracle(randomSchemeProgram(seed, size), 'random.scm');
      }),
      { numRuns: 150 },
    );
  });
});

describe('the heap cell', () => {
  it('a cell written at n sites costs O(n) store entries, not one set per write site', () => {
    const n = 3000;
    let list = "'()";
    for (let i = n; i >= 1; i--) list = `(cons (lambda (x${i}) x${i}) ${list})`;
    const compiled = compileScheme(`(define l ${list}) ((car l) 1)`, { file: 'cells.scm' });
    const { store } = solveCpuSparse(compiled.matrices);
    const r = sourceResults(compiled, store);
    expect(r.callSites[0]?.callees.filter((v) => v.kind === 'lambda')).toHaveLength(n);
    // Each write site's continuation used to receive the whole cell: n² entries.
    expect(store.size).toBeLessThan(50 * n);
  });
});

describe('outside the model', () => {
  it('a program that calls eval says so in its results', () => {
    const compiled = compileScheme("(define (f x) x)\n(display (eval '(f 1) (interaction-environment)))", {
      file: 'eval.scm',
    });
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    expect(r.unknown).toEqual(['interaction-environment at eval.scm:2:23', 'eval at eval.scm:2:10']);
    const plain = compileScheme('(define (f x) x) (f 1)');
    expect(sourceResults(plain, solveCpuSparse(plain.matrices).store).unknown).toEqual([]);
  });
});
