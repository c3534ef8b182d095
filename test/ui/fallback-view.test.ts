import { describe, expect, it } from 'vitest';
import type { TimedRunEvent } from '../../src/core/events.js';
import { clockTime } from '../../src/format/clock.js';
import { applyEvents, initialLoopView } from '../../src/ui/state/loop-view.js';

// The UI's loop view with fallback agents (docs/contract.md, "Fallback agents"): each attempt
// names its agent in the story's transcript, and a switch is said there.

const T0 = Date.parse('2026-11-28T12:00:00.000Z');
const ts = (s: number): string => new Date(T0 + s * 1000).toISOString();

function runStarted(fallbacks: { agent: string; model: string | null }[]): TimedRunEvent {
  return {
    type: 'run.started',
    ts: ts(0),
    change: 'add-auth',
    branch: 'ralph/add-auth',
    originalBranch: 'main',
    baseSha: 'a'.repeat(40),
    agent: 'claude',
    fallbacks,
    maxRetries: 3,
    stories: [{ id: '1', title: 'Login', done: false }],
  };
}

function started(agent: string, at: number): TimedRunEvent {
  const base = { storyId: '1', title: 'Login', index: 1, total: 1, completed: 0, attempt: 1 };
  return { type: 'story.started', ts: ts(at), ...base, agent, model: null };
}

const switched: TimedRunEvent = {
  type: 'agent.switched',
  ts: ts(5),
  storyId: '1',
  attempt: 1,
  from: 'claude',
  to: 'codex',
  model: null,
  reason: 'limit',
  kind: 'usage',
  resetsAt: '2026-11-28T15:00:00.000Z',
  until: '2026-11-28T15:00:10.000Z',
};

function transcript(events: TimedRunEvent[]): string[] {
  const view = applyEvents(initialLoopView('add-auth'), events, 2000);
  return (view.details['1']?.transcript.lines ?? []).map((line) => line.text);
}

describe('loop view with fallback agents', () => {
  it('names the agent of each attempt and the switch', () => {
    const lines = transcript([
      runStarted([{ agent: 'codex', model: null }]),
      started('claude', 1),
      switched,
      started('codex', 6),
    ]);
    expect(lines).toEqual([
      'attempt 1 of 4 · claude',
      // The limit's end as the user's wall clock shows it (as the progress lines say it), not
      // the event's UTC timestamp.
      `⇄ claude is at its usage limit until ${clockTime(Date.parse('2026-11-28T15:00:10.000Z'), T0 + 5000)}: going on with codex at once`,
      'attempt 1 of 4 · codex',
    ]);
  });

  it('without fallback agents the attempt line is as before', () => {
    expect(transcript([runStarted([]), started('claude', 1)])).toEqual(['attempt 1 of 4']);
  });
});
