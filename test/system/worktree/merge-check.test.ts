import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPaths } from '../../../src/checkpoint/paths.js';
import { writeRunState, type RunState } from '../../../src/checkpoint/state.js';
import { checkMerges } from '../../../src/run/many/merge-check.js';
import { cleanGitEnv, makeTempRepo, type TempRepo } from '../../support/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

const FILES = {
  'README.md': '# demo\n',
  'src/app.txt': 'one\ntwo\nthree\n',
  'src/lib.txt': 'lib\n',
};

/**
 * A commit on `parent` with `files` written (null: deleted), made with plumbing and a
 * temporary index, so that the user's work tree, index and HEAD are not touched.
 */
function commitFiles(
  r: TempRepo,
  parent: string,
  files: Record<string, string | null>,
  message: string,
): string {
  const index = path.join(r.dir, '.git', `test-index-${String(process.pid)}`);
  const env = { ...cleanGitEnv(), GIT_INDEX_FILE: index };
  const run = (args: string[], input?: string) =>
    execFileSync('git', args, { cwd: r.dir, env, encoding: 'utf8', input }).trim();
  try {
    run(['read-tree', parent]);
    for (const [file, content] of Object.entries(files)) {
      if (content === null) {
        run(['update-index', '--force-remove', '--', file]);
      } else {
        const blob = run(['hash-object', '-w', '--stdin'], content);
        run(['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`]);
      }
    }
    return run(['commit-tree', run(['write-tree']), '-p', parent, '-m', message]);
  } finally {
    rmSync(index, { force: true });
  }
}

/**
 * What a finished run in a worktree leaves: `ralph/<change>` with an "initial state" commit on
 * the user's commit (holding `initial`, e.g. the change's folder as the user had it), one
 * checkpoint with `work` (none: no story accepted), and its state.json.
 */
async function finishedRun(
  r: TempRepo,
  change: string,
  work: Record<string, string | null> | null,
  initial: Record<string, string | null> = {},
): Promise<void> {
  const start = r.git('rev-parse', 'HEAD').trim();
  const base = commitFiles(r, start, initial, 'initial state');
  const tip = work === null ? base : commitFiles(r, base, work, 'checkpoint: 1');
  r.git('update-ref', `refs/heads/ralph/${change}`, tip);
  const now = new Date().toISOString();
  const state: RunState = {
    version: 1,
    change,
    branch: `ralph/${change}`,
    originalBranch: { kind: 'branch', name: 'main' },
    originalSha: start,
    baseSha: base,
    checkpointSha: tip,
    status: 'active',
    outcome: null,
    choice: null,
    step: null,
    stories: {},
    currentStory: null,
    currentAttempt: null,
    costUsd: 0,
    startedAt: now,
    updatedAt: now,
    pid: null,
    agentPgid: null,
    agentIdentity: null,
    host: 'test',
  };
  await writeRunState(runPaths(path.join(r.dir, '.git'), change).state, state);
}

function check(r: TempRepo, changes: string[]) {
  return checkMerges({
    cwd: r.dir,
    timeoutMs: 30_000,
    env: process.env,
    runs: changes.map((change) => ({ change, branch: `ralph/${change}` })),
  });
}

/** Everything the check must leave alone: HEAD, refs, index, work tree status. */
function userSide(r: TempRepo) {
  return {
    head: r.git('rev-parse', 'HEAD'),
    refs: r.git('for-each-ref', '--format=%(refname) %(objectname)'),
    status: r.git('status', '--porcelain=v1', '-uall'),
    index: r.git('ls-files', '--stage'),
    indexBytes: readFileSync(path.join(r.dir, '.git', 'index')),
  };
}

describe('checkMerges: the finished branches against each other and the user work tree', () => {
  it('reports an order when branches touch different files, next to the user uncommitted work, touching nothing', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'add-a', { 'src/a.txt': 'a\n' });
    await finishedRun(r, 'add-b', { 'src/lib.txt': 'lib b\n', 'docs/b.md': 'b\n' });
    // The user's own work meanwhile: a staged edit, an unstaged edit, an untracked file.
    r.write('README.md', '# demo, edited\n');
    r.git('add', 'README.md');
    r.write('src/app.txt', 'one\ntwo\nthree\nfour\n');
    r.write('notes.txt', 'mine\n');
    const before = userSide(r);

    const report = await check(r, ['add-a', 'add-b']);
    expect(report).toEqual({
      against: 'main',
      checked: ['add-a', 'add-b'],
      conflicts: [],
      order: ['add-a', 'add-b'],
    });
    expect(userSide(r)).toEqual(before);
  });

  it('names the pair of branches that edit the same lines, with the files, and gives no order', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'add-a', { 'src/app.txt': 'one\nTWO-a\nthree\n', 'README.md': '# A\n' });
    await finishedRun(r, 'add-b', { 'src/b.txt': 'b\n' });
    await finishedRun(r, 'add-c', { 'src/app.txt': 'one\nTWO-c\nthree\n', 'README.md': '# C\n' });
    const report = await check(r, ['add-a', 'add-b', 'add-c']);
    expect(report.order).toBeNull();
    expect(report.checked).toEqual(['add-a', 'add-b', 'add-c']);
    expect(report.conflicts).toHaveLength(1);
    expect(report.conflicts[0]?.a).toBe('add-a');
    expect(report.conflicts[0]?.b).toBe('add-c');
    expect([...(report.conflicts[0]?.files ?? [])].sort()).toEqual(['README.md', 'src/app.txt']);
  });

  it('names a branch that collides with the user uncommitted edit, and one that collides with a commit they made since', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'edit-app', { 'src/app.txt': 'one\nTWO-run\nthree\n' });
    await finishedRun(r, 'edit-lib', { 'src/lib.txt': 'lib run\n' });
    r.write('src/lib.txt', 'lib user\n');
    r.git('commit', '-qam', 'user work on main');
    r.write('src/app.txt', 'one\nTWO-user\nthree\n');
    const before = userSide(r);
    const report = await check(r, ['edit-app', 'edit-lib']);
    expect(report.order).toBeNull();
    expect(report.conflicts).toEqual([
      { a: 'edit-app', b: 'main', files: ['src/app.txt'] },
      { a: 'edit-lib', b: 'main', files: ['src/lib.txt'] },
    ]);
    expect(userSide(r)).toEqual(before);
  });

  it('applies next to commits the user made since on other files', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'edit-app', { 'src/app.txt': 'one\nTWO-run\nthree\n' });
    r.write('src/lib.txt', 'lib user\n');
    r.git('commit', '-qam', 'user work on main');
    const report = await check(r, ['edit-app']);
    expect(report.conflicts).toEqual([]);
    expect(report.order).toEqual(['edit-app']);
  });

  it('sees a deletion in the user work tree: a branch editing the deleted file conflicts', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'edit-lib', { 'src/lib.txt': 'lib run\n' });
    rmSync(path.join(r.dir, 'src/lib.txt'));
    const report = await check(r, ['edit-lib']);
    expect(report.conflicts).toEqual([{ a: 'edit-lib', b: 'main', files: ['src/lib.txt'] }]);
  });

  it('does not count as a conflict the change folder the user has not committed, which the run ticked', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    // The user wrote both changes' folders and committed neither; each run started with its
    // folder copied in (its "initial state") and ticked its tasks.
    const tasks = (change: string, mark: string) => `## 1. ${change}\n\n- [${mark}] 1.1 do it\n`;
    for (const change of ['add-a', 'add-b']) {
      r.write(`openspec/changes/${change}/tasks.md`, tasks(change, ' '));
      await finishedRun(
        r,
        change,
        {
          [`openspec/changes/${change}/tasks.md`]: tasks(change, 'x'),
          [`src/${change}.txt`]: 'x\n',
        },
        { [`openspec/changes/${change}/tasks.md`]: tasks(change, ' ') },
      );
    }
    const report = await check(r, ['add-a', 'add-b']);
    expect(report.conflicts).toEqual([]);
    expect(report.order).toEqual(['add-a', 'add-b']);
  });

  it('leaves out branches with no story accepted and runs that never made a branch', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'nothing-done', null);
    await finishedRun(r, 'done', { 'src/done.txt': 'd\n' });
    const report = await check(r, ['nothing-done', 'never-started', 'done']);
    expect(report).toEqual({ against: 'main', checked: ['done'], conflicts: [], order: ['done'] });
  });

  it('names a detached HEAD by its commit', async () => {
    repo = makeTempRepo(FILES);
    const r = repo;
    await finishedRun(r, 'add-a', { 'src/a.txt': 'a\n' });
    r.git('switch', '-q', '--detach', 'main');
    const report = await check(r, ['add-a']);
    expect(report.against).toBe(r.git('rev-parse', 'HEAD').trim().slice(0, 12));
  });
});
