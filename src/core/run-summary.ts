import type { RunEvent, RunOutcome } from './events.js';

/**
 * `stopped`: its attempt was stopped by the user (reverted, not counted); `limited`: its attempt
 * met a usage limit (waited out, or the run stopped there); `blocked`: it asked a question;
 * `budget`: the budget ended its attempt or the run before it. None of these attempts counts.
 */
export type StoryResult =
  | 'pending'
  | 'running'
  | 'stopped'
  | 'limited'
  | 'blocked'
  | 'budget'
  | 'done'
  | 'failed'
  | 'exhausted';

export interface StorySummary {
  id: string;
  title: string;
  attempts: number;
  result: StoryResult;
  costUsd: number;
  /** False while no agent result has reported a cost (Codex reports none): shown as "—". */
  costKnown: boolean;
  /** Tokens the agent reported (input, cache and output), for agents that report no cost. */
  tokens: number;
  /** Wall time of its attempts so far (the running one not included). */
  durationMs: number;
  /** When the running attempt started (ms), for a live clock; null between attempts. */
  runningSince: number | null;
  lastFailure: string | null;
  /** The agents that ran its attempts, in order of first use (earlier invocations' included). */
  agents: string[];
  /** Verify runs that failed, then passed when run again (earlier invocations' included). */
  flakes: number;
}

export interface RunSummary {
  change: string;
  stories: StorySummary[];
  costUsd: number;
  costKnown: boolean;
  tokens: number;
  /** The run has fallback agents (`--fallback-agent`): who ran each story is worth showing. */
  withFallbacks: boolean;
}

export const emptySummary: RunSummary = {
  change: '',
  stories: [],
  costUsd: 0,
  costKnown: false,
  tokens: 0,
  withFallbacks: false,
};

/** The run's cost as known so far; null when no agent result reported one. */
export function knownCost(figures: { costUsd: number; costKnown: boolean }): number | null {
  return figures.costKnown ? figures.costUsd : null;
}

/**
 * Folds the event stream into per-story figures: the summary table of the plain
 * output is drawn from it, and any other renderer can use the same reducer. `atMs` is when
 * the event happened (its `ts`); a story's time is the wall time of its attempts, from
 * `story.started` to the revert of a failed one, so agents that report no duration of their
 * own (a plain command) still get one.
 */
export function summarize(summary: RunSummary, event: RunEvent, atMs = Date.now()): RunSummary {
  switch (event.type) {
    case 'run.started': {
      // After a `resume`, the figures of earlier invocations (from the run state) count too.
      const stories = event.stories.map((s): StorySummary => ({
        id: s.id,
        title: s.title,
        attempts: s.attempts ?? 0,
        result: s.done ? 'done' : 'pending',
        costUsd: s.costUsd ?? 0,
        // The run state keeps no "unknown": a cost recorded as 0 is taken as none reported.
        costKnown: (s.costUsd ?? 0) > 0,
        tokens: 0,
        durationMs: s.durationMs ?? 0,
        runningSince: null,
        lastFailure: null,
        agents: s.agents ?? [],
        flakes: s.flakes ?? 0,
      }));
      return {
        change: event.change,
        withFallbacks: (event.fallbacks ?? []).length > 0,
        stories,
        costUsd: stories.reduce((sum, s) => sum + s.costUsd, 0),
        costKnown: stories.some((s) => s.costKnown),
        tokens: 0,
      };
    }
    case 'resolve.started':
      // --resolve-conflicts: one more story, appended to tasks.md after the others were done.
      if (summary.stories.some((s) => s.id === event.storyId)) return summary;
      return {
        ...summary,
        stories: [
          ...summary.stories,
          {
            id: event.storyId,
            title: event.title,
            attempts: 0,
            result: 'pending',
            costUsd: 0,
            costKnown: false,
            tokens: 0,
            durationMs: 0,
            runningSince: null,
            lastFailure: null,
            agents: [],
            flakes: 0,
          },
        ],
      };
    case 'story.started':
      return update(summary, event.storyId, (s) => ({
        ...s,
        attempts: Math.max(s.attempts, event.attempt),
        result: 'running',
        runningSince: atMs,
        agents:
          event.agent === undefined || s.agents.includes(event.agent)
            ? s.agents
            : [...s.agents, event.agent],
      }));
    case 'agent.result': {
      const cost = event.costUsd ?? 0;
      const known = event.costUsd !== null;
      const t = event.tokens;
      const tokens = t.input + t.cacheRead + t.cacheWrite + t.output;
      return {
        ...update(summary, event.storyId, (s) => ({
          ...s,
          costUsd: s.costUsd + cost,
          costKnown: s.costKnown || known,
          tokens: s.tokens + tokens,
        })),
        costUsd: summary.costUsd + cost,
        costKnown: summary.costKnown || known,
        tokens: summary.tokens + tokens,
      };
    }
    case 'checkpoint.reverted':
      return update(summary, event.storyId, (s) => ({
        ...s,
        durationMs:
          s.durationMs + (s.runningSince === null ? 0 : Math.max(0, atMs - s.runningSince)),
        runningSince: null,
        // Still running at its revert: the user stopped it, or a limit or the budget ended it
        // (said next); a failure reports itself first. A question says so before its revert.
        // None of these counts, as in the run state.
        ...(s.result === 'running'
          ? { result: 'stopped' as const, attempts: Math.max(0, event.attempt - 1) }
          : s.result === 'blocked'
            ? { attempts: Math.max(0, event.attempt - 1) }
            : {}),
      }));
    case 'verify.flaky':
      return update(summary, event.storyId, (s) => ({ ...s, flakes: s.flakes + 1 }));
    case 'story.blocked':
      return update(summary, event.storyId, (s) => ({ ...s, result: 'blocked' }));
    case 'agent.limited':
      return update(summary, event.storyId, (s) => ({ ...s, result: 'limited' }));
    case 'run.finished': {
      // The attempt reverted without a failure of its own was ended by what ended the run.
      const cause = STOPPED_BY[event.outcome];
      if (cause === undefined) return summary;
      return {
        ...summary,
        stories: summary.stories.map((s) => (s.result === 'stopped' ? { ...s, result: cause } : s)),
      };
    }
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

/** Outcomes that stop the run by ending (or not starting) an attempt that did not fail. */
const STOPPED_BY: Partial<Record<RunOutcome, StoryResult>> = {
  limited: 'limited',
  budget: 'budget',
};

function update(
  summary: RunSummary,
  storyId: string,
  change: (story: StorySummary) => StorySummary,
): RunSummary {
  return { ...summary, stories: summary.stories.map((s) => (s.id === storyId ? change(s) : s)) };
}
