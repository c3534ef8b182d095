import { mkdir } from 'node:fs/promises';
import type { GitContext } from '../git/git.js';
import { GitError } from '../git/git-error.js';
import { resolveCommit, treeOf } from '../git/repo.js';
import type { RepoLocation } from '../git/repo.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { indexFile } from './run-git.js';

/**
 * The user's work tree as they have it (HEAD plus their uncommitted and untracked, not ignored
 * files) as a tree object, through a temporary index in `scratchDir`: their index, HEAD and
 * files are not touched. What a run in a worktree of its own brings its work back into
 * (the cleanup) and what the merge check checks the runs' branches against.
 */
export async function snapshotHome(
  ctx: GitContext,
  repo: RepoLocation,
  scratchDir: string,
): Promise<string> {
  await mkdir(scratchDir, { recursive: true });
  // The user keeps working while this reads their tree: a file deleted between git listing it
  // and reading it fails the `add`. Read again (the tree is whatever it is at that moment).
  for (let attempt = 1; ; attempt += 1) {
    try {
      const head = await resolveCommit(ctx, 'HEAD');
      return await snapshotWorkTree(ctx, {
        scratchDir,
        // Their index only lends its cached file stats (fewer files hashed again); it is copied.
        startIndex: indexFile(repo),
        // Files tracked in HEAD and deleted in the work tree count as deleted.
        baseTree: head === null ? null : await treeOf(ctx, head),
      });
    } catch (error) {
      if (attempt >= SNAPSHOT_TRIES || !(error instanceof GitError) || error.timedOut) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** How often the user's tree is read before a failure to read it is reported. */
const SNAPSHOT_TRIES = 4;
