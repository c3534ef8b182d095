import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/run/loop/system-clock.js';

// The clock ralphtool runs on (src/run/loop/system-clock.ts): the in-process tests give the loop a
// moving one, so what the real one promises is checked here.

describe('the system clock', () => {
  it('sleeps on the machine’s time', async () => {
    const before = Date.now();
    await systemClock.sleep(30, new AbortController().signal);
    expect(systemClock.now()).toBeGreaterThanOrEqual(before + 25);
  });

  it('ends a sleep when asked to stop, resolving rather than rejecting', async () => {
    const stop = new AbortController();
    const slept = systemClock.sleep(3_600_000, stop.signal);
    stop.abort();
    await expect(slept).resolves.toBeUndefined();
  });

  it('does not sleep at all when already stopped', async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(systemClock.sleep(3_600_000, stop.signal)).resolves.toBeUndefined();
  });
});
