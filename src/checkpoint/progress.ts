import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import { treeOf } from '../git/repo.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { leaveIgnoredOutOfTree } from './leave-out.js';
import { attemptName } from './paths.js';
import type { RepoGuard } from './repo-guard.js';
import { indexFile, type RunGit } from './run-git.js';

/**
 * `refs/ralphtool/<change>/progress`: the work so far of the attempt going on, saved while it
 * runs (docs/contract.md, "Continue anywhere"), so that a machine that dies mid-attempt leaves
 * it on the remote. Present only while an attempt runs.
 */
export function progressRef(change: string): string {
  return `refs/ralphtool/${change}/progress`;
}

/** The first line of a progress commit's message, naming its attempt. */
export function progressSubject(storyId: string, attempt: number): string {
  return `ralphtool progress: ${attemptName(storyId, attempt)}`;
}

/**
 * Saves the work tree as it is now (tracked changes and untracked files, never a file ignored
 * at the start) as a commit on the checkpoint under the progress ref, the way a failed attempt
 * is saved but without touching the files, the index or HEAD, and without putting back anything
 * the agent changed (that is the next sequence's job).
 */
export async function saveProgress(
  g: RunGit,
  guard: RepoGuard,
  at: { checkpoint: string; storyId: string; attempt: number },
): Promise<string> {
  const snapshot = await snapshotWorkTree(g.ctx, {
    scratchDir: g.paths.dir,
    startIndex: indexFile(g.repo),
    baseTree: await treeOf(g.ctx, at.checkpoint),
  });
  const { tree } = await leaveIgnoredOutOfTree(g, guard, snapshot, at.checkpoint);
  const commit = await commitTree(
    g.ctx,
    tree,
    [at.checkpoint],
    progressSubject(at.storyId, at.attempt),
    'could not save the attempt in progress',
  );
  await git(g.ctx, ['update-ref', progressRef(g.change), commit], {
    context: 'could not save the attempt in progress',
  });
  return commit;
}

/** Forgets the progress ref (the attempt it saved has ended). */
export async function forgetProgress(g: RunGit): Promise<void> {
  await git(g.ctx, ['update-ref', '-d', progressRef(g.change)], { allowFailure: true });
}
