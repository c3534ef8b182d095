import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountKey } from '../../src/agents/account-key.js';
import {
  accountFile,
  accountsFolder,
  readAccountEntry,
  writeAccountEntry,
} from '../../src/checkpoint/account-file.js';
import { EMPTY_ACCOUNT, withUsage, type AccountEntry } from '../../src/core/account-window.js';

// docs/contract.md, "One account, many runs": one file per account in the user's state folder.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ralph-accounts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ENTRY: AccountEntry = withUsage(EMPTY_ACCOUNT('claude'), {
  percent: 83.5,
  resetsAt: '2026-11-29T15:00:00.000Z',
  window: 'five_hour',
  seenAt: '2026-11-29T10:00:00.000Z',
  by: { change: 'add-a', pid: 42, host: 'box' },
});

describe('the account file', () => {
  it('is written whole with mode 0600 (its folder made) and read back; nothing else is left', async () => {
    const file = accountFile(path.join(dir, 'ralphtool', 'accounts'), 'claude-0123456789ab');
    await writeAccountEntry(file, ENTRY);
    await writeAccountEntry(file, { ...ENTRY, usage: { ...ENTRY.usage!, percent: 90 } });
    expect((await readAccountEntry(file))?.usage?.percent).toBe(90);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(path.dirname(file))).toEqual(['claude-0123456789ab.json']);
  });

  it('reads as none when missing, not JSON, or not an entry', async () => {
    const file = path.join(dir, 'x.json');
    expect(await readAccountEntry(file)).toBeNull();
    for (const text of ['{', '[]', '{"agent":"claude"}', '{"agent":1,"limit":null,"usage":null}']) {
      await writeFile(file, text);
      expect(await readAccountEntry(file), text).toBeNull();
    }
  });

  it('lives in $XDG_STATE_HOME/ralphtool/accounts, else ~/.local/state/ralphtool/accounts', () => {
    expect(accountsFolder({ XDG_STATE_HOME: '/s', HOME: '/h' })).toBe('/s/ralphtool/accounts');
    expect(accountsFolder({ XDG_STATE_HOME: 'rel', HOME: '/h' })).toBe(
      '/h/.local/state/ralphtool/accounts',
    );
    expect(accountsFolder({ HOME: '/h' })).toBe('/h/.local/state/ralphtool/accounts');
  });
});

describe('accountKey', () => {
  it('is the agent and a short hash that never shows the API key; the key or the config folder decides', () => {
    const secret = 'sk-ant-api03-very-secret';
    const byKey = accountKey('claude', { HOME: '/h', ANTHROPIC_API_KEY: secret });
    expect(byKey).toMatch(/^claude-[0-9a-f]{12}$/);
    expect(byKey).not.toContain(secret.slice(0, 6));
    // Same key, same account wherever the config folder is; another key, another account.
    expect(accountKey('claude', { HOME: '/other', ANTHROPIC_API_KEY: secret })).toBe(byKey);
    expect(accountKey('claude', { HOME: '/h', ANTHROPIC_API_KEY: `${secret}2` })).not.toBe(byKey);
    // No key: the config folder (CLAUDE_CONFIG_DIR, else ~/.claude).
    const home = accountKey('claude', { HOME: '/h' });
    expect(accountKey('claude', { HOME: '/h', CLAUDE_CONFIG_DIR: '/h/.claude' })).toBe(home);
    expect(accountKey('claude', { HOME: '/h2' })).not.toBe(home);
    // Another agent is another account, even with the same home.
    expect(accountKey('codex', { HOME: '/h' })).toMatch(/^codex-[0-9a-f]{12}$/);
    expect(accountKey('codex', { HOME: '/h' }).slice(-12)).not.toBe(home.slice(-12));
  });
});
