/**
 * `gpumorph bench llvm`: the LLVM front end on whole-program IR of real C code bases (Lua, bzip2,
 * zlib, Brotli, Zstandard, Duktape, SQLite, built from Debian's source packages by
 * `scripts/real-c/build-ir.sh`): IR size, constraint counts, extraction throughput, solve time per
 * engine, the share of indirect calls resolved to one function, and whether the engines agree.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { AndersenResult, IrModule } from '@gpumorph/andersen';
import {
  type AndersenEngine,
  countByKind,
  type ExtractedModule,
  extractConstraints,
  ModuleAnalysis,
  parseLlvmModule,
  refinementOf,
  solveAndersen,
} from '@gpumorph/andersen';
import type { BenchOptions, BenchReport, BenchRow, BenchSuite } from './types';

/** The code bases, by the file name `build-ir.sh` gives their IR. */
export const REAL_C_CODE_BASES = ['lua', 'bzip2', 'zlib', 'brotli', 'zstd', 'duktape', 'sqlite'] as const;

/** Where the real code bases' IR is: `$GPUMORPH_REAL_C_IR`, else `$GPUMORPH_CACHE/real-c/ir` (default `~/.cache/gpumorph`). */
export function realCIrDirectory(): string {
  if (process.env.GPUMORPH_REAL_C_IR) return resolve(process.env.GPUMORPH_REAL_C_IR);
  return resolve(process.env.GPUMORPH_CACHE ?? resolve(homedir(), '.cache/gpumorph'), 'real-c/ir');
}

/** Builds the IR with `scripts/real-c/build-ir.sh` when it is missing and the script can run here. */
function ensureIr(directory: string, log: (line: string) => void): void {
  if (REAL_C_CODE_BASES.every((name) => existsSync(resolve(directory, `${name}.ll`)))) return;
  const script = resolve('scripts/real-c/build-ir.sh');
  if (!existsSync(script)) return;
  log(`llvm: building the real code bases' IR with ${script} (Debian sources, clang-16)`);
  try {
    execFileSync('bash', [script, resolve(directory, '..')], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (error) {
    log(`llvm: ${script} failed: ${(error as Error).message}`);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Indirect calls of functions that something calls or that the program starts in (`main`), and
 * how many of them reach exactly one function (and not the unknown object). Calls in functions
 * nothing reaches have empty sets and are left out.
 */
export function indirectCallResolution(analysis: ModuleAnalysis): { calls: number; oneTarget: number } {
  const reached = new Set<string>(['@main']);
  for (const callees of analysis.callGraph().values()) for (const callee of callees) reached.add(callee);
  let calls = 0;
  let oneTarget = 0;
  for (const site of analysis.callSites) {
    // Inline assembly has neither a callee name nor a called pointer: not an indirect call.
    if (site.direct !== undefined || site.pointerNode === undefined || !reached.has(site.caller)) continue;
    calls++;
    const callees = analysis.callees(site);
    if (callees.length === 1 && callees[0] !== '<unknown>') oneTarget++;
  }
  return { calls, oneTarget };
}

/** Nodes whose points-to sets differ between two results (0 when the engines agree). */
export function countDifferences(a: AndersenResult, b: AndersenResult, nodeCount: number): number {
  let differing = 0;
  for (let v = 0; v < nodeCount; v++) {
    const x = a.pointsTo(v);
    const y = b.pointsTo(v);
    if (x.length !== y.length || x.some((member, i) => member !== y[i])) differing++;
  }
  return differing;
}

async function run(options: BenchOptions): Promise<BenchReport> {
  const rows: BenchRow[] = [];
  const directory = realCIrDirectory();
  const notes: string[] = [
    'IR: whole-program LLVM IR of each code base (clang-16 -O0 -Xclang -disable-O0-optnone, mem2reg, llvm-link), built by scripts/real-c/build-ir.sh from Debian source packages',
    "extract ms = parsing the .ll text and extracting constraints (median of 3); extract MB/s = IR bytes / extract time; median ms = the first solve, the second extraction it allows (allocation wrappers, type-tested vtables; refine extract ms) and its solve (median of 3, 1 with --quick); nodes, constraints and sets are the second extraction's",
    'agree = number of nodes whose points-to sets differ between the engines of the same run (0 = identical)',
    'reached indirect = indirect calls in functions the call graph reaches from main; one target % = the share of them that reach exactly one function',
  ];
  // A quick (smoke) run uses IR already built and never downloads or compiles.
  if (!options.quick) ensureIr(directory, options.log);
  // The CPU first, so that the WebGPU rows can be compared with its sets.
  // The GPU engine keeps its buffers between solves of one context, as a batch of runs wants.
  const solveOptions = (engine: AndersenEngine) => ({
    engine,
    gpu: options.ctx ?? undefined,
    keepBuffers: true,
    touchReadback: true,
  });
  const engines = (['cpu', 'webgpu'] as const).filter(
    (engine) => options.engines.includes(engine) && (engine === 'cpu' || options.ctx !== null),
  ) as AndersenEngine[];
  for (const name of REAL_C_CODE_BASES) {
    const file = resolve(directory, `${name}.ll`);
    if (!existsSync(file)) {
      notes.push(`${name}: no IR at ${file} (run scripts/real-c/build-ir.sh)`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    const extractTimes: number[] = [];
    let extracted: ExtractedModule | undefined;
    let parsed: IrModule | undefined;
    for (let r = 0; r < (options.quick ? 1 : 3); r++) {
      const start = performance.now();
      parsed = parseLlvmModule(text, file);
      extracted = extractConstraints(parsed);
      extractTimes.push(performance.now() - start);
    }
    const first = extracted as ExtractedModule;
    let module = first;
    const extractMs = median(extractTimes);
    const [addressOf, copy, load, store, offset] = countByKind(module.program.constraints);
    const results = new Map<AndersenEngine, AndersenResult>();
    for (const engine of engines) {
      const times: number[] = [];
      const firstTimes: number[] = [];
      const refineTimes: number[] = [];
      for (let r = 0; r < (options.quick ? 1 : 3); r++) {
        // The first solve, then the second extraction and solve it allows (analyzeModule's path).
        const start = performance.now();
        const firstResult = await solveAndersen(first.program, solveOptions(engine));
        firstTimes.push(performance.now() - start);
        let result = firstResult;
        const refinement = refinementOf(parsed as IrModule, first, firstResult);
        if (refinement !== undefined) {
          const refineStart = performance.now();
          module = extractConstraints(parsed as IrModule, {}, refinement);
          refineTimes.push(performance.now() - refineStart);
          result = await solveAndersen(module.program, solveOptions(engine));
        }
        times.push(performance.now() - start);
        results.set(engine, result);
      }
      const result = results.get(engine) as AndersenResult;
      options.log(`llvm: ${name} on ${engine}: ${median(times).toFixed(1)} ms`);
      const resolution = indirectCallResolution(new ModuleAnalysis(module, result));
      const metrics: Record<string, number> = {
        'IR MB': text.length / 1e6,
        instructions: module.statistics.instructions,
        nodes: module.program.nodeCount,
        constraints: module.program.constraints.length,
        addressOf,
        copy,
        load,
        store,
        offset,
        'extract ms': extractMs,
        'first solve ms': median(firstTimes),
        'refine extract ms': refineTimes.length === 0 ? 0 : median(refineTimes),
        'allocation wrappers': module.refinement.allocationWrappers.size,
        'extract MB/s': text.length / 1e6 / (extractMs / 1000),
        'indirect calls': module.statistics.indirectCalls,
        'reached indirect': resolution.calls,
        'one target %': resolution.calls === 0 ? 100 : (100 * resolution.oneTarget) / resolution.calls,
        'pts edges': result.pointsToEdges,
      };
      const cpu = results.get('cpu');
      if (engine !== 'cpu' && cpu !== undefined)
        metrics.agree = countDifferences(cpu, result, module.program.nodeCount);
      rows.push({
        case: name,
        size: `${(text.length / 1e6).toFixed(2)} MB IR, ${module.statistics.definedFunctions} functions`,
        engine,
        medianMs: median(times),
        runs: times.length,
        method: engine === 'cpu' ? 'cpu' : 'wall-clock',
        metrics,
      });
    }
  }
  return {
    suite: 'llvm',
    adapter: options.ctx ? String(options.ctx) : 'none (CPU engine only)',
    rows,
    notes,
  };
}

/**
 * The `llvm` benchmark suite.
 *
 * @example
 * ```ts
 * const report = await llvmBench.run({ ctx: null, engines: ['cpu'], quick: true, log: console.error });
 * ```
 */
export const llvmBench: BenchSuite = {
  name: 'llvm',
  description: 'LLVM IR front end on real C code bases (Lua, bzip2, zlib): extraction and solve per engine',
  run,
};
