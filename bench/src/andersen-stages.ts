/**
 * The stages before the solve in the Andersen suite, each timed: reading a program's files (with
 * the reader threads, as `gpumorph andersen solve` reads them), the offline HCD pass (on the raw
 * constraints, the paper's offline column) and HVN (on the program that is solved).
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { HardekopfInput, HcdPairs, ReaderThreads, ReferenceSolution } from '@gpumorph/andersen';
import {
  appendOfflineMerges,
  applyOfflineMerges,
  computeHvn,
  computeOfflineHcd,
  decompress,
  parseHardekopfSolution,
  readHardekopf,
} from '@gpumorph/andersen';
import { settleGarbage } from './gc';

/** Timed readings of a program's files; the read time is the median. */
const READ_RUNS = 3;
/** Timed HVN passes; the HVN time is the median. */
const HVN_RUNS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A program as the suite solves it, with the time of each stage before the solve. */
export interface PreparedProgram {
  readonly input: HardekopfInput;
  /** The reference solution, read untimed (not part of what a solve needs). */
  readonly solution: ReferenceSolution | undefined;
  /** The shipped HCD table with the HVN merges appended: what both engines are given. */
  readonly hcd: HcdPairs;
  /** Variables HVN merged. */
  readonly hvnMerged: number;
  /** Median ms of reading the nodes, the after-HCD constraints and the HCD table (on the threads). */
  readonly readMs: number;
  /** The same reading without reader threads (median ms), or undefined when the suite has none. */
  readonly readHereMs: number | undefined;
  /** Median ms of HVN on the read program. */
  readonly hvnMs: number;
  /** Ms of our offline HCD pass on the raw constraints, or undefined when they are not there. */
  readonly hcdMs: number | undefined;
}

/** Reads the reference solution of `prefix`, when there is one. */
async function readSolution(prefix: string, nodeCount: number): Promise<ReferenceSolution | undefined> {
  for (const path of [`${prefix}_correct_soln_001.txt.gz`, `${prefix}_correct_soln_001.txt`]) {
    if (existsSync(path)) {
      const bytes = await decompress(await readFile(path), path);
      return parseHardekopfSolution(bytes, { file: path, nodeCount });
    }
  }
  return undefined;
}

/** Our offline HCD pass (computeOfflineHcd + applyOfflineMerges) on the raw constraints, in ms. */
async function timeOfflineHcd(
  prefix: string,
  threads: ReaderThreads | undefined,
): Promise<number | undefined> {
  if (!existsSync(`${prefix}_constraints.txt.gz`) && !existsSync(`${prefix}_constraints.txt`))
    return undefined;
  const raw = await readHardekopf(
    { prefix },
    { constraints: 'raw', nonObjectAddress: 'make-object', solution: false, threads },
  );
  await settleGarbage();
  const started = performance.now();
  const ours = computeOfflineHcd(raw.program);
  applyOfflineMerges(raw.program, ours.offlineMerges);
  return performance.now() - started;
}

/**
 * Reads program `name` of `dir` ({@link READ_RUNS} timed readings, without the reference
 * solution), times our offline HCD pass on its raw constraints and HVN on it, and gives the HCD
 * table both engines solve with.
 *
 * @example
 * ```ts
 * const prepared = await prepareProgram('/data/andersen/hardekopf', 'gcc', createReaderThreads());
 * prepared.readMs + prepared.hvnMs; // ms before the solve
 * ```
 */
export async function prepareProgram(
  dir: string,
  name: string,
  threads: ReaderThreads | undefined,
): Promise<PreparedProgram> {
  const prefix = resolve(dir, name);
  const timedReads = async (on: ReaderThreads | undefined) => {
    const times: number[] = [];
    let input: HardekopfInput | undefined;
    for (let r = 0; r < READ_RUNS; r++) {
      input = undefined;
      await settleGarbage();
      const started = performance.now();
      input = await readHardekopf(
        { prefix },
        { nonObjectAddress: 'make-object', solution: false, threads: on },
      );
      times.push(performance.now() - started);
    }
    return { input: input as HardekopfInput, ms: median(times) };
  };
  // Without the threads too, so that one run shows what they win on its host.
  const here = threads === undefined ? undefined : await timedReads(undefined);
  const { input: read, ms: readMs } = await timedReads(threads);
  const hcdMs = await timeOfflineHcd(prefix, threads);
  const hvnTimes: number[] = [];
  let hvn: ReturnType<typeof computeHvn> | undefined;
  for (let r = 0; r < HVN_RUNS; r++) {
    await settleGarbage();
    const started = performance.now();
    hvn = computeHvn(read.program);
    hvnTimes.push(performance.now() - started);
  }
  const merges = hvn as ReturnType<typeof computeHvn>;
  return {
    input: read,
    solution: await readSolution(prefix, read.program.nodeCount),
    hcd: appendOfflineMerges(read.hcd, merges.merges),
    hvnMerged: merges.statistics.mergedVariables,
    readMs,
    readHereMs: here?.ms,
    hvnMs: median(hvnTimes),
    hcdMs,
  };
}

/**
 * The pipeline's columns of a row: each stage's ms beside the solve's, and the end-to-end sum a
 * user waits for from the files to the result (read + HVN + solve; the offline HCD pass is shown
 * beside it, not added: the after-HCD files the suite solves have its merges applied already).
 */
export function pipelineMetrics(prepared: PreparedProgram, solveMs: number): Record<string, number> {
  return {
    'read ms': prepared.readMs,
    ...(prepared.readHereMs === undefined ? {} : { 'read ms (no threads)': prepared.readHereMs }),
    ...(prepared.hcdMs === undefined ? {} : { 'HCD ms (raw)': prepared.hcdMs }),
    'HVN ms': prepared.hvnMs,
    'solve ms': solveMs,
    'end-to-end ms': prepared.readMs + prepared.hvnMs + solveMs,
  };
}
