/**
 * The reader threads' scan of the Hardekopf nodes and constraints files: one tight loop over the
 * decompressed bytes that reads lines of comma-separated unsigned integers into one flat array,
 * without a per-line call or allocation. It accepts only the plain shape the suite's files have
 * (digits, `,`, `\n`, blank lines and `#` comment lines) and gives up, returning `undefined`, on
 * anything else: the file is then read on the calling thread by the token-by-token parsers, which
 * throw the positioned error or accept a spelling this loop leaves to them (`\r\n` endings,
 * blanks around fields, numbers of more than ten digits).
 *
 * {@link scanNumberLines} and its helpers are self-contained (no reference to anything outside
 * their bodies) because the reader threads run their source text ({@link numberLinesSource}).
 * @module
 */

/** What {@link scanNumberLines} read: the header lines' numbers, then the body rows, flat. */
export interface NumberLines {
  /** The numbers of the header lines, in order (`headerFields` of them per line). */
  readonly header: number[];
  /** The body rows' numbers, `fields` per row, row after row. */
  readonly values: Uint32Array;
  /** Rows of the body. */
  readonly rows: number;
}

/**
 * Reads the `count` comma-separated numbers of the line at `p` into `into` from index `at`;
 * returns the next line's start, or -1 when the line has another shape.
 */
function readNumbers(
  bytes: Uint8Array,
  p: number,
  end: number,
  count: number,
  into: Uint32Array,
  at: number,
): number {
  for (let f = 0; f < count; f++) {
    if (f > 0) {
      if (p >= end || bytes[p] !== 0x2c) return -1;
      p++;
    }
    const start = p;
    let value = 0;
    while (p < end) {
      const digit = (bytes[p] as number) - 0x30;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
      p++;
    }
    if (p === start || p - start > 10 || value > 0xffff_ffff) return -1;
    into[at + f] = value;
  }
  if (p >= end) return end;
  return bytes[p] === 0x0a ? p + 1 : -1;
}

/** The start of the first line at or after `p` that is neither blank (`\n`) nor a `#` comment. */
function skipEmptyLines(bytes: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const b = bytes[p] as number;
    if (b === 0x0a) p++;
    else if (b === 0x23) {
      const next = bytes.indexOf(0x0a, p);
      p = next < 0 ? end : next + 1;
    } else break;
  }
  return p;
}

/**
 * Reads `bytes` as lines of comma-separated unsigned 32-bit integers: first one line per entry of
 * `headerFields` with that many numbers, then rows of `fields` numbers to the end. Blank lines
 * (just `\n`) and lines that start with `#` are skipped anywhere. Returns `undefined` at the first
 * byte outside that shape, a number of more than ten digits or past 2³² − 1, or a missing header
 * line.
 *
 * @example
 * ```ts
 * scanNumberLines(new TextEncoder().encode('# c\n1,0,0,0,0\n0,5,7,0,0\n'), [5], 5);
 * // { header: [1, 0, 0, 0, 0], values: Uint32Array [0, 5, 7, 0, 0], rows: 1 }
 * ```
 */
export function scanNumberLines(
  bytes: Uint8Array,
  headerFields: readonly number[],
  fields: number,
): NumberLines | undefined {
  // A plain Uint8Array view (not a Node Buffer) and Uint32Array targets only: the loads and
  // stores of the loop stay monomorphic, which is worth a factor of three here.
  const plain =
    bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const end = plain.length;
  let headerCount = 0;
  for (const count of headerFields) headerCount += count;
  const header = new Uint32Array(headerCount);
  let p = 0;
  let read = 0;
  for (const count of headerFields) {
    p = skipEmptyLines(plain, p, end);
    if (p >= end) return undefined;
    p = readNumbers(plain, p, end, count, header, read);
    if (p < 0) return undefined;
    read += count;
  }
  // A row takes at least two bytes per number (a digit and a separator): a bound on the rows.
  const values = new Uint32Array((Math.floor((end - p) / (2 * fields)) + 1) * fields);
  let written = 0;
  for (p = skipEmptyLines(plain, p, end); p < end; p = skipEmptyLines(plain, p, end)) {
    p = readNumbers(plain, p, end, fields, values, written);
    if (p < 0) return undefined;
    written += fields;
  }
  return { header: Array.from(header), values: values.subarray(0, written), rows: written / fields };
}

/**
 * The source text of {@link scanNumberLines} and its helpers, for a worker thread to evaluate: the
 * functions as this build compiled them, so the threads run the very code the calling thread runs.
 */
export function numberLinesSource(): string {
  return `${readNumbers.toString()}\n${skipEmptyLines.toString()}\n${scanNumberLines.toString()}\n`;
}
