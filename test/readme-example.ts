/** The main example of a package README: its first fenced code block. */
export interface ReadmeExample {
  /** The block's info string: `ts` (run as an ES module) or `sh` (its `npx` lines are run). */
  readonly lang: string;
  readonly code: string;
  /** 1-based line of the opening fence, for messages. */
  readonly line: number;
}

/**
 * The first fenced code block of `markdown`. That block is a package's main example by convention
 * (each README starts with it), so the packaging test runs exactly what a reader copies.
 *
 * @example
 * ```ts
 * readmeMainExample('# x\n\n```ts\nconsole.log(1);\n```\n'); // { lang: 'ts', code: 'console.log(1);\n', line: 3 }
 * ```
 */
export function readmeMainExample(markdown: string): ReadmeExample {
  const lines = markdown.split('\n');
  const open = lines.findIndex((line) => /^```\w+/.test(line));
  if (open < 0) throw new Error('the README has no fenced code block with a language');
  const close = lines.findIndex((line, i) => i > open && line.startsWith('```'));
  if (close < 0) throw new Error(`the fenced block at line ${open + 1} is never closed`);
  return {
    lang: (lines[open] as string).slice(3).trim().split(/\s+/)[0] as string,
    code: `${lines.slice(open + 1, close).join('\n')}\n`,
    line: open + 1,
  };
}

/**
 * The `npx gpumorph …` commands of a shell example, as argument lists (comments and other lines,
 * such as the `npm install` a reader runs first, are left out).
 *
 * @example
 * ```ts
 * gpumorphCommands('npm i x\nnpx gpumorph doctor --json   # json\n'); // [['doctor', '--json']]
 * ```
 */
export function gpumorphCommands(code: string): string[][] {
  return code
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('npx gpumorph'))
    .map((line) => line.split(/\s+/).slice(2));
}
