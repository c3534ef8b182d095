import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { StepObserver } from '../../src/checkpoint/journal.js';
import { engineContext } from '../../src/checkpoint/run-git.js';
import { createRunWorktree } from '../../src/checkpoint/run-worktree.js';
import { startRun } from '../../src/checkpoint/start.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';

/** The change of the worktree runs of the crash-row tests, and its tasks.md. */
export const WORKTREE_CHANGE = 'journal';
export const WORKTREE_TASKS = `openspec/changes/${WORKTREE_CHANGE}/tasks.md`;

/**
 * A user's repository (`app.txt`, the change's tasks.md with one story, committed on main) with
 * a run of the change started in a worktree of its own, as `run --worktree` starts it; the
 * repository goes into `repos` for the test file to remove.
 */
export async function startWorktreeRun(observeSteps: StepObserver, repos: TempRepo[]) {
  const r = makeRepo();
  repos.push(r);
  r.write('app.txt', 'app\n');
  r.write(WORKTREE_TASKS, '## 1. One\n\n- [ ] 1.1 Do it\n');
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'base');
  const root = realpathSync(r.dir);
  const gitDir = join(root, '.git');
  const sha = r.git('rev-parse', 'HEAD');
  const worktree = await createRunWorktree({
    homeCtx: engineContext(
      { root, gitDir, gitCommonDir: gitDir },
      { timeoutMs: 30_000, baseEnv: process.env },
    ),
    homeRoot: root,
    parent: null,
    change: WORKTREE_CHANGE,
    sha,
    changeDir: join(root, 'openspec/changes', WORKTREE_CHANGE),
  });
  const run = await startRun({
    ...runLocation(worktree, WORKTREE_CHANGE),
    observeSteps,
    home: {
      home: { root, gitDir, keepWorktree: false },
      head: { kind: 'branch', name: 'main', sha },
    },
  });
  return { r, run, worktree };
}
