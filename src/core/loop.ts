import type { RunOutcome } from './events.js';

/** Where the loop stands between attempts: everything its next decision needs. */
export interface LoopPosition {
  /** Stories as last read from tasks.md, in file order. */
  stories: readonly { id: string; done: boolean }[];
  /** Attempts already used per story id. */
  attempts: Readonly<Record<string, number>>;
  maxRetries: number;
  stopRequested: boolean;
  /** A failure that retrying cannot fix (authentication, git broken): end the run. */
  fatalError: string | null;
  /**
   * An end the loop already decided on its way: a question asked (`blocked`), a usage limit
   * not waited out (`limited`), a budget spent (`budget`, `time-limit`).
   */
  ending?: ParkedOutcome | null;
}

/** The outcomes that end a run before its stories do, at an attempt boundary. */
export type ParkedOutcome = Extract<RunOutcome, 'blocked' | 'limited' | 'budget' | 'time-limit'>;

export type NextStep =
  | { kind: 'attempt'; storyId: string; attempt: number }
  | { kind: 'finish'; outcome: RunOutcome; exhaustedStoryId: string | null };

/**
 * The loop's next move as a pure function of what it knows: work on the first
 * incomplete story while it has attempts left, else end with the right outcome.
 */
export function nextStep(position: LoopPosition): NextStep {
  if (position.fatalError !== null)
    return { kind: 'finish', outcome: 'error', exhaustedStoryId: null };
  if (position.stopRequested) return { kind: 'finish', outcome: 'stopped', exhaustedStoryId: null };
  const story = position.stories.find((s) => !s.done);
  if (!story) return { kind: 'finish', outcome: 'complete', exhaustedStoryId: null };
  // A budget spent by the last story's attempt still lets a complete run be complete.
  if (position.ending) return { kind: 'finish', outcome: position.ending, exhaustedStoryId: null };
  const used = position.attempts[story.id] ?? 0;
  if (used >= position.maxRetries + 1) {
    return { kind: 'finish', outcome: 'max-retries', exhaustedStoryId: story.id };
  }
  return { kind: 'attempt', storyId: story.id, attempt: used + 1 };
}

/** The exit code of a finished run (docs/contract.md, "Exit codes"). */
export function exitCodeFor(outcome: RunOutcome): number {
  switch (outcome) {
    case 'complete':
      return 0;
    case 'max-retries':
      return 3;
    case 'stopped':
      return 130;
    case 'error':
      return 1;
    case 'blocked':
      return 4;
    case 'limited':
    case 'budget':
    case 'time-limit':
      return 5;
    case 'not-approved':
      return 6;
  }
}

/**
 * The `error` event that goes with `story.exhausted` (docs/contract.md, "Events (`--json`)": an
 * exhausted story is followed by an error event with the details); views that already show the
 * exhausted story leave it out by it.
 */
export function exhaustedMessage(storyId: string, attempts: number, reason: string): string {
  return `story ${storyId} failed all ${attempts} attempt(s); the last one: ${reason}`;
}
