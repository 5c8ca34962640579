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
});

describe('the expander', () => {
  it.each([
    ['(define-syntax foo (syntax-rules () ((_ x) x)))', "e.scm:1:1: unsupported form 'define-syntax'"],
    ['(let ((x 1))\n  (delay x))', "e.scm:2:3: unsupported form 'delay'"],
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
