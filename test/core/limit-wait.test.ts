import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  decideLimitWait,
  LIMIT_BACKOFF_MS,
  MAX_CREDIBLE_RESET_MS,
  RESET_MARGIN_MS,
  TRANSIENT_BACKOFF_MS,
  TRANSIENT_TRIES,
  type LimitWaitInput,
} from '../../src/core/limit-wait.js';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

function input(overrides: Partial<LimitWaitInput>): LimitWaitInput {
  return {
    kind: 'usage',
    resetsAt: null,
    consecutive: 1,
    waitedMs: 0,
    maxWaitMs: 8 * HOUR,
    notAfter: null,
    now: NOW,
    ...overrides,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

describe('decideLimitWait: with a reset time', () => {
  it('waits until the reset plus the margin', () => {
    const d = decideLimitWait(input({ resetsAt: iso(NOW + HOUR) }));
    expect(d).toEqual({
      action: 'wait',
      waitMs: HOUR + RESET_MARGIN_MS,
      until: NOW + HOUR + RESET_MARGIN_MS,
    });
  });

  it('a reset already past waits the margin only (never a busy retry)', () => {
    const d = decideLimitWait(input({ resetsAt: iso(NOW - 5 * MIN) }));
    expect(d).toMatchObject({ action: 'wait', waitMs: RESET_MARGIN_MS });
  });

  it('reads Unix-seconds and offset forms Date.parse understands', () => {
    const d = decideLimitWait(input({ resetsAt: '2026-11-23T13:00:00+01:00' }));
    expect(d).toMatchObject({ action: 'wait', waitMs: RESET_MARGIN_MS });
  });

  it('an absurdly far reset is not believed: the backoff is used instead', () => {
    const far = decideLimitWait(input({ resetsAt: iso(NOW + MAX_CREDIBLE_RESET_MS + 1) }));
    expect(far).toMatchObject({ action: 'wait', waitMs: LIMIT_BACKOFF_MS.first });
    // A weekly window (7 days) is believed — and then --max-wait decides.
    const weekly = decideLimitWait(input({ resetsAt: iso(NOW + 7 * 24 * HOUR) }));
    expect(weekly).toMatchObject({ action: 'stop', outcome: 'limited' });
    const patient = decideLimitWait(
      input({ resetsAt: iso(NOW + 7 * 24 * HOUR), maxWaitMs: 8 * 24 * HOUR }),
    );
    expect(patient).toMatchObject({ action: 'wait', waitMs: 7 * 24 * HOUR + RESET_MARGIN_MS });
  });

  it('an unreadable reset falls back to the backoff', () => {
    const d = decideLimitWait(input({ resetsAt: 'soon', consecutive: 2 }));
    expect(d).toMatchObject({ action: 'wait', waitMs: 2 * MIN });
  });
});

describe('decideLimitWait: backoff without a reset time', () => {
  it('usage and rate limits: 1m, 2m, 4m, … capped at 30m', () => {
    for (const kind of ['usage', 'rate'] as const) {
      const waits = [1, 2, 3, 4, 5, 6, 7, 20, 1000].map(
        (consecutive) =>
          (decideLimitWait(input({ kind, consecutive })) as { waitMs: number }).waitMs / MIN,
      );
      expect(waits).toEqual([1, 2, 4, 8, 16, 30, 30, 30, 30]);
    }
  });

  it('transient errors: 15s, 30s, 1m, 2m, 4m, then the next in a row is counted', () => {
    for (const kind of ['overloaded', 'server', 'connection'] as const) {
      const decisions = [1, 2, 3, 4, 5, 6, 7].map((consecutive) =>
        decideLimitWait(input({ kind, consecutive })),
      );
      expect(decisions.slice(0, 5).map((d) => (d as { waitMs: number }).waitMs / 1000)).toEqual([
        15, 30, 60, 120, 240,
      ]);
      expect(decisions[TRANSIENT_TRIES - 1]).toEqual({ action: 'count' });
      expect(decisions[TRANSIENT_TRIES]).toEqual({ action: 'count' });
    }
  });

  it('a transient error with its own retry time waits exactly that, at least a second', () => {
    const hinted = decideLimitWait(input({ kind: 'overloaded', resetsAt: iso(NOW + 7_000) }));
    expect(hinted).toMatchObject({ action: 'wait', waitMs: 7_000 });
    const past = decideLimitWait(input({ kind: 'server', resetsAt: iso(NOW - 7_000) }));
    expect(past).toMatchObject({ action: 'wait', waitMs: 1_000 });
    // The cap on tries holds with a hint too.
    const sixth = decideLimitWait(
      input({ kind: 'server', resetsAt: iso(NOW + 1_000), consecutive: TRANSIENT_TRIES }),
    );
    expect(sixth).toEqual({ action: 'count' });
  });

  it('usage and rate limits are never counted, however many in a row', () => {
    expect(decideLimitWait(input({ kind: 'rate', consecutive: 500 }))).toMatchObject({
      action: 'wait',
    });
  });

  it('backoffMs treats 0 and negatives as the first', () => {
    expect(backoffMs(TRANSIENT_BACKOFF_MS, 0)).toBe(15_000);
    expect(backoffMs(TRANSIENT_BACKOFF_MS, -3)).toBe(15_000);
  });
});

describe('decideLimitWait: --max-wait and the deadline', () => {
  const reset = iso(NOW + HOUR - RESET_MARGIN_MS); // a wait of exactly one hour

  it('a wait that reaches --max-wait exactly is waited; a millisecond more stops (limited)', () => {
    expect(decideLimitWait(input({ resetsAt: reset, maxWaitMs: HOUR }))).toMatchObject({
      action: 'wait',
      waitMs: HOUR,
    });
    expect(decideLimitWait(input({ resetsAt: reset, maxWaitMs: HOUR - 1 }))).toEqual({
      action: 'stop',
      outcome: 'limited',
      waitMs: HOUR,
      until: NOW + HOUR,
    });
  });

  it('time already waited in this invocation counts against --max-wait', () => {
    const d = decideLimitWait(input({ resetsAt: reset, maxWaitMs: 2 * HOUR, waitedMs: HOUR + 1 }));
    expect(d).toMatchObject({ action: 'stop', outcome: 'limited' });
    const fits = decideLimitWait(input({ resetsAt: reset, maxWaitMs: 2 * HOUR, waitedMs: HOUR }));
    expect(fits).toMatchObject({ action: 'wait' });
    // Already past it (waited more than allowed): no wait at all fits.
    const over = decideLimitWait(input({ maxWaitMs: HOUR, waitedMs: 2 * HOUR }));
    expect(over).toMatchObject({ action: 'stop', outcome: 'limited' });
  });

  it('--max-wait 0 never waits', () => {
    expect(decideLimitWait(input({ maxWaitMs: 0 }))).toMatchObject({
      action: 'stop',
      outcome: 'limited',
    });
  });

  it('a deadline before the wait ends stops with time-limit when it comes before --max-wait', () => {
    const d = decideLimitWait(input({ resetsAt: reset, notAfter: NOW + 30 * MIN }));
    expect(d).toMatchObject({ action: 'stop', outcome: 'time-limit', waitMs: HOUR });
    // --max-wait runs out first: limited.
    const first = decideLimitWait(
      input({ resetsAt: reset, maxWaitMs: 10 * MIN, notAfter: NOW + 30 * MIN }),
    );
    expect(first).toMatchObject({ action: 'stop', outcome: 'limited' });
    // The deadline exactly at the wait's end still lets it wait.
    const exact = decideLimitWait(input({ resetsAt: reset, notAfter: NOW + HOUR }));
    expect(exact).toMatchObject({ action: 'wait' });
    // A deadline already past: time-limit.
    const past = decideLimitWait(input({ notAfter: NOW - 1 }));
    expect(past).toMatchObject({ action: 'stop', outcome: 'time-limit' });
  });
});
