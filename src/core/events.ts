/** The loop's event stream (docs/contract.md, "Events"): the UI and the NDJSON writer render these. */

import type { ScenarioVerdict } from './review.js';
import type { SandboxBlock } from './sandbox-blocks.js';

/** How a run ended; the literal lists are what the run state accepts on disk too. */
export const RUN_OUTCOMES = [
  'complete',
  'max-retries',
  'stopped',
  'error',
  /** The agent asked a question only a person can answer (`<promise>BLOCKED: …</promise>`). */
  'blocked',
  /** A usage or rate limit lasted past `--max-wait`, or `--on-limit stop`. */
  'limited',
  /** `--max-cost` or `--max-story-cost` was reached. */
  'budget',
  /** `--max-duration` was reached. */
  'time-limit',
  /** Every story was accepted, and the independent review never approved the change (`--review`). */
  'not-approved',
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** What becomes of the run's branch at the end. */
export const COMPLETION_CHOICES = ['cleanup', 'keep'] as const;
export type CompletionChoice = (typeof COMPLETION_CHOICES)[number];

/**
 * Why an attempt was not accepted (docs/contract.md, "Outcome of an attempt"); `stopped` is the user
 * stopping the run mid-attempt, which is reverted but neither judged nor counted.
 */
export const FAILURE_KINDS = [
  'tasks-unchecked',
  'tasks-edited',
  'verify-failed',
  'failed-signal',
  'no-signal',
  'crash',
  'agent-error',
  'timeout',
  'idle-timeout',
  'stopped',
  /** The agent hit a usage/rate limit or a transient API error: reverted, not counted, waited out. */
  'limited',
  /** The agent asked a question (BLOCKED): reverted, not counted, the run parks. */
  'blocked',
  /** The agent stopped at the budget it was given (`--max-budget-usd`): reverted, not counted, the run ends. */
  'budget',
  /** A run that pushes: the attempt wrote a secret's value into a file (never pushed, retried). */
  'secret-written',
  /**
   * The attempt deleted, emptied or skipped tests, or changed what the verify commands run,
   * and neither its story's tasks nor `--allow-test-changes` let it (core/tests-weakened.ts).
   */
  'tests-weakened',
  /** The resolve story's attempt (`--resolve-conflicts`) left conflict marker lines in a file. */
  'conflict-markers',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** A failed attempt as the next attempt (and the run state) remembers it. */
export interface AttemptFailure {
  kind: FailureKind;
  reason: string;
}

/**
 * One edit an attempt made to tasks.md outside its own work (docs/contract.md, "An attempt works on
 * its own story"): a task of another story ticked, un-ticked, reworded, removed or added, or a story
 * heading removed, reworded or added. `taskId` is null for a story's heading.
 */
export interface TasksEdit {
  kind:
    | 'ticked'
    | 'unticked'
    | 'edited'
    | 'removed'
    | 'added'
    | 'story-removed'
    | 'story-renamed'
    | 'story-added';
  storyId: string;
  taskId: string | null;
}

/**
 * One thing an attempt did to the tests or to what the verify commands run (docs/contract.md,
 * "Tests the agent may not weaken"): a test file `deleted`, with `fewer-tests`, newly `skipped`
 * or `focused` (`.only`), or a `runner-changed` (a test script, a runner's configuration).
 */
export interface TestChange {
  path: string;
  kind: 'deleted' | 'fewer-tests' | 'skipped' | 'focused' | 'runner-changed';
  /** What changed, in words: `3 tests → 1`, `` `.skip` added ``. */
  detail: string;
}

/** What let an attempt's test changes through: the run's flag, or a task of its story. */
export type TestChangesAllowance =
  { allowedBy: 'flag' } | { allowedBy: 'task'; task: { id: string; description: string } };

/**
 * What kind of limit stopped an attempt: `usage` (the plan's usage window is spent), `rate`
 * (too many requests), `overloaded` (the API is overloaded, 529), `server` (5xx), `connection`
 * (the API could not be reached). The first two wait for the reset; the rest are transient.
 */
export const LIMIT_KINDS = ['usage', 'rate', 'overloaded', 'server', 'connection'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

/** One verify command's result on an attempt or at the baseline. */
export interface VerifyResult {
  command: string;
  passed: boolean;
  /** Failed at the baseline and not passed since: reported, not blocking (the ratchet). */
  tolerated?: boolean;
  /** Failed, then passed when run again: a flake, not held against the attempt. */
  flaky?: boolean;
}

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What a sandboxed run's events and report say of its sandbox (docs/sandbox.md). */
export interface SandboxInfo {
  hosts: string[];
  summary: string;
}

export type RunEvent =
  | {
      type: 'run.started';
      change: string;
      branch: string;
      originalBranch: string;
      baseSha: string;
      agent: string;
      /** `--fallback-agent`s in order, each with its model (null: the agent's own); [] for none. */
      fallbacks?: { agent: string; model: string | null }[];
      maxRetries: number;
      /** A run in a worktree of its own (`run --worktree`): that worktree's top directory. */
      worktree?: string;
      /** `--sandbox`: the hosts its agents may reach and its policy in one line; absent: none. */
      sandbox?: SandboxInfo;
      /**
       * With what earlier invocations of the run (before a `resume`) spent on each story, from the
       * run state; absent or 0 for a story not tried yet.
       */
      stories: {
        id: string;
        title: string;
        done: boolean;
        attempts?: number;
        costUsd?: number;
        durationMs?: number;
        /** The agents that ran its attempts so far (with fallback agents), in order of first use. */
        agents?: string[];
        /** Flaky verify runs of its attempts so far (failed, then passed when run again). */
        flakes?: number;
      }[];
    }
  | {
      type: 'story.started';
      storyId: string;
      title: string;
      index: number;
      total: number;
      completed: number;
      attempt: number;
      /**
       * The agent that runs this attempt, and the model it is given (null: the agent's own);
       * the loop always says (optional only for events made up by hand).
       */
      agent?: string;
      model?: string | null;
    }
  | {
      /**
       * The next attempt runs with another agent (docs/contract.md, "Fallback agents"): `limit`,
       * `from` is limited until `until` (kind and reset as its report said); `reset`, `to` is
       * preferred and its limit is over.
       */
      type: 'agent.switched';
      storyId: string;
      attempt: number;
      from: string;
      to: string;
      model: string | null;
      reason: 'limit' | 'reset';
      kind: LimitKind | null;
      resetsAt: string | null;
      until: string | null;
    }
  | { type: 'agent.message'; storyId: string; attempt: number; text: string }
  | { type: 'agent.tool'; storyId: string; attempt: number; name: string; summary: string }
  | { type: 'agent.notice'; storyId: string; attempt: number; text: string }
  | {
      /** `--sandbox`: what the sandbox refused the attempt's agent (core/sandbox-blocks.ts). */
      type: 'sandbox.blocked';
      storyId: string;
      attempt: number;
      blocked: SandboxBlock[];
    }
  | {
      /**
       * The agent printed stream lines of a kind ralphtool does not know (a newer agent version):
       * reported once per kind a run, skipped, never judged.
       */
      type: 'agent.unrecognised';
      storyId: string;
      attempt: number;
      agent: string;
      /** The kind: the line's `type`, or `type/subtype`; `… (unexpected fields)` for a known one. */
      what: string;
      /** What to do (upgrade ralphtool, or pin the agent), naming the agent's version when known. */
      hint: string;
    }
  | {
      type: 'agent.result';
      storyId: string;
      attempt: number;
      turns: number;
      tokens: TokenUsage;
      /** Null when the agent reports no cost (Codex): shown as "—", never as $0.00. */
      costUsd: number | null;
      durationMs: number;
      isError: boolean;
    }
  | {
      type: 'attempt.failed';
      storyId: string;
      attempt: number;
      kind: FailureKind;
      reason: string;
      /** The verify commands that ran on this attempt, when any did. */
      verify?: VerifyResult[];
    }
  | {
      /**
       * The attempt ended at a usage/rate limit or a transient API error: it is reverted, not
       * counted, and the run waits `waitMs` (until `resetsAt` when the agent said when).
       */
      type: 'agent.limited';
      storyId: string;
      attempt: number;
      kind: LimitKind;
      /** Which report said so: e.g. `claude rate_limit_event`, `codex turn.failed`, `exit 75`. */
      source: string;
      message: string;
      resetsAt: string | null;
      waitMs: number;
    }
  | { type: 'limit.resumed'; storyId: string; waitedMs: number }
  | {
      /** The agent asked a question only a person can answer; the run parks (outcome `blocked`). */
      type: 'story.blocked';
      storyId: string;
      attempt: number;
      question: string;
    }
  | ({
      /**
       * The attempt changed tests or what the verify commands run, and was let through
       * (`--allow-test-changes`, or a task of its story asks for it): reported, then verified.
       */
      type: 'tests.changed';
      storyId: string;
      attempt: number;
      changes: TestChange[];
    } & TestChangesAllowance)
  | {
      /** A verify command failed, then passed when run again: a flake, not the attempt's fault. */
      type: 'verify.flaky';
      storyId: string;
      attempt: number;
      command: string;
      /** How its first run failed. */
      failure: string;
    }
  | {
      /** Every story accepted: the independent review of the whole change begins (`--review`). */
      type: 'review.started';
      round: number;
      maxRounds: number;
      /** The reviewer: an agent kind (read-only), or `command`. */
      reviewer: string;
    }
  | {
      /** The reviewer's verdict: per scenario met or not, and its reasons when it rejected. */
      type: 'review.finished';
      round: number;
      verdict: 'approved' | 'rejected';
      /** Why it rejected (what the fix attempt is told); null when approved. */
      reasons: string | null;
      scenarios: ScenarioVerdict[];
      /** The files the reviewer changed anyway, reverted: where they are saved; null when none. */
      revertedRef: string | null;
      costUsd: number | null;
      durationMs: number;
    }
  | {
      /** Each verify command run once on the checkpoint before the first attempt (the ratchet). */
      type: 'verify.baseline';
      results: VerifyResult[];
    }
  | {
      /** A budget or time limit ended the run (outcome `budget` or `time-limit`). */
      type: 'limit.reached';
      limit: 'max-cost' | 'max-story-cost' | 'max-duration' | 'max-wait';
      message: string;
    }
  | {
      type: 'tasks.out-of-scope';
      storyId: string;
      attempt: number;
      edits: TasksEdit[];
      /**
       * Accepted attempt: its edits are undone in the checkpoint, and its own tasks.md is saved
       * under this ref. Null for an attempt that failed (it is reverted whole).
       */
      savedRef: string | null;
    }
  | {
      type: 'checkpoint.reverted';
      storyId: string;
      attempt: number;
      toSha: string;
      savedRef: string;
    }
  | { type: 'checkpoint.created'; storyId: string; sha: string }
  | {
      type: 'story.completed';
      storyId: string;
      attempts: number;
      /** Null when no attempt's agent reported a cost (Codex, a command): unknown, not zero. */
      costUsd: number | null;
      durationMs: number;
      /** The verify commands that ran on the accepted attempt, when any did. */
      verify?: VerifyResult[];
    }
  | { type: 'story.exhausted'; storyId: string; attempts: number; reason: string }
  | {
      /**
       * `--resolve-conflicts` (docs/contract.md, "Bringing a colliding change home"): the cleanup
       * collided with the user's work tree, so the branch was moved onto it with the conflicts
       * left in `files`, and tasks.md has one more story for the agent.
       */
      type: 'resolve.started';
      storyId: string;
      title: string;
      files: string[];
    }
  | {
      /** The resolve story was not done: the branch back where it was, the work kept on it. */
      type: 'resolve.dropped';
      storyId: string;
      reason: string;
    }
  | { type: 'error'; message: string; fatal: boolean }
  | { type: 'run.awaiting-choice'; outcome: RunOutcome; options: CompletionChoice[] }
  | {
      /** `run --force` saved the old branch tip and attempt refs before resetting the branch. */
      type: 'run.forced';
      branch: string;
      oldSha: string;
      savedRef: string;
      attemptRefs: number;
    }
  | {
      /** `--push`: the change is claimed on the remote (before `run.started`). */
      type: 'claim.taken';
      remote: string;
      /** The claim it replaced (stale, or of a dead process of this host); null when unreadable. */
      tookOverFrom?: { host: string; pid: number; heartbeatAt: string } | null;
    }
  | {
      /** `--push`: another machine took the claim over; this run stops and pushes nothing more. */
      type: 'claim.lost';
      remote: string;
      holder: string;
    }
  | {
      /** `--push`: the run's refs and record reached the remote. */
      type: 'remote.pushed';
      remote: string;
      /** Refs the push changed on the remote. */
      refs: number;
      /** The first push that went through after this many failed ones. */
      caughtUpAfter?: number;
    }
  | {
      /** `--push`: a push failed; the run goes on and the push is tried again. */
      type: 'remote.push-failed';
      remote: string;
      message: string;
      /** Failed pushes in a row. */
      failures: number;
      /** When the next try is; null when none is coming (the run has ended). */
      retryInMs: number | null;
      /** What the push sends (`<src>:<dst>` refspecs), for a push by hand: `git push <remote> …`. */
      refspecs: string[];
    }
  | {
      type: 'run.finished';
      outcome: RunOutcome;
      choice: CompletionChoice | null;
      branch: string;
      originalBranch: string;
      storiesCompleted: number;
      storiesTotal: number;
      /** Null when no agent of the run reported a cost (Codex, a command): unknown, not zero. */
      costUsd: number | null;
      durationMs: number;
      /** Outcome `blocked`: the story and the question that waits for `resume --answer`. */
      question?: { storyId: string; text: string };
      /** A run in a worktree of its own: that worktree, and whether it is gone now. */
      worktree?: { root: string; removed: boolean };
      /** A run in a worktree of its own: the user's work tree (a cleanup brought the work there). */
      home?: string;
    };

/** An event as written: every event carries its time. */
export type TimedRunEvent = RunEvent & { ts: string };

export type RunEventType = RunEvent['type'];
