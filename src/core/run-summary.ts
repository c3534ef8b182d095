import type { RunEvent } from './events.js';

export type StoryResult = 'pending' | 'running' | 'done' | 'failed' | 'exhausted';

export interface StorySummary {
  id: string;
  title: string;
  attempts: number;
  result: StoryResult;
  costUsd: number;
  /** Wall time of its attempts so far (the running one not included). */
  durationMs: number;
  /** When the running attempt started (ms), for a live clock; null between attempts. */
  runningSince: number | null;
  lastFailure: string | null;
}

export interface RunSummary {
  change: string;
  stories: StorySummary[];
  costUsd: number;
}

export const emptySummary: RunSummary = { change: '', stories: [], costUsd: 0 };

/**
 * Folds the event stream into per-story figures: the summary table of the plain
 * output is drawn from it, and any other renderer can use the same reducer. `atMs` is when
 * the event happened (its `ts`); a story's time is the wall time of its attempts, from
 * `story.started` to the revert of a failed one, so agents that report no duration of their
 * own (a plain command) still get one.
 */
export function summarize(summary: RunSummary, event: RunEvent, atMs = Date.now()): RunSummary {
  switch (event.type) {
    case 'run.started':
      return {
        change: event.change,
        costUsd: 0,
        stories: event.stories.map((s) => ({
          id: s.id,
          title: s.title,
          attempts: 0,
          result: s.done ? 'done' : 'pending',
          costUsd: 0,
          durationMs: 0,
          runningSince: null,
          lastFailure: null,
        })),
      };
    case 'story.started':
      return update(summary, event.storyId, (s) => ({
        ...s,
        attempts: Math.max(s.attempts, event.attempt),
        result: 'running',
        runningSince: atMs,
      }));
    case 'agent.result':
      return {
        ...update(summary, event.storyId, (s) => ({
          ...s,
          costUsd: s.costUsd + event.costUsd,
        })),
        costUsd: summary.costUsd + event.costUsd,
      };
    case 'checkpoint.reverted':
      return update(summary, event.storyId, (s) => ({
        ...s,
        durationMs:
          s.durationMs + (s.runningSince === null ? 0 : Math.max(0, atMs - s.runningSince)),
        runningSince: null,
      }));
    case 'attempt.failed':
      return update(summary, event.storyId, (s) => ({
        ...s,
        result: 'failed',
        lastFailure: `${event.kind}: ${event.reason}`,
      }));
    case 'story.completed':
      return update(summary, event.storyId, (s) => ({
        ...s,
        attempts: event.attempts,
        result: 'done',
        durationMs: event.durationMs,
        runningSince: null,
      }));
    case 'story.exhausted':
      return update(summary, event.storyId, (s) => ({
        ...s,
        attempts: event.attempts,
        result: 'exhausted',
      }));
    default:
      return summary;
  }
}

function update(
  summary: RunSummary,
  storyId: string,
  change: (story: StorySummary) => StorySummary,
): RunSummary {
  return { ...summary, stories: summary.stories.map((s) => (s.id === storyId ? change(s) : s)) };
}
