/**
 * The shape of the JSON that `gpumorph bench <suites> --json <file>` writes (see
 * `BenchReport`/`BenchRow` in `@gpumorph/bench`), read back for the report. Only
 * the fields the report uses are typed; the rest of the file is carried along untouched.
 * @module
 */

/** One measured row: a case at a size on one engine. */
export interface BenchRow {
  readonly case: string;
  readonly size: string;
  readonly engine: string;
  readonly medianMs: number;
  readonly runs: number;
  /** `timestamp`, `wall-clock` or `cpu`: how `medianMs` was measured. */
  readonly method: string;
  readonly metrics?: Readonly<Record<string, number>>;
}

/** One suite's report inside a bench file. */
export interface BenchReport {
  readonly suite: string;
  readonly adapter: string;
  readonly rows: readonly BenchRow[];
  readonly notes?: readonly string[];
}

/** A whole bench file, plus where it was read from (for captions). */
export interface BenchFile {
  /** Path relative to the repository root, e.g. `docs/benchmarks/h100/andersen.json`. */
  readonly path: string;
  /** The folder under `docs/benchmarks/` it came from, e.g. `h100` or `dev-2core`: the machine. */
  readonly machine: string;
  readonly date?: string;
  readonly node?: string;
  /** The adapter's device name from the file (`null` when the run had no GPU). */
  readonly device: string | null;
  readonly reports: readonly BenchReport[];
}

/** Thrown when a JSON file under `docs/benchmarks/` is not a bench file of the expected shape. */
export class BenchFileError extends Error {
  override readonly name = 'BenchFileError';
}

/**
 * Checks and narrows parsed JSON into a {@link BenchFile}; `undefined` for JSON that is not a
 * bench run at all (e.g. `doctor.json`, which has no `reports`).
 *
 * @example
 * ```ts
 * const file = toBenchFile(JSON.parse(text), 'docs/benchmarks/h100/andersen.json', 'h100');
 * file?.reports[0]?.rows.length;
 * ```
 */
export function toBenchFile(json: unknown, path: string, machine: string): BenchFile | undefined {
  if (typeof json !== 'object' || json === null || !('reports' in json)) return undefined;
  const record = json as Record<string, unknown>;
  if (!Array.isArray(record.reports)) throw new BenchFileError(`${path}: "reports" is not an array`);
  const reports = record.reports.map((report, index) => toReport(report, `${path}: reports[${index}]`));
  const adapter = record.adapter as { device?: unknown } | null | undefined;
  return {
    path,
    machine,
    ...(typeof record.date === 'string' ? { date: record.date } : {}),
    ...(typeof record.node === 'string' ? { node: record.node } : {}),
    device: adapter && typeof adapter.device === 'string' ? adapter.device : null,
    reports,
  };
}

function toReport(json: unknown, where: string): BenchReport {
  if (typeof json !== 'object' || json === null) throw new BenchFileError(`${where} is not an object`);
  const record = json as Record<string, unknown>;
  if (typeof record.suite !== 'string') throw new BenchFileError(`${where}.suite is not a string`);
  if (!Array.isArray(record.rows)) throw new BenchFileError(`${where}.rows is not an array`);
  const rows = record.rows.map((row, index) => toRow(row, `${where}.rows[${index}]`));
  const notes = Array.isArray(record.notes)
    ? record.notes.filter((n): n is string => typeof n === 'string')
    : [];
  return { suite: record.suite, adapter: String(record.adapter ?? ''), rows, notes };
}

function toRow(json: unknown, where: string): BenchRow {
  if (typeof json !== 'object' || json === null) throw new BenchFileError(`${where} is not an object`);
  const r = json as Record<string, unknown>;
  for (const key of ['case', 'size', 'engine', 'method'] as const)
    if (typeof r[key] !== 'string') throw new BenchFileError(`${where}.${key} is ${JSON.stringify(r[key])}`);
  if (typeof r.medianMs !== 'number')
    throw new BenchFileError(`${where}.medianMs is ${JSON.stringify(r.medianMs)}`);
  const metrics: Record<string, number> = {};
  if (typeof r.metrics === 'object' && r.metrics !== null)
    for (const [key, value] of Object.entries(r.metrics)) if (typeof value === 'number') metrics[key] = value;
  return {
    case: r.case as string,
    size: r.size as string,
    engine: r.engine as string,
    medianMs: r.medianMs,
    runs: typeof r.runs === 'number' ? r.runs : 0,
    method: r.method as string,
    metrics,
  };
}

/**
 * The first integer in a size text that precedes `unit` (thousands separators allowed), e.g.
 * `sizeNumber('120870 nodes, 127171 constraints', 'constraints')` is 127171. `undefined` if absent.
 *
 * @example
 * ```ts
 * sizeNumber('n=1024, 127,025 terms (data)', 'terms'); // 127025
 * ```
 */
export function sizeNumber(size: string, unit: string): number | undefined {
  const escaped = unit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`([0-9][0-9,]*)\\s*${escaped}`).exec(size);
  return match?.[1] === undefined ? undefined : Number(match[1].replaceAll(',', ''));
}

/** The report of `suite` in `file`, if the file has one. */
export function findReport(file: BenchFile | undefined, suite: string): BenchReport | undefined {
  return file?.reports.find((report) => report.suite === suite);
}
