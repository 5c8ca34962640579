#!/usr/bin/env node
// Fails when a source file passes 800 lines or a function 150 (the code-style limits of the
// developers' guide), so that large files and functions are split when they are written, not in a
// rewrite later. Functions are measured with the TypeScript compiler's syntax tree: every function
// declaration, method, accessor, constructor, function expression and arrow function, from its
// first line to its last (a nested function counts in its parent too). The few existing offenders
// are listed in EXCEPTIONS with the reason and the work that removes them; an exception that no
// longer applies fails too, so the list only shrinks.
//
//   node scripts/check-size.mjs            check packages/*/src, bench/src and scripts
//   node scripts/check-size.mjs --all      also list what is near the limits (over 80% of them)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Largest number of lines a source file may have. */
export const MAX_FILE_LINES = 800;
/** Largest number of lines a function may span. */
export const MAX_FUNCTION_LINES = 150;

/**
 * Known offenders, by path (a file's length) or `path#function` (a function's), each with why it is
 * allowed for now. Keep this list short: an entry is a debt with its plan.
 * @type {Record<string, string>}
 */
export const EXCEPTIONS = {
  // Other WGSL modules written as one template function: to become one small function per kernel.
  'packages/gpu-primitives/src/scan/kernels/decoupled.wgsl.ts#scanDecoupledWgsl':
    'one template per module, to split per kernel',
  'packages/sparse-bitvector/src/gpu/kernels/library.wgsl.ts#sparseBitVectorLibraryWgsl':
    'one template per module, to split per kernel',
  'packages/sparse-bitvector/src/gpu/kernels/union.wgsl.ts#unionKernelWgsl':
    'one template per module, to split per kernel',
  // Parsers and front ends written as one recursive-descent function or one module per language;
  // their owners split them with the front-end work in progress.
  'packages/andersen/src/io/text.ts#parseConstraintText': 'parser, to split per directive',
  'packages/octagon/src/analyzer/parse.ts#parseProgram': 'parser, to split per statement',
  'packages/cli/src/cli.ts#createProgram': 'command definitions, to split per command',
  // Engines and hosts a little past the limits.
  'packages/gpu-primitives/src/sort/radix-sort.ts': 'to move the pass planning out',
  'packages/gpu-primitives/src/sort/radix-sort.ts#encode': 'to move the pass planning out',
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** @param {string} dir @returns {string[]} the `.ts`/`.mjs` files under `dir` */
function sourceFiles(dir) {
  /** @type {string[]} */
  const files = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/**
 * A function's name for messages and exceptions: its declared name, the variable or property it is
 * assigned to, or `<anonymous>` with its line.
 * @param {ts.Node} node
 * @param {ts.SourceFile} source
 */
function functionName(node, source) {
  const named = /** @type {{ name?: ts.Node }} */ (node).name;
  if (named) return named.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    return parent.name.getText(source);
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return `<anonymous at line ${line}>`;
}

/**
 * Measures one file: its line count and every function's span.
 * @param {string} path
 * @returns {{ lines: number, functions: { name: string, line: number, lines: number }[] }}
 */
export function measureFile(path) {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  /** @type {{ name: string, line: number, lines: number }[]} */
  const functions = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && /** @type {{ body?: ts.Node }} */ (node).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push({ name: functionName(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { lines, functions };
}

/**
 * Checks every source file and returns the problems (empty when all is within the limits).
 * @param {string[]} files absolute paths
 * @param {Record<string, string>} exceptions
 * @param {number} [near] also report what passes this fraction of a limit, as notes
 */
export function checkSizes(files, exceptions, near = 1) {
  /** @type {string[]} */
  const problems = [];
  /** @type {string[]} */
  const notes = [];
  const used = new Set();
  for (const file of files) {
    const path = relative(root, file).split('\\').join('/');
    const { lines, functions } = measureFile(file);
    if (lines > MAX_FILE_LINES) {
      if (path in exceptions) used.add(path);
      else problems.push(`${path}: ${lines} lines (at most ${MAX_FILE_LINES})`);
    } else if (lines > near * MAX_FILE_LINES) notes.push(`${path}: ${lines} lines`);
    for (const fn of functions) {
      const key = `${path}#${fn.name}`;
      if (fn.lines > MAX_FUNCTION_LINES) {
        if (key in exceptions) used.add(key);
        else
          problems.push(
            `${path}:${fn.line}: function ${fn.name} spans ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`,
          );
      } else if (fn.lines > near * MAX_FUNCTION_LINES)
        notes.push(`${path}:${fn.line}: function ${fn.name}, ${fn.lines} lines`);
    }
  }
  for (const key of Object.keys(exceptions))
    if (!used.has(key))
      problems.push(`${key}: listed in EXCEPTIONS but within the limits now (or gone): remove the entry`);
  return { problems, notes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const packages = join(root, 'packages');
  const files = [
    ...readdirSync(packages).flatMap((name) => {
      const src = join(packages, name, 'src');
      try {
        return statSync(src).isDirectory() ? sourceFiles(src) : [];
      } catch {
        return [];
      }
    }),
    ...sourceFiles(join(root, 'bench', 'src')),
    ...sourceFiles(join(root, 'scripts')),
  ];
  const { problems, notes } = checkSizes(files, EXCEPTIONS, process.argv.includes('--all') ? 0.8 : 1);
  for (const note of notes) process.stdout.write(`near the limit: ${note}\n`);
  if (problems.length > 0) {
    process.stderr.write(
      `check-size: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `check-size: ${files.length} files within ${MAX_FILE_LINES} lines a file and ${MAX_FUNCTION_LINES} a function\n`,
  );
}
