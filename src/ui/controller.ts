import type { AccountWindow } from '../core/account-window.js';
import type { Change, ChangeSummary } from '../core/change.js';
import type { CompletionChoice, TimedRunEvent } from '../core/events.js';
import type { RunMark } from '../core/run-mark.js';

/**
 * The UI's only way out: everything it shows comes through here and the only
 * things it sends back are the user's choices. It never runs git or an agent.
 */
export interface UiController {
  listChanges(): Promise<ChangeSummary[]>;
  /** `root`: a run's worktree, to read the change as that run has it (its tasks ticked). */
  readChange(name: string, root?: string): Promise<Change>;
  /** The options runs started from the UI will use; shown before running. */
  readonly runOptions: UiRunOptions;
  /**
   * Starts the loop on a change (`resume`: continues its recorded run, as `ralphtool resume`;
   * with `answer`, as `ralphtool resume --answer`); events arrive through `onEvent` in order.
   */
  startRun(
    change: string,
    onEvent: (event: TimedRunEvent) => void,
    mode?: 'start' | 'resume',
    answer?: string,
  ): RunHandle;
  /** Changes whose run is recorded and not finished, with how it waits (core/run-mark.ts). */
  recordedRuns(): Promise<Record<string, RunMark>>;
  /**
   * Ends a recorded run that is not active, as `ralphtool finish <change> --cleanup|--keep`;
   * resolves with what was done, in one line.
   */
  finishRun(change: string, choice: CompletionChoice): Promise<string>;
  /** Files changed against the original branch after a run, untracked (new) files included. */
  changedFiles(run: FinishedRun): Promise<ChangedFile[]>;
  /**
   * Starts several changes together, each in a worktree of its own, up to
   * `runOptions.parallel` at once (as `ralphtool run a b c`); each run's events arrive with
   * its change, in order.
   */
  startRuns(changes: readonly string[], hooks: ManyRunsHooks): ManyRunsHandle;
  /**
   * What the usage governor knows now of the accounts the runs' agents use (docs/contract.md,
   * "One account, many runs"), as `status` shows it; read again and again while several runs
   * go on. Absent: the dashboard shows no account.
   */
  accounts?(): Promise<AccountWindow[]>;
}

/** What several runs tell the UI as they go (the run layer's ManyRunHooks, seen from here). */
export interface ManyRunsHooks {
  event(change: string, event: TimedRunEvent): void;
  /** The merge check of the finished branches, once every loop has ended. */
  mergeChecked(report: UiMergeReport): void;
  /** One-line notes; `change` is null for the ones about all runs. */
  notice(change: string | null, message: string): void;
}

export interface ManyRunsHandle {
  /** Stops every run (each reverted to its checkpoint); each then asks its choice. */
  stop(): void;
  /** The answer to one run's `run.awaiting-choice` (kept until that run asks). */
  choose(change: string, choice: CompletionChoice): void;
  /** The same answer for every run not answered yet, including those that ask later. */
  chooseAll(choice: CompletionChoice): void;
  /** Leave at once; every run stays recoverable with resume/finish. */
  forceQuit(): void;
  /** Settles when every run has ended; rejects only when the engine itself threw. */
  done: Promise<{ exitCode: number; runs: ManyRunsEnd[] }>;
}

/** How one of several runs ended (run/many/many-types.ts `ManyRunEnd`). */
export interface ManyRunsEnd {
  change: string;
  exitCode: number;
  /** The refusal or failure that ended it before or outside its loop, as one line. */
  error: string | null;
}

/** The merge check at the end of several runs (run/many/many-types.ts `MergeReport`). */
export interface UiMergeReport {
  against: string;
  checked: string[];
  conflicts: { a: string; b: string; files: string[] }[];
  /** An order that applies cleanly one after the other; null when there is none. */
  order: string[] | null;
}

export interface UiRunOptions {
  /** As shown to the user, e.g. `claude` or `command (./my-agent --fast)`. */
  agent: string;
  model?: string | null;
  maxRetries: number;
  /** 0 = no limit. */
  agentTimeoutMs: number;
  /** 0 = no limit. */
  idleTimeoutMs: number;
  /** The user's --verify commands; empty: none are run (the prompt only suggests some). */
  verify: readonly string[];
  /** How many of several marked changes run at once (`--parallel`). */
  parallel?: number;
  /** Several runs keep their worktrees after `keep` (`--keep-worktree`). */
  keepWorktree?: boolean;
  /** A line for the top of the changes screen (the demo says what to press there). */
  note?: string;
  /** Test commands inferred from the project's files, to suggest when `verify` is empty. */
  suggestedVerify?: readonly string[];
}

export interface RunHandle {
  /** Asks the loop to stop: the running agent is killed and its partial work reverted. */
  stop(): void;
  /** The answer to `run.awaiting-choice`. */
  choose(choice: CompletionChoice): void;
  /** Leave at once (q three times within 3 s); the run stays recoverable with resume/finish. */
  forceQuit(): void;
  /** Settles when the loop has ended; rejects only when the loop itself threw. */
  done: Promise<{ exitCode: number }>;
  /** Where the full transcripts of this run live, named when the view drops old lines. */
  transcriptsDir?: string | undefined;
}

export type FileStatus = 'A' | 'M' | 'D' | 'R';

export interface ChangedFile {
  status: FileStatus;
  path: string;
  /** For renames: the old path. */
  from?: string;
}

/** What the UI knows of a finished run, from its recorded events. */
export interface FinishedRun {
  change: string;
  branch: string;
  originalBranch: string;
  baseSha: string;
  choice: CompletionChoice | null;
}
