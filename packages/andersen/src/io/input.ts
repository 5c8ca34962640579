/**
 * Raw input handling shared by every reader: bytes or text in, gzip detected by its magic bytes,
 * decompression that works in Node (node:zlib, reached without a top-level import so that the
 * package stays loadable in a browser) and in browsers (DecompressionStream), and positions
 * (1-based line and column) computed from byte offsets for error messages.
 * @module
 */
import { ConstraintParseError, type SourcePosition } from '../errors';

/** What the parse functions accept: file contents as bytes (plain or gzip-compressed) or as text. */
export type TextInput = Uint8Array | ArrayBuffer | string;

/** Options every parse function takes. */
export interface ParseOptions {
  /** The name used in error messages (`file:line:column: reason`); default `<input>`. */
  readonly file?: string;
}

/** The file name used in messages when the caller gave none. */
export const UNNAMED_INPUT = '<input>';

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/**
 * Whether `bytes` start with the gzip magic bytes `1f 8b` (the file name does not matter).
 *
 * @example
 * ```ts
 * isGzip(new Uint8Array([0x1f, 0x8b, 8])); // true
 * isGzip(new TextEncoder().encode('11078\n')); // false
 * ```
 */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === GZIP_MAGIC_0 && bytes[1] === GZIP_MAGIC_1;
}

/** Line and column (1-based) of byte `offset` in `bytes`; columns count bytes. */
export function positionAt(bytes: Uint8Array, offset: number, file: string): SourcePosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, bytes.length);
  for (let i = 0; i < end; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { file, line, column: end - lineStart + 1 };
}

/** Line and column (1-based) of character `offset` in `text`; columns count UTF-16 code units. */
export function positionInText(text: string, offset: number, file: string): SourcePosition {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { file, line, column: end - lineStart + 1 };
}

function asBytes(input: TextInput): Uint8Array {
  if (typeof input === 'string') return new TextEncoder().encode(input);
  if (input instanceof Uint8Array) return input;
  return new Uint8Array(input);
}

interface SyncZlib {
  gunzipSync(data: Uint8Array, options?: { finishFlush?: number }): Uint8Array;
  constants: { Z_SYNC_FLUSH: number };
}

/** node:zlib when running in Node (≥ 20.16, through `process.getBuiltinModule`), else undefined. */
function nodeZlib(): SyncZlib | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:zlib') as SyncZlib | undefined;
}

/** The error for a gzip stream that could not be decompressed, positioned where its text stops. */
function gzipError(compressed: Uint8Array, partial: Uint8Array | undefined, file: string, cause: unknown) {
  const detail = cause instanceof Error ? cause.message : String(cause);
  if (partial && partial.length > 0) {
    const end = positionAt(partial, partial.length, file);
    return new ConstraintParseError(
      end,
      `the gzip stream is truncated or corrupt (${detail}): its text stops here, after ${partial.length} decompressed bytes from ${compressed.length} compressed bytes`,
      { cause },
    );
  }
  return new ConstraintParseError(
    { file, line: 1, column: 1 },
    `the gzip stream is truncated or corrupt (${detail}): nothing could be decompressed from its ${compressed.length} bytes`,
    { cause },
  );
}

/**
 * The plain bytes of `input`, gunzipped synchronously when it starts with the gzip magic bytes.
 * Synchronous decompression needs Node; in a browser call {@link decompress} first.
 * @internal
 */
export function plainBytesSync(input: TextInput, file: string): Uint8Array {
  const bytes = asBytes(input);
  if (!isGzip(bytes)) return bytes;
  const zlib = nodeZlib();
  if (!zlib) {
    throw new ConstraintParseError(
      { file, line: 1, column: 1 },
      'the input is gzip-compressed and this runtime has no synchronous gunzip; `await decompress(bytes)` first',
    );
  }
  try {
    return zlib.gunzipSync(bytes);
  } catch (cause) {
    let partial: Uint8Array | undefined;
    try {
      partial = zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    } catch {
      partial = undefined;
    }
    throw gzipError(bytes, partial, file, cause);
  }
}

/**
 * The plain text of `input` (UTF-8), gunzipped synchronously when needed.
 * @internal
 */
export function plainTextSync(input: TextInput, file: string): string {
  if (typeof input === 'string') return input;
  return new TextDecoder().decode(plainBytesSync(input, file));
}

/**
 * Decompresses `input` when it is gzip-compressed (detected by the magic bytes), otherwise returns
 * its bytes unchanged. Works in Node (node:zlib, off the main thread) and in browsers
 * (DecompressionStream). A truncated or corrupt stream throws {@link ConstraintParseError} at the
 * line and column where the recoverable text stops, with the decompressor's error as `cause`.
 *
 * @example
 * ```ts
 * const bytes = new Uint8Array(await (await fetch('gcc_nodes.txt.gz')).arrayBuffer());
 * const program = parseHardekopfNodes(await decompress(bytes, 'gcc_nodes.txt.gz'));
 * ```
 */
export async function decompress(input: TextInput, file: string = UNNAMED_INPUT): Promise<Uint8Array> {
  const bytes = asBytes(input);
  if (!isGzip(bytes)) return bytes;
  if (nodeZlib()) {
    const zlib = await import('node:zlib');
    try {
      return await new Promise<Uint8Array>((resolve, reject) =>
        zlib.gunzip(bytes, (error, result) => (error ? reject(error) : resolve(result))),
      );
    } catch {
      // Decompress again synchronously to recover the partial text and position the error.
      return plainBytesSync(bytes, file);
    }
  }
  return decompressWithStream(bytes, file);
}

async function decompressWithStream(bytes: Uint8Array, file: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const joined = () => {
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  };
  try {
    const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
      .stream()
      .pipeThrough(new DecompressionStream('gzip'));
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } catch (cause) {
    throw gzipError(bytes, joined(), file, cause);
  }
  return joined();
}
