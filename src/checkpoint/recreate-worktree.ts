import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { messageOf } from '../core/error-details.js';
import { UsageError } from '../core/errors.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import { branchSha, locateRepo } from '../git/repo.js';
import type { RunPaths } from './paths.js';
import { readRunState, writeRunState, type RunState } from './state.js';
import { branchElsewhere, holderOf, listWorktrees } from './worktrees.js';

/**
 * A run in a worktree of its own whose worktree folder is gone (deleted by hand, or given back
 * by a keep of an incomplete run): `git worktree prune` forgets the old entry, and
 * `git worktree add <dir> <branch>` makes it again at the recorded path from the run's branch,
 * where every checkpoint is. The record's `worktree.gitDir` follows when git names the new one
 * differently. The caller holds the change's lock; the run carries on from its last checkpoint.
 * Refuses (nothing made) when the branch is gone or checked out elsewhere. Returns the state
 * as recorded now.
 */
export async function recreateRunWorktree(
  homeCtx: GitContext,
  paths: RunPaths,
  state: RunState,
): Promise<RunState> {
  const dir = state.worktree?.root;
  if (!dir || !state.home) return state;
  await git(homeCtx, ['worktree', 'prune'], { allowFailure: true });
  if (existsSync(dir)) return state;
  if ((await branchSha(homeCtx, state.branch)) === null) {
    if (state.baseSha === null) {
      // The start stopped before its first commit, and its worktree went: no work exists.
      throw new UsageError(
        `the start of ${state.change} stopped before its first commit and its worktree ${dir} is gone: nothing of the run exists; forget it by deleting the folder ${paths.dir}, then run it again`,
      );
    }
    throw new UsageError(
      `the worktree of the run of ${state.change}, ${dir}, is missing and so is its branch ${state.branch}: nothing is left to carry on from; \`ralphtool finish ${state.change} --cleanup\` forgets the run`,
    );
  }
  const holder = holderOf(await listWorktrees(homeCtx), state.branch, null);
  if (holder !== null) throw branchElsewhere(state.branch, holder);
  try {
    await mkdir(dirname(dir), { recursive: true });
  } catch (error) {
    throw new UsageError(
      `cannot recreate the worktree ${dir} (${messageOf(error)}): its work is on ${state.branch}`,
    );
  }
  await git(homeCtx, ['worktree', 'add', '-q', dir, state.branch], {
    context: `could not recreate the worktree ${dir} from ${state.branch}`,
  });
  const located = await locateRepo({
    cwd: dir,
    timeoutMs: homeCtx.timeoutMs,
    baseEnv: homeCtx.baseEnv,
  });
  const recorded = (await readRunState(paths.state)) ?? state;
  if (located === null || located.gitDir === recorded.worktree?.gitDir) return recorded;
  const updated: RunState = { ...recorded, worktree: { root: dir, gitDir: located.gitDir } };
  await writeRunState(paths.state, updated);
  return updated;
}
