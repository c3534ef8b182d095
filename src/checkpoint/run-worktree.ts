import { existsSync } from 'node:fs';
import { cp, mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { messageOf } from '../core/error-details.js';
import { UsageError } from '../core/errors.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import { runWorktreeDir, worktreeParentInside } from './paths.js';
import { listWorktrees } from './worktrees.js';

export interface RunWorktreeRequest {
  /** The engine context of the user's work tree (hooks off, git dir pinned). */
  homeCtx: GitContext;
  /** Top of the user's work tree. */
  homeRoot: string;
  /** `--worktree-parent` (absolute), or null: beside the user's work tree. */
  parent: string | null;
  change: string;
  /** The commit the worktree starts from: the user's HEAD. */
  sha: string;
  /**
   * The change's folder in the user's work tree (`openspec/changes/<change>`): copied into the
   * worktree as it is there, committed or not, so that a change the user has not committed yet
   * can run.
   */
  changeDir: string;
}

/**
 * Creates the worktree a run of `change` works in (`git worktree add --detach` at the user's
 * commit, see `runWorktreeDir`) with the change's folder as the user has it. Refuses (nothing
 * made) when the folder exists already. Returns the worktree's top directory.
 */
export async function createRunWorktree(req: RunWorktreeRequest): Promise<string> {
  const inside = req.parent === null ? null : worktreeParentInside(req.homeRoot, req.parent);
  if (inside !== null) throw new UsageError(inside);
  const dir = runWorktreeDir(req.homeRoot, req.change, req.parent);
  if (existsSync(dir)) {
    const registered = (await listWorktrees(req.homeCtx)).some((t) => t.root === dir);
    throw new UsageError(
      registered
        ? `${dir} is already a worktree of this repository: end the run that uses it (\`ralphtool status\`), or remove it with \`git worktree remove ${dir}\``
        : `${dir} exists and is not this run's worktree: move it away or delete it, then start again`,
    );
  }
  try {
    await mkdir(dirname(dir), { recursive: true });
  } catch (error) {
    throw new UsageError(
      `cannot create the worktree folder ${dirname(dir)} (${messageOf(error)}): ${req.parent === null ? '--worktree needs to write beside your work tree, or name a folder it can write in with --worktree-parent' : 'name a folder ralphtool can write in with --worktree-parent'}`,
    );
  }
  // A worktree whose folder the user deleted by hand stays registered until pruned; git would
  // refuse to add one at its path ("missing but already registered").
  await git(req.homeCtx, ['worktree', 'prune'], { allowFailure: true });
  await git(req.homeCtx, ['worktree', 'add', '--detach', '-q', dir, req.sha], {
    context: `could not create the worktree ${dir}`,
  });
  try {
    const target = join(dir, relative(req.homeRoot, req.changeDir));
    await rm(target, { recursive: true, force: true });
    await cp(req.changeDir, target, { recursive: true, verbatimSymlinks: true });
  } catch (error) {
    await removeFreshWorktree(req.homeCtx, dir);
    throw new UsageError(
      `could not copy the change's folder ${req.changeDir} into the worktree (${messageOf(error)})`,
    );
  }
  return dir;
}

/**
 * Removes a worktree `createRunWorktree` made when the start was refused before anything was
 * recorded: it holds a checkout of a commit and a copy of the change's folder, nothing else.
 */
export async function removeFreshWorktree(homeCtx: GitContext, dir: string): Promise<void> {
  await git(homeCtx, ['worktree', 'remove', '--force', dir], { allowFailure: true });
  await rm(dir, { recursive: true, force: true });
  await git(homeCtx, ['worktree', 'prune'], { allowFailure: true });
  await removeEmptyParent(dir);
}

/**
 * Removes a run's worktree at the end of the run (keep without `--keep-worktree`, or a cleanup
 * once the work is home). `git worktree remove` without `--force` refuses a worktree holding
 * tracked changes or untracked files, so nothing that is not in a commit or ref goes with it;
 * its ignored files (dependencies, build output the agent made) do. A folder already gone is
 * pruned from git's list. Returns false when git refused (the caller says so; nothing lost).
 */
export async function removeRunWorktree(homeCtx: GitContext, dir: string): Promise<boolean> {
  if (existsSync(dir)) {
    const removed = await git(homeCtx, ['worktree', 'remove', dir], { allowFailure: true });
    if (removed.exitCode !== 0) return false;
  }
  await git(homeCtx, ['worktree', 'prune'], { allowFailure: true });
  await removeEmptyParent(dir);
  return true;
}

/**
 * The `<repo>.ralph/` folder the run worktrees live in (paths.ts, `runWorktreeDir`) goes with
 * its last worktree: an empty folder beside the user's repository is litter. `rmdir` removes
 * only an empty folder, so another run's worktree (or anything the user put there) keeps it.
 */
async function removeEmptyParent(dir: string): Promise<void> {
  const parent = dirname(dir);
  if (!parent.endsWith('.ralph')) return;
  await rmdir(parent).catch(() => undefined);
}
