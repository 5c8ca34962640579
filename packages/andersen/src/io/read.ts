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
import { decompress } from './input';
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
  const solution = await findFile(`${prefix}_correct_soln_001.txt`);
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
  const load = async (path: string) => decompress(await readBytes(path), path);
  const [nodeBytes, constraintBytes, hcdBytes, solutionBytes] = await Promise.all([
    load(files.nodes),
    load(files.constraints),
    files.hcd === undefined ? undefined : load(files.hcd),
    files.solution === undefined ? undefined : load(files.solution),
  ]);
  const nodes = parseHardekopfNodes(nodeBytes, { file: files.nodes });
  const program: ConstraintProgram = parseHardekopfConstraints(constraintBytes, nodes, {
    file: files.constraints,
    ...(options.nonObjectAddress === undefined ? {} : { nonObjectAddress: options.nonObjectAddress }),
  });
  const { nodeCount } = program;
  const hcd: HcdTable | undefined =
    hcdBytes && files.hcd !== undefined
      ? parseHardekopfHcd(hcdBytes, { file: files.hcd, nodeCount })
      : undefined;
  const solution: ReferenceSolution | undefined =
    solutionBytes && files.solution !== undefined
      ? parseHardekopfSolution(solutionBytes, { file: files.solution, nodeCount })
      : undefined;
  const unknownTargetIsObject =
    nodeCount > HARDEKOPF_UNKNOWN_TARGET && (program.objectSize[HARDEKOPF_UNKNOWN_TARGET] as number) > 0;
  return {
    program,
    files,
    opaqueObjects: {
      nodes: unknownTargetIsObject ? [HARDEKOPF_UNKNOWN_TARGET] : [],
      contents: options.unknownTarget ?? 'empty',
    },
    ...(hcd === undefined ? {} : { hcd }),
    ...(solution === undefined ? {} : { solution }),
  };
}
