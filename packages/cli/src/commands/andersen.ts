import { stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type AndersenEngine,
  appendOfflineMerges,
  applyOfflineMerges,
  applyOpaqueObjects,
  ConstraintParseError,
  type ConstraintProgram,
  computeHvn,
  computeOfflineHcd,
  countByKind,
  createGpuOfflinePasses,
  createReaderThreads,
  decompress,
  formatPointsTo,
  HARDEKOPF_REFERENCE_CONVENTIONS,
  type HardekopfSource,
  type HcdTable,
  type OpaqueObjects,
  parseConstraintJson,
  parseConstraintText,
  parseHardekopfSolution,
  parsePointsTo,
  type ReferenceSolution,
  readHardekopf,
  solveAndersen,
  type VerificationReport,
  verifySolution,
} from '@gpumorph/andersen';
import { EXIT_FAILURE, refuseToOverwrite } from '../errors';
import { formatNumber } from '../format';
import { gpuForEngine, withCpuFallback } from '../gpu';
import { type CliIo, colorsFor } from '../io';
import { progressFor } from '../progress';
import { type AnalysisReport, writeReport } from '../report';

/** Options of `gpumorph andersen solve`. */
export interface AndersenSolveOptions {
  /** A Hardekopf prefix (`data/gcc`) or a `gpumorph-constraints` text or JSON file. */
  readonly input?: string | undefined;
  readonly nodes?: string | undefined;
  readonly constraints?: string | undefined;
  readonly hcd?: string | undefined;
  /** A reference solution: Hardekopf `_correct_soln` or `gpumorph-points-to` file. */
  readonly verify?: string | undefined;
  /** With a prefix: which constraints file (`after-hcd` default, or `raw`). */
  readonly constraintSet: 'raw' | 'after-hcd';
  /** Use the HCD table when one is found (default true). */
  readonly useHcd: boolean;
  /** Compute HCD from the constraints here (offline pass) instead of reading a table. */
  readonly offlineHcd?: boolean | undefined;
  /** Merge pointer-equivalent variables found by hash-based value numbering before solving. */
  readonly hvn?: boolean | undefined;
  /** Where `offlineHcd` and `hvn` run (default `cpu`; `webgpu` gives the same merges and pairs). */
  readonly offlineEngine?: 'cpu' | 'webgpu' | undefined;
  readonly engine: AndersenEngine;
  /** Write the points-to sets here (`gpumorph-points-to 1`). */
  readonly out?: string | undefined;
  readonly json: boolean;
  /** Print every non-empty points-to set, by node name (for small programs). */
  readonly print?: boolean | undefined;
}

/** Constraint counts by kind. */
export interface ConstraintCounts {
  readonly total: number;
  readonly addressOf: number;
  readonly copy: number;
  readonly load: number;
  readonly store: number;
  readonly offset: number;
}

/** What `gpumorph andersen solve --json` prints (the common {@link AnalysisReport} shape). */
export type AndersenSolveReport = AnalysisReport<
  Record<string, string>,
  {
    readonly nodes: number;
    readonly constraints: ConstraintCounts;
    readonly hcd: { readonly offlineMerges: number; readonly onlinePairs: number } | null;
    /** The process's peak resident set size, bytes. */
    readonly peakMemoryBytes: number;
  },
  {
    /** Reading and parsing the input files. */
    readonly readMs: number;
    /** Offline passes run here (--offline-hcd, --hvn); 0 when none ran (a shipped HCD table costs only its reading). */
    readonly offlineMs: number;
    readonly solveMs: number;
  },
  {
    readonly iterations: number;
    readonly pointsToEdges: number;
    /** The opaque objects (Hardekopf: node 1, the unknown target of integer-to-pointer casts) and what they hold. */
    readonly opaqueObjects: { readonly nodes: number[]; readonly contents: OpaqueObjects['contents'] };
    readonly statistics: Record<string, number | string>;
    readonly verification: {
      readonly file: string;
      readonly exact: boolean;
      /** The node counts of the solution and of the reference (`exact` needs them equal). */
      readonly nodeCounts: VerificationReport['nodeCounts'];
      readonly checked: number;
      readonly differing: number;
      readonly ignored: VerificationReport['ignored'];
      readonly firstDifferences: { variable: number; expected: number[]; actual: number[] }[];
    } | null;
  }
>;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** A `gpumorph-constraints` text or JSON file (plain or gzipped). */
async function readConstraintFile(path: string): Promise<ConstraintProgram> {
  const { readFile } = await import('node:fs/promises');
  const bytes = await decompress(await readFile(path), path);
  let start = 0;
  while (
    start < bytes.length &&
    (bytes[start] === 0x20 || bytes[start] === 0x0a || bytes[start] === 0x0d || bytes[start] === 0x09)
  )
    start++;
  if (bytes[start] === 0x7b /* { */) return parseConstraintJson(bytes, { file: path });
  return parseConstraintText(bytes, { file: path });
}

/** A reference solution in either format, chosen by its first line. */
async function readSolutionFile(path: string, nodeCount: number): Promise<ReferenceSolution> {
  const { readFile } = await import('node:fs/promises');
  let bytes: Uint8Array;
  try {
    bytes = await decompress(await readFile(path), path);
  } catch (cause) {
    if (cause instanceof ConstraintParseError) throw cause;
    throw new ConstraintParseError(
      { file: path, line: 1, column: 1 },
      `cannot read the file: ${String(cause)}`,
      {
        cause,
      },
    );
  }
  const head = new TextDecoder().decode(bytes.subarray(0, 32));
  if (head.startsWith('gpumorph-points-to')) return parsePointsTo(bytes, { file: path, nodeCount });
  return parseHardekopfSolution(bytes, { file: path, nodeCount });
}

/**
 * Compressed bytes of the nodes and constraints files from which `andersen solve` reads on worker
 * threads: starting them costs tens of milliseconds (a V8 isolate each), which only inputs this
 * large win back by gunzipping and parsing their files at once.
 */
const READ_THREADS_FROM_BYTES = 2 * 2 ** 20;

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** Reads Hardekopf files (by prefix or by role), on reader threads when they are large. */
async function readHardekopfFiles(source: HardekopfSource, constraintSet: 'raw' | 'after-hcd') {
  const [nodes, constraints] =
    'prefix' in source
      ? [
          `${source.prefix}_nodes.txt`,
          `${source.prefix}_${constraintSet === 'raw' ? 'constraints' : 'constraints_after_hcd'}.txt`,
        ]
      : [source.nodes, source.constraints];
  const sizes = await Promise.all(
    [nodes, `${nodes}.gz`, constraints, `${constraints}.gz`].map((path) => fileSize(path)),
  );
  const large = sizes.reduce((a, b) => a + b, 0) >= READ_THREADS_FROM_BYTES;
  const threads = large ? createReaderThreads({ threads: 4 }) : undefined;
  try {
    return await readHardekopf(source, {
      constraints: constraintSet,
      nonObjectAddress: 'make-object',
      threads,
    });
  } finally {
    threads?.destroy();
  }
}

/** What `andersen solve` reads: the program, its HCD table and reference, and the files they came from. */
interface SolveInput {
  readonly program: ConstraintProgram;
  readonly hcd: HcdTable | undefined;
  readonly solution: ReferenceSolution | undefined;
  readonly files: Record<string, string>;
  /** Whether the input is in the Hardekopf files' format (whose reference conventions apply). */
  readonly hardekopf: boolean;
  readonly opaqueObjects: OpaqueObjects;
}

/**
 * Reads the input of `andersen solve` (an own-format file, or Hardekopf files by prefix or by role)
 * and its `--verify` reference, and refuses an `--out` that names any of them.
 */
async function readSolveInput(options: AndersenSolveOptions): Promise<SolveInput> {
  let program: ConstraintProgram;
  let hcd: HcdTable | undefined;
  let solution: ReferenceSolution | undefined;
  let files: Record<string, string>;
  let hardekopf = false;
  // The Hardekopf files' convention for node 1 (contents empty, as their reference solutions).
  let opaqueObjects: OpaqueObjects = { nodes: [], contents: 'tracked' };
  if (options.input !== undefined && (await isFile(options.input))) {
    program = await readConstraintFile(options.input);
    files = { constraints: options.input };
  } else {
    const source =
      options.input !== undefined
        ? { prefix: options.input }
        : options.nodes !== undefined && options.constraints !== undefined
          ? {
              nodes: options.nodes,
              constraints: options.constraints,
              ...(options.hcd !== undefined ? { hcd: options.hcd } : {}),
            }
          : undefined;
    if (source === undefined) {
      // The command line checks this first; a caller of this function gets the same words.
      throw new RangeError('give an input: a prefix or file, or both nodes and constraints files');
    }
    const input = await readHardekopfFiles(source, options.constraintSet);
    ({ program, hcd, solution, opaqueObjects } = input);
    files = { ...input.files };
    hardekopf = true;
  }
  if (options.verify !== undefined) {
    solution = await readSolutionFile(options.verify, program.nodeCount);
    files.verify = options.verify;
  }
  if (options.out !== undefined) await refuseToOverwrite('--out', options.out, Object.values(files));
  return { program, hcd, solution, files, hardekopf, opaqueObjects };
}

/**
 * `gpumorph andersen solve`: reads a points-to problem (Hardekopf files by prefix or by role, or an
 * own-format file), solves it, optionally verifies against a reference and writes the points-to
 * sets. Prints a summary (or `--json`) on stdout, progress on stderr. Returns the exit status: 1 when
 * verification finds a difference.
 *
 * @example
 * ```ts
 * await runAndersenSolve({ input: 'examples/andersen/linked-list.gmc', engine: 'auto', json: true, constraintSet: 'after-hcd', useHcd: true }, processIo());
 * ```
 */
export async function runAndersenSolve(options: AndersenSolveOptions, io: CliIo): Promise<number> {
  const c = colorsFor(io);
  const log = (line: string) => io.stderr.write(`${c.dim(line)}\n`);
  const readStart = performance.now();
  const { program, solution, files, hardekopf, opaqueObjects, ...read } = await readSolveInput(options);
  let hcd = read.hcd;
  // With --offline-hcd the table's online pairs are replaced by ours. Its offline merges stay for
  // `_after_hcd` constraints, where they name the representatives the merged-away variables were
  // renamed to; raw constraints need none of them, and they would bring back the over-approximation
  // of merging cycles through `*x` offline (see computeOfflineHcd).
  const shippedMerges =
    options.useHcd && options.offlineHcd && options.constraintSet !== 'raw' ? hcd?.offlineMerges : undefined;
  if (!options.useHcd || options.offlineHcd) hcd = undefined;
  const readMs = performance.now() - readStart;
  const offlineStart = performance.now();
  let solvedProgram = program;
  const offlineGpu =
    options.offlineEngine === 'webgpu' && (options.offlineHcd || options.hvn)
      ? await gpuForEngine('webgpu')
      : null;
  const passes = offlineGpu ? createGpuOfflinePasses(offlineGpu) : undefined;
  try {
    if (options.offlineHcd) {
      // The offline passes see the program as the engines solve it (opaque objects rewritten).
      const seen = applyOpaqueObjects(program, undefined, opaqueObjects).program;
      const computed = passes ? await passes.computeOfflineHcd(seen) : computeOfflineHcd(seen);
      solvedProgram = applyOfflineMerges(program, computed.offlineMerges);
      hcd = appendOfflineMerges(computed, shippedMerges);
      log(
        `andersen: offline HCD: ${computed.statistics.mergedVariables} variables merged, ${computed.statistics.onlinePairs} online pairs`,
      );
    }
    if (options.hvn) {
      const seen = applyOpaqueObjects(solvedProgram, undefined, opaqueObjects).program;
      const hvn = passes ? await passes.computeHvn(seen) : computeHvn(seen);
      hcd = appendOfflineMerges(hcd, hvn.merges);
      log(`andersen: HVN: ${hvn.statistics.mergedVariables} variables merged`);
    }
  } finally {
    passes?.destroy();
    offlineGpu?.destroy();
  }
  const offlineMs = performance.now() - offlineStart;
  log(
    `andersen: ${count(program.nodeCount)} nodes, ${count(program.constraints.length)} constraints` +
      (hcd
        ? `, HCD table (${hcd.offlineMerges.length / 2} offline merges, ${hcd.online.length / 2} online pairs)`
        : '') +
      ` read in ${formatNumber(readMs)} ms`,
  );

  const progress = progressFor(io, 'andersen', 1);
  const gpu = await gpuForEngine(options.engine);
  const solve = (engine: 'cpu' | 'webgpu') =>
    solveAndersen(solvedProgram, {
      engine,
      ...(gpu ? { gpu } : {}),
      hcd,
      opaqueObjects,
      onIteration: (event) => {
        progress.setTotal(event.round + 1);
        progress.update(event.round, `round ${event.round}: ${count(event.propagated)} nodes propagated`);
      },
    });
  const result = await withCpuFallback(
    options.engine,
    gpu,
    io,
    () => solve('webgpu'),
    () => solve('cpu'),
  ).finally(() => {
    progress.stop();
    gpu?.destroy();
  });
  const statistics = result.statistics;

  let verification: AndersenSolveReport['result']['verification'] = null;
  if (solution !== undefined) {
    const report = verifySolution(
      result,
      solution,
      hardekopf && opaqueObjects.contents === 'tracked' ? { ignore: HARDEKOPF_REFERENCE_CONVENTIONS } : {},
    );
    verification = {
      file: files.verify ?? files.solution ?? '',
      exact: report.exact,
      nodeCounts: report.nodeCounts,
      checked: report.checked,
      differing: report.differing,
      ignored: report.ignored,
      firstDifferences: report.differences.slice(0, 5).map((d) => ({
        variable: d.variable,
        expected: [...d.expected],
        actual: [...d.actual],
      })),
    };
  }
  if (options.out !== undefined) {
    await writeFile(resolve(options.out), formatPointsTo(result));
    log(`andersen: wrote the points-to sets to ${resolve(options.out)}`);
  }
  const [addressOf, copy, load, store, offset] = countByKind(program.constraints);
  const report: AndersenSolveReport = {
    command: 'andersen solve',
    input: files,
    engine: result.engine,
    adapter: result.gpu?.adapter ?? null,
    sizes: {
      nodes: program.nodeCount,
      constraints: { total: program.constraints.length, addressOf, copy, load, store, offset },
      hcd: hcd ? { offlineMerges: hcd.offlineMerges.length / 2, onlinePairs: hcd.online.length / 2 } : null,
      peakMemoryBytes: process.resourceUsage().maxRSS * 1024,
    },
    timings: { readMs, offlineMs, solveMs: statistics.solveMs },
    result: {
      iterations: statistics.rounds,
      pointsToEdges: result.pointsToEdges,
      opaqueObjects: {
        nodes: Array.from(result.opaqueObjects.nodes),
        contents: result.opaqueObjects.contents,
      },
      statistics: { ...statistics },
      verification,
    },
    ok: verification?.exact ?? true,
  };
  if (options.json) writeReport(io, report);
  else io.stdout.write(summaryText(report, c));
  if (options.print && !options.json) {
    const name = (id: number) => program.names?.[id] ?? `n${id}`;
    for (let v = 0; v < program.nodeCount; v++) {
      const pointees = result.pointsTo(v);
      if (pointees.length > 0) io.stdout.write(`${name(v)} -> {${Array.from(pointees, name).join(', ')}}\n`);
    }
  }
  if (verification && !verification.exact) {
    const { solution: solved, reference } = verification.nodeCounts;
    io.stderr.write(
      `${c.red(
        solved !== reference
          ? `error: ${verification.file} is a solution of ${reference} nodes, the program has ${solved}`
          : `error: ${verification.differing} of ${verification.checked} variables differ from ${verification.file}`,
      )}\n`,
    );
    return EXIT_FAILURE;
  }
  return 0;
}

/** An integer count with thousands separators. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

function summaryText(report: AndersenSolveReport, c: ReturnType<typeof colorsFor>): string {
  const sizes = report.sizes;
  const lines = [
    c.bold('andersen solve'),
    `  engine          ${report.engine}`,
    `  nodes           ${count(sizes.nodes)}`,
    `  constraints     ${count(sizes.constraints.total)} (addr ${sizes.constraints.addressOf}, copy ${sizes.constraints.copy}, load ${sizes.constraints.load}, store ${sizes.constraints.store}, offset ${sizes.constraints.offset})`,
    `  read            ${formatNumber(report.timings.readMs)} ms`,
    `  solve           ${formatNumber(report.timings.solveMs)} ms in ${report.result.iterations} rounds`,
    `  peak memory     ${formatNumber(sizes.peakMemoryBytes / 2 ** 20)} MiB`,
    `  points-to edges ${count(report.result.pointsToEdges)}`,
  ];
  const v = report.result.verification;
  if (v) {
    const verdict = v.exact ? c.green('exact') : c.red(`${v.differing} variables differ`);
    lines.push(`  verification    ${verdict}: ${count(v.checked)} variables against ${v.file}`);
    for (const ignored of v.ignored) {
      lines.push(
        c.dim(
          `                  node ${ignored.variable} not compared (${ignored.reason}; ${ignored.wouldDiffer ? 'it would differ' : 'it matches anyway'})`,
        ),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
