import { branchSha } from '../git/repo.js';
import { pushRefs, type PushResult, type PushUpdate } from '../git/remote.js';
import type { GitContext } from '../git/git.js';
import { ralphBranch } from '../checkpoint/paths.js';
import { claimRef, runRefspecs } from './names.js';

/**
 * Pushes the run's refs (the branch at `branchAt`, the attempt refs, the record) to the remote
 * in one atomic push. The branch is pushed at the checkpoint the record names, not at whatever
 * the local branch is at that moment, so the remote's branch and record always agree (an accept
 * may move the local branch between the record's writing and the push). Forced: while the
 * change's claim is held these refs are this machine's alone, and `run --force` may move the
 * branch to a commit that is not a descendant of what the remote has.
 */
export async function pushRun(
  ctx: GitContext,
  remote: string,
  change: string,
  at: { branchAt: string | null; claimSha?: string },
): Promise<PushResult> {
  const branch = `refs/heads/${ralphBranch(change)}`;
  const withBranch = at.branchAt !== null && (await branchSha(ctx, ralphBranch(change))) !== null;
  const updates: PushUpdate[] = runRefspecs(change, false).map((spec) => ({
    ...spec,
    force: true,
  }));
  if (withBranch && at.branchAt !== null) {
    updates.unshift({ src: at.branchAt, dst: branch, force: true });
  }
  // The claim rides along unchanged, leased: if another machine took it over, the atomic push
  // refuses every ref, so a machine that lost its claim can never overwrite the run's refs.
  if (at.claimSha !== undefined) {
    updates.push({ src: at.claimSha, dst: claimRef(change), force: true, expect: at.claimSha });
  }
  return pushRefs(ctx, remote, updates);
}
