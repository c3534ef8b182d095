import type { RunEvent } from './events.js';

export type StoryResult = 'pending' | 'running' | 'done' | 'failed' | 'exhausted';

export interface StorySummary {
  id: string;
  title: string;
  attempts: number;
  result: StoryResult;
  costUsd: number;
  durationMs: number;
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
 * output is drawn from it, and any other renderer can use the same reducer.
 */
export function summarize(summary: RunSummary, event: RunEvent): RunSummary {
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
          lastFailure: null,
        })),
      };
    case 'story.started':
      return update(summary, event.storyId, (s) => ({
        ...s,
        attempts: Math.max(s.attempts, event.attempt),
        result: 'running',
      }));
    case 'agent.result':
      return {
        ...update(summary, event.storyId, (s) => ({
          ...s,
          costUsd: s.costUsd + event.costUsd,
          durationMs: s.durationMs + event.durationMs,
        })),
        costUsd: summary.costUsd + event.costUsd,
      };
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
