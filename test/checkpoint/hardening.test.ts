import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../src/core/errors.js';
import { openRun } from '../../src/checkpoint/open.js';
import { GitError } from '../../src/git/git-error.js';
import { startRun } from '../../src/checkpoint/start.js';
import { readRunState, writeRunState } from '../../src/checkpoint/state.js';
import { makeRepo, snapshotFiles, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function repo(...args: Parameters<typeof makeRepo>): TempRepo {
  const made = makeRepo(...args);
  cleanups.push(() => made.remove());
  return made;
}
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralphtool-home-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
function hook(r: TempRepo, name: string, body: string): void {
  const path = join(r.dir, '.git/hooks', name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}
const open = (r: TempRepo) => openRun(runLocation(r.dir, 'add-auth'));

describe('checkpoints whatever the repository is configured to do', () => {
  it('never runs the hooks: a failing pre-commit and others that would leave traces', async () => {
    const r = repo();
    hook(r, 'pre-commit', 'exit 1');
    hook(r, 'commit-msg', 'exit 1');
    hook(r, 'prepare-commit-msg', 'echo hooked > "$1"; touch prepare-ran');
    hook(r, 'post-commit', 'touch post-commit-ran');
    hook(r, 'post-checkout', 'touch post-checkout-ran');
    hook(r, 'post-merge', 'touch post-merge-ran');
    hook(r, 'reference-transaction', 'exit 1');
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('a.txt', 'a\n');
    await run.acceptStory('1', NO_FIGURES);
    r.write('b.txt', 'b\n');
    await run.revert('2', 1);
    await run.cleanup();
    expect(Object.keys(snapshotFiles(r.dir)).sort()).toEqual(['README.md', 'a.txt']);
    expect(r.git('log', '--format=%s', '--all')).toMatch(/initial state/);
  });

  it('never signs, even with commit.gpgsign=true and a gpg that always fails', async () => {
    const r = repo();
    r.git('config', 'commit.gpgsign', 'true');
    r.git('config', 'gpg.program', 'false');
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('a.txt', 'a\n');
    const sha = await run.acceptStory('1', NO_FIGURES);
    expect(r.git('cat-file', '-p', sha)).not.toContain('gpgsig');
    await run.revert('2', 1);
    await run.keep();
  });

  it('uses the repository identity when there is one', async () => {
    const r = repo();
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', run.checkpointSha)).toBe(
      'Test User <test@example.com>|Test User <test@example.com>',
    );
  });

  it('falls back to ralphtool <ralphtool@localhost> without any identity, writing no config', async () => {
    const home = tempDir();
    const env = { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const r = repo({ identity: false, commit: false, env });
    r.write('a.txt', 'a\n');
    const configBefore = r.git('config', '--local', '--list');
    const opts = { ...runLocation(r.dir, 'add-auth'), env };
    const run = await startRun(opts);
    r.write('b.txt', 'b\n');
    const sha = await run.acceptStory('1', NO_FIGURES);
    r.write('c.txt', 'c\n');
    const { savedRef } = await run.revert('2', 1);
    for (const commit of [run.state.baseSha ?? '', sha, savedRef]) {
      expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', commit)).toBe(
        'ralphtool <ralphtool@localhost>|ralphtool <ralphtool@localhost>',
      );
    }
    expect(r.git('config', '--local', '--list')).toBe(configBefore);
  });

  it('falls back only for the part that is missing, and for a name emptied by a later setting', async () => {
    const home = tempDir();
    const env = { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const r = repo({ identity: false, commit: false, env });
    r.git('config', 'user.name', 'Only A Name');
    r.write('a.txt', 'a\n');
    const opts = { ...runLocation(r.dir, 'add-auth'), env };
    const run = await startRun(opts);
    expect(r.git('log', '-1', '--format=%an <%ae>', run.checkpointSha)).toBe(
      'Only A Name <ralphtool@localhost>',
    );
    // A later empty value wins over the earlier one, as for git itself (which would refuse it).
    r.git('config', '--add', 'user.name', '');
    r.git('config', 'user.email', 'me@example.com');
    r.write('b.txt', 'b\n');
    // Reopened: config changed while a run holds the repository is put back (repo-guard.ts).
    const reopened = await openRun(opts);
    const sha = await reopened.acceptStory('1', NO_FIGURES);
    expect(r.git('log', '-1', '--format=%an <%ae>', sha)).toBe('ralphtool <me@example.com>');
  });
});

describe('interrupted sequences', () => {
  it('leaves the step marker when git fails, and finishes the step on the next call', async () => {
    const r = repo();
    // A required clean filter that fails makes `git add` fail inside the accept sequence. It
    // is configured before the start: config changed during the run would be put back.
    r.git('config', 'filter.boom.clean', 'false');
    r.git('config', 'filter.boom.required', 'true');
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('a.txt', 'a\n');
    r.write('.gitattributes', 'a.txt filter=boom\n');
    const figures = { costUsd: 0.25, durationMs: 1500 };
    const error = await run.acceptStory('1', figures).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toMatch(/boom|filter/);
    const step = { op: 'accept', storyId: '1', figures };
    expect((await readRunState(run.paths.state))?.step).toEqual(step);
    r.git('config', '--unset', 'filter.boom.required');
    r.git('config', '--unset', 'filter.boom.clean');
    const reopened = await open(r);
    expect(await reopened.finishInterruptedStep()).toEqual(step);
    expect(reopened.state.step).toBeNull();
    // The figures kept in the step are recorded by the replay, once.
    expect(reopened.state.stories['1']).toMatchObject({ completed: true, ...figures });
    expect(reopened.state.costUsd).toBe(0.25);
    expect(r.git('log', '-1', '--format=%s')).toBe('checkpoint: 1');
    expect(reopened.checkpointSha).toBe(r.git('rev-parse', 'HEAD'));
  });

  it('reuses an accept commit made just before a crash instead of committing twice', async () => {
    const r = repo();
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    const base = run.checkpointSha;
    r.write('a.txt', 'a\n');
    const sha = await run.acceptStory('1', NO_FIGURES);
    await writeRunState(run.paths.state, {
      ...run.state,
      checkpointSha: base,
      step: { op: 'accept', storyId: '1' },
    });
    const reopened = await open(r);
    await reopened.ensureAtCheckpoint();
    expect(reopened.checkpointSha).toBe(sha);
    expect(r.git('rev-list', '--count', `${base}..HEAD`)).toBe('1');
  });

  it('finishes a start interrupted before or after the "initial state" commit', async () => {
    const r = repo();
    r.write('mine.txt', 'mine\n');
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    const base = run.checkpointSha;
    const pending = {
      ...run.state,
      baseSha: null,
      checkpointSha: null,
      step: { op: 'start' as const },
    };
    await writeRunState(run.paths.state, pending);
    const afterCommit = await open(r);
    await afterCommit.finishInterruptedStep();
    expect(afterCommit.checkpointSha).toBe(base);
    expect(r.git('rev-list', '--count', 'main..HEAD')).toBe('1');

    // Crash right after the state was first written: HEAD still on main.
    await afterCommit.cleanup();
    await writeRunState(run.paths.state, { ...pending, status: 'active', choice: null });
    const beforeCheckout = await open(r);
    await beforeCheckout.ensureAtCheckpoint();
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('ralph/add-auth');
    expect(r.git('log', '--format=%s', 'main..HEAD')).toBe('initial state');
    expect(r.git('show', 'HEAD:mine.txt')).toBe('mine');
  });

  it('finishes a revert interrupted after the save, keeping the saved work', async () => {
    const r = repo();
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('work.txt', 'work\n');
    const { savedRef } = await run.revert('1', 1);
    const saved = r.git('rev-parse', savedRef);
    await writeRunState(run.paths.state, {
      ...run.state,
      step: { op: 'revert', storyId: '1', attempt: 1 },
    });
    const reopened = await open(r);
    await reopened.ensureAtCheckpoint();
    expect(r.git('rev-parse', savedRef)).toBe(saved);
    expect(r.git('show', `${savedRef}:work.txt`)).toBe('work');
    expect(reopened.state.step).toBeNull();
  });

  it('finishes a cleanup interrupted between the squash and the reset', async () => {
    const r = repo();
    r.write('user.txt', 'user\n');
    const before = snapshotFiles(r.dir);
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('story.txt', 'story\n');
    await run.acceptStory('1', NO_FIGURES);
    const expected = { ...before, 'story.txt': snapshotFiles(r.dir)['story.txt'] };
    await writeRunState(run.paths.state, { ...run.state, step: { op: 'cleanup' } });
    r.git('checkout', '-q', 'main');
    r.git('merge', '-q', '--squash', 'ralph/add-auth');
    const reopened = await open(r);
    await reopened.cleanup();
    expect(snapshotFiles(r.dir)).toEqual(expected);
    expect(r.git('diff', '--cached', '--name-only')).toBe('');
    expect(r.git('branch', '--list', 'ralph/*')).toBe('');
    expect(reopened.state).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
  });

  it('reports a corrupt state file clearly', async () => {
    const r = repo();
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    writeFileSync(run.paths.state, '{ broken');
    const error = await open(r).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeError);
    const message = (error as Error).message;
    expect(message).toContain(run.paths.state);
    expect(message).toContain(`delete the folder ${run.paths.dir}`);
    expect(message).toContain('git branch -D ralph/add-auth');
    expect(message).not.toContain('<change>');

    // The way out it gives works: forget the run, drop (or keep) the branch, start again.
    rmSync(run.paths.dir, { recursive: true });
    r.git('checkout', '-q', 'main');
    r.git('branch', '-D', 'ralph/add-auth');
    const again = await startRun(runLocation(r.dir, 'add-auth'));
    expect(again.state.status).toBe('active');
  });

  it('a cleanup whose original branch was deleted gives only a way out that works', async () => {
    const r = repo();
    const mainSha = r.git('rev-parse', 'main');
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('story.txt', 'story\n');
    await run.acceptStory('1', NO_FIGURES);
    r.git('branch', '-D', 'main');

    const failed = await run.cleanup().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(RuntimeError);
    const message = (failed as Error).message;
    expect(message).toContain(`recreate it (\`git branch main ${mainSha}\`)`);
    // Keeping is refused while the cleanup is under way, so it must not be offered.
    expect(message).not.toContain('--keep');
    await expect((await open(r)).keep()).rejects.toThrow(/finish add-auth --cleanup/);

    // Following the advice ends the run.
    r.git('branch', 'main', mainSha);
    const reopened = await open(r);
    await reopened.cleanup();
    expect(reopened.state).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(r.read('story.txt')).toBe('story\n');
  });

  it('a cleanup whose work conflicts with new commits on the original branch says how to finish it', async () => {
    const r = repo();
    r.write('shared.txt', 'base\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'shared');
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.write('shared.txt', 'from the run\n');
    await run.acceptStory('1', NO_FIGURES);
    // Meanwhile the user commits another version of the same lines on main.
    r.git('checkout', '-q', 'main');
    r.write('shared.txt', 'from the user\n');
    r.git('commit', '-q', '-am', 'user edit');
    const userCommit = r.git('rev-parse', 'main');

    const failed = await open(r).then((reopened) => reopened.cleanup().catch((e: unknown) => e));
    expect(failed).toBeInstanceOf(RuntimeError);
    const message = (failed as Error).message;
    expect(message).toContain(
      'conflicts with what your branch got since the run started (shared.txt)',
    );
    expect(message).toContain('`git reset` and `git branch -D ralph/add-auth`');
    expect(message).toContain('`ralphtool finish add-auth --cleanup` marks the run finished');
    expect(r.git('rev-parse', 'main')).toBe(userCommit);
    expect(r.git('show', 'ralph/add-auth:shared.txt')).toBe('from the run');

    // Following it: resolve, unstage, drop the branch, then finish --cleanup ends the run.
    r.write('shared.txt', 'merged\n');
    r.git('reset', '-q');
    r.git('branch', '-D', 'ralph/add-auth');
    const reopened = await open(r);
    await reopened.cleanup();
    expect(reopened.state).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(r.read('shared.txt')).toBe('merged\n');
  });
});
