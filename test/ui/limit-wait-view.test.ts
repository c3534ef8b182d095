import { describe, expect, it } from 'vitest';
import type { RunEvent, TimedRunEvent } from '../../src/core/events.js';
import { applyEvents, initialLoopView } from '../../src/ui/state/loop-view.js';
import { clockTime } from '../../src/format/clock.js';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');

function timed(event: RunEvent, at: number): TimedRunEvent {
  return { ...event, ts: new Date(at).toISOString() };
}

const limited: RunEvent = {
  type: 'agent.limited',
  storyId: '2',
  attempt: 1,
  kind: 'usage',
  source: 'claude rate_limit_event',
  message: 'usage limit reached',
  resetsAt: '2026-11-23T13:00:00.000Z',
  waitMs: 3_610_000,
};

describe('the loop view of a usage-limit wait', () => {
  it('agent.limited starts it (its end is the event time plus waitMs); limit.resumed ends it', () => {
    let view = applyEvents(initialLoopView('c'), [timed(limited, T0)], 100);
    expect(view.waiting).toEqual({
      storyId: '2',
      kind: 'usage',
      source: 'claude rate_limit_event',
      until: T0 + 3_610_000,
    });
    view = applyEvents(
      view,
      [timed({ type: 'agent.notice', storyId: '2', attempt: 1, text: 'x' }, T0 + 1)],
      100,
    );
    expect(view.waiting).not.toBeNull();
    view = applyEvents(
      view,
      [timed({ type: 'limit.resumed', storyId: '2', waitedMs: 3_610_000 }, T0 + 3_610_000)],
      100,
    );
    expect(view.waiting).toBeNull();
  });

  it('a stop or the end of the run ends it too', () => {
    const start = applyEvents(initialLoopView('c'), [timed(limited, T0)], 100);
    const awaiting = applyEvents(
      start,
      [
        timed(
          { type: 'run.awaiting-choice', outcome: 'stopped', options: ['cleanup', 'keep'] },
          T0 + 5,
        ),
      ],
      100,
    );
    expect(awaiting.waiting).toBeNull();
  });
});

describe('clockTime', () => {
  it('is local HH:MM on the same day, with the date on another', () => {
    const now = new Date(2026, 10, 23, 9, 5).getTime();
    expect(clockTime(new Date(2026, 10, 23, 15, 2).getTime(), now)).toBe('15:02');
    expect(clockTime(new Date(2026, 10, 24, 1, 7).getTime(), now)).toBe('2026-11-24 01:07');
  });
});
