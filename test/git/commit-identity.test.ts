import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitEverything, commitTree } from '../../src/git/commit.js';
import type { IdentityMemo } from '../../src/git/git.js';
import { makeRepo, TIMEOUT_MS, type TempRepo } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A repository without any identity: no user.* in its config, an empty HOME, no system config. */
function anonymousRepo(): { repo: TempRepo; home: string } {
  const home = mkdtempSync(join(tmpdir(), 'ralphtool-home-'));
  const env = { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
  const repo = makeRepo({ identity: false, commit: false, env });
  cleanups.push(() => {
    repo.remove();
    rmSync(home, { recursive: true, force: true });
  });
  return { repo, home };
}

describe('the fallback identity of ralphtool’s commits', () => {
  it('gives way to an identity in the environment git runs with, part by part', async () => {
    const { repo, home } = anonymousRepo();
    repo.write('a.txt', 'a\n');
    const ctx = {
      baseEnv: process.env,
      cwd: repo.dir,
      timeoutMs: TIMEOUT_MS,
      env: {
        HOME: home,
        XDG_CONFIG_HOME: home,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'Env Author',
        GIT_COMMITTER_EMAIL: 'committer@example.com',
        GIT_AUTHOR_EMAIL: undefined,
        GIT_COMMITTER_NAME: undefined,
      },
    };
    const sha = await commitEverything(ctx, 'checkpoint: 1');
    const saved = await commitTree(ctx, repo.git('rev-parse', `${sha}^{tree}`), [sha], 'saved');
    for (const commit of [sha, saved]) {
      expect(repo.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', commit)).toBe(
        'Env Author <ralphtool@localhost>|ralphtool <committer@example.com>',
      );
    }
    expect(repo.gitStatus('config', '--local', '--get', 'user.name')).toBe(1);
  });

  it('found once per run, and found again when the global identity goes away mid-run', async () => {
    const { repo, home } = anonymousRepo();
    const gitconfig = join(home, '.gitconfig');
    writeFileSync(gitconfig, '[user]\n\tname = Global Name\n\temail = global@example.com\n');
    const env = { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const identity: IdentityMemo = { settings: null };
    const ctx = { baseEnv: process.env, cwd: repo.dir, timeoutMs: TIMEOUT_MS, env, identity };
    repo.write('a.txt', 'a\n');
    const first = await commitEverything(ctx, 'checkpoint: 1');
    expect(identity.settings).toEqual([]); // the user's own identity: nothing to add
    // An agent removes the global config: the remembered "nothing to add" is out of date.
    rmSync(gitconfig);
    repo.write('b.txt', 'b\n');
    const second = await commitEverything(ctx, 'checkpoint: 2');
    const tree = repo.git('rev-parse', `${second}^{tree}`);
    const saved = await commitTree(ctx, tree, [second], 'saved');
    expect(repo.git('log', '-1', '--format=%an <%ae>', first)).toBe(
      'Global Name <global@example.com>',
    );
    for (const commit of [second, saved]) {
      expect(repo.git('log', '-1', '--format=%an <%ae>', commit)).toBe(
        'ralphtool <ralphtool@localhost>',
      );
    }
    expect(identity.settings).toEqual(['user.name=ralphtool', 'user.email=ralphtool@localhost']);
  });
});
