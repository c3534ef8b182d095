import { repairNotice } from '../../src/run/repair-notice.js';
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRun } from '../../src/checkpoint/open.js';
import type { CheckpointRun } from '../../src/checkpoint/checkpoint.js';
import { inspect } from '../../src/checkpoint/inspect.js';
import { startRun } from '../../src/checkpoint/start.js';
import { readRunState } from '../../src/checkpoint/state.js';
import { makeRepo, snapshotFiles, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

async function started(
  setup?: (r: TempRepo) => void,
): Promise<{ r: TempRepo; run: CheckpointRun }> {
  const r = makeRepo();
  repos.push(r);
  setup?.(r);
  const run = await startRun(runLocation(r.dir, 'add-auth'));
  return { r, run };
}

describe('accept, keep and cleanup', () => {
  it('accept twice then keep: "initial state" and one checkpoint commit per story, in order', async () => {
    const { r, run } = await started();
    r.write('one.txt', '1\n');
    const first = await run.acceptStory('1', NO_FIGURES);
    r.write('two.txt', '2\n');
    const second = await run.acceptStory('2', NO_FIGURES);
    expect(run.state.checkpointSha).toBe(second);
    expect(r.git('rev-parse', 'HEAD')).toBe(second);
    expect(r.git('rev-parse', `${second}^`)).toBe(first);
    await run.keep({ outcome: 'complete' });
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('ralph/add-auth');
    expect(r.git('log', '--format=%s', 'main..HEAD')).toBe(
      'checkpoint: 2\ncheckpoint: 1\ninitial state',
    );
    expect(r.git('status', '--porcelain')).toBe('');
    const state = await readRunState(run.paths.state);
    expect(state).toMatchObject({
      status: 'finished',
      choice: 'keep',
      outcome: 'complete',
      step: null,
    });
  });

  it('accept twice then cleanup: branch gone, everything unstaged, main unchanged', async () => {
    const { r, run } = await started((repo) => {
      repo.write('lib.txt', 'old\n');
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', 'lib');
    });
    const mainLog = r.git('log', '--format=%H', 'main');
    r.write('one.txt', '1\n');
    r.write('lib.txt', 'new\n');
    await run.acceptStory('1', NO_FIGURES);
    r.write('two/deep.txt', '2\n');
    rmSync(join(r.dir, 'README.md'));
    await run.acceptStory('2', NO_FIGURES);
    await run.cleanup({ outcome: 'complete' });
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(r.git('log', '--format=%H', 'main')).toBe(mainLog);
    expect(r.git('branch', '--list', 'ralph/*')).toBe('');
    expect(r.git('diff', '--cached', '--name-only')).toBe('');
    expect(r.git('status', '--porcelain', '--untracked-files=all').split('\n').sort()).toEqual([
      ' D README.md',
      ' M lib.txt',
      '?? one.txt',
      '?? two/deep.txt',
    ]);
    expect(r.read('lib.txt')).toBe('new\n');
    const state = await readRunState(run.paths.state);
    expect(state).toMatchObject({ status: 'finished', choice: 'cleanup', outcome: 'complete' });
    await expect(run.acceptStory('3', NO_FIGURES)).rejects.toThrow(/already finished/);
  });

  it('folds commits the agent made into the story checkpoint', async () => {
    const { r, run } = await started();
    const base = run.checkpointSha;
    r.write('a.txt', 'a\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'agent commit');
    r.write('b.txt', 'b\n');
    const sha = await run.acceptStory('1', NO_FIGURES);
    expect(r.git('rev-parse', `${sha}^`)).toBe(base);
    expect(r.git('show', '--format=', '--name-only', sha).split('\n').sort()).toEqual([
      'a.txt',
      'b.txt',
    ]);
  });
});

describe('revert', () => {
  it('puts the tree back exactly and keeps the attempt readable from its ref', async () => {
    const { r, run } = await started((repo) => {
      repo.write('.gitignore', '.env\nnode_modules/\n');
      repo.write('keep.txt', 'keep\n');
      repo.write('edit.txt', 'before\n');
      repo.write('delete-me.txt', 'delete\n');
      repo.write('rename-me.txt', 'rename\n');
      repo.write('dir/nested.txt', 'nested\n');
      repo.git('add', '-A');
      repo.git('commit', '-q', '-m', 'project');
      repo.write('.env', 'SECRET=1\n');
      repo.write('node_modules/pkg/index.js', 'module.exports = 1;\n');
      repo.write('user-untracked.txt', 'mine\n');
    });
    const checkpoint = run.checkpointSha;
    const atCheckpoint = snapshotFiles(r.dir);

    // The attempt: edits, deletes, renames, new files and directories, its own commits,
    // a new branch, the run's branch deleted, and an ignored file changed.
    r.write('edit.txt', 'after\n');
    rmSync(join(r.dir, 'delete-me.txt'));
    r.git('mv', 'rename-me.txt', 'renamed.txt');
    r.write('newfile.txt', 'brand new\n');
    r.write('new dir/deeper/file.txt', 'deep\n');
    mkdirSync(join(r.dir, 'empty-dir'));
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'agent work');
    const agentCommit = r.git('rev-parse', 'HEAD');
    r.git('checkout', '-q', '-b', 'agent-branch');
    r.git('branch', '-D', 'ralph/add-auth');
    r.write('after-commit.txt', 'uncommitted\n');
    r.write('node_modules/pkg/new.js', 'new\n');

    const result = await run.revert('1', 1);

    expect(result).toEqual({ toSha: checkpoint, savedRef: 'refs/ralphtool/add-auth/attempts/1-1' });
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('ralph/add-auth');
    expect(r.git('rev-parse', 'HEAD')).toBe(checkpoint);
    expect(r.git('status', '--porcelain', '--untracked-files=all')).toBe('');
    const { 'node_modules/pkg/new.js': ignoredNew, ...rest } = snapshotFiles(r.dir);
    expect(rest).toEqual(atCheckpoint);
    expect(ignoredNew).toBeDefined(); // ignored files are never deleted

    const ref = result.savedRef;
    expect(r.git('show', `${ref}:newfile.txt`)).toBe('brand new');
    expect(r.git('show', `${ref}:edit.txt`)).toBe('after');
    expect(r.git('show', `${ref}:renamed.txt`)).toBe('rename');
    expect(r.git('show', `${ref}:after-commit.txt`)).toBe('uncommitted');
    expect(r.git('show', `${ref}:new dir/deeper/file.txt`)).toBe('deep');
    expect(r.gitStatus('cat-file', '-e', `${ref}:delete-me.txt`)).not.toBe(0);
    expect(r.gitStatus('cat-file', '-e', `${ref}:.env`)).not.toBe(0);
    expect(r.git('rev-list', '--parents', '-n1', ref).split(' ').slice(1)).toEqual([
      checkpoint,
      agentCommit,
    ]);
    expect(r.git('rev-parse', 'agent-branch')).toBe(agentCommit);
    expect(run.state.step).toBeNull();
  });

  it('creates the ref even when the attempt changed nothing', async () => {
    const { r, run } = await started();
    const { savedRef } = await run.revert('2', 3);
    expect(r.git('rev-parse', `${savedRef}^{tree}`)).toBe(r.git('rev-parse', 'HEAD^{tree}'));
    expect(r.git('rev-parse', `${savedRef}^`)).toBe(run.checkpointSha);
    expect(await run.attemptRefs()).toEqual([savedRef]);
    expect(await run.pruneAttemptRefs()).toBe(1);
    expect(await run.attemptRefs()).toEqual([]);
  });

  it('leaves a conflicted merge, a rebase and a bisect the agent started', async () => {
    const { r, run } = await started();
    const checkpoint = run.checkpointSha;
    r.git('checkout', '-q', '-b', 'side');
    r.write('README.md', 'side\n');
    r.git('commit', '-q', '-am', 'side');
    r.git('checkout', '-q', 'ralph/add-auth');
    r.write('README.md', 'ours\n');
    r.git('commit', '-q', '-am', 'ours');
    expect(r.gitStatus('merge', 'side')).not.toBe(0);
    await run.revert('1', 1);
    expect(existsSync(join(r.dir, '.git/MERGE_HEAD'))).toBe(false);
    expect(r.git('status', '--porcelain')).toBe('');
    expect(r.git('rev-parse', 'HEAD')).toBe(checkpoint);

    r.write('README.md', 'ours again\n');
    r.git('commit', '-q', '-am', 'ours again');
    expect(r.gitStatus('rebase', 'side')).not.toBe(0);
    await run.revert('1', 2);
    expect(existsSync(join(r.dir, '.git/rebase-merge'))).toBe(false);
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('ralph/add-auth');
    expect(r.git('rev-parse', 'HEAD')).toBe(checkpoint);

    r.git('bisect', 'start', 'side', 'main');
    await run.revert('1', 3);
    expect(existsSync(join(r.dir, '.git/BISECT_LOG'))).toBe(false);
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('ralph/add-auth');
    expect((await inspect(runLocation(r.dir, 'add-auth'))).atCheckpoint).toBe(true);
  });

  it('saves files the attempt hid with .gitignore before cleaning them', async () => {
    const { r, run } = await started();
    r.write('.gitignore', 'hidden.txt\n');
    r.write('hidden.txt', 'agent work\n');
    const { savedRef } = await run.revert('1', 1);
    expect(existsSync(join(r.dir, 'hidden.txt'))).toBe(false);
    expect(r.git('show', `${savedRef}:hidden.txt`)).toBe('agent work');
    expect(r.git('show', `${savedRef}:.gitignore`)).toBe('hidden.txt');
  });
});

describe('ensureAtCheckpoint and inspect', () => {
  it('does nothing at the checkpoint and repairs anything else through the revert path', async () => {
    const { r, run } = await started();
    expect(await run.ensureAtCheckpoint()).toEqual({
      repaired: false,
      savedRef: null,
      fromBranch: null,
      keptCommits: null,
    });
    await run.startAttempt('4', 2);
    r.write('leftover.txt', 'x\n');
    r.git('checkout', '-q', '--detach');
    const before = await inspect(runLocation(r.dir, 'add-auth'));
    expect(before).toMatchObject({ onRunBranch: false, atCheckpoint: false, clean: false });
    expect(before.changes).toEqual([{ code: '??', path: 'leftover.txt' }]);
    const repaired = await run.ensureAtCheckpoint();
    // A detached HEAD is no branch of the user's: nothing more to say about it.
    expect(repaired).toEqual({
      repaired: true,
      savedRef: 'refs/ralphtool/add-auth/attempts/4-2',
      fromBranch: null,
      keptCommits: null,
    });
    const after = await inspect(runLocation(r.dir, 'add-auth'));
    expect(after).toMatchObject({
      onRunBranch: true,
      atCheckpoint: true,
      clean: true,
      operation: null,
      checkpointSha: run.checkpointSha,
      branchSha: run.checkpointSha,
    });
    expect(after.state?.currentStory).toBe('4');
  });

  it('commits made on the run branch past its checkpoint (a fix after a crash) are kept under a ref and named', async () => {
    const { r, run } = await started();
    await run.startAttempt('4', 2);
    r.write('fix.txt', 'my fix\n');
    r.git('add', 'fix.txt');
    r.git('commit', '-q', '-m', 'my fix after the crash');
    const mine = r.git('rev-parse', 'HEAD').trim();
    const short = r.git('rev-parse', '--short', 'HEAD').trim();
    r.write('loose.txt', 'not committed\n');
    const repaired = await run.ensureAtCheckpoint();
    expect(repaired.repaired).toBe(true);
    const kept = repaired.keptCommits;
    expect(kept?.ref).toMatch(/^refs\/ralphtool\/add-auth\/commits\/\d+$/);
    expect(kept?.commits).toEqual([`${short} my fix after the crash`]);
    expect(r.git('rev-parse', kept?.ref ?? '').trim()).toBe(mine);
    // The branch is back at its checkpoint; the commit's history is whole under the ref.
    expect(r.git('rev-parse', 'ralph/add-auth').trim()).toBe(run.checkpointSha);
    expect(r.git('show', `${kept?.ref ?? ''}:fix.txt`)).toBe('my fix');
    const said = repairNotice(repaired, 'ralph/add-auth') ?? '';
    expect(said).toContain(`"${short} my fix after the crash"`);
    expect(said).toContain(`kept as ${kept?.ref ?? ''}`);
  });

  it('inspects a repository without a run', async () => {
    const r = makeRepo();
    repos.push(r);
    const seen = await inspect(runLocation(r.dir, 'add-auth'));
    expect(seen).toMatchObject({ state: null, branchSha: null, onRunBranch: false, clean: true });
    expect(seen.head).toEqual({ kind: 'branch', name: 'main', sha: r.git('rev-parse', 'HEAD') });
  });
});

describe('files git finds awkward', () => {
  it('handles spaces, unicode, leading dashes, symlinks and modes through accept, revert and cleanup', async () => {
    const names = ['with space.txt', 'ünïcödé ☕.txt', '-rf', '--force.txt', 'dir with space/-x'];
    const { r, run } = await started((repo) => {
      repo.write('-leading.txt', 'user\n');
    });
    const start = snapshotFiles(r.dir);
    for (const name of names) r.write(name, `${name}\n`);
    symlinkSync('with space.txt', join(r.dir, 'link to space'));
    r.write('tool.sh', '#!/bin/sh\n');
    chmodSync(join(r.dir, 'tool.sh'), 0o755);
    const accepted = snapshotFiles(r.dir);
    await run.acceptStory('1', NO_FIGURES);
    expect(r.git('status', '--porcelain')).toBe('');

    r.write('with space.txt', 'changed\n');
    rmSync(join(r.dir, '-rf'));
    r.write('--new--', 'new\n');
    const { savedRef } = await run.revert('2', 1);
    expect(snapshotFiles(r.dir)).toEqual(accepted);
    expect(r.git('show', `${savedRef}:--new--`)).toBe('new');

    await run.cleanup();
    expect(snapshotFiles(r.dir)).toEqual(accepted);
    expect(r.git('diff', '--cached', '--name-only')).toBe('');
    expect(start['-leading.txt']).toBeDefined();
    expect(r.read('-leading.txt')).toBe('user\n');
  });
});

describe('openRun', () => {
  it('loads a recorded run and refuses when none is recorded', async () => {
    const { r, run } = await started();
    r.write('x.txt', 'x\n');
    await run.acceptStory('1', NO_FIGURES);
    const reopened = await openRun(runLocation(r.dir, 'add-auth'));
    expect(reopened.state).toEqual(run.state);
    expect(reopened.checkpointSha).toBe(run.checkpointSha);
    await expect(openRun(runLocation(r.dir, 'other-change'))).rejects.toThrow(
      /no run of other-change is recorded/,
    );
  });
});
