import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { LoopHarness } from '../support/loop-harness.js';
import { MovingClock } from '../support/moving-clock.js';
import { printed } from '../support/plain-output.js';
import { ofType, single, stories, succeed } from './helpers.js';

// The loop waits out usage limits (docs/contract.md, "Usage limits"), in-process with the real
// checkpoint engine; the agent is the command agent's convention: exit 75, optionally with a
// `ralphtool-resets-at:` line. The harness's clock moves on at each wait (test/support/moving-clock.ts):
// the waits are decided and recorded as they would be, and pass at once.

const CHANGE = 'limit-wait';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** A limited attempt: some work (reverted), the reset line, exit 75. */
function limited(resetsAt: string | null): Record<string, unknown>[] {
  return [
    { write: 'src/partial.txt', content: 'half-way\n' },
    ...(resetsAt === null ? [] : [{ stderr: `ralphtool-resets-at: ${resetsAt}` }]),
    { stderr: 'usage limit reached' },
    { exit: 75 },
  ];
}

function secondsAhead(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString();
}

function at(events: RunEvent[], type: RunEvent['type']): number {
  return events.findIndex((e) => e.type === type);
}

describe('the loop: usage limits are waited out', () => {
  it('waits until the reported reset, then tries the same story again as the same attempt (not charged)', async () => {
    const resetsAt = secondsAhead(1);
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1#1': limited(resetsAt),
      '1-1#2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const f = fixture;
    const clock = new MovingClock();
    const result = await f.run({ completion: 'keep', options: { maxWaitMs: 60_000 }, clock });
    expect(result.exitCode).toBe(0);
    expect(result.outcome).toBe('complete');
    const events = result.events();
    const waited = single(events, 'agent.limited');
    expect(waited).toMatchObject({ storyId: '1', attempt: 1, resetsAt, source: 'exit 75' });
    // Until the reset plus the 10 s margin: at least the margin, at most the reset's distance too.
    expect(waited.waitMs).toBeGreaterThanOrEqual(10_000);
    expect(waited.waitMs).toBeLessThanOrEqual(11_000);
    // The loop slept what it said it would, on its clock.
    expect(clock.slept).toEqual([waited.waitMs]);
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    // The limited attempt was reverted, then the wait, then the same attempt number again.
    expect(at(events, 'checkpoint.reverted')).toBeLessThan(at(events, 'agent.limited'));
    expect(at(events, 'agent.limited')).toBeLessThan(at(events, 'limit.resumed'));
    const starts = ofType(events, 'story.started').map((e) => [e.storyId, e.attempt]);
    expect(starts).toEqual([
      ['1', 1],
      ['1', 1],
      ['2', 1],
    ]);
    expect(single(events, 'limit.resumed')).toMatchObject({ storyId: '1' });
    expect(ofType(events, 'story.completed')[0]).toMatchObject({ storyId: '1', attempts: 1 });
    const state = f.state() as { stories: Record<string, { attempts: number }>; wait?: unknown };
    expect(state.stories['1']?.attempts).toBe(1);
    expect(state.wait ?? null).toBeNull();
    expect(f.attemptRefs()).toEqual([`refs/ralphtool/${CHANGE}/attempts/1-1`]);

    // Headless, one line when the wait starts (its end in local time) and one when it ends.
    const out = printed(events);
    expect(out).toMatch(
      /⏸ waiting 1\ds, until (\d{4}-\d\d-\d\d )?\d\d:\d\d: usage limit \(exit 75\): .*; the attempt does not count/,
    );
    expect(out).toMatch(/▶ the wait is over \(1\ds\): trying story 1 again/);
  }, 120_000);

  it('--on-limit stop ends the run at once with outcome limited (exit 5), the attempt not charged', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': limited(secondsAhead(600)),
    });
    const f = fixture;
    const result = await f.run({ completion: 'keep', options: { onLimit: 'stop' } });
    expect(result.exitCode).toBe(5);
    expect(result.outcome).toBe('limited');
    const events = result.events();
    expect(ofType(events, 'agent.limited')).toEqual([]);
    expect(ofType(events, 'story.started')).toHaveLength(1);
    const notice = ofType(events, 'error').find((e) => e.message.includes('--on-limit stop'));
    expect(notice?.message).toContain(`ralphtool resume ${CHANGE}`);
    expect(result.asked).toEqual(['limited']);
    const state = f.state() as { status: string; stories: Record<string, { attempts: number }> };
    expect(state.status).toBe('active'); // kept incomplete: resumable
    expect(state.stories['1']?.attempts).toBe(0);
    expect(f.exists('src/partial.txt')).toBe(false);
  });

  it('a reset further away than --max-wait allows ends the run at once (limit.reached max-wait, exit 5)', async () => {
    const resetsAt = secondsAhead(3600);
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({ '1-1': limited(resetsAt) });
    const f = fixture;
    const result = await f.run({ completion: 'keep', options: { maxWaitMs: 30 * 60_000 } });
    expect(result.exitCode).toBe(5);
    expect(result.outcome).toBe('limited');
    const events = result.events();
    expect(ofType(events, 'agent.limited')).toEqual([]);
    const reached = single(events, 'limit.reached');
    expect(reached.limit).toBe('max-wait');
    expect(reached.message).toContain('--max-wait 30m');
    expect(reached.message).toContain(`ralphtool resume ${CHANGE}`);
    expect(at(events, 'limit.reached')).toBeLessThan(at(events, 'run.finished'));
    expect((f.state() as { wait?: unknown }).wait ?? null).toBeNull();
  });

  it('--max-wait counts every wait of the invocation: the second wait past what is left stops the run', async () => {
    // 2 waits of ~11 s each (reset 1 s ahead + margin) do not fit into 15 s.
    fixture = new LoopHarness(CHANGE, stories(2));
    const f = fixture;
    f.scenario({
      '1-1#1': limited(secondsAhead(1)),
      '1-1#2': succeed('src/one.txt', 'one\n'),
      '2-1': limited(secondsAhead(1)),
    });
    const result = await f.run({ completion: 'keep', options: { maxWaitMs: 15_000 } });
    expect(result.outcome).toBe('limited');
    expect(result.exitCode).toBe(5);
    const events = result.events();
    expect(ofType(events, 'agent.limited').map((e) => e.storyId)).toEqual(['1']);
    expect(single(events, 'limit.reached')).toMatchObject({ limit: 'max-wait' });
    expect(ofType(events, 'story.completed').map((e) => e.storyId)).toEqual(['1']);
  }, 120_000);

  it('a wait that would pass --max-duration ends the run with outcome time-limit (exit 5)', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': limited(secondsAhead(3600)),
    });
    const result = await fixture.run({
      completion: 'keep',
      options: { maxDurationMs: 60 * 60_000 },
    });
    expect(result.outcome).toBe('time-limit');
    expect(result.exitCode).toBe(5);
    expect(single(result.events(), 'limit.reached')).toMatchObject({ limit: 'max-duration' });
  });

  it('transient API errors are retried a few times, then the next one counts as an ordinary failure', async () => {
    // The server's retry hint is a second away: the five waits take about five seconds.
    const overloaded = (): Record<string, unknown>[] => [
      { stderr: 'ralphtool-limit-kind: overloaded' },
      { stderr: `ralphtool-resets-at: ${secondsAhead(-5)}` },
      { exit: 75 },
    ];
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': overloaded(),
      '1-2': succeed('src/one.txt', 'one\n'),
    });
    const result = await fixture.run({ completion: 'keep', maxRetries: 1 });
    expect(result.outcome).toBe('complete');
    const events = result.events();
    const waits = ofType(events, 'agent.limited');
    expect(waits).toHaveLength(5);
    expect(waits.every((e) => e.kind === 'overloaded' && e.attempt === 1)).toBe(true);
    // The sixth in a row is attempt 1's failure; attempt 2 then succeeds.
    const failed = single(events, 'attempt.failed');
    expect(failed).toMatchObject({ storyId: '1', attempt: 1, kind: 'agent-error' });
    expect(failed.reason).toContain('too many transient API errors in a row');
    expect(ofType(events, 'story.completed')[0]).toMatchObject({ attempts: 2 });
  }, 120_000);
});
