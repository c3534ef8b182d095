import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import { branchSha, resolveCommit, treeOf } from '../git/repo.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { indexFile } from './run-git.js';
import type { RunGit } from './run-git.js';

/**
 * Saves the work tree as it is under `ref` without touching the files, the index or HEAD: an
 * accepted attempt whose edit is about to be changed (tasks.md restored outside its story) keeps
 * the agent's own version this way. An earlier save under the same ref stays a parent.
 */
export async function saveWorkTree(
  g: RunGit,
  opts: { checkpoint: string; ref: string; label: string },
): Promise<string> {
  const { ctx, repo } = g;
  const tree = await snapshotWorkTree(ctx, {
    scratchDir: g.paths.dir,
    startIndex: indexFile(repo),
    baseTree: await treeOf(ctx, opts.checkpoint),
  });
  const previous = await resolveCommit(ctx, opts.ref);
  const moved = [await resolveCommit(ctx, 'HEAD'), await branchSha(ctx, g.branch)].filter(
    (sha): sha is string => sha !== null && sha !== opts.checkpoint,
  );
  const parents = [...new Set([opts.checkpoint, ...moved, ...(previous ? [previous] : [])])];
  const saved = await commitTree(
    ctx,
    tree,
    parents,
    `ralphtool: attempt ${opts.label} of ${g.change}`,
  );
  await git(ctx, ['update-ref', '-m', 'ralphtool: save attempt', opts.ref, saved], {
    context: 'could not save the attempt',
  });
  return saved;
}
