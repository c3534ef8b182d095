import { branchSha } from '../git/repo.js';
import { pushRefs, type PushResult, type PushUpdate } from '../git/remote.js';
import type { GitContext } from '../git/git.js';
import { ralphBranch } from '../checkpoint/paths.js';
import { claimRef, runRefspecs } from './names.js';

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
  claimSha?: string,
): Promise<PushResult> {
  const withBranch = (await branchSha(ctx, ralphBranch(change))) !== null;
  const updates: PushUpdate[] = runRefspecs(change, withBranch).map((spec) => ({
    ...spec,
    force: true,
  }));
  // The claim rides along unchanged, leased: if another machine took it over, the atomic push
  // refuses every ref, so a machine that lost its claim can never overwrite the run's refs.
  if (claimSha !== undefined) {
    updates.push({ src: claimSha, dst: claimRef(change), force: true, expect: claimSha });
  }
  return pushRefs(ctx, remote, updates);
}
