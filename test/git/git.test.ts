import { describe, expect, it } from 'vitest';
import { RalphError, RuntimeError } from '../../src/core/errors.js';
import { dirname } from 'node:path';
import { git, gitOut } from '../../src/git/git.js';
import { GitError } from '../../src/git/git-error.js';
import { headPosition, locateRepo } from '../../src/git/repo.js';
import { operationInProgress, parsePorcelainZ, statusEntries } from '../../src/git/status.js';
import { repoPerTest, TIMEOUT_MS } from './helpers.js';

const repo = repoPerTest();

describe('git()', () => {
  it('names a working folder that is gone (deleted under it), not a missing git; a missing git is named as such', async () => {
    const r = repo();
    const gone = `${r.dir}/deleted-worktree`;
    const error = await git({ cwd: gone, timeoutMs: TIMEOUT_MS, baseEnv: process.env }, [
      'status',
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as Error).message).toContain(`the folder ${gone} is gone`);
    expect((error as Error).message).not.toContain('not found on PATH');

    const noGit = await git(
      { cwd: r.dir, timeoutMs: TIMEOUT_MS, baseEnv: { PATH: '/nonexistent' } },
      ['status'],
    ).catch((e: unknown) => e);
    expect((noGit as Error).message).toContain('git was not found on PATH');
  });

  it('runs git with a quiet environment: no pager, no editor, no prompt', async () => {
    const r = repo();
    const ctx = { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS };
    expect(await gitOut(ctx, ['var', 'GIT_PAGER'])).toBe('cat');
    expect(await gitOut(ctx, ['var', 'GIT_EDITOR'])).toBe('true');
    expect(await gitOut(ctx, ['config', 'core.quotepath'])).toBe('false');
  });

  it('ignores GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE inherited from a parent process', async () => {
    const r = repo();
    const other = repo();
    const saved = { ...process.env };
    process.env.GIT_DIR = `${other.dir}/.git`;
    process.env.GIT_WORK_TREE = other.dir;
    process.env.GIT_INDEX_FILE = `${other.dir}/.git/elsewhere`;
    try {
      const top = await gitOut({ baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS }, [
        'rev-parse',
        '--show-toplevel',
      ]);
      expect(top).toBe(r.git('rev-parse', '--show-toplevel'));
    } finally {
      for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });

  it("starts git from the context's baseEnv (the command's environment), not its own", async () => {
    const r = repo();
    expect(process.env.GIT_AUTHOR_NAME).not.toBe('from-base');
    const baseEnv = { ...process.env, GIT_AUTHOR_NAME: 'from-base' };
    const ident = await gitOut({ baseEnv, cwd: r.dir, timeoutMs: TIMEOUT_MS }, [
      'var',
      'GIT_AUTHOR_IDENT',
    ]);
    expect(ident).toMatch(/^from-base </);
  });

  it('lets a caller set GIT_INDEX_FILE on purpose', async () => {
    const r = repo();
    r.write('new.txt', 'x');
    const ctx = { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS };
    const env = { GIT_INDEX_FILE: `${r.dir}/.git/scratch-index` };
    await git(ctx, ['add', 'new.txt'], { env });
    expect(await gitOut(ctx, ['ls-files'], { env })).toBe('new.txt');
    expect(r.git('ls-files')).toBe('README.md');
  });

  it('prints non-ASCII file names as they are', async () => {
    const r = repo();
    r.write('café☕.txt', 'x');
    const out = await gitOut({ baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS }, [
      'status',
      '--porcelain',
    ]);
    expect(out).toBe('?? café☕.txt');
  });

  it('turns a failure into a one-line GitError with the command, exit code and stderr', async () => {
    const r = repo();
    const failing = git({ baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS }, [
      'checkout',
      'no-such-branch',
    ]);
    const error = await failing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toBeInstanceOf(RalphError);
    const gitError = error as GitError;
    expect(gitError.exitCode).toBe(1);
    expect(gitError.gitExitCode).not.toBe(0);
    expect(gitError.message).toMatch(/`git checkout no-such-branch` failed with exit code \d+/);
    expect(gitError.message).toContain('no-such-branch');
    expect(gitError.message).not.toContain('\n');
  });

  it('returns a failure instead of throwing with allowFailure', async () => {
    const r = repo();
    const result = await git(
      { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS },
      ['config', '--get', 'no.such'],
      {
        allowFailure: true,
      },
    );
    expect(result.exitCode).toBe(1);
  });

  it('says to raise --command-timeout when git times out', async () => {
    const r = repo();
    // git runs GIT_SSH_COMMAND for an ssh URL (through sh, with the host and command as
    // arguments, commented out here): a command that never ends stands in for a hung remote.
    const ctx = {
      baseEnv: process.env,
      cwd: r.dir,
      timeoutMs: 500,
      env: { GIT_SSH_COMMAND: 'sleep 60 #' },
    };
    const error = await git(ctx, ['ls-remote', 'ssh://example.invalid/repo.git']).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).timedOut).toBe(true);
    expect((error as GitError).message).toMatch(/timed out after .*--command-timeout/);
  });

  it('reports git missing from PATH as a RuntimeError', async () => {
    const r = repo();
    const error = await git(
      { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS, env: { PATH: '/nonexistent' } },
      ['status'],
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as Error).message).toMatch(/git was not found on PATH/);
  });
});

describe('repository verbs', () => {
  it('finds the top level and an absolute git common dir from a subdirectory', async () => {
    const r = repo();
    r.write('sub/dir/file.txt', 'x');
    const found = await locateRepo({
      baseEnv: process.env,
      cwd: `${r.dir}/sub/dir`,
      timeoutMs: TIMEOUT_MS,
    });
    expect(found?.root).toBe(r.git('rev-parse', '--show-toplevel'));
    expect(found?.gitCommonDir).toBe(`${found?.root}/.git`);
    expect(found?.gitDir).toBe(`${found?.root}/.git`);
  });

  it('returns null outside a work tree: inside .git, a bare repository, no repository', async () => {
    const r = repo();
    const at = (cwd: string) => locateRepo({ baseEnv: process.env, cwd, timeoutMs: TIMEOUT_MS });
    expect(await at(`${r.dir}/.git`)).toBeNull();
    expect(await at(`${r.dir}/.git/refs`)).toBeNull();
    r.git('clone', '-q', '--bare', '.', 'bare.git');
    expect(await at(`${r.dir}/bare.git`)).toBeNull();
    // The folder above the repository holds none (a temporary folder of its own).
    expect(await at(dirname(r.dir))).toBeNull();
  });

  it('finds a linked worktree: its own git directory, the common one shared', async () => {
    const r = repo();
    r.git('worktree', 'add', '-q', 'linked');
    const found = await locateRepo({
      baseEnv: process.env,
      cwd: `${r.dir}/linked`,
      timeoutMs: TIMEOUT_MS,
    });
    const root = r.git('rev-parse', '--show-toplevel');
    expect(found).toEqual({
      root: `${root}/linked`,
      gitDir: `${root}/.git/worktrees/linked`,
      gitCommonDir: `${root}/.git`,
    });
  });

  it('tells a branch, a detached HEAD and an unborn branch apart', async () => {
    const r = repo();
    const ctx = { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS };
    const sha = r.git('rev-parse', 'HEAD');
    expect(await headPosition(ctx)).toEqual({ kind: 'branch', name: 'main', sha });
    r.git('checkout', '-q', '--detach');
    expect(await headPosition(ctx)).toEqual({ kind: 'detached', sha });
    r.git('checkout', '-q', '--orphan', 'fresh');
    expect(await headPosition(ctx)).toEqual({ kind: 'unborn', name: 'fresh' });
  });

  it('detects a merge in progress and lists changes with -z parsing', async () => {
    const r = repo();
    const ctx = { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS };
    r.git('checkout', '-q', '-b', 'other');
    r.write('README.md', 'other\n');
    r.git('commit', '-q', '-am', 'other');
    r.git('checkout', '-q', 'main');
    r.write('README.md', 'main\n');
    r.git('commit', '-q', '-am', 'main');
    expect(await operationInProgress(`${r.dir}/.git`)).toBeNull();
    expect(r.gitStatus('merge', 'other')).not.toBe(0);
    expect(await operationInProgress(`${r.dir}/.git`)).toBe('merge');
    expect(await statusEntries(ctx)).toEqual([{ code: 'UU', path: 'README.md' }]);
  });

  it('parses renames in porcelain -z output', () => {
    expect(parsePorcelainZ('R  new name\0old name\0?? x\0')).toEqual([
      { code: 'R ', path: 'new name', from: 'old name' },
      { code: '??', path: 'x' },
    ]);
  });
});
