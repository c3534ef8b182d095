/** The loop's event stream (docs/contract.md, "Events"): the UI and the NDJSON writer render these. */

/** How a run ended; the literal lists are what the run state accepts on disk too. */
export const RUN_OUTCOMES = ['complete', 'max-retries', 'stopped', 'error'] as const;
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

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type RunEvent =
  | {
      type: 'run.started';
      change: string;
      branch: string;
      originalBranch: string;
      baseSha: string;
      agent: string;
      maxRetries: number;
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
    }
  | { type: 'agent.message'; storyId: string; attempt: number; text: string }
  | { type: 'agent.tool'; storyId: string; attempt: number; name: string; summary: string }
  | { type: 'agent.notice'; storyId: string; attempt: number; text: string }
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
  | { type: 'attempt.failed'; storyId: string; attempt: number; kind: FailureKind; reason: string }
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
      costUsd: number;
      durationMs: number;
    }
  | { type: 'story.exhausted'; storyId: string; attempts: number; reason: string }
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
      type: 'run.finished';
      outcome: RunOutcome;
      choice: CompletionChoice | null;
      branch: string;
      originalBranch: string;
      storiesCompleted: number;
      storiesTotal: number;
      costUsd: number;
      durationMs: number;
    };

/** An event as written: every event carries its time. */
export type TimedRunEvent = RunEvent & { ts: string };

export type RunEventType = RunEvent['type'];
