import type { SolverEntryPoint } from './module/solver.wgsl';

/**
 * Phases of a solve that {@link GpuSolverOptions.profile} times separately: `rules` (the pulls and
 * the load, store and offset rules), `equivalence` (ΔP-equivalent variables, §6.3: the leader
 * table's clearing and `delta_leaders`), `sort` and `worklist` (sorting the pushed pairs and
 * merging them into N), `update` (ΔP = N − P, P ∪= ΔP), `hcd` (online cycle collapse and the
 * merges' folds), `transfer` (the kernels that lay the final sets out for the readback, not the
 * copy over the bus).
 *
 * @example
 * ```ts
 * const share = (phase: GpuSolvePhase) => report.phaseMs?.[phase] ?? 0;
 * ```
 */
export type GpuSolvePhase = 'rules' | 'equivalence' | 'sort' | 'worklist' | 'update' | 'hcd' | 'transfer';

/**
 * GPU memory and transfers of a solve, beside the {@link SolveStatistics}.
 *
 * @example
 * ```ts
 * await solver.solve();
 * console.log(`${(solver.report?.gpuBytes ?? 0) / 2 ** 20} MiB on ${solver.report?.adapter}`);
 * ```
 */
export interface GpuSolveReport {
  /**
   * Bytes of GPU buffers the solve held at its end (pools, heads, object sizes, rules, control, pairs,
   * and the worklist sort's scratch).
   */
  readonly gpuBytes: number;
  /** Final capacity and use of the points-to and edge pools, in 128-byte elements. */
  readonly pointsPool: { readonly capacity: number; readonly used: number };
  readonly edgePool: { readonly capacity: number; readonly used: number };
  /**
   * Times an iteration's rules or update ran again after a pool or the worklist grew (the update
   * alone when only it ran short; the rules when they did, before any update).
   */
  readonly reruns: number;
  /** Of {@link reruns}, the updates run again alone (from their partial-merge levels and sort). */
  readonly updateRedos: number;
  /**
   * Times a pool grew because the merge guard found it short of room for the folds of a round's
   * merges (the plan stands, and nothing runs again).
   */
  readonly mergeGrows: number;
  /**
   * Times a pool at its largest size dropped the elements no set reaches any more (the replaced
   * ΔP, N and partial sets a bump pool keeps) instead of growing, and the iteration ran again.
   */
  readonly compactions: number;
  /** Milliseconds spent on the host preparing and uploading, iterating, and reading the result back. */
  readonly setupMs: number;
  /**
   * Where {@link setupMs} went: `program` (the offline merges, rule table and initial sets on the
   * host), `pools` (creating the two element pools and uploading the initial sets), `buffers` (the
   * other buffers, their uploads and the rest of the setup).
   */
  readonly setupParts: { readonly program: number; readonly pools: number; readonly buffers: number };
  readonly iterateMs: number;
  readonly transferMs: number;
  /** The part of {@link transferMs} spent copying from the GPU (the rest decodes the sets on the host). */
  readonly transferReadMs: number;
  /** Bytes read back at the end. */
  readonly readbackBytes: number;
  /**
   * Representatives whose P set equals another's and was therefore not read back on its own (they
   * share one copy; 0 with `shareEqualSets: false` or when the whole pool was read).
   */
  readonly sharedSets: number;
  /**
   * Times the GPU laid the live sets out for the readback: 1, or 2 when they did not fit the
   * worklist's source buffer, which then grew (0 when the whole pool was read).
   */
  readonly liveLayouts: number;
  /** Whether they went into memory that worker threads had touched (see `touchedReadbackBytes`). */
  readonly touchedReadback: boolean;
  /** Adapter the solve ran on. */
  readonly adapter: string;
  /**
   * How the copy⁻¹ pulls were split over teams, summed over every attempt of every iteration: extra
   * chunks handed out beside the representatives' own teams; the most chunks one representative ran
   * in; representatives refused a split because the chunk capacity was full (they ran unsplit).
   */
  readonly pullSplit: {
    readonly extraChunks: number;
    readonly maxChunks: number;
    readonly refused: number;
    /** ΔP pulls skipped because the team had already pulled an equal ΔP (ΔP-equivalent sources, §6.3). */
    readonly skippedEqualDeltas: number;
  };
  /**
   * Rules `member_rules` skipped because a rule of the same signature (kind, class written, ΔP
   * leader of the class read, offset) ran and pushed the same pairs, summed over every attempt.
   */
  readonly sharedRules: number;
  /**
   * Worklist pairs the rules pushed, summed over the attempts whose worklist fit (one that ran
   * again after a pool grew counts again); with `dedupePairs`, a pair already pushed in the same
   * attempt is not pushed again.
   */
  readonly pairs: number;
  /** Worklists sorted in one workgroup (`sort_small`), by the merge sort and by the radix sort, over all submissions. */
  readonly sorts: {
    readonly small: number;
    readonly merge: number;
    readonly radix: number;
    /** Of those, the sorts recorded while the rules ran, on the guess of the last round that sorted, and used. */
    readonly ahead: number;
  };
  /** GPU milliseconds per phase, summed over iterations (only with `profile` and timestamp queries). */
  readonly phaseMs?: Readonly<Record<GpuSolvePhase, number>> | undefined;
  /** The same GPU milliseconds per kernel (entry point; the worklist's radix sort as `sort`). */
  readonly kernelMs?: Readonly<Record<string, number>> | undefined;
  /**
   * Where the host's time of the iterations and the transfer went, summed over submissions:
   * `prepare` (kernel and sort-plan look-ups, scratch buffers), `encode` (recording and submitting
   * command buffers), `submit` (the part of `encode` spent in `queue.submit`, where Dawn records
   * the backend's commands and barriers for every dispatch, those recorded ahead included),
   * `encodeAhead` (recording kernels of the next submission while the GPU runs this one), `wait` (from the submit until its error scopes and the status words it copies out
   * arrive, less `encodeAhead`: the GPU's own time and the round trip), `grow` (growing pools and
   * the worklist), and `submissions`, their count. The GPU idles during everything but `wait` and
   * `encodeAhead`. `react` is the part of the host's time between the rules' status words and the
   * update's submit (see {@link HostTimes.react}).
   */
  readonly host: Readonly<HostTimes>;
  /** Rounds whose update ran on the guess it was queued with (`held`), and those whose guess fell short (`missed`); see `pipelineRounds`. */
  readonly guessedRounds: { readonly held: number; readonly missed: number };
  /** Rounds whose rules ran behind the update before it (`ran`), and those rules_gate held back (`skipped`); see `rulesAhead`. */
  readonly rulesAhead: { readonly ran: number; readonly skipped: number };
  /**
   * With `timeSubmissions`: the GPU time from the first to the last timestamp of each submission,
   * summed (`busyMs`), the GPU time between one submission's last timestamp and the next one's
   * first (`idleMs`: the round trip, the host's reading, encoding and submitting), and how many
   * submissions were timed (the first 2,048); `busyEachMs` is each submission's busy time in
   * order (two a round, so a round's floor shows in its quiet rounds). `idleBeforeMs` splits
   * `idleMs` by the kind of submission the GPU waited for: `rules` (the host's), `queued rules`
   * (those submitted behind an update, see `rulesAhead`), `queued round` (a whole round queued
   * behind the one before, see `pipelineRounds`), `update` (the sort and the update, after the
   * rules' status came back) and `other` (the first round's, reruns, merges again).
   */
  readonly submissionSpans?:
    | {
        readonly submissions: number;
        readonly busyMs: number;
        readonly idleMs: number;
        readonly idleBeforeMs: Readonly<Record<SubmissionKind, number>>;
        readonly busyEachMs: readonly number[];
      }
    | undefined;
}

/** What a timed submission carries (see {@link GpuSolveReport.submissionSpans}). */
export type SubmissionKind = 'rules' | 'queued rules' | 'queued round' | 'update' | 'other';

/** Host milliseconds of a solve by activity; see {@link GpuSolveReport.host}. */
export interface HostTimes {
  prepare: number;
  encode: number;
  submit: number;
  encodeAhead: number;
  wait: number;
  grow: number;
  submissions: number;
  /**
   * From the rules' status words reaching the host to the (first) submit of the sort and update
   * that follow returning, summed: the host's part of the GPU's idle time before each update.
   */
  react: number;
}

/** The phase each entry point's GPU time counts in (see {@link GpuSolveReport.phaseMs}). */
export const PHASE_OF: Record<SolverEntryPoint, GpuSolvePhase> = {
  init_state: 'rules',
  begin_iteration: 'rules',
  begin_attempt: 'rules',
  rules_gate: 'rules',
  sort_gate: 'worklist',
  pending_list: 'update',
  delta_clear: 'equivalence',
  delta_bits: 'rules',
  delta_leaders: 'equivalence',
  pull_count: 'rules',
  pull_items: 'rules',
  pull_sources: 'rules',
  member_rules: 'rules',
  pull_rules: 'rules',
  merge_partials: 'rules',
  sort_small: 'sort',
  mark_segments: 'worklist',
  apply_pairs: 'worklist',
  hop_bits: 'rules',
  hop_pull: 'rules',
  guard_update: 'update',
  guard_pending: 'update',
  update_sets: 'update',
  hcd_hook: 'hcd',
  compress: 'hcd',
  merge_rank: 'hcd',
  merge_count: 'hcd',
  merge_prepare: 'hcd',
  merge_level: 'hcd',
  guard_merge: 'hcd',
  merge_data: 'hcd',
  merge_done: 'hcd',
  live_leaders: 'transfer',
  live_count: 'transfer',
  live_copy: 'transfer',
};
