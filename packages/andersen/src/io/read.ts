/**
 * Reading Hardekopf files from disk (Node only: node:fs is imported when a reader runs, so this
 * module loads in a browser too, where the `parse*` functions take bytes you fetched).
 * @module
 */
import { ConstraintParseError } from '../errors';
import type { OpaqueContents } from '../model/opaque';
import type { ConstraintProgram } from '../model/program';
import {
  type HardekopfConstraintOptions,
  parseHardekopfConstraints,
  parseHardekopfHcd,
  parseHardekopfNodes,
  parseHardekopfSolution,
} from './hardekopf';
import {
  CONSTRAINT_FIELDS,
  CONSTRAINTS_HEADER,
  constraintsFromLines,
  NODE_FIELDS,
  NODES_HEADER,
  nodesFromLines,
} from './hardekopf-rows';
import { decompress } from './input';
import type { ReadAnswer, ReaderThreads } from './threads';
import type { HardekopfFiles, HardekopfInput, HcdTable, ReferenceSolution } from './types';

/** Where {@link readHardekopf} finds its files: a common prefix, or each path by role. */
export type HardekopfSource =
  | {
      /** `data/gcc` finds `data/gcc_nodes.txt[.gz]`, `data/gcc_constraints_after_hcd.txt[.gz]`, … */
      readonly prefix: string;
    }
  | {
      readonly nodes: string;
      readonly constraints: string;
      readonly hcd?: string;
      readonly solution?: string;
    };

/** Options of {@link readHardekopf}. */
export interface ReadHardekopfOptions {
  /**
   * With a prefix: `after-hcd` (default) reads `<prefix>_constraints_after_hcd.txt[.gz]`, the
   * constraints the reference solution is for; `raw` reads `<prefix>_constraints.txt[.gz]`.
   */
  readonly constraints?: 'raw' | 'after-hcd';
  /** See {@link HardekopfConstraintOptions.nonObjectAddress}; linux needs `make-object`. */
  readonly nonObjectAddress?: 'error' | 'make-object';
  /**
   * What node 1 (the unknown target of integer-to-pointer casts, `i2p`) holds, given back as
   * `input.opaqueObjects`: `empty` (default; the convention the reference solutions follow) or
   * `tracked` (an ordinary object: stores through pointers to it fill it, loads read it).
   */
  readonly unknownTarget?: OpaqueContents;
  /**
   * Whether a prefix reads the reference solution `<prefix>_correct_soln_001.txt[.gz]` when it is
   * there (default `true`); `false` reads only what a solve needs.
   */
  readonly solution?: boolean;
  /**
   * Worker threads ({@link createReaderThreads}) that read, gunzip and parse the files at once, off
   * the calling thread. Without them (the default) the files are gunzipped on Node's thread pool
   * and parsed on the calling thread. Either way the result, and any error, is the same.
   */
  readonly threads?: ReaderThreads | undefined;
}

/** Node 1 of the Hardekopf files: the unknown target of integer-to-pointer casts (`i2p`). */
export const HARDEKOPF_UNKNOWN_TARGET = 1;

async function readBytes(path: string): Promise<Uint8Array> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(path);
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : String(cause);
    throw new ConstraintParseError({ file: path, line: 1, column: 1 }, `cannot read the file: ${why}`, {
      cause,
    });
  }
}

/** The first of `<base>` and `<base>.gz` that exists, or undefined. */
async function findFile(base: string): Promise<string | undefined> {
  const { stat } = await import('node:fs/promises');
  for (const candidate of [base, `${base}.gz`]) {
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not there: try the next spelling.
    }
  }
  return undefined;
}

async function requireFile(base: string, role: string): Promise<string> {
  const found = await findFile(base);
  if (found === undefined) {
    throw new ConstraintParseError(
      { file: base, line: 1, column: 1 },
      `the ${role} file is missing: neither ${base} nor ${base}.gz exists`,
    );
  }
  return found;
}

async function resolveFiles(source: HardekopfSource, options: ReadHardekopfOptions): Promise<HardekopfFiles> {
  if (!('prefix' in source)) return source;
  const { prefix } = source;
  const constraintsName = options.constraints === 'raw' ? 'constraints' : 'constraints_after_hcd';
  // One after the other, so that a missing file is reported in a fixed order (nodes first).
  const nodes = await requireFile(`${prefix}_nodes.txt`, 'nodes');
  const constraints = await requireFile(`${prefix}_${constraintsName}.txt`, 'constraints');
  const hcd = await findFile(`${prefix}_hcd.txt`);
  const solution = options.solution === false ? undefined : await findFile(`${prefix}_correct_soln_001.txt`);
  return {
    nodes,
    constraints,
    ...(hcd === undefined ? {} : { hcd }),
    ...(solution === undefined ? {} : { solution }),
  };
}

/**
 * Reads a Hardekopf benchmark (nodes, constraints, and when present the HCD table and the reference
 * solution), plain or gzip-compressed (detected by the magic bytes). Node ids of the HCD table and
 * the solution are checked against the nodes file. Node only; in a browser fetch the bytes and call
 * the `parseHardekopf*` functions.
 *
 * @throws ConstraintParseError for a missing or unreadable file and any malformed line (file:line:column).
 * @throws ConstraintModelError (positioned) for a rule break such as an id out of range.
 * @example
 * ```ts
 * const { program, hcd, solution, files } = await readHardekopf({ prefix: '../shared/data/andersen/hardekopf/ex' });
 * files.constraints; // '../shared/data/andersen/hardekopf/ex_constraints_after_hcd.txt.gz'
 * program.nodeCount; // 11078
 * ```
 */
export async function readHardekopf(
  source: HardekopfSource,
  options: ReadHardekopfOptions = {},
): Promise<HardekopfInput> {
  const files = await resolveFiles(source, options);
  const parsed =
    (options.threads && (await parseOnThreads(files, options, options.threads))) ??
    (await parseOnThisThread(files, options));
  const { program } = parsed;
  const { nodeCount } = program;
  const unknownTargetIsObject =
    nodeCount > HARDEKOPF_UNKNOWN_TARGET && (program.objectSize[HARDEKOPF_UNKNOWN_TARGET] as number) > 0;
  return {
    program,
    files,
    opaqueObjects: {
      nodes: unknownTargetIsObject ? [HARDEKOPF_UNKNOWN_TARGET] : [],
      contents: options.unknownTarget ?? 'empty',
    },
    ...(parsed.hcd === undefined ? {} : { hcd: parsed.hcd }),
    ...(parsed.solution === undefined ? {} : { solution: parsed.solution }),
  };
}

/** What the files of a program parse to. */
interface ParsedFiles {
  readonly program: ConstraintProgram;
  readonly hcd: HcdTable | undefined;
  readonly solution: ReferenceSolution | undefined;
}

function constraintOptions(files: HardekopfFiles, options: ReadHardekopfOptions) {
  return {
    file: files.constraints,
    ...(options.nonObjectAddress === undefined ? {} : { nonObjectAddress: options.nonObjectAddress }),
  };
}

/** The HCD table and the solution from their plain bytes, node ids checked against `nodeCount`. */
function parseTables(
  files: HardekopfFiles,
  nodeCount: number,
  hcdBytes: Uint8Array | undefined,
  solutionBytes: Uint8Array | undefined,
): Omit<ParsedFiles, 'program'> {
  return {
    hcd:
      hcdBytes && files.hcd !== undefined
        ? parseHardekopfHcd(hcdBytes, { file: files.hcd, nodeCount })
        : undefined,
    solution:
      solutionBytes && files.solution !== undefined
        ? parseHardekopfSolution(solutionBytes, { file: files.solution, nodeCount })
        : undefined,
  };
}

/**
 * Gunzips every file on Node's thread pool at once, and parses each on this thread as soon as it
 * and the ones before it are there (the nodes file while the constraints are still gunzipped).
 * When anything fails, the error is the one of the order reading all, then parsing in turn,
 * gives: the first file that could not be read, else the first parse error.
 */
async function parseOnThisThread(files: HardekopfFiles, options: ReadHardekopfOptions): Promise<ParsedFiles> {
  const load = async (path: string) => decompress(await readBytes(path), path);
  const loads = [
    load(files.nodes),
    load(files.constraints),
    files.hcd === undefined ? undefined : load(files.hcd),
    files.solution === undefined ? undefined : load(files.solution),
  ] as const;
  // Handled here: a file that fails while an earlier one is parsed must not go unhandled.
  for (const loading of loads) loading?.catch(() => {});
  try {
    const nodes = parseHardekopfNodes(await loads[0], { file: files.nodes });
    const program = parseHardekopfConstraints(await loads[1], nodes, constraintOptions(files, options));
    return { program, ...parseTables(files, program.nodeCount, await loads[2], await loads[3]) };
  } catch {
    const [nodeBytes, constraintBytes, hcdBytes, solutionBytes] = await Promise.all(loads);
    const nodes = parseHardekopfNodes(nodeBytes, { file: files.nodes });
    const program = parseHardekopfConstraints(constraintBytes, nodes, constraintOptions(files, options));
    return { program, ...parseTables(files, program.nodeCount, hcdBytes, solutionBytes) };
  }
}

/**
 * The program built from the threads' rows, or undefined (the caller then reads on this thread):
 * also when its arrays cannot be allocated, where the token-by-token parsers, which size theirs by
 * what they read, may still fit or fail with their positioned error.
 */
function buildOrGiveUp(build: () => ConstraintProgram | undefined): ConstraintProgram | undefined {
  try {
    return build();
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * Reads, gunzips and scans every file at once on the reader threads, then builds the program from
 * the scanned lines on this thread (the rules checked as {@link parseHardekopfConstraints} does).
 * `undefined` when anything failed or broke a rule: the caller then reads everything on this
 * thread, which throws the same positioned error the threadless path throws.
 */
async function parseOnThreads(
  files: HardekopfFiles,
  options: ReadHardekopfOptions,
  threads: ReaderThreads,
): Promise<ParsedFiles | undefined> {
  const [nodeLines, constraintLines, hcdBytes, solutionBytes] = await Promise.all([
    threads.read(files.nodes, NODES_HEADER, NODE_FIELDS),
    threads.read(files.constraints, CONSTRAINTS_HEADER, CONSTRAINT_FIELDS),
    files.hcd === undefined ? undefined : threads.read(files.hcd, [], 0),
    files.solution === undefined ? undefined : threads.read(files.solution, [], 0),
  ]);
  if (nodeLines.kind !== 'lines' || constraintLines.kind !== 'lines') return undefined;
  if (hcdBytes?.kind === 'failed' || solutionBytes?.kind === 'failed') return undefined;
  const program = buildOrGiveUp(() => {
    const nodes = nodesFromLines(nodeLines.lines);
    const makeObjects = options.nonObjectAddress === 'make-object';
    return nodes && constraintsFromLines(constraintLines.lines, nodes, makeObjects);
  });
  if (program === undefined) return undefined;
  const bytesOf = (answer: ReadAnswer | undefined) => (answer?.kind === 'bytes' ? answer.bytes : undefined);
  return { program, ...parseTables(files, program.nodeCount, bytesOf(hcdBytes), bytesOf(solutionBytes)) };
}
