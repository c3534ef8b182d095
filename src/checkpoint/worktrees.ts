import { existsSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import type { RepoLocation } from '../git/repo.js';
import type { RunState } from './state.js';

/** One work tree of the repository as `git worktree list --porcelain` describes it. */
export interface WorktreeEntry {
  root: string;
  /** The branch checked out there (short name); null when detached or bare. */
  branch: string | null;
}

export async function listWorktrees(ctx: GitContext): Promise<WorktreeEntry[]> {
  const out = await git(ctx, ['worktree', 'list', '--porcelain', '-z'], { allowFailure: true });
  if (out.exitCode !== 0) return [];
  const entries: WorktreeEntry[] = [];
  for (const field of out.stdout.split('\0')) {
    if (field.startsWith('worktree ')) {
      entries.push({ root: field.slice('worktree '.length), branch: null });
    } else if (field.startsWith('branch refs/heads/') && entries.length > 0) {
      entries[entries.length - 1]!.branch = field.slice('branch refs/heads/'.length);
    }
  }
  return entries;
}

/** The work tree other than `exceptRoot` that has `branch` checked out, if any. */
export function holderOf(
  trees: readonly WorktreeEntry[],
  branch: string,
  exceptRoot: string | null,
): string | null {
  return trees.find((t) => t.branch === branch && t.root !== exceptRoot)?.root ?? null;
}

/**
 * The work tree a run belongs to: the recorded one while it still exists; for a record
 * written before runs recorded it, the work tree its branch is checked out in. Null when it
 * cannot be told (then any work tree of the repository may carry the run on).
 */
export function runWorktreeRoot(state: RunState, trees: readonly WorktreeEntry[]): string | null {
  const recorded = state.worktree;
  if (recorded) {
    return existsSync(recorded.root) && existsSync(recorded.gitDir) ? recorded.root : null;
  }
  return holderOf(trees, state.branch, null);
}

/** True when `repo` is the work tree the recorded run belongs to (or it cannot be told). */
export function isRunWorktree(
  state: RunState,
  repo: RepoLocation,
  runRoot: string | null,
): boolean {
  if (runRoot === null) return true;
  if (state.worktree && existsSync(state.worktree.gitDir)) {
    return state.worktree.gitDir === repo.gitDir;
  }
  return runRoot === repo.root;
}

/**
 * Refuses (nothing changed) to act on an active run from another work tree than its own, or
 * while its branch is checked out in another work tree: a reset, clean or checkout would
 * otherwise land on the wrong files, or git would refuse half-way.
 * `retry` is the command to run in the right place (`resume <change>`, …).
 */
export async function assertRunWorktree(
  ctx: GitContext,
  repo: RepoLocation,
  state: RunState,
  retry: string,
): Promise<void> {
  if (state.status !== 'active') return;
  const trees = await listWorktrees(ctx);
  const runRoot = runWorktreeRoot(state, trees);
  if (!isRunWorktree(state, repo, runRoot) && runRoot !== null) {
    throw new UsageError(
      `the run of ${state.change} belongs to the worktree ${runRoot}, not to this one (${repo.root}): run it there with \`ralphtool -C ${runRoot} ${retry}\``,
    );
  }
  const elsewhere = holderOf(trees, state.branch, repo.root);
  if (elsewhere !== null) throw branchElsewhere(state.branch, elsewhere);
}

export function branchElsewhere(branch: string, root: string): UsageError {
  return new UsageError(
    `branch ${branch} is also checked out in the worktree ${root}, so the run cannot use it: free it with \`git -C ${root} switch --detach\` (its files stay as they are)`,
  );
}

/**
 * Check before a cleanup: git cannot check out the original branch while another work tree
 * has it, and would refuse only after the cleanup had begun.
 */
export async function assertOriginalFree(
  ctx: GitContext,
  repo: RepoLocation,
  state: RunState,
): Promise<void> {
  if (state.originalBranch.kind === 'detached') return;
  const name = state.originalBranch.name;
  const elsewhere = holderOf(await listWorktrees(ctx), name, repo.root);
  if (elsewhere !== null) {
    throw new UsageError(
      `your branch ${name} is checked out in the worktree ${elsewhere}, so the cleanup cannot go back to it: free it with \`git -C ${elsewhere} switch --detach\` (its files stay as they are), then \`ralphtool finish ${state.change} --cleanup\` again`,
    );
  }
}
