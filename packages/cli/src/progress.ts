import cliProgress from 'cli-progress';
import type { CliIo } from './io';

/** A progress indicator for a long command (a no-op where no terminal is attached). */
export interface Progress {
  /** True when a bar is actually drawn. */
  readonly active: boolean;
  /** Advances by `delta` (default 1), optionally changing the label. */
  tick(delta?: number, label?: string): void;
  /** Sets the absolute position, optionally changing the label. */
  update(value: number, label?: string): void;
  /** Changes the total (e.g. when a solver learns how many iterations remain). */
  setTotal(total: number): void;
  /** Removes the bar; call it before printing results. */
  stop(): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** The stream to draw on (default `process.stderr`); nothing is drawn unless it is a TTY. */
  readonly stream?: NodeJS.WriteStream;
}

const NO_PROGRESS: Progress = {
  active: false,
  tick() {},
  update() {},
  setTotal() {},
  stop() {},
};

/**
 * A cli-progress bar on stderr when stderr is a terminal, otherwise a no-op, so commands can
 * report progress unconditionally without polluting logs or piped output.
 *
 * @example
 * ```ts
 * const progress = createProgress('solving', constraints.length);
 * solver.on('iteration', ({ done }) => progress.update(done));
 * await solver.run();
 * progress.stop();
 * ```
 */
export function createProgress(label: string, total: number, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (!stream.isTTY) return NO_PROGRESS;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{label} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}',
      hideCursor: true,
      clearOnComplete: true,
      stopOnComplete: false,
      barsize: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label });
  let stopped = false;
  return {
    active: true,
    tick(delta = 1, newLabel) {
      bar.increment(delta, newLabel === undefined ? undefined : { label: newLabel });
    },
    update(value, newLabel) {
      bar.update(value, newLabel === undefined ? undefined : { label: newLabel });
    },
    setTotal(newTotal) {
      bar.setTotal(newTotal);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}

/**
 * The progress bar of a command: drawn on `io.stderr` when that is a terminal, else a no-op (so
 * piped output, logs, CI and tests that capture output see no bar).
 *
 * @example
 * ```ts
 * const progress = progressFor(io, 'andersen', 1);
 * await solveAndersen(program, { onIteration: (e) => progress.update(e.round) }).finally(() => progress.stop());
 * ```
 */
export function progressFor(io: CliIo, label: string, total: number): Progress {
  if (io.stderr.isTTY !== true) return NO_PROGRESS;
  return createProgress(label, total, { stream: io.stderr as NodeJS.WriteStream });
}
