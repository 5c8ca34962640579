/**
 * Readers and writers of the data folder's formats: `Fun.mat`/`Arg1.mat`/`Arg2.mat` (a
 * parenthesised list of integers), `program-params.lst` (`lams vars calls wordsize`) and
 * `expected-store.rkt` (a Racket `#hash((row . (lam …)) …)`).
 * @module
 */
import { MatrixFormatError } from '../errors';
import { type CfaStore, storeFromRows } from '../store';
import { type CfaMatrices, createCfaMatrices } from './program';

/**
 * Parses a `.mat` file: `(n0 n1 …)`.
 *
 * @example
 * ```ts
 * parseMat('(11 8 14)'); // Uint32Array [11, 8, 14]
 * ```
 */
export function parseMat(text: string, file = '<mat>'): Uint32Array {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open)
    throw new MatrixFormatError(file, 'expected a parenthesised list of integers');
  const out: number[] = [];
  let i = open + 1;
  let value = -1;
  for (; i < close; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) value = (value < 0 ? 0 : value * 10) + (c - 48);
    else if (c === 32 || c === 10 || c === 13 || c === 9) {
      if (value >= 0) out.push(value);
      value = -1;
    } else {
      throw new MatrixFormatError(file, `unexpected character '${text[i]}' at offset ${i}`);
    }
  }
  if (value >= 0) out.push(value);
  return Uint32Array.from(out);
}

/**
 * Writes a `.mat` file's text.
 *
 * @example
 * ```ts
 * formatMat([1, 2, 3]); // '(1 2 3)'
 * ```
 */
export function formatMat(values: ArrayLike<number>): string {
  return `(${Array.from(values).join(' ')})`;
}

/**
 * The most lambdas a data-folder program may declare: 2^20 (the largest program of the data folder
 * has 63,500). Checked before anything is allocated: the engines allocate by the declared count,
 * so a short file declaring 10^9 lambdas took 15.7 GB and did not finish (2^24 took 4.3 GB and
 * 100 s on the CPU engine; 2^20, 16 times the largest program, 0.4 GB and 6 s).
 */
export const MAX_MATRIX_LAMBDAS = 2 ** 20;

/**
 * Parses `program-params.lst`.
 *
 * @example
 * ```ts
 * parseParams('14 28 15 32'); // { lams: 14, vars: 28, calls: 15, wordSize: 32 }
 * ```
 */
export function parseParams(
  text: string,
  file = 'program-params.lst',
): { lams: number; vars: number; calls: number; wordSize: number } {
  const parts = text.trim().split(/\s+/).map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0))
    throw new MatrixFormatError(
      file,
      `expected four integers 'lams vars calls wordsize', got '${text.trim()}'`,
    );
  const [lams, vars, calls, wordSize] = parts as [number, number, number, number];
  if (lams > MAX_MATRIX_LAMBDAS) {
    throw new MatrixFormatError(file, `${lams} lambdas is above the limit of ${MAX_MATRIX_LAMBDAS}`);
  }
  return { lams, vars, calls, wordSize };
}

/**
 * The text of `program-params.lst` for a program.
 *
 * @example
 * ```ts
 * formatParams({ lams: 14, vars: 28, calls: 15, wordSize: 32 }); // '14 28 15 32'
 * ```
 */
export function formatParams(m: Pick<CfaMatrices, 'lams' | 'vars' | 'calls' | 'wordSize'>): string {
  return `${m.lams} ${m.vars} ${m.calls} ${m.wordSize}`;
}

/**
 * Builds matrices from the four files' texts, checking them against each other.
 *
 * @example
 * ```ts
 * const m = matricesFromTexts({ params: '14 28 15 32', fun: '(0 1 …)', arg1: '(…)', arg2: '(…)' });
 * ```
 */
export function matricesFromTexts(
  texts: { params: string; fun: string; arg1: string; arg2: string },
  dir = '.',
): CfaMatrices {
  const params = parseParams(texts.params, `${dir}/program-params.lst`);
  const fun = parseMat(texts.fun, `${dir}/Fun.mat`);
  const arg1 = parseMat(texts.arg1, `${dir}/Arg1.mat`);
  const arg2 = parseMat(texts.arg2, `${dir}/Arg2.mat`);
  if (fun.length !== params.calls)
    throw new MatrixFormatError(
      `${dir}/Fun.mat`,
      `has ${fun.length} entries, program-params.lst says ${params.calls} calls`,
    );
  return createCfaMatrices({
    lams: params.lams,
    vars: params.vars,
    wordSize: params.wordSize,
    fun,
    arg1,
    arg2,
    file: dir,
  });
}

/**
 * Reads a data-folder directory (`program-params.lst`, `Fun.mat`, `Arg1.mat`, `Arg2.mat`).
 *
 * @example
 * ```ts
 * const m = await readMatricesDir('../shared/data/eigencfa/vhm/64');
 * ```
 */
export async function readMatricesDir(dir: string): Promise<CfaMatrices> {
  const { readFile } = await import('node:fs/promises');
  const read = async (name: string) => {
    try {
      return await readFile(`${dir}/${name}`, 'utf8');
    } catch (cause) {
      throw new MatrixFormatError(`${dir}/${name}`, `cannot read: ${String(cause)}`, { cause });
    }
  };
  return matricesFromTexts(
    {
      params: await read('program-params.lst'),
      fun: await read('Fun.mat'),
      arg1: await read('Arg1.mat'),
      arg2: await read('Arg2.mat'),
    },
    dir,
  );
}

/**
 * Writes the four files of a program into `dir` (created if missing).
 *
 * @example
 * ```ts
 * await writeMatricesDir('/tmp/prog', compileScheme(source).matrices);
 * ```
 */
export async function writeMatricesDir(dir: string, m: CfaMatrices): Promise<void> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/program-params.lst`, `${formatParams(m)}\n`);
  await writeFile(`${dir}/Fun.mat`, formatMat(m.fun));
  await writeFile(`${dir}/Arg1.mat`, formatMat(m.arg1));
  await writeFile(`${dir}/Arg2.mat`, formatMat(m.arg2));
}

/**
 * Parses `expected-store.rkt`: `#hash((0 . (0)) (1 . (1)) (14 . (11)) (18 . ()) …)`.
 *
 * @example
 * ```ts
 * parseExpectedStore('#hash((0 . (0)) (1 . ()))').toArrays(); // [[0], []]
 * ```
 */
export function parseExpectedStore(text: string, file = 'expected-store.rkt', rows?: number): CfaStore {
  const start = text.indexOf('#hash(');
  if (start < 0) throw new MatrixFormatError(file, "expected '#hash('");
  const entries: number[][] = [];
  const re = /\((\d+)\s+\.\s+\(([\d\s]*)\)\)/g;
  re.lastIndex = start + 6;
  let m: RegExpExecArray | null;
  let count = 0;
  for (;;) {
    m = re.exec(text);
    if (!m) break;
    const row = Number(m[1]);
    const lams = (m[2] as string).trim() === '' ? [] : (m[2] as string).trim().split(/\s+/).map(Number);
    if (entries[row] !== undefined) throw new MatrixFormatError(file, `row ${row} appears twice`);
    entries[row] = lams;
    count++;
  }
  const n = rows ?? entries.length;
  if (count !== n) throw new MatrixFormatError(file, `has ${count} rows, expected ${n}`);
  for (let r = 0; r < n; r++)
    if (entries[r] === undefined) throw new MatrixFormatError(file, `row ${r} is missing`);
  return storeFromRows(entries);
}

/**
 * Formats a store as `expected-store.rkt` text.
 *
 * @example
 * ```ts
 * formatExpectedStore(storeFromRows([[0], []])); // '#hash((0 . (0)) (1 . ()))'
 * ```
 */
export function formatExpectedStore(store: CfaStore): string {
  const parts: string[] = [];
  for (let r = 0; r < store.rows; r++) parts.push(`(${r} . (${Array.from(store.row(r)).join(' ')}))`);
  return `#hash(${parts.join(' ')})`;
}
