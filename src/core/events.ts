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
      stories: { id: string; title: string; done: boolean }[];
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
      costUsd: number;
      durationMs: number;
      isError: boolean;
    }
  | { type: 'attempt.failed'; storyId: string; attempt: number; kind: FailureKind; reason: string }
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
