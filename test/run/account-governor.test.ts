import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountEntry } from '../../src/core/account-window.js';
import {
  AccountGovernor,
  REMOTE_LOOK_MS,
  type AccountShare,
} from '../../src/run/account-governor.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A share whose remote entry the test sets; it counts the fetches. */
function remoteShare(): AccountShare & { fetches: number; entry: AccountEntry | null } {
  const share = {
    fetches: 0,
    entry: null as AccountEntry | null,
    fetch: () => {
      share.fetches += 1;
      return Promise.resolve(share.entry);
    },
    push: (_key: string, entry: AccountEntry) => {
      share.entry = entry;
      return Promise.resolve();
    },
  };
  return share;
}

function governor(share: AccountShare | null): AccountGovernor {
  const state = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-governor-'));
  dirs.push(state);
  return AccountGovernor.of(
    { agent: 'claude', pauseAt: null },
    { HOME: state, XDG_STATE_HOME: state },
    { change: 'here', dir: path.join(state, 'run') },
    () => undefined,
    share,
  );
}

const T0 = Date.parse('2026-11-29T04:00:00Z');
const otherMachine = { change: 'there', pid: 7, host: 'elsewhere', run: 'aaaaaaaaaaaa' };

function limitedUntil(until: number): AccountEntry {
  const at = new Date(until).toISOString();
  return {
    agent: 'claude',
    usage: null,
    limit: { until: at, by: otherMachine, kind: 'usage', source: 'exit 75', message: 'limit' },
  };
}

describe("the governor's look at the remote before an attempt", () => {
  it('fetches the remote entry at the first attempt, then at most once every REMOTE_LOOK_MS', async () => {
    const share = remoteShare();
    const gov = governor(share);
    await gov.gate(T0);
    await gov.gate(T0 + 1_000);
    await gov.gate(T0 + REMOTE_LOOK_MS - 1);
    expect(share.fetches).toBe(1);
    await gov.gate(T0 + REMOTE_LOOK_MS);
    expect(share.fetches).toBe(2);
    // A clock that went back (a resumed run on another machine's time) looks again.
    await gov.gate(T0);
    expect(share.fetches).toBe(3);
  });

  it('a limit the remote held at the last look stops the attempts until it is older', async () => {
    const share = remoteShare();
    share.entry = limitedUntil(T0 + 60 * 60_000);
    const gov = governor(share);
    expect((await gov.gate(T0)).action).toBe('wait');
    // Another machine cleared it meanwhile: seen at the next look, not before.
    share.entry = null;
    expect((await gov.gate(T0 + 1_000)).action).toBe('wait');
    expect((await gov.gate(T0 + REMOTE_LOOK_MS)).action).toBe('go');
  });

  it('a limit put on the remote after the last look is seen at the next look', async () => {
    const share = remoteShare();
    const gov = governor(share);
    expect((await gov.gate(T0)).action).toBe('go');
    share.entry = limitedUntil(T0 + 60 * 60_000);
    expect((await gov.gate(T0 + REMOTE_LOOK_MS)).action).toBe('wait');
  });

  it('a run that does not push reads its file only', async () => {
    const gov = governor(null);
    expect((await gov.gate(T0)).action).toBe('go');
  });
});
