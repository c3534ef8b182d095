import { describe, expect, it } from 'vitest';
import {
  EMPTY_ACCOUNT,
  decideAccountGate,
  mergeAccounts,
  withLimit,
  withUsage,
  type AccountEntry,
  type AccountRunner,
} from '../../src/core/account-window.js';
import { RESET_MARGIN_MS } from '../../src/core/limit-wait.js';

// docs/contract.md, "One account, many runs": before an attempt, a run waits while another
// run's limit on the account is in force, or while the window is used at or above --pause-at.

const NOW = Date.parse('2026-11-29T10:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const SELF: AccountRunner = { change: 'add-b', pid: 200, host: 'box' };
const OTHER: AccountRunner = { change: 'add-a', pid: 100, host: 'box' };

const limited = (by: AccountRunner, until: number): AccountEntry =>
  withLimit(EMPTY_ACCOUNT('claude'), {
    until: iso(until),
    by,
    kind: 'usage',
    source: 'claude rate_limit_event',
    message: 'Claude Code hit its session limit',
  });

const used = (percent: number, resetsAt: number): AccountEntry =>
  withUsage(EMPTY_ACCOUNT('claude'), {
    percent,
    resetsAt: iso(resetsAt),
    window: 'five_hour',
    seenAt: iso(NOW - 1000),
    by: OTHER,
  });

describe('decideAccountGate', () => {
  it('goes when nothing is known of the account', () => {
    expect(decideAccountGate({ entry: null, self: SELF, pauseAt: 80, now: NOW })).toEqual({
      action: 'go',
    });
    const empty = EMPTY_ACCOUNT('claude');
    expect(decideAccountGate({ entry: empty, self: SELF, pauseAt: 80, now: NOW }).action).toBe(
      'go',
    );
  });

  it("waits until another run's limit ends, naming that run; its own or a stale one is ignored", () => {
    const gate = decideAccountGate({
      entry: limited(OTHER, NOW + 60_000),
      self: SELF,
      pauseAt: null,
      now: NOW,
    });
    expect(gate).toMatchObject({ action: 'wait', until: NOW + 60_000, cause: 'limit' });
    expect(gate.action === 'wait' && gate.message).toContain('the run of add-a (pid 100)');
    for (const [entry, why] of [
      [limited(SELF, NOW + 60_000), 'its own'],
      [limited(OTHER, NOW), 'ends now'],
      [limited(OTHER, NOW - 1), 'stale'],
      [limited({ ...SELF, pid: 201 }, NOW - 5), 'stale, same change elsewhere'],
    ] as const) {
      expect(decideAccountGate({ entry, self: SELF, pauseAt: null, now: NOW }).action, why).toBe(
        'go',
      );
    }
    // The same change in another process (or on another machine) is another run.
    const elsewhere = limited({ ...SELF, host: 'other-box' }, NOW + 5_000);
    const gateElsewhere = decideAccountGate({
      entry: elsewhere,
      self: SELF,
      pauseAt: null,
      now: NOW,
    });
    expect(gateElsewhere.action === 'wait' && gateElsewhere.message).toContain('on other-box');
  });

  it('pauses at or above --pause-at until the reset (with the margin), goes below it or after the reset', () => {
    const reset = NOW + 3_600_000;
    const table: [number, number | null, number, 'go' | 'wait'][] = [
      [80, 80, reset, 'wait'],
      [80.1, 80, reset, 'wait'],
      [100, 100, reset, 'wait'],
      [79.9, 80, reset, 'go'],
      [95, null, reset, 'go'],
      [95, 80, NOW, 'go'],
      [95, 80, NOW - 1, 'go'],
    ];
    for (const [percent, pauseAt, resetsAt, action] of table) {
      const gate = decideAccountGate({
        entry: used(percent, resetsAt),
        self: SELF,
        pauseAt,
        now: NOW,
      });
      expect(gate.action, `${percent}% at --pause-at ${pauseAt}`).toBe(action);
      if (gate.action === 'wait') {
        expect(gate).toMatchObject({ cause: 'pause-at', until: resetsAt + RESET_MARGIN_MS });
        expect(gate.message).toContain(`${percent}% used (--pause-at ${pauseAt})`);
      }
    }
  });

  it("a limit in force comes before --pause-at (it is the other run's wait that is shared)", () => {
    const entry = withUsage(limited(OTHER, NOW + 30_000), used(99, NOW + 90_000).usage!);
    const gate = decideAccountGate({ entry, self: SELF, pauseAt: 50, now: NOW });
    expect(gate).toMatchObject({ action: 'wait', cause: 'limit', until: NOW + 30_000 });
  });
});

describe('the same run', () => {
  it('is the same run folder on the same host, whatever the process (a resume), else the same process', () => {
    const run = { ...SELF, run: 'aaaaaaaaaaaa' };
    const resumed = { ...run, pid: 999 };
    const entry = limited(run, NOW + 60_000);
    expect(decideAccountGate({ entry, self: resumed, pauseAt: null, now: NOW }).action).toBe('go');
    // Another run of the same change name (another repository): it waits.
    const other = { ...SELF, pid: 999, run: 'bbbbbbbbbbbb' };
    expect(decideAccountGate({ entry, self: other, pauseAt: null, now: NOW }).action).toBe('wait');
    // An entry of an older ralphtool (no run): the process decides.
    const old = limited(SELF, NOW + 60_000);
    expect(decideAccountGate({ entry: old, self: run, pauseAt: null, now: NOW }).action).toBe('go');
  });
});

describe('mergeAccounts', () => {
  it("keeps the later limit and the utilisation seen last of the machine's file and the remote's entry", () => {
    const early = limited(OTHER, NOW + 5_000);
    const late = limited(SELF, NOW + 50_000);
    const seenEarly = used(50, NOW + 1_000).usage!;
    const seenLate = { ...used(70, NOW + 1_000).usage!, seenAt: iso(NOW) };
    const a = withUsage(early, seenLate);
    const b = withUsage(late, seenEarly);
    for (const merged of [mergeAccounts(a, b), mergeAccounts(b, a)]) {
      expect(merged?.limit?.by).toEqual(SELF);
      expect(merged?.usage?.percent).toBe(70);
    }
    expect(mergeAccounts(null, a)).toBe(a);
    expect(mergeAccounts(a, null)).toBe(a);
    expect(mergeAccounts(null, null)).toBeNull();
  });
});

describe('withLimit', () => {
  it('keeps the later of two limits', () => {
    const later = limited(OTHER, NOW + 60_000);
    const hit = { ...limited(SELF, NOW + 10_000).limit! };
    expect(withLimit(later, hit)).toBe(later);
    const sooner = limited(OTHER, NOW + 5_000);
    expect(withLimit(sooner, hit).limit?.by).toEqual(SELF);
  });
});
