import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileScheme,
  convertToCps,
  expandProgram,
  flowValueText,
  numberProgram,
  readMatricesDir,
  readScheme,
  runTrampoline,
  SchemeSyntaxError,
  SchemeSyntaxErrors,
  solveCpuSparse,
  sourceResults,
  type Tramp,
  vanHornMairson,
} from '../src/index';
import { dataSizes, fixtureDir, fixtureSizes, vhmData } from './data';

const same = (a: Uint32Array, b: Uint32Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The front end and the generator against the shipped files of the sizes in `dirOf`'s folders. */
function shippedTests(sizes: readonly string[], dirOf: (n: string) => string) {
  it.each(sizes)('n = %s: program.scm compiles to the shipped Fun/Arg1/Arg2', async (n) => {
    const dir = dirOf(n);
    const shipped = await readMatricesDir(dir);
    const { matrices } = compileScheme(readFileSync(resolve(dir, 'program.scm'), 'utf8'), {
      file: 'program.scm',
    });
    expect([matrices.lams, matrices.calls]).toEqual([shipped.lams, shipped.calls]);
    expect(same(matrices.fun, shipped.fun)).toBe(true);
    expect(same(matrices.arg1, shipped.arg1)).toBe(true);
    expect(same(matrices.arg2, shipped.arg2)).toBe(true);
  });

  it.each(sizes.filter((n) => n !== 'smallest'))('n = %s: the generator writes program.scm', (n) => {
    const text = readFileSync(resolve(dirOf(n), 'program.scm'), 'utf8');
    const program = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(';'));
    expect(program).toEqual([vanHornMairson(Number(n))]);
  });
}

vhmData.describe('the front end on the larger sizes of the data folder', () => {
  shippedTests(dataSizes, (n) => vhmData.path(n));
});

describe('the front end on the sizes carried as fixtures', () => {
  shippedTests(fixtureSizes, fixtureDir);

  it('maps flows of source variables: n = 2', () => {
    const compiled = compileScheme(vanHornMairson(2), { file: 'vhm2.scm' });
    const { store } = solveCpuSparse(compiled.matrices);
    const flows = Object.fromEntries(
      sourceResults(compiled, store).variables.map((v) => [v.name, v.flow.map(flowValueText)]),
    );
    // f1 ← (lambda (x1) …); x1 ← the #t and #f of level 1; z ← (lambda (y1 y2) y1).
    expect(flows.f1).toEqual(['λ@vhm2.scm:1:46']);
    expect(flows.x1).toEqual(['#f@vhm2.scm:1:40', '#t@vhm2.scm:1:30']);
    expect(flows.x2).toEqual(['#f@vhm2.scm:1:98', '#t@vhm2.scm:1:88']);
    expect(flows.d1).toEqual(flows.x1);
    expect(flows.z).toEqual(['λ@vhm2.scm:1:141']);
    expect(flows.y1).toEqual(flows.x1);
    expect(flows.y2).toEqual(flows.x2);
  });
});

describe('the reader', () => {
  it('reads data with positions', () => {
    const [d] = readScheme('(define (f x) \'x)\n  [a . b] #(1 2) "s\\"" #\\a #t', 'r.scm');
    expect(d?.pos).toEqual({ file: 'r.scm', line: 1, column: 1 });
    const all = readScheme('(a) #| block |# #;(skipped) [a . b] #(1 2) "s" #\\( #f 1.5 -2', 'r.scm');
    expect(all.map((x) => x.t)).toEqual(['list', 'list', 'vec', 'str', 'char', 'bool', 'num', 'num']);
    expect(all[1]?.pos).toEqual({ file: 'r.scm', line: 1, column: 29 });
  });

  it.each([
    ['(a b', 'r.scm:1:1: ', 'never closed'],
    ['(a))', 'r.scm:1:4: ', "unexpected ')'"],
    ['(a ]', 'r.scm:1:4: ', 'closes'],
    ['"abc', 'r.scm:1:1: ', 'unterminated string'],
    ['(. a)', 'r.scm:1:2: ', "unexpected '.'"],
  ])('rejects %j with its position', (text, prefix, reason) => {
    expect(() => readScheme(text, 'r.scm')).toThrow(SchemeSyntaxError);
    try {
      readScheme(text, 'r.scm');
    } catch (error) {
      expect((error as Error).message.startsWith(prefix)).toBe(true);
      expect((error as Error).message).toContain(reason);
    }
  });

  it('reads and compiles very deep nesting without a deep call stack', () => {
    function* depth(n: number): Tramp<number> {
      return n === 0 ? 0 : 1 + ((yield depth(n - 1)) as number);
    }
    expect(runTrampoline(depth(200_000))).toBe(200_000);
    const compiled = compileScheme(vanHornMairson(4096));
    expect(compiled.matrices.lams).toBe(4096 * 31 + 12);
  });

  it('compiles 20,000 nested applications of lambdas; call sites name their operator in ≤ 40 characters', () => {
    const n = 20_000;
    let text = '1';
    for (let i = n; i >= 1; i--) text = `((lambda (x${i}) ${text}) (lambda (y${i}) y${i}))`;
    const compiled = compileScheme(text, { file: 'deep.scm' });
    expect(compiled.callSites).toHaveLength(n);
    const outer = compiled.callSites.find((c) => c.site.pos.column === 1);
    expect(outer?.site.operator).toBe('(lambda (x1) ((lambda (x2) ((lambda (x3)');
    expect(compiled.callSites.every((c) => c.site.operator.length <= 40)).toBe(true);
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    expect(r.variables.find((v) => v.name === `x${n}`)?.flow.map(flowValueText)).toEqual([
      `λ@deep.scm:1:${text.indexOf(`(lambda (y${n})`) + 1}`,
    ]);
  });
});

describe('the expander', () => {
  it.each([
    ['(define foo (syntax-rules () ((_ x) x)))', "e.scm:1:13: unsupported form 'syntax-rules'"],
    [
      '(let ((x 1))\n  (define-syntax m (lambda (f) f)) x)',
      'e.scm:2:20: define-syntax: only syntax-rules transformers are supported (m)',
    ],
    ['(lambda (x x) x)', "e.scm:1:12: lambda: duplicate parameter 'x'"],
    ['(f 1)', "e.scm:1:2: unbound variable 'f'"],
    ['(if)', 'e.scm:1:1: if: expected (if test then [else])'],
    ['(define x 1) (+ (define y 2) 1)', 'e.scm:1:17: define is only allowed'],
    ['(set! zz 1)', "e.scm:1:7: set!: unbound variable 'zz'"],
    ['(cond (else 1) (#t 2))', 'e.scm:1:7: cond: else must be the last clause'],
  ])('rejects %j with the position of the form', (text, message) => {
    expect(() => expandProgram(text, 'e.scm')).toThrow(SchemeSyntaxError);
    expect(() => expandProgram(text, 'e.scm')).toThrow(message);
  });

  it('alpha-renames: shadowed names are different variables', () => {
    const p = expandProgram('(define x 1) (let ((x (lambda (x) x))) (x x))', 'a.scm');
    const xs = p.variables.filter((v) => v.name === 'x');
    expect(xs).toHaveLength(3);
    expect(new Set(xs.map((v) => v.id)).size).toBe(3);
  });

  it('numbers the smallest program as the data folder does', () => {
    const { matrices } = numberProgram(convertToCps(expandProgram('((lambda(x) x)(lambda(x) x))').body));
    expect(Array.from(matrices.fun)).toEqual([0, 1, 15, 3, 17, 32, 19, 34, 35, 36, 37, 38, 39, 40, 41]);
    expect(Array.from(matrices.arg1)).toEqual([11, 8, 14, 5, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27]);
    expect(Array.from(matrices.arg2)).toEqual([13, 10, 2, 7, 4, 18, 6, 20, 21, 9, 23, 24, 12, 26, 27]);
  });

  it('binds a single basic value only when the program uses one', () => {
    const withBasic = compileScheme('(define x 1) x');
    const { store } = solveCpuSparse(withBasic.matrices);
    const x = sourceResults(withBasic, store).variables.find((v) => v.name === 'x');
    expect(x?.flow.map(flowValueText)).toEqual(['basic']);
    const basicBooleans = compileScheme('(define b #t) b', { booleans: 'basic' });
    const b = sourceResults(basicBooleans, solveCpuSparse(basicBooleans.matrices).store).variables[0];
    expect(b?.flow.map(flowValueText)).toEqual(['basic']);
  });
});

describe('R7RS programs', () => {
  it('reports every error of a file at once, in order', () => {
    const text = '(define (f x) (g x))\n(h 1)\n(let ((y 1)) (if))\n(display (k 2))';
    let caught: unknown;
    try {
      expandProgram(text, 'm.scm');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SchemeSyntaxErrors);
    expect((caught as SchemeSyntaxErrors).errors.map((e) => e.message)).toEqual([
      "m.scm:1:16: unbound variable 'g'",
      "m.scm:2:2: unbound variable 'h'",
      'm.scm:3:14: if: expected (if test then [else])',
      "m.scm:4:11: unbound variable 'k'",
    ]);
  });

  it('reads #T, #F, #true and bytevectors; imports standard and user libraries', () => {
    const lib =
      '(define-library (util twice) (export twice) (import (scheme base)) (begin (define (twice f) (lambda (x) (f (f x))))))';
    const program = `(import (scheme base) (scheme write) (only (util twice) twice))
(define flags (list #T #F #true #u8(1 2)))
(display ((twice (lambda (n) (+ n 1))) 0))`;
    const requested: unknown[] = [];
    const compiled = compileScheme(program, {
      file: 'main.scm',
      resolveLibrary: (request, from) => {
        requested.push({ request, from });
        return 'library' in request && request.library.join(' ') === 'util twice'
          ? { text: lib, file: 'util/twice.sld' }
          : undefined;
      },
    });
    expect(requested).toEqual([{ request: { library: ['util', 'twice'] }, from: 'main.scm' }]);
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    expect(r.variables.find((v) => v.name === 'f')?.flow.map(flowValueText)).toEqual(['λ@main.scm:3:18']);
    expect(() => compileScheme('(import (no such))', { file: 'n.scm' })).toThrow(
      'n.scm:1:9: import: library (no such) not found',
    );
  });
});

describe('syntax-rules', () => {
  const flows = (text: string) => {
    const compiled = compileScheme(text, { file: 'm.scm' });
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    return (name: string) => r.variables.filter((v) => v.name === name).map((v) => v.flow.map(flowValueText));
  };

  it("renames the template's bindings: swap! with a user variable named tmp", () => {
    const f = flows(`(define-syntax swap!
  (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
(define tmp (lambda (x) 'first))
(define other (lambda (y) 'second))
(swap! tmp other)
(tmp 1)`);
    // After the swap both procedures reach both variables; the macro's own tmp is another variable.
    expect(f('tmp')).toEqual([['λ(other)@m.scm:4:15', 'λ(tmp)@m.scm:3:13']]);
    expect(f('other')).toEqual([['λ(other)@m.scm:4:15', 'λ(tmp)@m.scm:3:13']]);
  });

  it('ellipses, literals, recursion and macros that define', () => {
    const f = flows(`(define-syntax my-or
  (syntax-rules () ((_) #f) ((_ e) e) ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))
(define-syntax for
  (syntax-rules (in) ((_ x in lst body ...) (for-each (lambda (x) body ...) lst))))
(define-syntax define-getter
  (syntax-rules () ((_ name value) (define (name) value))))
(define-getter get-f (lambda (z) z))
(define t 5)
(define g (my-or #f t (lambda (w) w)))
(for p in (list (lambda (q) q)) (p 1))`);
    expect(f('g')).toEqual([['λ@m.scm:9:23', '#f@m.scm:9:18', 'basic']]);
    expect(f('p')).toEqual([['λ@m.scm:10:17', 'basic']]); // the heap holds the basic value too
    expect(f('get-f')).toEqual([['λ(get-f)@m.scm:7:1']]);
  });

  it("free template names mean what they meant at the definition: a use site's if, let, list and helper do not capture them", () => {
    const text = `(define (helper x) (lambda (y) x))
(define-syntax my-if (syntax-rules () ((_ c a b) (if c a b))))
(define-syntax call-helper (syntax-rules () ((_ e) (let ((t e)) (helper t)))))
(define-syntax pair-up (syntax-rules () ((_ a b) (list a b))))
(define (user if let helper list)
  (define h (call-helper let))
  (define p (pair-up 1 2))
  (my-if if (lambda (p) p) (lambda (q) q)))
(user 1 (lambda (l) l) (lambda (z) z) (lambda (w) w))`;
    const compiled = compileScheme(text, { file: 'h.scm' });
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    const site = (operator: string) => r.callSites.filter((c) => c.operator === operator);
    // The template's (helper t) calls the global helper, never the user's parameter.
    expect(site('helper').map((c) => c.callees.map(flowValueText))).toEqual([['λ(helper)@h.scm:1:1']]);
    // The template's if and list are the special form and the primitive: no call applies the user's.
    expect(site('if')).toEqual([]);
    expect(site('list')).toEqual([]);
    const flow = (name: string) => r.variables.find((v) => v.name === name)?.flow.map(flowValueText);
    expect(flow('h')).toEqual(['λ@h.scm:1:20']);
    expect(flow('p')).toEqual(['basic']);
    // Where nothing rebinds them, the names are left as they are.
    const plain = compileScheme(
      `(define-syntax my-if (syntax-rules () ((_ c a b) (if c a b))))\n(my-if #t 1 2)`,
      { file: 'p.scm' },
    );
    expect(plain.callSites).toEqual([]);
  });

  it('reports a use that matches no rule at its position', () => {
    expect(() =>
      compileScheme('(define-syntax m (syntax-rules () ((_ a) a)))\n(m 1 2)', { file: 'm.scm' }),
    ).toThrow("m.scm:2:1: no syntax-rules pattern of 'm' matches (m 1 2)");
  });
});

describe('standard names', () => {
  it('MIT streams and constants, SRFI hash functions, R7RS symbol=? compile', () => {
    const text = `(define s (cons-stream (lambda (x) x) the-empty-stream))
(define f (stream-car s))
(define r (stream-cdr s))
(display (list (symbol=? 'a 'b) (string-hash "x") (stream-pair? s) true false (bit-and 1 3)))
(f 1)`;
    const compiled = compileScheme(text, { file: 'names.scm' });
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    expect(r.callSites.find((c) => c.operator === 'f')?.callees.map(flowValueText)).toContain(
      'λ@names.scm:1:24',
    );
  });
});

describe('cond-expand', () => {
  it('takes the first clause whose features hold, at top level and in expressions', () => {
    const text = `(cond-expand (chicken (define (f x) 'chicken)) ((and r7rs (library (scheme base))) (define (f x) x)))
(define g (cond-expand ((not r7rs) 0) (else (lambda (y) y))))
(f g)`;
    const compiled = compileScheme(text, { file: 'ce.scm' });
    const r = sourceResults(compiled, solveCpuSparse(compiled.matrices).store);
    expect(r.variables.filter((v) => v.name === 'x').map((v) => v.pos)).toEqual(['ce.scm:1:95']);
    expect(r.variables.find((v) => v.name === 'g')?.flow.map(flowValueText)).toEqual(['λ@ce.scm:2:45']);
  });
});
