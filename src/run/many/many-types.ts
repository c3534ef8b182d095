import type { CompletionChoice, RunEvent, RunOutcome } from '../../core/events.js';
import type { RunMode } from '../launch/launch.js';
import type { RunOptions } from '../options.js';

/**
 * Several runs at once (`run a b c`, `run --all`, `resume --all`; docs/contract.md, "Several
 * changes at once"): each change in a worktree of its own, up to `parallel` at a time.
 */
export interface ManyRunRequest {
  /** Where the command started (inside the user's work tree). */
  cwd: string;
  /** The changes, in the order given (for `--all`: resolved by the caller). */
  changes: readonly string[];
  /** The options every run gets; `worktree` is always true here. */
  options: RunOptions;
  mode: RunMode;
  /**
   * `resume --all`: changes a crashed `run a b c` was asked for and never started, started here
   * (mode start) with the options they were asked for (batch-record.ts); also in `changes`.
   */
  starts?: { changes: readonly string[]; options: RunOptions };
  /** How many runs work at once (`--parallel`, 1 … PARALLEL_LIMITS.max). */
  parallel: number;
  env: NodeJS.ProcessEnv;
}

/** Two finished branches (or one and the user's branch) that do not merge cleanly. */
export interface MergeConflict {
  /** A change's name. */
  a: string;
  /**
   * Another change's name, or `MergeReport.against` for a collision with the user's work tree
   * (their branch as it is in the work tree, uncommitted changes included).
   */
  b: string;
  /** The paths git could not merge. */
  files: string[];
}

/**
 * The merge check at the end of several runs, before any completion choice is applied
 * (`checkMerges` in run/many/merge-check.ts; `git merge-tree --write-tree`, no work tree touched).
 */
export interface MergeReport {
  /** The user's branch as their work tree is on it now (a detached HEAD: its commit, short). */
  against: string;
  /** The changes whose branches were checked (those with at least one story accepted). */
  checked: string[];
  conflicts: MergeConflict[];
  /**
   * An order in which the checked branches apply one after the other onto the user's branch
   * without a conflict; null when there is none (then `conflicts` says which pairs collide).
   */
  order: string[] | null;
}

/** What several runs tell as they go: every run's events with its change, and the run-wide ones. */
export interface ManyRunHooks {
  emit: (change: string, event: RunEvent) => void;
  /** The merge check, once every loop has ended and before any completion choice. */
  mergeChecked: (report: MergeReport) => void;
  /**
   * Asked once per run whose loop ended with a choice to make, after the merge check; runs'
   * cleanups are applied one after another (they all write to the user's work tree).
   */
  chooseCompletion: (
    change: string,
    outcome: RunOutcome,
    /** The run's own `--resolve-conflicts` (its recorded intent on a resume). */
    run?: { resolveConflicts: boolean },
  ) => Promise<CompletionChoice | null>;
  /** Ctrl-C / SIGTERM: every run stops (each reverted to its checkpoint). */
  stop: AbortSignal;
  /** One-line notes; `change` is null for the ones about all runs. */
  notice: (change: string | null, message: string) => void;
}

/** How one of the runs ended. */
export interface ManyRunEnd {
  change: string;
  exitCode: number;
  /** The refusal or failure that ended it before or outside its loop, as one line. */
  error: string | null;
}

export interface ManyRunResult {
  /** 0 when every run's exit code is 0, else the most serious one (contract "Exit codes"). */
  exitCode: number;
  runs: ManyRunEnd[];
}
