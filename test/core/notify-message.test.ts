import { describe, expect, it } from 'vitest';
import type { RunEvent, RunOutcome } from '../../src/core/events.js';
import {
  fatalErrorMessage,
  humanDuration,
  isNotified,
  NOTIFIED_EVENT_TYPES,
  notifyMessage,
  type NotifiedEvent,
} from '../../src/core/notify-message.js';

const CHANGE = 'add-greeter';
const ctx = { change: CHANGE };

function finished(
  outcome: RunOutcome,
  choice: 'cleanup' | 'keep' | null,
  extra: Partial<Extract<RunEvent, { type: 'run.finished' }>> = {},
): NotifiedEvent {
  return {
    type: 'run.finished',
    outcome,
    choice,
    branch: `ralph/${CHANGE}`,
    originalBranch: 'main',
    storiesCompleted: 2,
    storiesTotal: 3,
    costUsd: 1.234,
    durationMs: 2 * 3_600_000 + 5 * 60_000,
    ...extra,
  };
}

describe('which events are told', () => {
  it('the end of the run, an exhausted story, a question, a limit wait and its end, a limit reached', () => {
    expect([...NOTIFIED_EVENT_TYPES].sort()).toEqual(
      [
        'agent.limited',
        'limit.reached',
        'limit.resumed',
        'run.finished',
        'story.blocked',
        'story.exhausted',
      ].sort(),
    );
    expect(isNotified(finished('complete', 'keep'))).toBe(true);
  });

  it('not the chatter of a run', () => {
    const quiet: RunEvent[] = [
      { type: 'agent.message', storyId: '1', attempt: 1, text: 'hi' },
      { type: 'attempt.failed', storyId: '1', attempt: 1, kind: 'crash', reason: 'x' },
      { type: 'error', message: 'x', fatal: false },
      { type: 'error', message: 'x', fatal: true },
      { type: 'story.completed', storyId: '1', attempts: 1, costUsd: 0, durationMs: 1 },
      { type: 'run.awaiting-choice', outcome: 'complete', options: ['cleanup', 'keep'] },
    ];
    for (const event of quiet) expect(isNotified(event)).toBe(false);
  });
});

describe('notifyMessage', () => {
  it('a question: who asks what, and the command that answers it', () => {
    const message = notifyMessage(
      { type: 'story.blocked', storyId: '2.1', attempt: 1, question: 'Postgres or SQLite?' },
      ctx,
    );
    expect(message).toBe(
      'add-greeter is blocked: story 2.1 asks: Postgres or SQLite?; answer with `ralphtool resume add-greeter --answer "…"`',
    );
  });

  it('an exhausted story: its attempts, its last failure, where to look', () => {
    const message = notifyMessage(
      { type: 'story.exhausted', storyId: '2', attempts: 4, reason: 'verify-failed: npm test' },
      ctx,
    );
    expect(message).toBe(
      'add-greeter: story 2 failed all 4 attempts (verify-failed: npm test); the run stops at its last checkpoint: see `ralphtool status`',
    );
    expect(
      notifyMessage({ type: 'story.exhausted', storyId: '2', attempts: 1, reason: 'x' }, ctx),
    ).toContain('failed its only attempt');
  });

  it('a limit wait: how long, until when (UTC), and that nothing is to be done', () => {
    const message = notifyMessage(
      {
        type: 'agent.limited',
        storyId: '3',
        attempt: 2,
        kind: 'usage',
        source: 'exit 75',
        message: 'usage limit',
        resetsAt: '2026-11-23T15:02:00.000Z',
        waitMs: 31 * 60_000,
      },
      ctx,
    );
    expect(message).toBe(
      'add-greeter is waiting 31m (until 15:02 UTC, as the agent said): the usage limit was reached on story 3; it tries again by itself, nothing to do',
    );
    const transient = notifyMessage(
      {
        type: 'agent.limited',
        storyId: '3',
        attempt: 2,
        kind: 'overloaded',
        source: 'claude result',
        message: '529',
        resetsAt: null,
        waitMs: 60_000,
      },
      ctx,
    );
    expect(transient).toBe(
      'add-greeter is waiting 1m: the API is overloaded on story 3; it tries again by itself, nothing to do',
    );
  });

  it('the end of a wait', () => {
    expect(notifyMessage({ type: 'limit.resumed', storyId: '3', waitedMs: 45_000 }, ctx)).toBe(
      'add-greeter: the wait is over after 45s; story 3 is tried again',
    );
  });

  it('a limit reached says the limit’s own words', () => {
    expect(
      notifyMessage(
        { type: 'limit.reached', limit: 'max-cost', message: 'the budget of $5.00 is spent' },
        ctx,
      ),
    ).toBe('add-greeter: the budget of $5.00 is spent');
  });

  it('the end of the run: what became of it, its figures, and what to do now, for every outcome and choice', () => {
    expect(notifyMessage(finished('complete', 'keep'), ctx)).toBe(
      'add-greeter is complete (2/3 stories done, $1.23, 2h 5m); its work is on ralph/add-greeter, one commit per story',
    );
    expect(notifyMessage(finished('complete', 'cleanup'), ctx)).toBe(
      'add-greeter is complete (2/3 stories done, $1.23, 2h 5m); its work is on main as uncommitted changes',
    );
    const resumable =
      'continue with `ralphtool resume add-greeter` or end it with `ralphtool finish add-greeter --cleanup|--keep`';
    expect(notifyMessage(finished('max-retries', 'keep'), ctx)).toBe(
      `add-greeter stopped: a story used up its attempts (2/3 stories done, $1.23, 2h 5m); ${resumable}`,
    );
    expect(notifyMessage(finished('stopped', null), ctx)).toContain(`was stopped (`);
    expect(notifyMessage(finished('stopped', null), ctx)).toContain(resumable);
    expect(notifyMessage(finished('limited', null), ctx)).toContain(
      `stopped at a usage limit (2/3 stories done, $1.23, 2h 5m); ${resumable}`,
    );
    expect(notifyMessage(finished('time-limit', 'keep'), ctx)).toContain(
      `stopped at its --max-duration (`,
    );
    expect(notifyMessage(finished('budget', 'keep'), ctx)).toContain(
      'continue with a higher budget: `ralphtool resume add-greeter --max-cost <usd>`',
    );
    expect(notifyMessage(finished('error', null), ctx)).toContain(
      'stopped on an error retrying cannot fix (2/3 stories done, $1.23, 2h 5m); fix the cause, then `ralphtool resume add-greeter`',
    );
    // An agent that reports no cost: no "$0.00".
    expect(notifyMessage(finished('complete', 'keep', { costUsd: 0 }), ctx)).toContain(
      '(2/3 stories done, 2h 5m)',
    );
  });

  it('a blocked run names its question: from run.finished, else from the last story.blocked', () => {
    const answer = 'answer with `ralphtool resume add-greeter --answer "…"`';
    expect(
      notifyMessage(
        finished('blocked', null, { question: { storyId: '2.1', text: 'Which port?' } }),
        ctx,
      ),
    ).toBe(
      `add-greeter is blocked: story 2.1 asks: Which port? (2/3 stories done, $1.23, 2h 5m); ${answer}`,
    );
    expect(
      notifyMessage(finished('blocked', null), {
        ...ctx,
        question: { storyId: '2', text: 'Tabs?' },
      }),
    ).toContain('is blocked: story 2 asks: Tabs? (');
    expect(notifyMessage(finished('blocked', null), ctx)).toBe(
      `add-greeter is blocked: a question waits for your answer (2/3 stories done, $1.23, 2h 5m); ${answer}`,
    );
  });

  it('text from outside is one line without control characters, and the message stays short', () => {
    const question = `Which one?\n\n\u001b[31mred\u001b[0m\u0000tab\there ${'x'.repeat(5_000)}`;
    const message = notifyMessage(
      { type: 'story.blocked', storyId: '1', attempt: 1, question },
      ctx,
    );
    // eslint-disable-next-line no-control-regex -- what must not be left
    expect(message).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(message).toContain('asks: Which one? red tab here xxx');
    expect([...message].length).toBeLessThanOrEqual(1_000);
    expect(message).toContain('…');
    // The command to type survives the cut of the question.
    expect(message).toMatch(/--answer "…"`$/);
  });

  it('a run ended by an error that no run.finished reports', () => {
    expect(fatalErrorMessage(CHANGE, 'git failed:\nindex.lock exists')).toBe(
      'add-greeter stopped on an error: git failed: index.lock exists; see `ralphtool status`',
    );
  });
});

describe('humanDuration', () => {
  it('rounds as a person says it', () => {
    expect(humanDuration(0)).toBe('0s');
    expect(humanDuration(44_600)).toBe('45s');
    expect(humanDuration(90_000)).toBe('2m');
    expect(humanDuration(59 * 60_000)).toBe('59m');
    expect(humanDuration(60 * 60_000)).toBe('1h');
    expect(humanDuration(8 * 3_600_000 + 30_000)).toBe('8h 1m');
  });
});
