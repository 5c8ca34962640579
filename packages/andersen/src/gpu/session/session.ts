import type { IterationEvent, SolvePhase } from '../../cpu/solver';
import type { ConstraintProgram } from '../../model/program';
import type { SolveStatistics } from '../../result/result';
import { DispatchGrids } from '../dispatch';
import { checkFatal } from '../errors';
import { PoolGrowth } from '../growth';
import { EDGE_SET_SLOTS, NODE_SET_SLOTS, paramsOffset, STATUS } from '../layout';
import type { SolverSettings } from '../options';
import { encodePrepare, prepareKernels } from '../prepare/prepare-gpu';
import { type FinalSets, readFinalSets } from '../readback/final';
import type { GpuSolveReport } from '../report';
import { RoundScheduler } from '../rounds/scheduler';
import type { SolveResources } from './resources';
import { type SessionParts, setUpSession } from './setup';
import { Submitter, type Worklist } from './submitter';
import { SubmissionTimer } from './timer';

/** What a session tells the solver: its events, and whether the solve was cancelled. */
export interface SessionHost {
  readonly emitPhase: (phase: SolvePhase, round: number) => void;
  readonly emitIteration: (event: IterationEvent) => void;
  readonly emitGrow: (event: { pool: string; from: number; to: number }) => void;
  /** Throws when the solve was cancelled. */
  readonly checkAbort: () => void;
}

/**
 * One solve's state on the GPU — buffers, pools, worklist, counters — and its parts: the
 * {@link Submitter} (kernels, recording, submissions), the {@link RoundScheduler} (a round's rules
 * and update, work recorded and queued ahead), {@link PoolGrowth} (what grows when) and the final
 * readback ({@link readFinalSets}).
 *
 * @example
 * ```ts
 * const session = await SolveSession.open(resources, options, program, host, performance.now());
 * const { sets, statistics, report } = await session.solve();
 * ```
 */
export class SolveSession {
  readonly parts: SessionParts;
  readonly worklist: Worklist;
  readonly submitter: Submitter;
  readonly growth: PoolGrowth;
  readonly scheduler: RoundScheduler;
  readonly #resources: SolveResources;
  readonly #host: SessionHost;
  readonly #started: number;
  /** Distinct copy edges between representatives before solving (see round 1). */
  #initialEdgeCount = 0;

  private constructor(
    resources: SolveResources,
    options: SolverSettings,
    parts: SessionParts,
    timer: SubmissionTimer,
    host: SessionHost,
    started: number,
  ) {
    const ctx = resources.ctx;
    const { settings, prepared, points, edges, buffers } = parts;
    this.#resources = resources;
    this.#host = host;
    this.#started = started;
    this.parts = parts;
    this.worklist = { pairs: parts.pairs, capacity: settings.initialPairCapacity };
    // Items of the kernels that visit merged children and extra pull chunks: the teams launched
    // for them, from the counts the host read before encoding them.
    const grids = new DispatchGrids({
      team: settings.team,
      teamsPerWorkgroup: settings.teamsPerWorkgroup,
      maxGrid: ctx.limits.maxComputeWorkgroupsPerDimension,
      teamGridCap: Math.max(1, Math.floor(options.gridCaps?.team ?? 1 << 15)),
      threadGridCap: Math.max(1, Math.floor(options.gridCaps?.thread ?? 1 << 14)),
      nodeCount: settings.n,
      ruleCount: prepared.ruleCount,
      hcdCount: prepared.hcdCount,
      chunkCapacity: settings.chunkCapacity,
      deltaTableSize: settings.deltaTableSize,
      pairTableSize: settings.pairTableSize,
      ruleSplit: settings.ruleSplit,
      hookSplit: settings.hookSplit,
      activeLists: settings.activeLists,
      deltaBitmap: settings.deltaBitmap,
      ruleList: settings.ruleList,
      listFloorItems: options.listFloorItems,
      fixedMergeTeams: settings.fixedMergeTeams,
    });
    this.submitter = new Submitter({
      ctx,
      options,
      settings,
      points,
      edges,
      buffers,
      worklist: this.worklist,
      sorts: parts.sorts,
      grids,
      timer,
    });
    this.growth = this.#createGrowth();
    this.scheduler = new RoundScheduler({
      ctx,
      settings,
      submitter: this.submitter,
      growth: this.growth,
      buffers,
      worklist: this.worklist,
      initialPairCount: prepared.initialPairs.count,
    });
  }

  /** Sets a solve of `program` up (see {@link setUpSession}) and its parts. */
  static async open(
    resources: SolveResources,
    options: SolverSettings,
    program: ConstraintProgram,
    host: SessionHost,
    started: number,
  ): Promise<SolveSession> {
    const parts = await setUpSession(resources, options, program, host.emitGrow, started);
    const timer = await SubmissionTimer.create(resources, {
      profile: parts.settings.profile,
      timeSubmissions: options.timeSubmissions === true,
    });
    return new SolveSession(resources, options, parts, timer, host, started);
  }

  /** Every decision to grow the pools and the worklist (see growth.ts), over this session's buffers. */
  #createGrowth(): PoolGrowth {
    const ctx = this.#resources.ctx;
    const { settings, points, edges, buffers } = this.parts;
    const n = settings.n;
    const worklist = this.worklist;
    const host = this.submitter.host;
    return new PoolGrowth(points, edges, {
      growAhead: settings.growAhead,
      maxStorageBuffers: ctx.limits.maxStorageBuffersPerShaderStage,
      maxBindingBytes: ctx.limits.maxStorageBufferBindingSize,
      maxWorklistPairs: settings.maxWorklistPairs,
      pairCapacity: () => worklist.capacity,
      // Moves the worklist to buffers of `capacity` pairs (what it held is not kept: only between
      // attempts or rounds).
      growWorklist: async (capacity) => {
        worklist.pairs = await this.#resources.createPairs(capacity, worklist.pairs);
        const from = worklist.capacity;
        worklist.capacity = capacity;
        await ctx.writeBuffer(buffers.params, paramsOffset('pair_capacity'), Uint32Array.of(capacity));
        this.#host.emitGrow({ pool: 'worklist', from, to: capacity });
      },
      timed: (ms) => {
        host.grow += ms;
      },
      heads: {
        points: Array.from({ length: NODE_SET_SLOTS }, (_, slot) => ({
          buffer: buffers.ptsHeads,
          first: slot * n,
          count: n,
        })),
        edges: Array.from({ length: EDGE_SET_SLOTS }, (_, slot) => ({
          buffer: buffers.edgHeads,
          first: slot * n,
          count: n,
        })),
      },
      writeControl: (word, value) => ctx.queue.writeBuffer(buffers.control, 4 * word, Uint32Array.of(value)),
    });
  }

  /** Solves: the kept buffers' clears and the GPU's preparation, the rounds, then the readback. */
  async solve(): Promise<{ sets: FinalSets; statistics: SolveStatistics; report: GpuSolveReport }> {
    // The kept buffers' clears, before anything reads them; then the GPU's preparation, whose
    // errors are awaited with the held-back checks at the end.
    await this.#resources.clearKept();
    await this.#submitPrepare();
    const setupMs = performance.now() - this.#started;
    const iterateStarted = performance.now();
    await this.#rounds();
    await Promise.all(this.scheduler.heldBackChecks);
    const iterateMs = performance.now() - iterateStarted;
    const transferStarted = performance.now();
    const sets = await readFinalSets({
      submitter: this.submitter,
      resources: this.#resources,
      settings: this.parts.settings,
      buffers: this.parts.buffers,
      worklist: this.worklist,
      points: this.parts.points,
      edges: this.parts.edges,
    });
    const transferMs = performance.now() - transferStarted;
    this.#resources.toucher = undefined;
    const statistics = this.#statistics(sets);
    const report = await this.#report(sets, { setupMs, iterateMs, transferMs });
    this.submitter.timer.destroy();
    return { sets, statistics, report };
  }

  /** The GPU's preparation of the program, when it prepares it (its errors are awaited at the end). */
  async #submitPrepare(): Promise<void> {
    const gpuPrepare = this.parts.gpuPrepare;
    if (gpuPrepare === undefined) return;
    const ctx = this.#resources.ctx;
    const { sizes } = gpuPrepare;
    const kernels = await prepareKernels(ctx);
    const buffers = {
      control: this.parts.buffers.control,
      program: gpuPrepare.program,
      pairKeys: this.worklist.pairs.keys,
      pairValues: this.worklist.pairs.values,
      rules: this.parts.buffers.rules,
    };
    const timer = this.submitter.timer;
    this.scheduler.heldBackChecks.push(
      ctx.guard('andersen prepare', () => {
        const encoder = ctx.device.createCommandEncoder({ label: 'andersen prepare' });
        const span = timer.takeSpan('other');
        timer.stampSpan(encoder, span, false);
        encodePrepare(encoder, kernels, buffers, sizes);
        timer.stampSpan(encoder, span, true);
        ctx.queue.submit([encoder.finish()]);
      }),
    );
    this.submitter.host.submissions++;
  }

  /** The rounds, until one changes nothing. */
  async #rounds(): Promise<void> {
    const host = this.#host;
    const scheduler = this.scheduler;
    const stats = scheduler.stats;
    for (;;) {
      host.checkAbort();
      const round = ++stats.rounds;
      host.emitPhase('wave', round);
      const status = await this.#round(round);
      if (this.#endRound(round, status)) break;
      // Sets that will take long to read back: start the context's page-touching workers now
      // (once a context: starting them cost gcc's solves a millisecond of the main thread each),
      // so they are ready by the end (the live sets are at most what the pool holds).
      const pointsNext = status[STATUS.ptsNext] as number;
      const points = this.parts.points;
      if (
        this.#resources.toucher === undefined &&
        pointsNext * points.elementBytes >= this.parts.settings.touchFrom
      ) {
        this.#resources.toucher = this.#resources.ctx.pageToucher();
      }
      scheduler.chooseHop(status[STATUS.pairCount] as number);
      // Grow ahead of need: an iteration that would not fit runs twice.
      await this.growth.growAheadAfter(status);
    }
  }

  /** Round `round`'s attempts until its update commits; its status, the merges' room made. */
  async #round(round: number): Promise<Uint32Array> {
    const scheduler = this.scheduler;
    const stats = scheduler.stats;
    const growth = this.growth;
    let status = await scheduler.iterate(`andersen iteration ${round}`, true);
    scheduler.settleRulesAhead(status);
    for (;;) {
      checkFatal(status);
      if (status[STATUS.skipUpdate] === 0) break;
      stats.reruns++;
      this.#host.checkAbort();
      await growth.growShortPools(status);
      // The update alone again when only it ran short (pairCount ≤ capacity and the rules ran out
      // of nothing: else iterate would not have submitted it), as often as it does; the whole
      // iteration otherwise.
      const alone =
        scheduler.updateAloneAgain && !growth.compactedThisAttempt && status[STATUS.guessMissed] === 0;
      if (alone) stats.updateRedos++;
      status = alone
        ? await scheduler.redoUpdate(`andersen update ${round} (again)`, status)
        : await scheduler.iterate(`andersen iteration ${round} (again)`, false);
      scheduler.settleRulesAhead(status);
    }
    checkFatal(status);
    if (status[STATUS.skipMerge] !== 0) {
      // guard_merge found a pool short of room for the folds (the plan itself allocates nothing
      // and stands): grow that pool to hold them, and let the folds run, as the guard would now.
      stats.mergeGrows++;
      await growth.growForMerges(status);
      this.#resources.ctx.queue.writeBuffer(
        this.parts.buffers.control,
        4 * STATUS.skipMerge,
        Uint32Array.of(0),
      );
      status = status.slice();
      status[STATUS.skipMerge] = 0;
    }
    return status;
  }

  /** Counts a committed round and reports it; whether it was the last (it changed nothing). */
  #endRound(round: number, status: Uint32Array): boolean {
    const scheduler = this.scheduler;
    const stats = scheduler.stats;
    scheduler.planFolds(status);
    scheduler.lastRoundMerged = (status[STATUS.merged] as number) !== 0;
    const propagated = status[STATUS.active] as number;
    const fresh = status[STATUS.freshNodes] as number;
    const merged = status[STATUS.merged] as number;
    const edgesAdded = status[STATUS.edgesAdded] as number;
    stats.propagations += propagated;
    stats.hcdMerges += merged;
    stats.edgesAdded += edgesAdded;
    // The rules of round 1 see empty sets, so its update adds exactly the initial copy edges.
    if (round === 1) this.#initialEdgeCount = edgesAdded;
    const timer = this.submitter.timer;
    this.#host.emitIteration({
      round,
      propagated,
      edgesAdded,
      merged,
      elapsedMs: performance.now() - this.#started,
      kernelMs: this.parts.settings.profile ? timer.roundKernelMs : undefined,
    });
    timer.roundKernelMs = {};
    return propagated === 0 && fresh === 0 && merged === 0;
  }

  /** The solve's statistics, as every engine reports them. */
  #statistics(sets: FinalSets): SolveStatistics {
    const stats = this.scheduler.stats;
    return {
      rounds: stats.rounds,
      offlineMerges: this.parts.prepared.offlineMerges ?? (sets.status[STATUS.offlineMerges] as number),
      cycleMerges: 0,
      hcdMerges: stats.hcdMerges,
      copyEdgesAdded: Math.max(0, stats.edgesAdded - this.#initialEdgeCount),
      propagations: stats.propagations,
      solveMs: performance.now() - this.#started,
      pointsToElements: sets.pointsToElements,
    };
  }

  /** What the solve measured (see {@link GpuSolveReport}). */
  async #report(
    sets: FinalSets,
    times: { setupMs: number; iterateMs: number; transferMs: number },
  ): Promise<GpuSolveReport> {
    const { points, edges, sorts, settings, programMs, poolsMs } = this.parts;
    const scheduler = this.scheduler;
    const stats = scheduler.stats;
    const timer = this.submitter.timer;
    const submissionSpans = await timer.readSpans();
    let gpuBytes = this.#resources.bufferBytes;
    gpuBytes += points.capacity * points.elementBytes + edges.capacity * edges.elementBytes + 32;
    gpuBytes += sorts.radix.gpuBytes + sorts.merge.gpuBytes;
    return {
      gpuBytes,
      pointsPool: { capacity: points.capacity, used: sets.pointsUsed },
      edgePool: { capacity: edges.capacity, used: sets.edgesUsed },
      reruns: stats.reruns,
      updateRedos: stats.updateRedos,
      mergeGrows: stats.mergeGrows,
      compactions: this.growth.compactions,
      setupMs: times.setupMs,
      setupParts: { program: programMs, pools: poolsMs, buffers: times.setupMs - programMs - poolsMs },
      iterateMs: times.iterateMs,
      transferMs: times.transferMs,
      transferReadMs: sets.readMs,
      readbackBytes: sets.readbackBytes,
      sharedSets: sets.sharedSets,
      liveLayouts: sets.liveLayouts,
      touchedReadback: sets.touchedReadback,
      adapter: String(this.#resources.ctx),
      pullSplit: scheduler.pullSplit,
      sharedRules: scheduler.sharedRules,
      pairs: scheduler.pairsPushed,
      sorts: scheduler.sorts,
      phaseMs: settings.profile ? timer.phaseMs : undefined,
      kernelMs: settings.profile ? timer.kernelMs : undefined,
      host: this.submitter.host,
      guessedRounds: scheduler.guessed,
      rulesAhead: scheduler.rulesAheadCounts,
      submissionSpans,
    };
  }
}
