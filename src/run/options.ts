import type { IntentKey } from '../core/run-intent.js';

/** The options of `run` and `resume`, validated (docs/contract.md, "`run <change>` and `resume <change>`"). */
export type AgentKind = 'claude' | 'codex' | 'opencode' | 'gemini' | 'command';
/** Every agent `--agent` and `--fallback-agent` accept, in the order help names them. */
export const AGENT_KINDS: readonly AgentKind[] = [
  'claude',
  'codex',
  'opencode',
  'gemini',
  'command',
];
export type OnComplete = 'ask' | 'cleanup' | 'keep';
/** What a usage/rate limit does: wait for its reset (up to `maxWaitMs`) or stop the run. */
export type OnLimit = 'wait' | 'stop';

/** A fallback agent and the model it is given (null: the agent's own). */
export interface FallbackAgent {
  agent: AgentKind;
  model: string | null;
}

export interface RunOptions {
  agent: AgentKind;
  /** For `command`: the program and its arguments as one command line (split, never run by a shell). */
  agentCommand: string | null;
  model: string | null;
  maxRetries: number;
  /** Limit for each git command ralphtool runs. */
  commandTimeoutMs: number;
  /** 0 = no limit. */
  agentTimeoutMs: number;
  /** 0 = no limit. */
  idleTimeoutMs: number;
  verify: readonly string[];
  /** Limit for each `--verify` command; 0 = no limit. */
  verifyTimeoutMs: number;
  onComplete: OnComplete;
  json: boolean;
  force: boolean;
  onLimit: OnLimit;
  /** Longest total wait for usage/rate limits in one invocation before outcome `limited`. */
  maxWaitMs: number;
  /** `--pause-at`: no new attempt once the account's window is this percent used; null = none. */
  pauseAt: number | null;
  /**
   * Budgets; null = not given on this command line (a resume then keeps the recorded one).
   * The run state records them, so `resume` continues the same budget.
   */
  maxCostUsd: number | null;
  maxStoryCostUsd: number | null;
  /** Wall clock of this invocation, waits included; null = none. */
  maxDurationMs: number | null;
  /** Verify commands block from the first attempt, even when they failed at the baseline. */
  verifyStrict: boolean;
  /**
   * `--allow-test-changes`: an attempt that deletes, empties or skips tests, or changes what the
   * verify commands run, is let through and reported instead of failed (core/tests-weakened.ts).
   */
  allowTestChanges: boolean;
  /**
   * The independent review (docs/contract.md, "The review"): null = none, `agent` = the run's
   * agent read-only, an agent kind (`--review-agent`), or `command` (`--review-command`).
   */
  review: string | null;
  /** `--review-command`: the reviewer's program and arguments; null for an agent reviewer. */
  reviewCommand: string | null;
  /** Reviews before the run ends not approved; 0 = no review. */
  maxReviewRounds: number;
  /** Programs (command lines, split, never a shell) told of the events people need to know. */
  notify: readonly string[];
  /** URLs the same events are POSTed to as JSON. */
  notifyUrls: readonly string[];
  /** Limit for one notification: a program's run, or each try of a POST. */
  notifyTimeoutMs: number;
  /** `resume --answer` / `--answer-file`: the answer to the question a blocked run asked. */
  answer: string | null;
  /**
   * `--fallback-agent` (with `--fallback-model`): the agents tried in this order while the one
   * before is usage- or rate-limited (docs/contract.md, "Fallback agents"); null = not given on
   * this command line (a resume then keeps the recorded ones).
   */
  fallbacks: readonly FallbackAgent[] | null;
  /**
   * `run --worktree` (implied by several changes): the run works in a worktree of its own
   * beside the user's, who keeps working in theirs (docs/contract.md, "Runs in worktrees").
   */
  worktree: boolean;
  /** `--keep-worktree`: the run's worktree stays when the run ends. */
  keepWorktree: boolean;
  /**
   * `--resolve-conflicts`: a cleanup of a run in a worktree whose work collides with the user's
   * work tree gives the agent one more story, bringing the branch onto it (run/loop/resolve.ts).
   */
  resolveConflicts: boolean;
  /**
   * `--worktree-parent <dir>` (an absolute path): the folder the `<repo>.ralph/<change>`
   * worktrees are made in; null = the folder holding the user's repository.
   */
  worktreeParent: string | null;
  /**
   * `--push <remote>`: the run's refs and record go to this remote after every step, and the
   * change is claimed there first (docs/contract.md, "Beyond one machine"); null = local only.
   */
  push: string | null;
  /** `--claim-ttl`: a claim whose heartbeat is older than this may be taken over. */
  claimTtlMs: number;
  /** `resume --from <remote>`: the run is fetched from this remote first; null = local. */
  from: string | null;
  /** `--include-uncommitted`: with --push, the user's uncommitted files go with the first commit. */
  includeUncommitted: boolean;
  /** `--sandbox`: every agent process runs contained (docs/sandbox.md); refused where it cannot. */
  sandbox: boolean;
  /** `--allow-host`: hosts the sandboxed agent may reach beyond its own API. */
  allowHosts: readonly string[];
  /** `--sandbox-deny-read`: paths beyond the credential stores the sandboxed agent may not read. */
  sandboxDenyRead: readonly string[];
  /**
   * Which parts of the run's intent (core/run-intent.ts) this command line gave: a `resume`
   * replaces only those in the recorded intent and goes on with the rest as the run started.
   */
  intentGiven: ReadonlySet<IntentKey>;
  /**
   * The project's prompt template (`.ralphtool/prompt.md`), read once as the run starts and
   * recorded with its intent; null or absent: the built-in prompt.
   */
  promptTemplate?: string | null;
}

/** The remote options when no flag gives them: local only. */
export const REMOTE_DEFAULTS = {
  push: null,
  claimTtlMs: 15 * 60_000,
  from: null,
  includeUncommitted: false,
} as const;

/** The review's defaults: none, two rounds when asked for. */
export const REVIEW_DEFAULTS = { review: null, reviewCommand: null, maxReviewRounds: 2 } as const;
/** The sandbox options when no flag gives them: off. */
export const SANDBOX_DEFAULTS = { sandbox: false, allowHosts: [], sandboxDenyRead: [] } as const;

/** How many runs may work at once (`--parallel`), and its default. */
export const PARALLEL_LIMITS = { default: 2, max: 16 } as const;

export const DEFAULT_RUN_OPTIONS = {
  agent: 'claude',
  maxRetries: 3,
  commandTimeoutMs: 30_000,
  agentTimeoutMs: 60 * 60_000,
  idleTimeoutMs: 15 * 60_000,
  verifyTimeoutMs: 10 * 60_000,
  onLimit: 'wait',
  maxWaitMs: 8 * 60 * 60_000,
} as const;

/** The options of a run left alone: limits, budgets, the verify ratchet, notifications, the answer. */
export type UnattendedOptions = Pick<
  RunOptions,
  | 'onLimit'
  | 'maxWaitMs'
  | 'pauseAt'
  | 'maxCostUsd'
  | 'maxStoryCostUsd'
  | 'maxDurationMs'
  | 'verifyStrict'
  | 'allowTestChanges'
  | 'notify'
  | 'notifyUrls'
  | 'notifyTimeoutMs'
  | 'answer'
  | 'fallbacks'
>;

/** The unattended-run options when no flag gives them: wait at limits, no budget, nobody told. */
export const UNATTENDED_DEFAULTS: UnattendedOptions = {
  onLimit: DEFAULT_RUN_OPTIONS.onLimit,
  maxWaitMs: DEFAULT_RUN_OPTIONS.maxWaitMs,
  pauseAt: null,
  maxCostUsd: null,
  maxStoryCostUsd: null,
  maxDurationMs: null,
  verifyStrict: false,
  allowTestChanges: false,
  notify: [],
  notifyUrls: [],
  notifyTimeoutMs: 30_000,
  answer: null,
  fallbacks: null,
};
