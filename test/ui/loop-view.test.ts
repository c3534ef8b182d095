import { describe, expect, it } from 'vitest';
import type { TimedRunEvent } from '../../src/core/events.js';
import { elapsedMs, storiesDone, storyStatus } from '../../src/ui/state/loop-status.js';
import { applyEvents, initialLoopView } from '../../src/ui/state/loop-view.js';
import { at, storyStarted, storyTwoDoneStoryThreeRetrying, T0 } from './support/fixtures.js';

const fold = (events: TimedRunEvent[], max = 2000) =>
  applyEvents(initialLoopView('add-auth'), events, max);

describe('loop view from events', () => {
  it('tracks story status, the current attempt, attempts with reasons and errors', () => {
    const view = fold(storyTwoDoneStoryThreeRetrying());
    expect(storyStatus(view, '1')).toBe('done');
    expect(storyStatus(view, '2')).toBe('done');
    expect(storyStatus(view, '3')).toBe('current');
    expect(storiesDone(view)).toBe(2);
    expect(view.currentStoryId).toBe('3');
    expect(view.details['3']?.attempts.map((a) => [a.attempt, a.status, a.kind, a.reason])).toEqual(
      [
        [1, 'failed', 'failed-signal', 'no session store configured'],
        [2, 'running', null, null],
      ],
    );
    expect(view.details['2']?.attempts[0]).toMatchObject({
      status: 'accepted',
      turns: 7,
      costUsd: 0.12,
    });
    expect(view.summary.costUsd).toBeCloseTo(0.17);
    expect(view.errors).toEqual([
      { message: 'verify command flaked once', fatal: false, at: T0 + 62_000 },
    ]);
    expect(elapsedMs(view, T0 + 100_000)).toBe(100_000);
  });

  it('shows a story awaiting its retry as failed, and one whose attempt was stopped as pending', () => {
    const events = storyTwoDoneStoryThreeRetrying().slice(0, 12);
    expect(storyStatus(fold(events), '3')).toBe('failed');
    const stopped = fold([
      ...storyTwoDoneStoryThreeRetrying(),
      at(70, {
        type: 'checkpoint.reverted',
        storyId: '3',
        attempt: 2,
        toSha: 'ffff0000',
        savedRef: 'refs/ralphtool/add-auth/attempts/3-2',
      }),
      at(71, { type: 'run.awaiting-choice', outcome: 'stopped', options: ['cleanup', 'keep'] }),
    ]);
    expect(storyStatus(stopped, '3')).toBe('pending');
    expect(stopped.details['3']?.attempts.at(-1)?.status).toBe('stopped');
    expect(stopped.awaiting).toEqual({ outcome: 'stopped', at: T0 + 71_000 });
    // Time stops counting once the loop waits for the choice.
    expect(elapsedMs(stopped, T0 + 999_000)).toBe(71_000);
  });

  it('labels every attempt in the transcript and ends it with the result line', () => {
    const lines = fold(storyTwoDoneStoryThreeRetrying()).details['3']?.transcript.lines ?? [];
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual([
      'attempt:attempt 1 of 3',
      'text:The session store is missing.',
      'result:7 turns · 1500 in / 200 out tokens · $0.05 · 30s',
      'failure:attempt 1 failed (failed-signal): no session store configured',
      'note:↺ work reverted to 11111111 (saved as refs/ralphtool/add-auth/attempts/3-1)',
      'attempt:attempt 2 of 3',
      'text:Trying with an in-memory store.',
    ]);
  });

  it('shows lines of an unknown kind as a notice in the transcript, made safe, and counts no error', () => {
    const view = fold([
      ...storyTwoDoneStoryThreeRetrying(),
      at(66, {
        type: 'agent.unrecognised',
        storyId: '3',
        attempt: 2,
        agent: 'claude',
        what: 'thought_summary\u001b[2J',
        hint: 'Claude Code 2.9.0 printed lines this ralphtool does not know; upgrade ralphtool',
      }),
    ]);
    expect(view.details['3']?.transcript.lines.at(-1)).toMatchObject({
      kind: 'note',
      text: '⚠ unknown agent output (thought_summary): Claude Code 2.9.0 printed lines this ralphtool does not know; upgrade ralphtool',
    });
    expect(view.errors).toHaveLength(1);
  });

  it('shows the agent’s retry notices in its transcript, made safe, and counts no error', () => {
    const view = fold([
      ...storyTwoDoneStoryThreeRetrying(),
      at(66, {
        type: 'agent.notice',
        storyId: '3',
        attempt: 2,
        text: 'API 429 (rate_limit) — Claude Code retrying 3/10 in 2s\u001b[2J',
      }),
    ]);
    expect(view.details['3']?.transcript.lines.at(-1)).toMatchObject({
      kind: 'note',
      text: '⟳ API 429 (rate_limit) — Claude Code retrying 3/10 in 2s',
    });
    expect(view.errors).toHaveLength(1);
  });

  it('keeps at most N transcript lines per story, whatever the batch size', () => {
    const flood: TimedRunEvent[] = [at(0, storyStarted('2', 1))];
    for (let i = 0; i < 500; i += 1) {
      flood.push(
        at(1, { type: 'agent.message', storyId: '2', attempt: 1, text: `line ${i}\nmore ${i}` }),
      );
    }
    const once = fold(flood, 100);
    let inSteps = initialLoopView('add-auth');
    for (const event of flood) inSteps = applyEvents(inSteps, [event], 100);
    for (const view of [once, inSteps]) {
      const t = view.details['2']?.transcript;
      expect(t?.lines).toHaveLength(100);
      expect(t?.dropped).toBe(901);
      expect(t?.lines.at(-1)?.text).toBe('more 499');
    }
  });

  it('neutralises escape sequences in everything the agent wrote', () => {
    const view = fold([
      at(0, storyStarted('2', 1)),
      at(1, {
        type: 'agent.message',
        storyId: '2',
        attempt: 1,
        text: 'ok\u001B[2J\u001B[H\u001B]0;pwned\u0007 done',
      }),
      at(2, {
        type: 'agent.tool',
        storyId: '2',
        attempt: 1,
        name: 'Bash\u001B[31m',
        summary: 'rm\r\nx',
      }),
      at(3, {
        type: 'attempt.failed',
        storyId: '2',
        attempt: 1,
        kind: 'crash',
        reason: 'boom\u001B[1A',
      }),
      at(4, { type: 'error', message: 'bad\u001B[?1049l thing', fatal: true }),
    ]);
    const text = JSON.stringify(view);
    expect(text).not.toContain('\\u001b');
    expect(view.details['2']?.transcript.lines.map((l) => l.text)).toEqual([
      'attempt 1',
      'ok done',
      'Bash rm x',
      'attempt 1 failed (crash): boom',
    ]);
    expect(view.errors[0]?.message).toBe('bad thing');
  });

  it('records the exhausted story and the finished run', () => {
    const view = fold([
      ...storyTwoDoneStoryThreeRetrying(),
      at(80, {
        type: 'story.exhausted',
        storyId: '3',
        attempts: 3,
        reason: 'failed-signal: still no store',
      }),
      at(81, {
        type: 'run.finished',
        outcome: 'max-retries',
        choice: 'cleanup',
        branch: 'ralph/add-auth',
        originalBranch: 'main',
        storiesCompleted: 2,
        storiesTotal: 3,
        costUsd: 0.3,
        durationMs: 81_000,
      }),
    ]);
    expect(storyStatus(view, '3')).toBe('failed');
    expect(view.exhausted).toEqual({
      storyId: '3',
      attempts: 3,
      reason: 'failed-signal: still no store',
    });
    expect(view.finished).toMatchObject({
      outcome: 'max-retries',
      choice: 'cleanup',
      originalBranch: 'main',
    });
  });
});
