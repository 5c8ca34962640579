/**
 * `gpumorph bench andersen-offline`: the offline passes (HVN, offline HCD) on the CPU and on
 * WebGPU, on the PPoPP'12 suite, each GPU result checked against the CPU's.
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ConstraintProgram,
  computeHvn,
  computeOfflineHcd,
  createGpuOfflinePasses,
  type HvnResult,
  type OfflineHcd,
  readHardekopf,
} from '@gpumorph/andersen';
import { median } from '@gpumorph/gpu-allocator';
import { hardekopfDataDirectory } from './andersen';
import { settleGarbage } from './gc';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';

const BENCHMARKS = ['ex', 'gcc', 'perl', 'python', 'php', 'vim', 'mplayer', 'linux'] as const;

/** Timed runs of each pass after one untimed run (which compiles the GPU kernels). */
const RUNS = 3;

function pairSet(pairs: Uint32Array): string {
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) out.push(`${pairs[i]},${pairs[i + 1]}`);
  return out.sort().join(' ');
}

function labelsUpToRenaming(labels: Uint32Array): string {
  const rename = new Map<number, number>([[0, 0]]);
  return Array.from(labels, (l) => {
    let r = rename.get(l);
    if (r === undefined) {
      r = rename.size;
      rename.set(l, r);
    }
    return r;
  }).join(',');
}

function sameHvn(a: HvnResult, b: HvnResult): boolean {
  return (
    a.merges.length === b.merges.length &&
    a.merges.every((x, i) => x === b.merges[i]) &&
    labelsUpToRenaming(a.labels) === labelsUpToRenaming(b.labels)
  );
}

function sameHcd(a: OfflineHcd, b: OfflineHcd): boolean {
  return pairSet(a.offlineMerges) === pairSet(b.offlineMerges) && pairSet(a.online) === pairSet(b.online);
}

/** Median wall-clock ms of `runs` runs of `work` after one untimed run, and its last result. */
async function timed<T>(work: () => Promise<T> | T, runs: number): Promise<{ ms: number; result: T }> {
  let result = await work();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    await settleGarbage();
    const started = performance.now();
    result = await work();
    times.push(performance.now() - started);
  }
  return { ms: median(times), result };
}

async function run(options: BenchOptions): Promise<BenchReport> {
  const rows: BenchRow[] = [];
  const notes: string[] = [
    'hvn: computeHvn on the _after_hcd program (the one the andersen suite solves); hcd: computeOfflineHcd (default table) on the raw constraints',
    `median ms = wall clock of one pass over ${RUNS} runs after an untimed one (--quick: ex, 1 run); webgpu rows: "= cpu" is 1 when the result equals the CPU pass's (HVN: the same merges, labels equal up to renaming; HCD: the same pairs), "components ms" and "component batches" (the GPU component runs and their submits, each followed by a read), "labelling ms" (HVN's labelling on the GPU), "levels" and "submits" (its level count and command buffers) are of the last timed run`,
    'GPUMORPH_ANDERSEN_BENCHMARKS=a,b picks benchmarks',
  ];
  const dir = hardekopfDataDirectory();
  const ctx = options.engines.includes('webgpu') ? options.ctx : null;
  const useCpu = options.engines.includes('cpu');
  const adapter = ctx ? String(ctx) : 'none (CPU only)';
  if (dir === undefined) {
    notes.push(
      "no benchmark data: put the PPoPP'12 files in ../shared/data/andersen/hardekopf or set GPUMORPH_DATA",
    );
    return { suite: 'andersen-offline', adapter, rows, notes };
  }
  const only = process.env.GPUMORPH_ANDERSEN_BENCHMARKS?.split(',').map((s) => s.trim());
  const runs = options.quick ? 1 : RUNS;
  const chosen = (options.quick ? BENCHMARKS.slice(0, 1) : BENCHMARKS).filter(
    (name) =>
      (only === undefined || only.includes(name)) && existsSync(resolve(dir, `${name}_constraints.txt.gz`)),
  );
  const passes = ctx ? createGpuOfflinePasses(ctx) : undefined;
  try {
    for (const name of chosen) {
      const prefix = resolve(dir, name);
      const read = (constraints: 'raw' | 'after-hcd') =>
        readHardekopf({ prefix }, { constraints, nonObjectAddress: 'make-object' }).then((i) => i.program);
      const programs: [string, ConstraintProgram][] = [
        ['hvn', await read('after-hcd')],
        ['hcd', await read('raw')],
      ];
      for (const [pass, program] of programs) {
        const size = `${program.nodeCount} nodes, ${program.constraints.length} constraints`;
        const onCpu = (): HvnResult | OfflineHcd =>
          pass === 'hvn' ? computeHvn(program) : computeOfflineHcd(program);
        const merged = (r: HvnResult | OfflineHcd) => r.statistics.mergedVariables;
        // Without CPU rows the CPU pass still runs once, untimed, for the comparison.
        const cpu = useCpu ? await timed(onCpu, runs) : passes ? { ms: 0, result: onCpu() } : undefined;
        if (useCpu && cpu) {
          options.log(`andersen-offline: ${name} ${pass} cpu ${cpu.ms.toFixed(1)} ms`);
          rows.push({
            case: `${name} ${pass}`,
            size,
            engine: 'cpu',
            medianMs: cpu.ms,
            runs,
            metrics: { merged: merged(cpu.result) },
            method: 'cpu',
          });
        }
        if (!passes || !cpu) continue;
        const gpu = await timed(
          (): Promise<HvnResult | OfflineHcd> =>
            pass === 'hvn' ? passes.computeHvn(program) : passes.computeOfflineHcd(program),
          runs,
        );
        const same =
          pass === 'hvn'
            ? sameHvn(gpu.result as HvnResult, cpu.result as HvnResult)
            : sameHcd(gpu.result as OfflineHcd, cpu.result as OfflineHcd);
        if (!same) options.log(`andersen-offline: ${name} ${pass}: the GPU result differs from the CPU's`);
        const last = passes.lastRun;
        options.log(`andersen-offline: ${name} ${pass} webgpu ${gpu.ms.toFixed(1)} ms`);
        rows.push({
          case: `${name} ${pass}`,
          size,
          engine: 'webgpu',
          medianMs: gpu.ms,
          runs,
          metrics: {
            merged: merged(gpu.result),
            '= cpu': same ? 1 : 0,
            'components ms': last?.componentsMs ?? 0,
            'component batches': last?.componentBatches ?? 0,
            ...(last?.labelling
              ? {
                  'labelling ms': last.labelling.ms,
                  levels: last.labelling.levels,
                  submits: last.labelling.submits,
                }
              : {}),
          },
          method: 'wall-clock',
        });
      }
    }
  } finally {
    passes?.destroy();
  }
  return { suite: 'andersen-offline', adapter, rows, notes };
}

/** The offline passes on both engines (see the module comment). */
export const andersenOfflineBench: BenchSuite = {
  name: 'andersen-offline',
  description:
    "HVN and offline HCD on the CPU and WebGPU, on the PPoPP'12 suite, GPU results checked against the CPU",
  run,
};
