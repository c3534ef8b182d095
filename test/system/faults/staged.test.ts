import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanGitEnv } from '../../support/temp-repo.js';
import { crashWhileAgentRuns } from './support/crash.js';
import { FaultWorld, succeed } from './support/world.js';

// Fault matrix §1: the staged-vs-unstaged distinction. The start's `git add -A` commits the
// work tree, and the cleanup brings everything back unstaged, so a file staged in one version
// and changed again in the work tree would lose its staged version. The start saves the index
// under refs/ralphtool/<change>/user-index; the cleanup stages those versions again where the
// run did not change the file, and says where the rest is saved; keep says where it is saved.

const CHANGE = 'staged';
const REF = `refs/ralphtool/${CHANGE}/user-index`;
const AGENT_FILES = ['src/one.txt', 'src/two.txt', `openspec/changes/${CHANGE}/tasks.md`];

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A user mid-way through staging: every kind of staged change, some edited again after. */
function stagedWorld(scenarioTouchesApp: boolean): FaultWorld {
  world = new FaultWorld(CHANGE, 2, { extraFiles: { 'lib/old.txt': 'old\n' } });
  const w = world;
  w.write('src/app.txt', 'app v2 staged\r\n');
  w.git('add', 'src/app.txt');
  w.write('src/app.txt', 'app v3 not staged\n');
  w.write('staged-new.txt', 'new and staged\n');
  w.write('staged-then-edited.txt', 'first\n');
  w.git('add', 'staged-new.txt', 'staged-then-edited.txt');
  w.write('staged-then-edited.txt', 'second\n');
  w.git('rm', '-q', '--', 'README.md');
  w.git('rm', '-q', '--cached', '--', 'lib/old.txt');
  w.git('add', '--', 'docs/draft.md'); // the world's uncommitted edit, fully staged
  w.rebaseline();
  w.scenario({
    '1-1': [
      { write: 'src/app.txt', content: 'clobbered\n' },
      { write: 'staged-new.txt', content: 'clobbered\n' },
      { delete: 'staged-then-edited.txt' },
      { signal: 'FAILED: not yet' },
    ],
    '1-2': scenarioTouchesApp
      ? [{ append: 'src/app.txt', content: 'agent line\n' }, ...succeed('src/one.txt', 'one\n')]
      : succeed('src/one.txt', 'one\n'),
    '2-1': succeed('src/two.txt', 'two\n'),
  });
  return w;
}

/** The index as `ls-files -s` lists it, and the work tree's status without the agent's files. */
function userView(w: FaultWorld): { index: string; status: string[] } {
  return {
    index: w.git('ls-files', '-s'),
    status: w.status().filter((line) => !AGENT_FILES.some((file) => line.endsWith(file))),
  };
}

describe('staged and unstaged versions of the same files', () => {
  it('cleanup stages the staged versions again, next to the unstaged ones and the run’s work', async () => {
    const w = stagedWorld(false);
    const before = userView(w);
    const staged = w.git('show', ':src/app.txt');
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe('main');
    expect(userView(w)).toEqual(before);
    expect(w.git('show', ':src/app.txt')).toBe(staged);
    expect(w.read('src/app.txt')).toBe('app v3 not staged\n');
    expect(w.read('staged-then-edited.txt')).toBe('second\n');
    expect(w.read('lib/old.txt')).toBe('old\n');
    expect(w.exists('README.md')).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.status()).toContain('?? src/one.txt');
    // Everything came back: nothing is left saved.
    expect(w.git('for-each-ref', `refs/ralphtool/${CHANGE}/user-index`)).toBe('');
  });

  it('cleanup after the run changed a staged file: says where its staged version is saved', async () => {
    const w = stagedWorld(true);
    const staged = w.git('show', ':src/app.txt');
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);
    const notice = result.stdout
      .split('\n')
      .filter((line) => line.includes('"type":"error"') && line.includes(REF));
    expect(notice, result.stdout).toHaveLength(1);
    expect(notice[0]).toContain('src/app.txt');
    expect(notice[0]).toContain(`git restore --staged --source=${REF}`);
    expect(w.git('show', `${REF}:src/app.txt`)).toBe(staged);
    // The run's version of that file is in the work tree, unstaged; the others are staged again.
    expect(w.read('src/app.txt')).toBe('app v3 not staged\nagent line\n');
    expect(w.git('show', ':src/app.txt')).toBe('app v1\n');
    expect(w.git('show', ':staged-new.txt')).toBe('new and staged\n');
    expect(w.git('show', ':staged-then-edited.txt')).toBe('first\n');
    expect(w.read('staged-then-edited.txt')).toBe('second\n');

    // And `git restore` as told brings the staged version back.
    w.git('restore', '--staged', `--source=${REF}`, '--', 'src/app.txt');
    expect(w.git('show', ':src/app.txt')).toBe(staged);
  });

  it('finish --cleanup after a crash: the staged versions come back, the rest is named on stderr', async () => {
    const w = stagedWorld(true);
    const staged = w.git('show', ':src/app.txt');
    w.scenario({
      '1-1': [
        { append: 'src/app.txt', content: 'agent line\n' },
        ...succeed('src/one.txt', 'one\n'),
      ],
      '2-1': [{ say: 'working' }, { hang: true }],
    });
    await crashWhileAgentRuns(w, 'working');
    const finished = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(finished.stderr).toContain(`src/app.txt) is saved as ${REF}`);
    expect(w.git('show', `${REF}:src/app.txt`)).toBe(staged);
    expect(w.git('show', ':staged-new.txt')).toBe('new and staged\n');
    expect(w.git('show', ':staged-then-edited.txt')).toBe('first\n');
    expect(w.git('show', ':docs/draft.md')).toBe('draft v2, not committed yet\n');
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('keep: the files stay as they are and the staged versions are saved under a named ref', async () => {
    const w = stagedWorld(false);
    const staged = {
      app: w.git('show', ':src/app.txt'),
      edited: w.git('show', ':staged-then-edited.txt'),
    };
    const result = await w.loop('run', [], { onComplete: 'keep' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe(w.branch);
    expect(result.stdout).toContain(`is saved as ${REF}`);
    expect(w.git('show', `${REF}:src/app.txt`)).toBe(staged.app);
    expect(w.git('show', `${REF}:staged-then-edited.txt`)).toBe(staged.edited);
    expect(w.read('src/app.txt')).toBe('app v3 not staged\n');
    expect(w.read('staged-then-edited.txt')).toBe('second\n');
    expect(w.userFilesChanged()).toEqual([]);
  });
});

describe('staged versions when the original branch moved on during the run', () => {
  it('a file committed on the original branch since the start keeps that commit’s version staged', async () => {
    const w = stagedWorld(false);
    w.scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [{ say: 'working' }, { hang: true }],
    });
    await crashWhileAgentRuns(w, 'working');
    // Meanwhile, in another worktree, the user commits their work-tree version of a file they
    // had staged in another version at the start.
    const other = path.join(w.scratch, 'other');
    w.git('worktree', 'add', '-q', other, 'main');
    writeFileSync(path.join(other, 'staged-then-edited.txt'), 'second\n');
    execFileSync('git', ['-C', other, 'add', 'staged-then-edited.txt'], { env: cleanGitEnv() });
    execFileSync('git', ['-C', other, 'commit', '-q', '-m', 'user commit elsewhere'], {
      env: cleanGitEnv(),
    });
    execFileSync('git', ['-C', other, 'checkout', '-q', '--detach'], { env: cleanGitEnv() });

    const finished = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    // Staging 'first' again would undo the user's commit in the index: it is named instead.
    expect(w.git('show', ':staged-then-edited.txt')).toBe('second\n');
    expect(finished.stderr).toContain(`(staged-then-edited.txt) is saved as ${REF}`);
    expect(w.git('show', `${REF}:staged-then-edited.txt`)).toBe('first\n');
    expect(w.git('show', ':src/app.txt')).toBe('app v2 staged\r\n');
    expect(w.git('show', ':staged-new.txt')).toBe('new and staged\n');
  });
});
