// scripts/check-size.mjs: the limits on file and function length that `npm run lint` enforces.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSizes, MAX_FILE_LINES, MAX_FUNCTION_LINES, measureFile } from '../scripts/check-size.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const dir = mkdtempSync(join(tmpdir(), 'check-size-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a file of the given text under the temporary folder and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A function declaration spanning exactly `lines` lines. */
const fn = (name: string, lines: number) => `function ${name}() {\n${'  void 0;\n'.repeat(lines - 2)}}\n`;

describe('check-size', () => {
  it('measures every kind of function from its first line to its last', () => {
    const path = file(
      'kinds.ts',
      [
        fn('declared', 5),
        'const arrow = () => {\n  return 1;\n};\n',
        'class C {\n  method() {\n    return 2;\n  }\n  constructor() {}\n}\n',
      ].join(''),
    );
    const { lines, functions } = measureFile(path);
    expect(lines).toBe(14);
    expect(functions.map((f) => [f.name, f.lines])).toEqual([
      ['declared', 5],
      ['arrow', 3],
      ['method', 3],
      ['constructor', 1],
    ]);
  });

  it('fails a function one line past the limit and passes one at the limit', () => {
    const at = file('at.ts', fn('atLimit', MAX_FUNCTION_LINES));
    const over = file('over.ts', fn('overLimit', MAX_FUNCTION_LINES + 1));
    expect(checkSizes([at], {}).problems).toEqual([]);
    const { problems } = checkSizes([over], {});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/function overLimit spans 151 lines/);
  });

  it('fails a file past the limit unless it is listed, and fails a listed entry that is no longer needed', () => {
    const long = file('long.ts', 'export const x = 1;\n'.repeat(MAX_FILE_LINES + 1));
    expect(checkSizes([long], {}).problems[0]).toMatch(/801 lines/);
    const listed = relative(root, long);
    expect(checkSizes([long], { [listed]: 'test' }).problems).toEqual([]);
    const short = file('short.ts', 'export const y = 1;\n');
    const stale = checkSizes([short], { 'gone.ts': 'test' }).problems;
    expect(stale).toEqual([
      'gone.ts: listed in EXCEPTIONS but within the limits now (or gone): remove the entry',
    ]);
  });
});
