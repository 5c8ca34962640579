import type { GpuContext, StagedRead } from '@gpumorph/gpu-allocator';
import { checkFatal, GpuSolverError } from '../errors';
import type { PoolGrowth } from '../growth';
import { CONTROL_HEAD_WORDS, paramsOffset, STATUS } from '../layout';
import type { SolverEntryPoint } from '../module/solver.wgsl';
import type { SessionSettings } from '../session/settings';
import type { SessionBuffers } from '../session/setup';
import { NO_FOLDS, NO_GUESS } from '../session/setup';
import type { Ahead, Submitter, Worklist } from '../session/submitter';
import { foldEntries, levelEntries, roundEntries } from './entries';
import { type PipelineGuess, RoundGuesses } from './schedule';

const NOTHING = (): undefined => undefined;

/**
 * Rules queued behind an update: their status words, and the `fold_levels` word they were
 * queued with (NO_FOLDS: no folds); with `pipelineRounds`, the guess of the update queued
 * behind them, whose status the words then are.
 */
interface QueuedRules {
  readonly status: Promise<Uint32Array>;
  readonly foldLevels: number;
  readonly guess?: PipelineGuess | undefined;
}

/**
 * A solve's rounds as the host schedules them: each round's rules and update (again, after growing
 * what ran short), the work recorded ahead while the GPU runs (the next rules, the update, its
 * sort and levels on a guess) and the rounds queued behind an update (`rulesAhead`,
 * `pipelineRounds`), with the counts the report gives.
 *
 * @example
 * ```ts
 * const scheduler = new RoundScheduler({ ctx, settings, submitter, growth, buffers, worklist, initialPairCount });
 * let status = await scheduler.iterate('andersen iteration 1', true);
 * scheduler.settleRulesAhead(status);
 * ```
 */
export class RoundScheduler {
  readonly stats = {
    rounds: 0,
    hcdMerges: 0,
    edgesAdded: 0,
    propagations: 0,
    reruns: 0,
    updateRedos: 0,
    mergeGrows: 0,
  };
  readonly pullSplit = { extraChunks: 0, maxChunks: 1, refused: 0, skippedEqualDeltas: 0 };
  sharedRules = 0;
  pairsPushed = 0;
  /** Worklists sorted in one workgroup, by the merge sort or by the radix sort; `ahead`: of those, the sorts recorded on a guess that held. */
  readonly sorts = { small: 0, merge: 0, radix: 0, ahead: 0 };
  readonly guessed = { held: 0, missed: 0 };
  readonly rulesAheadCounts = { ran: 0, skipped: 0 };
  /** Checks of rules that rules_gate must have held back (awaited before the sets are read). */
  readonly heldBackChecks: Promise<void>[] = [];
  /** Whether the last update went up after rules that ran out of nothing, counted by the host (not on a guess). */
  updateAloneAgain = false;
  readonly #ctx: GpuContext;
  readonly #s: SessionSettings;
  readonly #submitter: Submitter;
  readonly #growth: PoolGrowth;
  readonly #buffers: SessionBuffers;
  readonly #worklist: Worklist;
  readonly #initialPairCount: number;
  readonly #entries: ReturnType<typeof roundEntries>;
  /** The counts of the last rounds that sorted and merged, which the guesses are sized by. */
  readonly #guesses: RoundGuesses;
  /** The folds of the merges the last update planned (none when it merged nothing). */
  #pendingFolds: SolverEntryPoint[] = [];
  /** The merge levels the last round that merged needed. */
  #lastFoldLevels = 0;
  #initialized = false;
  /** With hop.tail: the most pairs of a round since the second (the first round's rules read every initial set). */
  #peakPairs = 0;
  #updateTail: SolverEntryPoint[];
  /** The next round's rules (up to sort_gate), recorded while this round runs (see encodeAhead). */
  #nextRules: Ahead | undefined;
  /** The guess that sort_gate checks, as the params buffer holds it. */
  #gateParams: readonly number[] = NO_GUESS;
  #rulesAhead: QueuedRules | undefined;
  /**
   * Whether the last round whose status the host read merged classes. Merges come in runs of
   * rounds (gcc: 6, 6 and 5 in a row, then one at a time), so after a round that merged the folds
   * of the next one's merges are queued too, with one level more than the last merges needed:
   * rules_gate runs them and the rules when they take the round's largest class (FOLD_ROOT_LEVELS).
   */
  lastRoundMerged = false;
  #foldLevelsParam: number = NO_FOLDS;
  // The update's kernels after the sort do not depend on the rules' status words: they are
  // recorded ahead, with the sort and the partial-merge levels on the guess of the last round
  // that sorted (merged chunks), whose plan is prepared (and the last round's extra chunks for
  // merge_partials' grid, whose loop strides over the real count).
  #updateAhead: Ahead | undefined;
  #sortAhead: Ahead | undefined;
  #levelsAhead: Ahead | undefined;

  constructor(init: {
    ctx: GpuContext;
    settings: SessionSettings;
    submitter: Submitter;
    growth: PoolGrowth;
    buffers: SessionBuffers;
    worklist: Worklist;
    initialPairCount: number;
  }) {
    this.#ctx = init.ctx;
    this.#s = init.settings;
    this.#submitter = init.submitter;
    this.#growth = init.growth;
    this.#buffers = init.buffers;
    this.#worklist = init.worklist;
    this.#initialPairCount = init.initialPairCount;
    this.#entries = roundEntries(init.settings);
    this.#updateTail =
      init.settings.hopTailShare === undefined ? this.#entries.hopTail : this.#entries.plainTail;
    this.#guesses = new RoundGuesses({
      queueRoom: init.settings.queueRoom,
      queueExtraLevels: init.settings.queueExtraLevels,
      smallSortPairs: init.settings.smallSortPairs,
      sortSizeFor: init.submitter.sortSizeFor,
      preparedSorts: init.submitter.preparedSorts,
    });
  }

  /** Plans the folds of the merges an update reported (see roundEntries). */
  planFolds(status: Uint32Array): void {
    const merged = status[STATUS.merged] as number;
    if (merged === 0 || status[STATUS.skipUpdate] !== 0 || status[STATUS.skipMerge] !== 0) {
      this.#pendingFolds = [];
      return;
    }
    const children = status[STATUS.mergeMaxChildren] as number;
    const levelCount = this.#s.fixedMergeLevels ?? Math.min(16, Math.ceil(Math.log2(Math.max(1, children))));
    this.#lastFoldLevels = levelCount;
    this.#submitter.grids.mergeItems = this.#s.fixedMergeTeams ?? Math.min(this.#s.n, merged);
    this.#pendingFolds = foldEntries(levelCount);
  }

  /** Records the next update with the second copy hop or without, by the round's pairs (see the tuning's `hop`). */
  chooseHop(pairCount: number): void {
    const { hopTailShare, hopMaxPairs } = this.#s;
    const rounds = this.stats.rounds;
    const inTail = hopTailShare === undefined || (rounds >= 2 && pairCount <= hopTailShare * this.#peakPairs);
    if (rounds >= 2) this.#peakPairs = Math.max(this.#peakPairs, pairCount);
    this.#updateTail = pairCount <= hopMaxPairs && inTail ? this.#entries.hopTail : this.#entries.plainTail;
  }

  #setGate(sortCapacity: number, levels: number): void {
    if (this.#gateParams[0] === sortCapacity && this.#gateParams[1] === levels) return;
    this.#gateParams = [sortCapacity, levels];
    // guess_sort_capacity, then guess_levels after it (PARAMS_FIELDS).
    this.#ctx.queue.writeBuffer(
      this.#buffers.params,
      paramsOffset('guess_sort_capacity'),
      Uint32Array.of(sortCapacity, levels),
    );
  }

  /** Whether the folds queued with the rules (`fold_levels`: NO_FOLDS, log2 of the most children a class may have, or 31 for any) take what the update merged, as rules_gate tests it. */
  static #foldsCover(status: Uint32Array, foldLevels: number): boolean {
    return (
      status[STATUS.merged] === 0 ||
      (foldLevels !== NO_FOLDS &&
        (foldLevels >= 31 || (status[STATUS.mergeMaxChildren] as number) <= 2 ** foldLevels))
    );
  }

  /** Records the update (and its sort and levels on the guesses) ahead, while rules run. */
  readonly #encodeUpdate = (): void => {
    const submitter = this.#submitter;
    const guesses = this.#guesses;
    this.#updateAhead = submitter.encodeAhead(this.#updateTail);
    this.#sortAhead = undefined;
    this.#levelsAhead = undefined;
    if (!this.#s.sortAheadEnabled || this.#updateAhead === undefined) return;
    if (guesses.pairs > 1 && guesses.pairs <= this.#s.smallSortPairs)
      this.#sortAhead = submitter.encodeAhead(['sort_small']);
    else if (guesses.pairs > 1)
      this.#sortAhead = submitter.encodeAhead([], submitter.sortSizeFor(guesses.pairs));
    if (guesses.levels > 0) this.#levelsAhead = submitter.encodeAhead(levelEntries(guesses.levels));
  };

  /** While an update runs (or, with pipelineRounds, the round before): records the next rules (and with pipelineRounds its guessed update) and submits them behind it with rules_gate first. */
  readonly #recordAndQueueNextRules = (): void => {
    const s = this.#s;
    const submitter = this.#submitter;
    const guess = s.pipeline ? this.#guesses.pipelineGuess() : undefined;
    if (!s.pipeline || guess === undefined)
      this.#nextRules = submitter.encodeAhead(this.#entries.nextRulesEntries);
    const current = submitter.compiled;
    if (!s.rulesAheadEnabled || current === undefined) return;
    if (guess === undefined && this.#nextRules === undefined) return;
    const started = performance.now();
    // The encodeAhead calls below count their own time; this one's total replaces theirs.
    const aheadBefore = submitter.host.encodeAhead;
    // After a round that merged: the folds of this round's merges too, on a guess of their levels
    // (rules_gate checks it); the rules recorded without them stay for the host.
    const foldLevels = this.lastRoundMerged
      ? (s.fixedMergeLevels ?? Math.min(16, this.#lastFoldLevels + 1))
      : undefined;
    const queued =
      foldLevels === undefined && this.#nextRules !== undefined
        ? this.#nextRules
        : submitter.encodeAhead([
            ...(foldLevels === undefined ? [] : foldEntries(foldLevels)),
            ...this.#entries.nextRulesEntries,
          ]);
    if (queued === undefined) return;
    if (queued === this.#nextRules) this.#nextRules = undefined;
    const update =
      guess === undefined
        ? undefined
        : submitter.encodeAhead(
            [
              ...(guess.small ? (['sort_small'] as const) : []),
              ...levelEntries(guess.levels),
              ...this.#updateTail,
            ],
            guess.sortCount,
          );
    if (guess !== undefined && update === undefined) return;
    // The largest class the folds take, as log2 of its children: merge_data folds the roots the
    // levels leave one after another, so up to 2^foldRootLevels of them a class.
    const levelsWord =
      foldLevels === undefined
        ? NO_FOLDS
        : s.fixedMergeLevels !== undefined
          ? 31
          : Math.min(31, foldLevels + s.foldRootLevels);
    if (levelsWord !== this.#foldLevelsParam) {
      this.#foldLevelsParam = levelsWord;
      this.#ctx.queue.writeBuffer(
        this.#buffers.params,
        paramsOffset('fold_levels'),
        Uint32Array.of(levelsWord),
      );
    }
    // Written in queue order: the submissions before this one see the guess they were queued with.
    if (guess !== undefined) this.#setGate(guess.capacity, guess.levels);
    const status = this.#submitQueued(current, queued, update);
    submitter.host.encodeAhead = aheadBefore + (performance.now() - started);
    submitter.host.submissions++;
    this.#rulesAhead = { status, foldLevels: levelsWord, guess: update ? guess : undefined };
    // The host has nothing else to do until these rules' counts come back, whereas recording the
    // update while they run could delay its submission past them.
    if (update === undefined) this.#encodeUpdate();
  };

  /** Submits rules_gate, then `queued` (and `update`), with the status copy; returns the status words. */
  #submitQueued(
    current: NonNullable<Submitter['compiled']>,
    queued: Ahead,
    update: Ahead | undefined,
  ): Promise<Uint32Array> {
    const ctx = this.#ctx;
    const submitter = this.#submitter;
    const timer = submitter.timer;
    const label = update ? 'andersen round ahead' : 'andersen rules ahead';
    const span = timer.takeSpan(update ? 'queued round' : 'queued rules');
    let staged: StagedRead | undefined;
    const submitted = ctx.guard(label, () => {
      const encoder = ctx.device.createCommandEncoder({ label });
      timer.stampSpan(encoder, span, false);
      submitter.encodeEntries(encoder, label, current, ['rules_gate'], 0, 0, [], []);
      const tail = ctx.device.createCommandEncoder({ label: `${label} (status)` });
      timer.stampSpan(tail, span, true);
      staged = ctx.staging.recordRead(tail, this.#buffers.control, 0, CONTROL_HEAD_WORDS * 4);
      ctx.queue.submit([
        encoder.finish(),
        queued.commandBuffer,
        ...(update ? [update.commandBuffer] : []),
        tail.finish(),
      ]);
    });
    const status = Promise.all([submitted, staged?.read()]).then(([, bytes]) => {
      if (bytes === undefined) throw new GpuSolverError('the rules submitted ahead recorded no status read');
      return new Uint32Array(bytes);
    });
    // Awaited by the next round or by settleRulesAhead; an error meanwhile must not count as unhandled.
    status.catch(() => undefined);
    return status;
  }

  /** Adds a check that the rules queued with `status` were held back (the host runs them). */
  #expectHeldBack(status: Promise<Uint32Array>): void {
    const check = status.then((words) => {
      if (words[STATUS.rulesSkipped] === 0) {
        throw new GpuSolverError(
          'internal error: rules queued behind an update ran although the host had to act first (rules_gate and the host disagree)',
        );
      }
    });
    // Awaited before the sets are read; a solve that fails before then must not leave it unhandled.
    check.catch(() => undefined);
    this.heldBackChecks.push(check);
  }

  /**
   * After a queued round that was held back or outran its guess: the one queued behind it (if
   * any) was held back too. Clears the flag behind both, for the host's own submissions.
   */
  #dropQueuedRound(): void {
    if (this.#rulesAhead !== undefined) {
      this.#expectHeldBack(this.#rulesAhead.status);
      this.#rulesAhead = undefined;
      this.rulesAheadCounts.skipped++;
    }
    this.#ctx.queue.writeBuffer(this.#buffers.control, 4 * STATUS.rulesSkipped, Uint32Array.of(0));
  }

  /** One level of the partial-merge tree per `partialMergeBits` doublings of the most chunks one representative got. */
  #partialMergeLevels(status: Uint32Array): number {
    return Math.ceil(
      Math.ceil(Math.log2(Math.max(1, status[STATUS.pullMaxChunks] as number))) / this.#s.partialMergeBits,
    );
  }

  /** Adds an attempt's pull and rule counts to the report; returns the partial-merge levels it needs. */
  #countAttempt(status: Uint32Array, pairCount: number): number {
    const chunkCapacity = this.#s.chunkCapacity;
    const pullSplit = this.pullSplit;
    this.pairsPushed += pairCount;
    pullSplit.extraChunks += Math.min(status[STATUS.pullChunkCount] as number, chunkCapacity);
    pullSplit.maxChunks = Math.max(pullSplit.maxChunks, status[STATUS.pullMaxChunks] as number);
    pullSplit.refused += status[STATUS.pullRefused] as number;
    pullSplit.skippedEqualDeltas += status[STATUS.pullsSkipped] as number;
    this.sharedRules += status[STATUS.rulesShared] as number;
    this.#submitter.grids.extraChunks = Math.max(
      1,
      Math.min(status[STATUS.pullChunkCount] as number, chunkCapacity),
    );
    return this.#partialMergeLevels(status);
  }

  #countSort(sortCount: number): void {
    if (sortCount <= this.#s.mergeSortPairs) this.sorts.merge++;
    else this.sorts.radix++;
  }

  /** An update queued on a guess that held: counts it and its sort, and notes the counts for the next guesses. */
  #noteHeldGuess(status: Uint32Array, small: boolean, sortCount: number): void {
    const pairCount = status[STATUS.pairCount] as number;
    this.guessed.held++;
    if (pairCount > 1) {
      if (small) this.sorts.small++;
      else this.#countSort(sortCount);
      this.sorts.ahead++;
    }
    this.#guesses.note(pairCount, this.#countAttempt(status, pairCount));
  }

  /**
   * Runs the last update again, from its partial-merge levels and sort, after growing the pools
   * it ran short of. Its rules ran out of nothing (else they run again too), and every step before
   * the update's commit is idempotent: the levels and the sort repeat on the same chunks and
   * pairs, and apply_pairs merges again what a union left out (an exhausted union links nothing
   * half made). Only the skip flag and the level counter start again; the rules' counts (pairs,
   * most chunks) are still in the status words.
   */
  async redoUpdate(label: string, status: Uint32Array): Promise<Uint32Array> {
    const control = this.#buffers.control;
    this.#ctx.queue.writeBuffer(control, 4 * STATUS.skipUpdate, Uint32Array.of(0));
    this.#ctx.queue.writeBuffer(control, 4 * STATUS.pullLevel, Uint32Array.of(0));
    const pairCount = status[STATUS.pairCount] as number;
    return (
      await this.#submitter.run(
        label,
        [...levelEntries(this.#partialMergeLevels(status)), ...this.#updateTail],
        {
          pairCount,
          whileRunning: this.#recordAndQueueNextRules,
          kind: 'update',
          submitFirst: pairCount > 1 ? 0 : undefined,
        },
      )
    ).status;
  }

  /**
   * One attempt at a round: its rules (taken from the round queued behind the last update when it
   * ran, else submitted now, again after growing the worklist or a pool until they fit), then the
   * sorted worklist and the update. Returns the update's status (or the queued round's).
   */
  async iterate(label: string, first: boolean): Promise<Uint32Array> {
    this.updateAloneAgain = false;
    this.#growth.attemptBegins();
    const begin: SolverEntryPoint[] = first ? ['begin_iteration'] : [];
    // The very first submission fills the heads and arrays that start empty, then builds the
    // initial sets from their pairs (sorted, then merged into the pending slots by key).
    const initialCount = this.#initialized ? 0 : this.#initialPairCount;
    if (!this.#initialized) {
      begin.unshift('init_state', ...(initialCount > 0 ? this.#entries.applyEntries : []));
    }
    this.#initialized = true;
    const rules = first ? [...begin, ...this.#entries.firstAttemptEntries] : this.#entries.rulesEntries;
    // This round's rules, submitted behind the last update when rulesAhead is on.
    const queuedRules = first ? this.#rulesAhead : undefined;
    this.#rulesAhead = undefined;
    const recorded = this.#submitter.takeAhead(this.#nextRules, rules);
    this.#nextRules = undefined;
    let status: Uint32Array | undefined;
    // Partial-merge levels this attempt has run (the guessed ones).
    let levelsRun = 0;
    if (queuedRules !== undefined) {
      const queuedGuess = queuedRules.guess;
      this.#whileQueuedRulesRun(queuedGuess);
      const waitStarted = performance.now();
      const aheadStatus = await queuedRules.status;
      status = this.#takeQueuedRules(aheadStatus, queuedGuess, waitStarted);
      if (status !== undefined && queuedGuess !== undefined) {
        // A whole round queued on a guess that held: its status is the update's.
        if (status[STATUS.guessMissed] === 0) return status;
        levelsRun = queuedGuess.levels;
      }
    }
    if (status === undefined) {
      this.#setGate(...NO_GUESS);
      // The folds of the last round's merges come first: the rules see the merged classes.
      status = (
        await this.#submitter.run(label, recorded ? this.#pendingFolds : [...this.#pendingFolds, ...rules], {
          pairCount: initialCount,
          ahead: recorded ? [recorded] : [],
          // Recorded already while the rules held back ran.
          whileRunning: queuedRules === undefined ? this.#encodeUpdate : NOTHING,
          kind: 'rules',
        })
      ).status;
      this.#pendingFolds = [];
    }
    return this.#update(label, status, levelsRun);
  }

  /**
   * While rules queued behind the last update run: with a whole round queued (pipelineRounds),
   * the one after it goes up behind it before the wait, so that the GPU runs it while the host
   * reads this one. Else the update's kernels are recorded while those rules run, unless they
   * were recorded behind the last update for the kernels still current.
   */
  #whileQueuedRulesRun(queuedGuess: PipelineGuess | undefined): void {
    if (queuedGuess !== undefined) this.#recordAndQueueNextRules();
    else if (this.#updateAhead?.key !== this.#submitter.compiledKey()) this.#encodeUpdate();
  }

  /**
   * The status of rules queued behind the last update (`aheadStatus`), when they ran: with a whole
   * round queued on a guess (`queuedGuess`), the round's, its update's when the guess held.
   * Undefined when rules_gate held them back (the host runs them).
   */
  #takeQueuedRules(
    aheadStatus: Uint32Array,
    queuedGuess: PipelineGuess | undefined,
    waitStarted: number,
  ): Uint32Array | undefined {
    const submitter = this.#submitter;
    submitter.rulesStatusAt = performance.now();
    submitter.host.wait += submitter.rulesStatusAt - waitStarted;
    if (aheadStatus[STATUS.rulesSkipped] !== 0) {
      // rules_gate held them back (it tests more than the host, e.g. a pool filled to its
      // capacity): the host runs them; a round queued behind them is held back too.
      this.rulesAheadCounts.skipped++;
      this.#dropQueuedRound();
      return undefined;
    }
    this.rulesAheadCounts.ran++;
    if (this.#s.activeLists) submitter.readListItems(aheadStatus);
    // The folds of the last round's merges ran before them.
    this.#pendingFolds = [];
    if (queuedGuess === undefined) return aheadStatus;
    checkFatal(aheadStatus);
    if (aheadStatus[STATUS.guessMissed] === 0) {
      submitter.rulesStatusAt = 0;
      this.#noteHeldGuess(aheadStatus, queuedGuess.small, queuedGuess.sortCount);
      return aheadStatus;
    }
    // Short: sort_gate sorted nothing and skipped the update (the levels run stay run),
    // and the round queued behind this one is held back (its gate sees the skip).
    this.guessed.missed++;
    this.#dropQueuedRound();
    this.#setGate(...NO_GUESS);
    return aheadStatus;
  }

  /**
   * After the rules' `status`: the sort and the update, once the worklist and the pools hold what
   * the rules made (else grown, and the rules run again).
   */
  async #update(label: string, rulesStatus: Uint32Array, guessedLevels: number): Promise<Uint32Array> {
    let status = rulesStatus;
    let levelsRun = guessedLevels;
    for (;;) {
      checkFatal(status);
      const pairCount = status[STATUS.pairCount] as number;
      // sort_gate reported the pools after the rules: a pool they ran out of is grown now, and
      // the rules run again, rather than after an update that could only have been skipped.
      const rulesRanOut = status[STATUS.ptsExhausted] !== 0 || status[STATUS.edgesExhausted] !== 0;
      if (pairCount <= this.#worklist.capacity && !rulesRanOut)
        return this.#submitUpdate(label, status, levelsRun);
      this.stats.reruns++;
      levelsRun = 0;
      if (pairCount > this.#worklist.capacity) await this.#growth.growWorklistFor(pairCount);
      if (rulesRanOut) await this.#growth.growShortPools(status);
      status = (
        await this.#submitter.run(
          `${label} (${rulesRanOut ? 'pools' : 'worklist'} grown)`,
          this.#entries.rulesEntries,
          {
            whileRunning: this.#encodeUpdate,
            kind: 'rules',
          },
        )
      ).status;
    }
  }

  /** Submits the sort and the update after rules whose pairs and pools fit, with what was recorded ahead for them. */
  async #submitUpdate(label: string, status: Uint32Array, levelsRun: number): Promise<Uint32Array> {
    const submitter = this.#submitter;
    const pairCount = status[STATUS.pairCount] as number;
    const levels = this.#countAttempt(status, pairCount);
    // An update skipped for room alone is run again from its levels and sort (see redoUpdate).
    this.updateAloneAgain = !this.#s.pipeline && status[STATUS.guessMissed] === 0;
    const merges = levelEntries(Math.max(0, levels - levelsRun));
    const recordedUpdate = submitter.takeAhead(this.#updateAhead, this.#updateTail);
    // A command buffer goes up once: what is not taken now is recorded anew.
    this.#updateAhead = undefined;
    const smallSort = pairCount > 1 && pairCount <= this.#s.smallSortPairs;
    const sortCount = smallSort ? 0 : submitter.sortSizeFor(pairCount);
    // The sort and the levels recorded on a guess, when it was right (they go before the
    // update, which they were recorded with). A sort recorded for twice the pairs
    // sorts them too (it reads their count on the GPU; its tiles past the count do nothing
    // or, in the radix sort, write empty histogram rows), and a level more than needed merges nothing (no chunk's
    // number has that many trailing zeros).
    const recordedSort =
      recordedUpdate === undefined
        ? undefined
        : smallSort
          ? submitter.takeAhead(this.#sortAhead, ['sort_small'])
          : sortCount > 1
            ? (submitter.takeAhead(this.#sortAhead, [], sortCount) ??
              submitter.takeAhead(this.#sortAhead, [], 2 * sortCount))
            : undefined;
    const recordedLevels =
      recordedUpdate !== undefined && merges.length > 0
        ? (submitter.takeAhead(this.#levelsAhead, merges) ??
          submitter.takeAhead(this.#levelsAhead, levelEntries(levels - levelsRun + 1)))
        : undefined;
    this.#sortAhead = undefined;
    this.#levelsAhead = undefined;
    this.#guesses.note(pairCount, levels);
    if (smallSort) this.sorts.small++;
    else if (sortCount > 1) this.#countSort(recordedSort?.sortCount ?? sortCount);
    if (recordedSort) this.sorts.ahead++;
    return (
      await submitter.run(
        label,
        [...(recordedLevels ? [] : merges), ...(recordedUpdate ? [] : this.#updateTail)],
        {
          // After a guess fell short sort_gate runs again, with none (it sorted nothing).
          beforeSort: status[STATUS.guessMissed] !== 0 ? ['sort_gate'] : [],
          pairCount: recordedSort ? 0 : pairCount,
          ahead: [recordedSort, recordedLevels, recordedUpdate].filter((recorded) => recorded !== undefined),
          whileRunning: this.#recordAndQueueNextRules,
          kind: 'update',
          // The sort goes up first: Dawn records each dispatch's backend commands in
          // queue.submit (about 4.5 µs each on the H100 machine) and the GPU starts a
          // submission only once it is recorded, so the GPU sorts while the update's
          // thirty-odd dispatches are recorded.
          submitFirst: pairCount > 1 ? (recordedSort ? 1 : 0) : undefined,
        },
      )
    ).status;
  }

  /**
   * After an update's status: when the host has something to do before the next rules (redo the
   * update or the merges, fold, stop, or grow a pool ahead), rules_gate held the rules queued
   * behind the update back, as it tests the same words. Clears its flag (queued behind them) and
   * checks, before the sets are read, that they did return at once.
   */
  settleRulesAhead(status: Uint32Array): void {
    const rulesAhead = this.#rulesAhead;
    if (rulesAhead === undefined) return;
    const quiet =
      status[STATUS.active] === 0 && status[STATUS.freshNodes] === 0 && status[STATUS.merged] === 0;
    const hostActs =
      status[STATUS.fatal] !== 0 ||
      status[STATUS.skipUpdate] !== 0 ||
      status[STATUS.skipMerge] !== 0 ||
      !RoundScheduler.#foldsCover(status, rulesAhead.foldLevels) ||
      quiet ||
      this.#growth.growsAhead(status);
    if (!hostActs) return;
    this.#dropQueuedRound();
  }
}
