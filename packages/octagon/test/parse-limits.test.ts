// The analyzer parser's limits (PARSE_LIMITS): literals are read whole and exact up to their
// limit, and inputs past a limit fail with a positioned OctagonLimitError instead of overflowing
// the stack; inputs at each limit parse and analyze.
import { describe, expect, it } from 'vitest';
import { analyzeProgram, OctagonLimitError, PARSE_LIMITS, parseProgram } from '../src/index';

/** `a + a + … + a` of `terms` terms. */
const chain = (terms: number, op = '+') => Array.from({ length: terms }, () => 'a').join(` ${op} `);

function limitError(run: () => unknown): OctagonLimitError {
  try {
    run();
  } catch (error) {
    if (error instanceof OctagonLimitError) return error;
    throw error;
  }
  throw new Error('no OctagonLimitError');
}

describe('integer literals', () => {
  it('reads a literal of more than 40 digits as one exact integer', async () => {
    const big = '123456789012345678901234567890123456789012345678901';
    const program = parseProgram(`x = ${big};`);
    expect(program.body[0]).toMatchObject({ kind: 'assign', value: { kind: 'num', value: BigInt(big) } });
    const result = await analyzeProgram(
      `x = ${big}; assert(x == ${big}); assert(x <= ${big.slice(0, -1)}0);`,
      {
        engine: 'exact',
      },
    );
    expect(result.assertions.map((a) => a.proved)).toEqual([true, false]);
  });

  it('takes a literal of the limit and rejects a longer one at its position', () => {
    const at = `x = 1${'0'.repeat(PARSE_LIMITS.literalDigits - 1)};`;
    expect(parseProgram(at).body[0]).toMatchObject({
      value: { value: 10n ** BigInt(PARSE_LIMITS.literalDigits - 1) },
    });
    const error = limitError(() =>
      parseProgram(`x = 0;\ny = ${'9'.repeat(PARSE_LIMITS.literalDigits + 1)};`, 'p.oct'),
    );
    expect(error.limit).toBe('literalDigits');
    expect(error.message).toMatch(/^p\.oct:2:5: an integer literal of 1001 digits/);
  });
});

describe('expression depth', () => {
  it('analyzes a sum at the limit and rejects a longer one (10^4 terms) with a limit error', async () => {
    const atLimit = `a = 1; x = ${chain(PARSE_LIMITS.expressionDepth)};`;
    const result = await analyzeProgram(`${atLimit} assert(x == ${PARSE_LIMITS.expressionDepth});`, {
      engine: 'exact',
    });
    expect(result.assertions[0]?.proved).toBe(true);
    for (const op of ['+', '*', '-']) {
      const error = limitError(() => parseProgram(`a = 1; x = ${chain(10_000, op)};`));
      expect(error.limit).toBe('expressionDepth');
    }
    expect(limitError(() => parseProgram(`assert(${chain(10_000, '<= 1 &&')} <= 1);`)).limit).toBe(
      'expressionDepth',
    );
  });
});

describe('variables', () => {
  it('analyzes a program of the limit and rejects one more at its first use', async () => {
    const names = Array.from({ length: PARSE_LIMITS.variables }, (_, i) => `v${i}`);
    const atLimit = `var ${names.slice(0, -2).join(', ')};\narray ${names.at(-2)}[4];\n${names.at(-1)} = 1;\n`;
    const result = await analyzeProgram(`${atLimit}assert(${names.at(-1)} == 1);`, { engine: 'f64' });
    expect(result.variables).toHaveLength(PARSE_LIMITS.variables);
    expect(result.assertions[0]?.proved).toBe(true);
    const error = limitError(() => parseProgram(`${atLimit}x = 2;\n`, 'p.oct'));
    expect(error.limit).toBe('variables');
    expect(error.message).toMatch(/^p\.oct:4:1: more than 128 variables/);
    expect(limitError(() => parseProgram(`${atLimit}assert(y == 1);\n`, 'p.oct')).message).toMatch(
      /^p\.oct:4:8:/,
    );
  });
});

describe('nesting', () => {
  const deep = (depth: number) => ({
    parentheses: `x = ${'('.repeat(depth)}1${')'.repeat(depth)};`,
    negations: `x = ${'-'.repeat(depth)}1;`,
    conditions: `x = 1; assert(${'('.repeat(depth)}x == 1${')'.repeat(depth)});`,
    nots: `x = 1; assert(${'!'.repeat(depth)}(x == 1));`,
    blocks: `x = 1; ${'if (x == 1) {'.repeat(depth)} skip; ${'}'.repeat(depth)}`,
    'else ifs': `x = 1; if (x == 0) { skip; }${' else if (x == 0) { skip; }'.repeat(depth)}`,
    indices: `array a[1]; a[0] = 0; x = ${'a['.repeat(depth)}0${']'.repeat(depth)};`,
  });
  it.each(Object.keys(deep(1)))(
    '%s at the limit analyze; 10^5 deep fail with a limit error',
    async (shape) => {
      const key = shape as keyof ReturnType<typeof deep>;
      await expect(
        analyzeProgram(deep(PARSE_LIMITS.nesting - 2)[key], { engine: 'exact' }),
      ).resolves.toBeDefined();
      const error = limitError(() => parseProgram(deep(100_000)[key]));
      expect(error.limit).toBe('nesting');
      expect(error.message).toMatch(/^<input>:1:\d+: .*nested deeper than 200/);
    },
  );

  it('parses nested parentheses in linear work (a comparison inside 150 of them)', () => {
    // Each '(' was tried as a condition and again as an expression: 2^150 steps before.
    const program = parseProgram(`x = 1; assert(${'('.repeat(150)}x${')'.repeat(150)} == 1);`);
    expect(program.body[1]).toMatchObject({ kind: 'assert', cond: { kind: 'rel', op: '==' } });
  });
});
