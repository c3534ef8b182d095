import type { StepObserver } from './journal.js';

/** How a run is found: the repository (any directory inside it) and the change. */
export interface RunLocation {
  /** Any directory inside the repository. */
  cwd: string;
  change: string;
  /** Limit for each git command (`--command-timeout`), in milliseconds. */
  timeoutMs: number;
  /** The environment git starts from: the command's, from CommandIO. */
  baseEnv: NodeJS.ProcessEnv;
  /** Extra environment for git (e.g. HOME), laid over `baseEnv`; mostly for tests. */
  env?: Record<string, string | undefined>;
  /** Told of each step of the git sequences (journal.ts); for the tests' in-process crashes. */
  observeSteps?: StepObserver;
}

/** Per call: aborting stops the git command running now. Do not pass the loop's stop signal
 * to `revert`: after a stop the tree must still be put back. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface RevertResult {
  /** The checkpoint the tree is back at. */
  toSha: string;
  /** The ref holding the attempt's work (`refs/ralphtool/<change>/attempts/<story>-<attempt>`). */
  savedRef: string;
}

export interface EnsureResult {
  /** True when something had to be put back first. */
  repaired: boolean;
  /** Where the leftover work was saved when repaired. */
  savedRef: string | null;
  /**
   * The other branch HEAD was on when repaired (the user went back to their own branch after
   * a crash, say): its commits stay where they are; only the work tree was saved and reverted.
   */
  fromBranch: string | null;
  /**
   * Commits found on the run's branch past its checkpoint (the user's, or the agent's), kept
   * with their history under `ref`; their short shas and subjects, newest first. Null: none.
   */
  keptCommits: { ref: string; commits: string[] } | null;
}
