import { describe, expect, it } from 'vitest';
import { AccountPause } from '../../src/run/account-pause.js';

const limit = { kind: 'usage' as const, resetsAt: null, source: 'exit 75', message: 'limit' };

describe('the usage-limit pause several runs share', () => {
  it('holds the other runs of the same agent kind, not the waiting run itself nor another kind', () => {
    const pause = new AccountPause();
    const end = pause.begin('claude', { change: 'a', until: 1_000, limit });
    expect(pause.heldFor('claude', 'b')).toMatchObject({ change: 'a', until: 1_000 });
    expect(pause.heldFor('claude', 'a')).toBeNull();
    expect(pause.heldFor('codex', 'b')).toBeNull();
    end();
    expect(pause.heldFor('claude', 'b')).toBeNull();
  });

  it('the longest of several waits holds; cleared resolves once every other wait is over', async () => {
    const pause = new AccountPause();
    const endA = pause.begin('claude', { change: 'a', until: 1_000, limit });
    const endB = pause.begin('claude', { change: 'b', until: 2_000, limit });
    expect(pause.heldFor('claude', 'c')?.change).toBe('b');
    let cleared = false;
    const waiting = pause.cleared('claude', 'c').then(() => {
      cleared = true;
    });
    endB();
    await Promise.resolve();
    expect(cleared).toBe(false);
    expect(pause.heldFor('claude', 'c')?.change).toBe('a');
    endA();
    endA(); // a second end changes nothing
    await waiting;
    expect(cleared).toBe(true);
    await pause.cleared('claude', 'c'); // nothing held: at once
  });
});
