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

/**
 * Commits on the run's branch past its checkpoint (a fix the user committed there after a crash,
 * or the agent's own commits) are kept with their history under
 * `refs/ralphtool/<change>/commits/<ms>` before a revert moves the branch back, and named (short
 * sha and subject, newest first, at most 5). Null when the branch has none.
 */
export async function keepCommitsPastCheckpoint(
  ctx: RunGit['ctx'],
  change: string,
  branch: string,
  checkpoint: string,
): Promise<{ ref: string; commits: string[] } | null> {
  const tip = await branchSha(ctx, branch);
  if (tip === null || tip === checkpoint) return null;
  const log = await git(ctx, ['log', '--format=%h %s', `${checkpoint}..${tip}`, '--'], {
    allowFailure: true,
  });
  const commits = log.stdout.split('\n').filter((line) => line !== '');
  if (log.exitCode !== 0 || commits.length === 0) return null;
  const ref = `refs/ralphtool/${change}/commits/${String(Date.now())}`;
  await git(ctx, ['update-ref', ref, tip], { context: `could not keep the commits on ${branch}` });
  return { ref, commits: commits.slice(0, 5) };
}
