import { describe, expect, it } from 'vitest';
import { accountWindowOf, EMPTY_ACCOUNT } from '../../src/core/account-window.js';
import { accountWindowText } from '../../src/format/account-window.js';
import { clockTime } from '../../src/format/clock.js';

// An account's window as `status` and the dashboard say it (docs/contract.md, "One account,
// many runs"): what holds now of the usage governor's entry, in one line.

const NOW = Date.parse('2026-11-29T10:00:00.000Z');
const by = { change: 'add-a', pid: 4242, host: 'box', run: 'abc' };
const usage = {
  percent: 83,
  resetsAt: '2026-11-29T12:00:00.000Z',
  window: 'five_hour',
  seenAt: '2026-11-29T09:59:00.000Z',
  by,
};
const limit = {
  until: '2026-11-29T11:00:10.000Z',
  by,
  kind: 'usage' as const,
  source: 'exit 1',
  message: 'limit',
};

describe('accountWindowOf', () => {
  it('keeps what holds now: a utilisation whose reset is ahead, a limit still in force', () => {
    const entry = { ...EMPTY_ACCOUNT('claude'), usage, limit };
    expect(accountWindowOf('claude-1', entry, NOW)).toEqual({
      key: 'claude-1',
      usage: {
        percent: 83,
        resetsAt: usage.resetsAt,
        window: 'five_hour',
        seenAt: usage.seenAt,
      },
      limit: { until: limit.until, change: 'add-a', pid: 4242, host: 'box', message: 'limit' },
    });
    // Past the limit's end only the window is left; past the reset nothing.
    const later = Date.parse(limit.until) + 1;
    expect(accountWindowOf('claude-1', entry, later)?.limit).toBeNull();
    expect(accountWindowOf('claude-1', entry, Date.parse(usage.resetsAt))).toBeNull();
    expect(accountWindowOf('claude-1', null, NOW)).toBeNull();
    expect(accountWindowOf('claude-1', EMPTY_ACCOUNT('claude'), NOW)).toBeNull();
  });
});

describe('accountWindowText', () => {
  const window = accountWindowOf('claude-1', { ...EMPTY_ACCOUNT('claude'), usage, limit }, NOW);
  if (window === null) throw new Error('no window');
  const at = (iso: string) => clockTime(Date.parse(iso), NOW);

  it('says the utilisation, its reset, the limit and the run that hit it', () => {
    expect(accountWindowText(window, NOW)).toBe(
      `account claude-1: 83% of the five_hour window used, resets ${at(usage.resetsAt)} · limited until ${at(limit.until)} by the run of add-a (pid 4242)`,
    );
  });

  it('the run it is shown for is "this run"; a window without a name is the usage window', () => {
    const unnamed = { ...window, usage: window.usage && { ...window.usage, window: null } };
    expect(accountWindowText(unnamed, NOW, 'add-a')).toBe(
      `account claude-1: 83% of the usage window used, resets ${at(usage.resetsAt)} · limited until ${at(limit.until)} by this run`,
    );
  });

  it('keeps a change name with escape codes on one clean line', () => {
    const odd = {
      ...window,
      usage: null,
      limit: window.limit && { ...window.limit, change: 'a\u001b[2Jb\nc' },
    };
    const text = accountWindowText(odd, NOW);
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\n');
  });
});
