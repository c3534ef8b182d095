import type { GitContext } from '../git/git.js';
import { removeRunWorktree } from './run-worktree.js';
import type { RunHome, RunState } from './state.js';

/**
 * A git context on the user's work tree a run in a worktree of its own came from, made from the
 * run's engine context (same timeouts, config and environment; git directory pinned there).
 */
export function homeContext(runCtx: GitContext, home: RunHome): GitContext {
  return {
    ...runCtx,
    cwd: home.root,
    env: { ...runCtx.env, GIT_DIR: home.gitDir, GIT_WORK_TREE: home.root },
  };
}

/**
 * After `keep` of a run in a worktree of its own (complete, final, or kept incomplete): the
 * work is all on the run's branch, so the worktree is given back unless `--keep-worktree`
 * asked to leave it. A kept-incomplete run loses its worktree too: `resume` recreates it from
 * the branch. Git itself refuses a worktree holding changes or untracked files that are in no
 * commit, or one the user locked (`git worktree lock`): then nothing is deleted and the returned
 * notice says where it is and why it stays. Null when there is nothing to say.
 */
export async function giveWorktreeBack(
  runCtx: GitContext,
  state: RunState,
): Promise<string | null> {
  const home = state.home;
  const dir = state.worktree?.root;
  if (!home || !dir || home.keepWorktree) return null;
  if (await removeRunWorktree(homeContext(runCtx, home), dir)) return null;
  return `the worktree ${dir} stays: git would not remove it (it holds changes that are in no commit, or it is locked: \`git worktree list\`); the run's work is on ${state.branch}, so once you have what you need from it, \`git worktree remove ${dir}\``;
}
