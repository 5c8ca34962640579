/**
 * The sort (`sortCount` 0: sort_small or none) and partial-merge levels a round queued two ahead
 * runs (see the tuning's `pipelineRounds`), and the pairs they cover (sort_gate's guess).
 */
export interface PipelineGuess {
  readonly capacity: number;
  readonly sortCount: number;
  readonly small: boolean;
  readonly levels: number;
}

/** What {@link RoundGuesses} sizes its guesses by. */
export interface GuessSettings {
  /** Room a queued round's sort has, as a multiple of the most pairs of the last two rounds. */
  readonly queueRoom: number;
  /** Levels a queued round runs past the most the last two rounds needed. */
  readonly queueExtraLevels: number;
  /** The most pairs sort_small takes (0: off). */
  readonly smallSortPairs: number;
  /** The sort size that a count of pairs takes. */
  readonly sortSizeFor: (count: number) => number;
  /** The radix sort sizes prepared so far (a size not prepared may lack its kernels). */
  readonly preparedSorts: ReadonlySet<number>;
}

/**
 * The counts of the last rounds that sorted pairs and merged partial pulls, from which the host
 * guesses the sort and levels of work it records or queues before the rules' counts are in: a
 * sort recorded ahead takes the last round's sort, a round queued two ahead room for more than
 * the last two rounds'. Rounds that sort nothing or merge no chunks leave the guesses alone (on
 * small programs rounds that push pairs often alternate with rounds that only pull).
 *
 * @example
 * ```ts
 * const guesses = new RoundGuesses({ queueRoom: 2, queueExtraLevels: 1, smallSortPairs, sortSizeFor, preparedSorts });
 * guesses.note(pairCount, levels);
 * const guess = guesses.pipelineGuess();
 * ```
 */
export class RoundGuesses {
  /** The pairs of the last round that sorted any. */
  pairs = 0;
  /** Those of the sorting round before it. */
  previousPairs = 0;
  /** The partial-merge levels the last round that merged chunks needed. */
  levels = 0;
  /** Those of the merging round before it. */
  previousLevels = 0;
  readonly #o: GuessSettings;

  constructor(o: GuessSettings) {
    this.#o = o;
  }

  /** Notes a round's sorted pairs and partial-merge levels for the next guesses. */
  note(pairCount: number, levels: number): void {
    if (pairCount > 1) {
      this.previousPairs = this.pairs;
      this.pairs = pairCount;
    }
    if (levels > 0) {
      this.previousLevels = this.levels;
      this.levels = levels;
    }
  }

  /**
   * The sort and partial-merge levels of a round queued two ahead: room for `queueRoom` times the
   * most pairs of the last two rounds that sorted, sort_small when that fits it, else the smallest
   * radix sort prepared that holds it (or, failing that, those pairs); `queueExtraLevels` levels
   * past the most the last two needed. Undefined when no sort prepared is large enough.
   */
  pipelineGuess(): PipelineGuess | undefined {
    const { queueRoom, queueExtraLevels, smallSortPairs, sortSizeFor } = this.#o;
    const levels = Math.max(0, Math.max(this.levels, this.previousLevels) + queueExtraLevels);
    const most = Math.max(this.pairs, this.previousPairs);
    const room = Math.ceil(queueRoom * most);
    if (smallSortPairs > 0 && room <= smallSortPairs)
      return { capacity: smallSortPairs, sortCount: 0, small: true, levels };
    const size = this.#preparedSortFor(sortSizeFor(room)) ?? this.#preparedSortFor(sortSizeFor(most));
    return size === undefined ? undefined : { capacity: size, sortCount: size, small: false, levels };
  }

  /** The smallest sort size prepared that sorts `pairs`. */
  #preparedSortFor(pairs: number): number | undefined {
    let best: number | undefined;
    for (const size of this.#o.preparedSorts)
      if (size >= pairs && (best === undefined || size < best)) best = size;
    return best;
  }
}
