import {
  type ElementPool,
  encodeDispatch,
  type GpuContext,
  type Kernel,
  type MappedRead,
  type StagedRead,
} from '@gpumorph/gpu-allocator';
import type { DispatchGrids } from '../dispatch';
import { GpuSolverError } from '../errors';
import { CONTROL_HEAD_WORDS, STATUS } from '../layout';
import { modulesOf, solverModuleWgsl } from '../module/module';
import { SOLVER_ENTRY_POINTS, type SolverEntryPoint } from '../module/solver.wgsl';
import type { SolverSettings } from '../options';
import { type GpuSolvePhase, type HostTimes, PHASE_OF, type SubmissionKind } from '../report';
import { type RadixPass, radixPasses, type WorklistSorts } from '../worklist/sorts';
import type { PairBuffers } from './resources';
import type { SessionSettings } from './settings';
import type { SessionBuffers } from './setup';
import type { SubmissionTimer } from './timer';

/** The kernels of the current module and the bind group they all take. */
export interface Compiled {
  readonly key: string;
  readonly kernels: Record<SolverEntryPoint, Kernel>;
  /** The bind group every kernel takes (they share one layout: the module's bindings). */
  readonly bindGroup: GPUBindGroup;
}

/** The worklist's buffers and capacity in pairs (both change when it grows). */
export interface Worklist {
  pairs: PairBuffers;
  capacity: number;
}

/**
 * Kernels recorded while the GPU runs the submission before them (the host's encoding costs
 * 0.3–0.6 ms a submission on the H100 machine, during which the GPU would idle), for a later
 * {@link Submitter.run} to submit after its own: valid while the kernels and bind group they were
 * recorded with are current (no pool or worklist grew since). Not when profiling, whose passes
 * are numbered in submission order.
 */
export interface Ahead {
  readonly key: string;
  readonly entries: readonly SolverEntryPoint[];
  /** The radix sort's size recorded before the entries (0: none). */
  readonly sortCount: number;
  readonly commandBuffer: GPUCommandBuffer;
}

/** A range of a buffer to copy out. */
export interface ReadRange {
  readonly buffer: GPUBuffer;
  readonly byteOffset: number;
  readonly byteLength: number;
}

/** What {@link Submitter.run} submits besides its entry points. */
export interface RunOptions {
  /** Worklist pairs to sort before `entries` (0 or 1: no sort). */
  readonly pairCount?: number;
  /** Entry points encoded before the sort. */
  readonly beforeSort?: readonly SolverEntryPoint[];
  /** Small ranges copied out with the status words (each takes a staging buffer of its own). */
  readonly reads?: readonly ReadRange[];
  /**
   * Ranges copied out after `reads` and returned mapped, of which the caller copies out as
   * many bytes as the status or the reads say (it must take each once).
   */
  readonly mappedReads?: readonly ReadRange[];
  /** Command buffers recorded earlier by {@link Submitter.encodeAhead}, submitted after `entries` in order. */
  readonly ahead?: readonly Ahead[];
  /** Runs on the host once the work is submitted, before the wait. */
  readonly whileRunning?: () => void;
  /** What the submission carries, for `timeSubmissions` (default `other`). */
  readonly kind?: SubmissionKind;
  /**
   * Submit `entries` (with the sort) and the first `submitFirst` of `ahead` on their own, so that
   * the GPU starts on them while Dawn records the rest (it records a command buffer's backend
   * commands in `queue.submit`).
   */
  readonly submitFirst?: number | undefined;
}

/** What a submission returns: the status words, the `reads` and the `mappedReads`. */
export interface RunResult {
  readonly status: Uint32Array;
  readonly reads: ArrayBuffer[];
  readonly mapped: MappedRead[];
}

const listError = (message: string) => new GpuSolverError(message);

/**
 * One solve's submissions: builds (and rebuilds, after a pool or the worklist grew) the kernels
 * and their bind group, records entry points and the worklist's sort into command buffers — now or
 * ahead, while the GPU runs the submission before — and submits them with the copy of the status
 * words, one wait on the device each.
 *
 * @example
 * ```ts
 * const { status } = await submitter.run('andersen iteration 1', ['begin_iteration'], { kind: 'rules' });
 * ```
 */
export class Submitter {
  readonly ctx: GpuContext;
  readonly settings: SessionSettings;
  readonly grids: DispatchGrids;
  readonly timer: SubmissionTimer;
  /** The host's times (see {@link HostTimes}). */
  readonly host: HostTimes = {
    prepare: 0,
    encode: 0,
    submit: 0,
    encodeAhead: 0,
    wait: 0,
    grow: 0,
    submissions: 0,
    react: 0,
  };
  /** When the status words of the last rules reached the host (for `host.react`; 0: taken). */
  rulesStatusAt = 0;
  /** The radix sort's sizes prepared so far (a sort recorded ahead needs its kernels, and a size's scatter kernel may differ from another's). */
  readonly preparedSorts = new Set<number>();
  #compiled: Compiled | undefined;
  /** When {@link run}'s submission went up (set by #submit). */
  #encodeEnded = 0;
  readonly #kernelSets = new Map<string, Record<SolverEntryPoint, Kernel>>();
  readonly #options: SolverSettings;
  readonly #points: ElementPool;
  readonly #edges: ElementPool;
  readonly #buffers: SessionBuffers;
  readonly #worklist: Worklist;
  readonly #sorts: WorklistSorts;
  readonly #radixPasses: readonly RadixPass[];
  readonly #sortedCountWord: { buffer: GPUBuffer; offset: number };
  /** The entry points the fused ones stand for (never dispatched on their own, so built into no pipeline). */
  readonly #supersededEntries: ReadonlySet<SolverEntryPoint>;

  constructor(init: {
    ctx: GpuContext;
    options: SolverSettings;
    settings: SessionSettings;
    points: ElementPool;
    edges: ElementPool;
    buffers: SessionBuffers;
    worklist: Worklist;
    sorts: WorklistSorts;
    grids: DispatchGrids;
    timer: SubmissionTimer;
  }) {
    this.ctx = init.ctx;
    this.#options = init.options;
    this.settings = init.settings;
    this.#points = init.points;
    this.#edges = init.edges;
    this.#buffers = init.buffers;
    this.#worklist = init.worklist;
    this.#sorts = init.sorts;
    this.grids = init.grids;
    this.timer = init.timer;
    const { composite, keyBits, groupBits, sourceBits } = init.settings;
    this.#radixPasses = radixPasses(composite, keyBits, groupBits, sourceBits);
    this.#sortedCountWord = { buffer: init.buffers.control, offset: STATUS.sortedCount * 4 };
    // pull_rules runs pull_sources and member_rules, which do not depend on one another, as one
    // dispatch (a dispatch fewer each round for the host to record and the GPU to drain, and the
    // two kernels' slowest teams overlap); guard_pending runs guard_update and pending_list.
    this.#supersededEntries = new Set<SolverEntryPoint>([
      'pull_sources',
      'member_rules',
      ...(init.settings.activeLists ? (['guard_update', 'pending_list'] as const) : []),
    ]);
  }

  /** The kernels last built (undefined before the first submission). */
  get compiled(): Compiled | undefined {
    return this.#compiled;
  }

  /** The key of the kernels and bind group for the current pools and worklist. */
  compiledKey(): string {
    const pairs = this.#worklist.pairs;
    return `${this.#points.generation}/${this.#edges.generation}/${pairs.keys.label}/${pairs.values.label}`;
  }

  /** Whether the kernels last built are those of the current pools and worklist. */
  isCurrent(): boolean {
    return this.#compiled?.key === this.compiledKey();
  }

  /**
   * The size a sort of `count` pairs is planned for: the power of two above it (at most the
   * worklist's capacity). The sort reads the count on the GPU
   * (the status word the rules counted), so that a solve makes a plan, with its parameters and
   * bind groups, per doubling of the worklist instead of one for nearly every round (the tiles
   * past the count only write empty histogram rows). Planned per count (four sizes per doubling,
   * the gap filled with the largest key), a new plan made about 25 bind groups, and creating bind
   * groups took perl's solves about 15 ms each in a profile on the H100 machine.
   */
  sortSizeFor = (count: number): number =>
    count <= 1 ? count : Math.min(this.#worklist.capacity, 2 ** Math.ceil(Math.log2(count)));

  /** The kernels and bind group for the current pools and worklist (built when they changed). */
  async compile(): Promise<Compiled> {
    const key = this.compiledKey();
    if (this.#compiled?.key === key) return this.#compiled;
    const ctx = this.ctx;
    const s = this.settings;
    const { code, layout } = solverModuleWgsl(
      this.#points,
      this.#edges,
      {
        team: s.team,
        teamWorkgroupSize: s.teamWorkgroupSize,
        laneWords: s.laneWords,
        smallSortItems: s.smallSortItems,
        deltaBitmap: s.deltaBitmap,
        ruleList: s.ruleList,
        hop: s.hop,
        shareEqualSets: s.shareEqualSets,
        collideHashes: this.#options.collideHashes,
        hcdSkipJoined: this.#options.hcdSkipJoined,
        ruleSplit: s.ruleSplit,
        hookSplit: s.hookSplit,
        partialMergeBits: s.partialMergeBits,
        shareRules: s.shareRules,
        activeLists: s.activeLists,
        gateUpdate: s.pipeline,
      },
      modulesOf(ctx),
    );
    // A pool that grows within its binding windows keeps its WGSL: only the bind group changes.
    let kernels = this.#kernelSets.get(code);
    if (!kernels) {
      // Every entry point the solve may dispatch, less those a fused one stands for (pipelines
      // cost time to build, most of all on a software adapter).
      const entries = (Object.keys(SOLVER_ENTRY_POINTS) as SolverEntryPoint[]).filter(
        (entry) => !this.#supersededEntries.has(entry),
      );
      const built = await Promise.all(
        entries.map((entryPoint) =>
          ctx.kernels.get({ label: `andersen ${entryPoint}`, code, layout, entryPoint }),
        ),
      );
      kernels = Object.fromEntries(entries.map((e, i) => [e, built[i]])) as unknown as Record<
        SolverEntryPoint,
        Kernel
      >;
      this.#kernelSets.set(code, kernels);
    }
    const b = this.#buffers;
    const pairs = this.#worklist.pairs;
    const resources = {
      params: b.params,
      ...this.#points.resources(),
      pts_heads: b.ptsHeads,
      ...this.#edges.resources(),
      edg_heads: b.edgHeads,
      nodes: b.nodes,
      rule_table: b.rules,
      control: b.control,
      pair_keys: pairs.keys,
      pair_values: pairs.values,
    } as never;
    const bindGroup = kernels.init_state.bindGroup(resources, 'andersen bindings');
    this.#compiled = { key, kernels, bindGroup };
    return this.#compiled;
  }

  /** Reads the active lists' item counts from the status words into the grids. */
  readListItems(status: Uint32Array): void {
    this.grids.readListItems(status, listError);
  }

  /**
   * Records `entries` (after sorting the worklist's `pairCount` pairs, when given) into
   * `encoder`, one compute pass (one per kernel when profiling). Synchronous: the kernels and the
   * sort plans must be ready.
   */
  encodeEntries(
    encoder: GPUCommandEncoder,
    label: string,
    compiled: Compiled,
    entries: readonly SolverEntryPoint[],
    pairCount: number,
    sortCount: number,
    passPhases: GpuSolvePhase[],
    passKernels: string[],
    beforeSort: readonly SolverEntryPoint[] = [],
  ): void {
    this.#encodePass(encoder, label, compiled, beforeSort, pairCount, passPhases, passKernels);
    if (sortCount > 1) this.#encodeSort(encoder, sortCount, passPhases, passKernels);
    this.#encodePass(encoder, label, compiled, entries, pairCount, passPhases, passKernels);
  }

  #encodePass(
    encoder: GPUCommandEncoder,
    label: string,
    { kernels, bindGroup }: Compiled,
    passEntries: readonly SolverEntryPoint[],
    pairCount: number,
    passPhases: GpuSolvePhase[],
    passKernels: string[],
  ): void {
    if (this.timer.profiling) {
      for (const entry of passEntries) {
        const pass = this.timer.timedPass(encoder, PHASE_OF[entry], entry, passPhases, passKernels);
        pass.setPipeline(kernels[entry].pipeline);
        pass.setBindGroup(0, bindGroup);
        encodeDispatch(pass, this.grids.grid(entry, pairCount));
        pass.end();
      }
    } else if (passEntries.length > 0) {
      const pass = encoder.beginComputePass({ label });
      // The group stays bound across the pipelines (they share its layout).
      pass.setBindGroup(0, bindGroup);
      for (const entry of passEntries) {
        pass.setPipeline(kernels[entry].pipeline);
        encodeDispatch(pass, this.grids.grid(entry, pairCount));
      }
      pass.end();
    }
  }

  /** Records the worklist's sort for `sortCount` pairs: the merge sort, or the radix sorts. */
  #encodeSort(
    encoder: GPUCommandEncoder,
    sortCount: number,
    passPhases: GpuSolvePhase[],
    passKernels: string[],
  ) {
    // Timed, each radix pass is a compute pass of its own; untimed, the sort records all of
    // them in one (fewer passes for the host to record).
    const timer = this.timer.profiling
      ? {
          beginComputePass: (_: GPUCommandEncoder, l: string) =>
            this.timer.timedPass(encoder, 'sort', l, passPhases, passKernels),
        }
      : undefined;
    const pairs = this.#worklist.pairs;
    if (sortCount <= this.settings.mergeSortPairs) {
      this.#sorts.merge.encode(
        encoder,
        { keys: pairs.keys, values: pairs.values, count: sortCount, countFrom: this.#sortedCountWord },
        timer,
      );
    } else {
      for (const { bySource, bits } of this.#radixPasses) {
        const [keys, values] = bySource ? [pairs.values, pairs.keys] : [pairs.keys, pairs.values];
        this.#sorts.radix.encode(
          encoder,
          { keys, values, bits, count: sortCount, countFrom: this.#sortedCountWord },
          timer,
        );
      }
    }
  }

  /**
   * `entries` (after a sort of `sortCount` pairs) recorded now into a command buffer of their own
   * (see {@link Ahead}), or undefined when recording ahead is off or the kernels are not current.
   */
  encodeAhead(entries: readonly SolverEntryPoint[], sortCount = 0): Ahead | undefined {
    const compiled = this.#compiled;
    if (!this.settings.encodeAheadEnabled || compiled?.key !== this.compiledKey()) return undefined;
    const started = performance.now();
    const label = `andersen ${entries[0] ?? 'sort'}…`;
    const encoder = this.ctx.device.createCommandEncoder({ label });
    // Kernels that depend on a pair count (mark_segments) stride over the count on the GPU: the
    // grid for the worklist's capacity covers any.
    this.encodeEntries(encoder, label, compiled, entries, this.#worklist.capacity, sortCount, [], []);
    const commandBuffer = encoder.finish();
    this.host.encodeAhead += performance.now() - started;
    return { key: compiled.key, entries, sortCount, commandBuffer };
  }

  /** The recorded kernels when they are still valid and exactly `entries`, else `undefined`. */
  takeAhead(
    ahead: Ahead | undefined,
    entries: readonly SolverEntryPoint[],
    sortCount = 0,
  ): Ahead | undefined {
    return ahead !== undefined &&
      ahead.key === this.compiledKey() &&
      ahead.sortCount === sortCount &&
      ahead.entries.length === entries.length &&
      ahead.entries.every((entry, i) => entry === entries[i])
      ? ahead
      : undefined;
  }

  /**
   * Encodes `beforeSort`, the sort of the worklist's `pairCount` pairs (when given), `entries`,
   * then the kernels of `ahead`, as one submission that also copies out the status words and the
   * `reads`; returns them once the submission has run, with one wait on the device.
   */
  async run(
    label: string,
    entries: readonly SolverEntryPoint[],
    options: RunOptions = {},
  ): Promise<RunResult> {
    const { pairCount = 0, whileRunning, kind = 'other' } = options;
    const host = this.host;
    const prepareStarted = performance.now();
    // Unchanged pools and worklist keep their kernels and bind group: no await (each one yields
    // to the event loop) on the path every submission takes.
    const current = this.isCurrent() ? (this.#compiled as Compiled) : await this.compile();
    // A short worklist is sorted by sort_small in one workgroup; a longer one by the radix sort.
    const smallSort = pairCount > 1 && pairCount <= this.settings.smallSortPairs;
    const sortCount = smallSort ? 0 : this.sortSizeFor(pairCount);
    const passEntries: readonly SolverEntryPoint[] = smallSort ? ['sort_small', ...entries] : entries;
    if (sortCount > 1) {
      if (sortCount <= this.settings.mergeSortPairs) await this.#sorts.merge.prepare({ count: sortCount });
      else {
        for (const { bits } of this.#radixPasses) {
          await this.#sorts.radix.prepare({ count: sortCount, withValues: true, bits, countFromGpu: true });
        }
      }
      this.preparedSorts.add(sortCount);
    }
    const passPhases: GpuSolvePhase[] = [];
    const passKernels: string[] = [];
    const encodeStarted = performance.now();
    host.prepare += encodeStarted - prepareStarted;
    const staged: StagedRead[] = [];
    const stagedMapped: StagedRead[] = [];
    const span = this.timer.takeSpan(kind);
    // #submit runs within the guard's call and sets #encodeEnded.
    this.#encodeEnded = encodeStarted;
    const submitted = this.ctx.guard(label, () =>
      this.#submit(
        label,
        current,
        passEntries,
        sortCount,
        options,
        passPhases,
        passKernels,
        span,
        staged,
        stagedMapped,
      ),
    );
    const encodeEnded = this.#encodeEnded;
    host.encode += encodeEnded - encodeStarted;
    host.submissions++;
    const aheadBefore = host.encodeAhead;
    try {
      whileRunning?.();
    } catch (error) {
      // The submission's own failure, when it has one, came first and is the cause: it rejects
      // here; otherwise the recording's error goes on. Either way no rejection is left unheard.
      await submitted;
      throw error;
    }
    // The error scopes and the copies resolve together: one wait on the device per submission.
    const mappedAll = Promise.all(stagedMapped.map((read) => read.mapped()));
    const [, mapped, ...bytes] = await Promise.all([
      submitted,
      mappedAll,
      ...staged.map((read) => read.read()),
    ]).catch((error: unknown) => {
      // The mapped reads no one will take go back to the pool (or, unmappable, are gone).
      for (const read of stagedMapped)
        read.mapped().then(
          (m) => m.take(0),
          () => undefined,
        );
      throw error;
    });
    const statusAt = performance.now();
    host.wait += statusAt - encodeEnded - (host.encodeAhead - aheadBefore);
    if (kind === 'rules') this.rulesStatusAt = statusAt;
    if (this.timer.profiling && passPhases.length > 0) await this.timer.readPasses(passPhases, passKernels);
    const status = new Uint32Array(bytes[0] as ArrayBuffer);
    if (this.settings.activeLists) this.readListItems(status);
    return { status, reads: bytes.slice(1) as ArrayBuffer[], mapped };
  }

  /** The body of {@link run}'s submission, inside its error scope. */
  #submit(
    label: string,
    current: Compiled,
    passEntries: readonly SolverEntryPoint[],
    sortCount: number,
    {
      pairCount = 0,
      beforeSort = [],
      reads = [],
      mappedReads = [],
      ahead = [],
      kind = 'other',
      submitFirst,
    }: RunOptions,
    passPhases: GpuSolvePhase[],
    passKernels: string[],
    span: number | undefined,
    staged: StagedRead[],
    stagedMapped: StagedRead[],
  ): void {
    const ctx = this.ctx;
    const host = this.host;
    // With submitFirst: when the first part went up.
    let firstSubmitted: number | undefined;
    const encoder = ctx.device.createCommandEncoder({ label });
    this.timer.stampSpan(encoder, span, false);
    this.encodeEntries(
      encoder,
      label,
      current,
      passEntries,
      pairCount,
      sortCount,
      passPhases,
      passKernels,
      beforeSort,
    );
    // The copies out come after every kernel, the ones recorded ahead included.
    const buffers: GPUCommandBuffer[] = [];
    let tail = encoder;
    if (ahead.length > 0) {
      const first = submitFirst !== undefined && submitFirst < ahead.length ? submitFirst : undefined;
      const aheadBuffers = ahead.map((recorded) => recorded.commandBuffer);
      if (first !== undefined) {
        const submitStarted = performance.now();
        ctx.queue.submit([encoder.finish(), ...aheadBuffers.slice(0, first)]);
        firstSubmitted = performance.now();
        host.submit += firstSubmitted - submitStarted;
        buffers.push(...aheadBuffers.slice(first));
      } else {
        buffers.push(encoder.finish(), ...aheadBuffers);
      }
      tail = ctx.device.createCommandEncoder({ label: `${label} (status)` });
    }
    this.timer.stampSpan(tail, span, true);
    this.timer.resolvePasses(tail, passPhases.length);
    // The status words and the active lists' words.
    staged.push(ctx.staging.recordRead(tail, this.#buffers.control, 0, CONTROL_HEAD_WORDS * 4));
    for (const read of reads) {
      staged.push(ctx.staging.recordRead(tail, read.buffer, read.byteOffset, read.byteLength));
    }
    for (const read of mappedReads) {
      stagedMapped.push(ctx.staging.recordRead(tail, read.buffer, read.byteOffset, read.byteLength));
    }
    buffers.push(tail.finish());
    const submitStarted = performance.now();
    ctx.queue.submit(buffers);
    const encodeEnded = performance.now();
    this.#encodeEnded = encodeEnded;
    host.submit += encodeEnded - submitStarted;
    if (kind === 'update' && this.rulesStatusAt > 0) {
      host.react += (firstSubmitted ?? encodeEnded) - this.rulesStatusAt;
      this.rulesStatusAt = 0;
    }
  }
}
