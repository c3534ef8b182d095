import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { openRun } from '../../src/checkpoint/open.js';
import { startRun } from '../../src/checkpoint/start.js';
import { readRunState } from '../../src/checkpoint/state.js';
import { repoPerTest, runLocation, snapshotFiles, TIMEOUT_MS } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';

const repo = repoPerTest();

const start = (r: TempRepo, extra: { force?: boolean; change?: string } = {}) =>
  startRun({
    baseEnv: process.env,
    cwd: r.dir,
    change: extra.change ?? 'add-auth',
    timeoutMs: TIMEOUT_MS,
    force: extra.force,
  });

/** Everything about a repository that a refused start must leave alone. */
function fingerprint(r: TempRepo): unknown {
  return {
    files: snapshotFiles(r.dir),
    refs: r.git('for-each-ref', '--format=%(refname) %(objectname)'),
    head: r.git('rev-parse', '--symbolic-full-name', 'HEAD'),
    index: r.git('ls-files', '-s'),
    runDir: existsSync(join(r.dir, '.git/ralphtool/add-auth/state.json')),
  };
}

describe('startRun', () => {
  it('starts on a normal branch: ralph/<change> with an "initial state" commit and a state file', async () => {
    const r = repo();
    const mainSha = r.git('rev-parse', 'main');
    const run = await start(r);
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('ralph/add-auth');
    expect(r.git('log', '--format=%s', 'main..HEAD')).toBe('initial state');
    expect(r.git('rev-parse', 'HEAD^')).toBe(mainSha);
    const state = await readRunState(run.paths.state);
    expect(state).toMatchObject({
      version: 1,
      change: 'add-auth',
      branch: 'ralph/add-auth',
      originalBranch: { kind: 'branch', name: 'main' },
      originalSha: mainSha,
      baseSha: r.git('rev-parse', 'HEAD'),
      checkpointSha: r.git('rev-parse', 'HEAD'),
      status: 'active',
      step: null,
      pid: process.pid,
    });
    expect(run.paths.state).toBe(
      join(r.git('rev-parse', '--show-toplevel'), '.git/ralphtool/add-auth/state.json'),
    );
    expect(r.git('rev-parse', 'main')).toBe(mainSha);
  });

  it('commits staged, unstaged and untracked changes and brings them back uncommitted on cleanup', async () => {
    const r = repo();
    r.write('tracked.txt', 'one\n');
    r.write('gone.txt', 'bye\n');
    r.write('script.sh', '#!/bin/sh\necho hi\n');
    r.git('update-index', '--add', '--chmod=+x', 'script.sh');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'files');
    const mainSha = r.git('rev-parse', 'HEAD');
    r.write('tracked.txt', 'one\nstaged\n');
    r.git('add', 'tracked.txt');
    r.write('tracked.txt', 'one\nstaged\nunstaged\r\n');
    r.write('untracked dir/new.bin', Buffer.from([0, 1, 2, 255, 254]));
    r.git('rm', '-q', 'gone.txt');
    const before = snapshotFiles(r.dir);

    const run = await start(r);
    expect(r.git('show', '--format=', '--name-status', 'HEAD').split('\n').sort()).toEqual([
      'A\tuntracked dir/new.bin',
      'D\tgone.txt',
      'M\ttracked.txt',
    ]);
    expect(r.git('status', '--porcelain')).toBe('');
    await run.cleanup({ outcome: 'complete' });

    expect(snapshotFiles(r.dir)).toEqual(before);
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(r.git('rev-parse', 'HEAD')).toBe(mainSha);
    // What was staged is staged again (the index saved at the start), the rest unstaged.
    expect(r.git('show', ':tracked.txt')).toBe('one\nstaged');
    expect(r.git('status', '--porcelain').split('\n').sort()).toEqual([
      '?? "untracked dir/"',
      'D  gone.txt',
      'MM tracked.txt',
    ]);
    expect(r.gitStatus('rev-parse', '--verify', '-q', 'refs/heads/ralph/add-auth')).not.toBe(0);
    expect((await readRunState(run.paths.state))?.status).toBe('finished');
  });

  it('starts on a detached HEAD and returns to that commit, detached', async () => {
    const r = repo();
    r.write('a.txt', 'a\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'a');
    const sha = r.git('rev-parse', 'HEAD');
    r.git('checkout', '-q', '--detach', 'HEAD');
    r.write('dirty.txt', 'dirty\n');
    const before = snapshotFiles(r.dir);
    const run = await start(r);
    expect(run.state.originalBranch).toEqual({ kind: 'detached', sha });
    r.write('work.txt', 'work\n');
    await run.acceptStory('1', NO_FIGURES);
    await run.cleanup();
    expect(r.gitStatus('symbolic-ref', '-q', 'HEAD')).not.toBe(0);
    expect(r.git('rev-parse', 'HEAD')).toBe(sha);
    expect(snapshotFiles(r.dir)).toEqual({
      ...before,
      'work.txt': snapshotFiles(r.dir)['work.txt'],
    });
    expect(r.read('work.txt')).toBe('work\n');
  });

  it('starts on an unborn branch and leaves the files untracked on it after cleanup', async () => {
    const r = repo({ commit: false });
    r.write('notes.txt', 'mine\n');
    const run = await start(r);
    expect(run.state.originalBranch).toEqual({ kind: 'unborn', name: 'main' });
    expect(run.state.originalSha).toBeNull();
    expect(r.git('log', '--format=%s', 'ralph/add-auth')).toBe('initial state');
    r.write('src/app.ts', 'export {};\n');
    await run.acceptStory('1', NO_FIGURES);
    await run.cleanup();
    expect(r.git('symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(r.gitStatus('rev-parse', '-q', '--verify', 'HEAD')).not.toBe(0);
    expect(r.git('for-each-ref', 'refs/heads')).toBe('');
    expect(r.git('ls-files')).toBe('');
    expect(r.read('notes.txt')).toBe('mine\n');
    expect(r.read('src/app.ts')).toBe('export {};\n');
    expect(r.git('status', '--porcelain', '--untracked-files=all').split('\n').sort()).toEqual([
      '?? notes.txt',
      '?? src/app.ts',
    ]);
  });

  it('refuses outside a git work tree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralphtool-norepo-'));
    try {
      const error = await startRun(runLocation(dir, 'add-auth')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(/not inside a git work tree/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an invalid change name', async () => {
    const r = repo();
    await expect(start(r, { change: '../Evil' })).rejects.toBeInstanceOf(UsageError);
  });

  it('refuses mid-merge and mid-rebase, changing nothing', async () => {
    const r = repo();
    r.git('checkout', '-q', '-b', 'other');
    r.write('README.md', 'other\n');
    r.git('commit', '-q', '-am', 'other');
    r.git('checkout', '-q', 'main');
    r.write('README.md', 'main\n');
    r.git('commit', '-q', '-am', 'main');
    expect(r.gitStatus('merge', 'other')).not.toBe(0);
    const midMerge = fingerprint(r);
    await expect(start(r)).rejects.toThrow(/a merge is in progress.*git merge --abort/);
    await expect(start(r)).rejects.toBeInstanceOf(UsageError);
    expect(fingerprint(r)).toEqual(midMerge);

    r.git('merge', '--abort');
    expect(r.gitStatus('rebase', 'other')).not.toBe(0);
    const midRebase = fingerprint(r);
    await expect(start(r)).rejects.toThrow(/a rebase is in progress/);
    expect(fingerprint(r)).toEqual(midRebase);
  });

  it('refuses when ralph/<change> exists without a record, and resets it with force', async () => {
    const r = repo();
    r.git('branch', 'ralph/add-auth');
    r.git('checkout', '-q', 'ralph/add-auth');
    r.write('stale.txt', 'stale\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'stale');
    r.git('checkout', '-q', 'main');
    const before = fingerprint(r);
    const error = await start(r).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('git branch -D ralph/add-auth');
    expect((error as Error).message).toContain('--force');
    expect(fingerprint(r)).toEqual(before);

    const run = await start(r, { force: true });
    expect(r.git('rev-parse', 'HEAD^')).toBe(r.git('rev-parse', 'main'));
    expect(existsSync(join(r.dir, 'stale.txt'))).toBe(false);
    expect(run.state.originalBranch).toEqual({ kind: 'branch', name: 'main' });
  });

  for (const [what, name] of [
    ['named like its folder (ralph), the user on it', 'ralph'],
    ['under its name (ralph/add-auth/old)', 'ralph/add-auth/old'],
  ] as const) {
    it(`refuses, before anything changes, when a branch ${what} keeps git from making ralph/<change>; the printed rename is the way on`, async () => {
      const r = repo();
      if (name === 'ralph') r.git('branch', '-m', 'main', 'ralph');
      else r.git('branch', name);
      const before = fingerprint(r);
      const error = await start(r).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      const message = (error as Error).message;
      expect(message).toContain(`while the branch ${name} exists`);
      expect(fingerprint(r)).toEqual(before);
      const rename = /`git (branch -m \S+ <new-name>)`/.exec(message)?.[1] ?? '';
      expect(rename).toBe(`branch -m ${name} <new-name>`);
      r.git(...rename.replace('<new-name>', 'mine').split(' '));
      const run = await start(r);
      expect(run.branch).toBe('ralph/add-auth');
    });
  }

  it('refuses when an active run is recorded, naming resume and finish, even with force', async () => {
    const r = repo();
    await start(r);
    r.git('checkout', '-q', 'main');
    const before = fingerprint(r);
    for (const force of [false, true]) {
      const error = await start(r, { force }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain('ralphtool resume add-auth');
      expect((error as Error).message).toContain('ralphtool finish add-auth --cleanup|--keep');
    }
    expect(fingerprint(r)).toEqual(before);
  });

  it('refuses to start while HEAD is on ralph/<change> itself', async () => {
    const r = repo();
    r.git('checkout', '-q', '-b', 'ralph/add-auth');
    await expect(start(r, { force: true })).rejects.toThrow(/switch to your own branch/);
  });

  it('works from a linked worktree: the state lives in the common git dir', async () => {
    const r = repo();
    const linked = join(r.dir, '..', `${r.dir.split('/').pop() ?? 'x'}-linked`);
    r.git('worktree', 'add', '-q', '-b', 'feature', linked);
    try {
      const run = await startRun(runLocation(linked, 'add-auth'));
      expect(run.paths.dir).toBe(
        join(r.git('rev-parse', '--show-toplevel'), '.git/ralphtool/add-auth'),
      );
      expect(run.state.originalBranch).toEqual({ kind: 'branch', name: 'feature' });
      // The main work tree is not the run's: opening it there is refused, naming the worktree.
      await expect(openRun(runLocation(r.dir, 'add-auth'))).rejects.toThrow(
        `ralphtool -C ${linked} resume add-auth`,
      );
      const reopened = await openRun(runLocation(linked, 'add-auth'));
      expect(reopened.state.checkpointSha).toBe(run.state.checkpointSha);
      await run.cleanup();
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });
});
