import { branchSha } from '../git/repo.js';
import { pushRefs, type PushResult } from '../git/remote.js';
import type { GitContext } from '../git/git.js';
import { ralphBranch } from '../checkpoint/paths.js';
import { runRefspecs } from './names.js';

/**
 * Pushes the run's refs (the branch while it exists, the attempt refs, the record) to the
 * remote in one atomic push, each forced: while the change's claim is held these refs are this
 * machine's alone, and `run --force` or a keep may move the branch to a commit that is not a
 * descendant of what the remote has.
 */
export async function pushRun(
  ctx: GitContext,
  remote: string,
  change: string,
): Promise<PushResult> {
  const withBranch = (await branchSha(ctx, ralphBranch(change))) !== null;
  const updates = runRefspecs(change, withBranch).map((spec) => ({ ...spec, force: true }));
  return pushRefs(ctx, remote, updates);
}
