import { commitTree } from '../git/commit.js';
import { git, gitOut } from '../git/git.js';
import { attemptRef } from './paths.js';
import type { RunGit } from './run-git.js';

/**
 * Files written into the tree after a cleanup was interrupted (by the user, an editor, a
 * process the run left): the squash cannot tell them from its own half-done work, and
 * `git merge --squash` refuses to overwrite them. So the whole tree is saved as a commit under
 * an attempt ref (`late-<time>`, listed and pruned with the attempts), the files put back to
 * HEAD (ignored files untouched), and the cleanup carries on. Returns the ref.
 */
export async function setAsideLateWrites(
  g: RunGit,
  filesTree: string,
  tip: string,
): Promise<string> {
  const { ctx } = g;
  const head = await gitOut(ctx, ['rev-parse', '--verify', 'HEAD^{commit}']);
  const ref = attemptRef(g.change, `late-${Date.now()}`, 0);
  const saved = await commitTree(
    ctx,
    filesTree,
    [head, tip],
    `ralphtool: files found in the tree when the interrupted cleanup of ${g.change} resumed`,
  );
  await git(ctx, ['update-ref', '-m', 'ralphtool: set aside late writes', ref, saved], {
    context: 'could not save the files written since the interruption',
  });
  await git(ctx, ['reset', '-q', '--hard', 'HEAD'], { context: 'could not reset the files' });
  await git(ctx, ['clean', '-q', '-f', '-d'], { context: 'could not remove untracked files' });
  return ref;
}
